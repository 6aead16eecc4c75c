//! An instance's settings (lua-cjson's `json_config_t`) and lua-cjson's
//! configuration functions over them, written as lua-cjson's own C
//! functions are (`json_arg_init`, `json_integer_option`,
//! `json_enum_option` with the host's `luaL_check*`), so their arguments,
//! ranges, return values and messages are that Lua version's lua-cjson.
//! The settings are a userdata, the first upvalue of every function of an
//! instance (`qjson`, `qjson.cjson`, each `new()`).

use std::ffi::{c_char, c_int, CStr};

use crate::lua::{self, lua_fn, sys, Ret, State};

pub const CONFIG: &CStr = c"qjson.config";

pub struct Config {
    pub sparse_convert: c_int,
    pub sparse_ratio: c_int,
    pub sparse_safe: c_int,
    pub encode_max_depth: c_int,
    pub decode_max_depth: c_int,
    pub precision: c_int,
    /// 0 raise, 1 write `NaN`/`Infinity`, 2 write `null` (lua-cjson's order).
    pub invalid_numbers: c_int,
    pub decode_invalid_numbers: c_int,
    pub empty_table_as_object: c_int,
    pub escape_slash: c_int,
    pub skip_unsupported: c_int,
    pub keep_buffer: c_int,
    pub array_with_array_mt: c_int,
    pub allow_comment: c_int,
    /// `encode_indent`'s unit, empty for none.
    pub indent: Vec<u8>,
    /// lua-cjson's behaviour where qjson's differs (`qjson.cjson`): a
    /// cycle reported as excessive nesting, invalid numbers decoded by
    /// default.
    pub dropin: bool,
}

impl Config {
    pub fn new(dropin: bool) -> Config {
        Config {
            sparse_convert: 0,
            sparse_ratio: 2,
            sparse_safe: 10,
            encode_max_depth: 1000,
            decode_max_depth: 1000,
            precision: 14,
            invalid_numbers: 0,
            // qjson is strict by default; lua-cjson's default is on.
            decode_invalid_numbers: dropin as c_int,
            empty_table_as_object: 1,
            escape_slash: 1,
            skip_unsupported: 0,
            keep_buffer: 1,
            array_with_array_mt: 0,
            allow_comment: 0,
            indent: Vec::new(),
            dropin,
        }
    }
}

/// The settings of the running C closure (its upvalue 1).
pub unsafe fn of<'a>(l: State) -> &'a mut Config {
    // SAFETY: every function of an instance has its Config userdata as
    // upvalue 1, alive as long as the closure is.
    unsafe {
        let p = sys::lua_touserdata(l, sys::lua_upvalueindex(1)).cast::<Option<Config>>();
        (*p).as_mut().expect("an instance's settings live as long as its functions")
    }
}

/// The settings of the userdata at `ud` whose user value they are (a
/// patcher's or a validator's: set by `doc::set_anchor`).
pub unsafe fn of_userdata<'a>(l: State, ud: c_int) -> &'a Config {
    // SAFETY: a valid state; `ud` is a userdata whose user value is (on
    // 5.1 and 5.2, in a table) an instance's settings, which it keeps
    // alive.
    unsafe {
        crate::doc::push_anchor(l, ud);
        let p = sys::lua_touserdata(l, -1).cast::<Option<Config>>();
        sys::lua_pop(l, 1);
        (*p).as_ref().expect("an instance's settings live as long as the userdata anchoring them")
    }
}

/// `json_arg_init`: at most `args` arguments, nil-padded.
unsafe fn arg_init<'a>(l: State, args: c_int) -> &'a mut Config {
    // SAFETY: a valid state.
    unsafe {
        if sys::lua_gettop(l) > args {
            sys::luaL_argerror(l, args + 1, c"found too many arguments".as_ptr());
        }
        sys::lua_settop(l, args);
        of(l)
    }
}

/// `json_integer_option`: `min..=max` (an error names argument #1, as
/// lua-cjson's does), nil keeps the setting; pushes it.
unsafe fn integer_option(l: State, i: c_int, setting: &mut c_int, min: c_int, max: c_int) {
    // SAFETY: a valid state; the message is a stack buffer, copied by
    // luaL_argerror before it raises.
    unsafe {
        if sys::lua_type(l, i) != sys::LUA_TNIL {
            let value = sys::luaL_checkinteger(l, i) as c_int;
            if !(min <= value && value <= max) {
                let mut m = [0u8; 64];
                let text = lua::msg!("expected integer between {min} and {max}\0");
                let n = text.bytes().len().min(63);
                m[..n].copy_from_slice(&text.bytes()[..n]);
                sys::luaL_argerror(l, 1, m.as_ptr().cast::<c_char>());
            }
            *setting = value;
        }
        sys::lua_pushinteger(l, *setting as sys::lua_Integer);
    }
}

/// `json_enum_option`: one of `options` (a boolean stands for 0 or
/// `bool_true`), nil keeps the setting; pushes it.
unsafe fn enum_option(l: State, i: c_int, setting: &mut c_int, options: &[*const c_char], bool_true: c_int) {
    // SAFETY: a valid state; `options` ends with a null pointer.
    unsafe {
        if sys::lua_type(l, i) != sys::LUA_TNIL {
            if bool_true != 0 && sys::lua_type(l, i) == sys::LUA_TBOOLEAN {
                *setting = sys::lua_toboolean(l, i) * bool_true;
            } else {
                *setting = sys::luaL_checkoption(l, i, std::ptr::null(), options.as_ptr());
            }
        }
        if bool_true != 0 && (*setting == 0 || *setting == bool_true) {
            sys::lua_pushboolean(l, *setting);
        } else {
            sys::lua_pushstring(l, options[*setting as usize]);
        }
    }
}

const ON_OFF: [*const c_char; 3] = [c"off".as_ptr(), c"on".as_ptr(), std::ptr::null()];
const INVALID: [*const c_char; 4] = [c"off".as_ptr(), c"on".as_ptr(), c"null".as_ptr(), std::ptr::null()];
const INT_MAX: c_int = c_int::MAX;

unsafe fn encode_sparse_array(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let c = arg_init(l, 3);
        enum_option(l, 1, &mut c.sparse_convert, &ON_OFF, 1);
        integer_option(l, 2, &mut c.sparse_ratio, 0, INT_MAX);
        integer_option(l, 3, &mut c.sparse_safe, 0, INT_MAX);
        Ok(3)
    }
}

macro_rules! integer_setting {
    ($name:ident, $field:ident, $min:expr, $max:expr) => {
        unsafe fn $name(l: State) -> Ret {
            // SAFETY: called by Lua.
            unsafe {
                let c = arg_init(l, 1);
                integer_option(l, 1, &mut c.$field, $min, $max);
                Ok(1)
            }
        }
    };
}

macro_rules! enum_setting {
    ($name:ident, $field:ident, $options:expr) => {
        unsafe fn $name(l: State) -> Ret {
            // SAFETY: called by Lua.
            unsafe {
                let c = arg_init(l, 1);
                enum_option(l, 1, &mut c.$field, &$options, 1);
                Ok(1)
            }
        }
    };
}

integer_setting!(encode_max_depth, encode_max_depth, 1, INT_MAX);
integer_setting!(decode_max_depth, decode_max_depth, 1, INT_MAX);
integer_setting!(encode_number_precision, precision, 1, 16);
enum_setting!(encode_empty_table_as_object, empty_table_as_object, ON_OFF);
enum_setting!(decode_array_with_array_mt, array_with_array_mt, ON_OFF);
enum_setting!(decode_allow_comment, allow_comment, ON_OFF);
enum_setting!(encode_skip_unsupported_value_types, skip_unsupported, ON_OFF);
enum_setting!(encode_keep_buffer, keep_buffer, ON_OFF);
enum_setting!(encode_invalid_numbers, invalid_numbers, INVALID);
enum_setting!(decode_invalid_numbers, decode_invalid_numbers, ON_OFF);
enum_setting!(encode_escape_forward_slash, escape_slash, ON_OFF);

unsafe fn encode_indent(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let c = arg_init(l, 1);
        if sys::lua_type(l, 1) != sys::LUA_TNIL {
            let mut len = 0;
            let p = sys::luaL_checklstring(l, 1, &mut len);
            // (As lua-cjson's copy: up to the first NUL.)
            let unit = std::slice::from_raw_parts(p.cast::<u8>(), len);
            let unit = &unit[..unit.iter().position(|&b| b == 0).unwrap_or(len)];
            c.indent.clear();
            c.indent.extend_from_slice(unit);
        }
        lua::push_bytes(l, &c.indent);
        Ok(1)
    }
}

lua_fn!(c_encode_sparse_array => encode_sparse_array);
lua_fn!(c_encode_max_depth => encode_max_depth);
lua_fn!(c_decode_max_depth => decode_max_depth);
lua_fn!(c_encode_number_precision => encode_number_precision);
lua_fn!(c_encode_empty_table_as_object => encode_empty_table_as_object);
lua_fn!(c_decode_array_with_array_mt => decode_array_with_array_mt);
lua_fn!(c_decode_allow_comment => decode_allow_comment);
lua_fn!(c_encode_skip_unsupported_value_types => encode_skip_unsupported_value_types);
lua_fn!(c_encode_keep_buffer => encode_keep_buffer);
lua_fn!(c_encode_invalid_numbers => encode_invalid_numbers);
lua_fn!(c_decode_invalid_numbers => decode_invalid_numbers);
lua_fn!(c_encode_escape_forward_slash => encode_escape_forward_slash);
lua_fn!(c_encode_indent => encode_indent);

/// lua-cjson's configuration functions, each a closure over an
/// instance's settings.
pub const FUNCTIONS: &[(&CStr, sys::lua_CFunction)] = &[
    (c"encode_sparse_array", c_encode_sparse_array),
    (c"encode_max_depth", c_encode_max_depth),
    (c"decode_max_depth", c_decode_max_depth),
    (c"encode_number_precision", c_encode_number_precision),
    (c"encode_empty_table_as_object", c_encode_empty_table_as_object),
    (c"decode_array_with_array_mt", c_decode_array_with_array_mt),
    (c"decode_allow_comment", c_decode_allow_comment),
    (c"encode_skip_unsupported_value_types", c_encode_skip_unsupported_value_types),
    (c"encode_keep_buffer", c_encode_keep_buffer),
    (c"encode_invalid_numbers", c_encode_invalid_numbers),
    (c"decode_invalid_numbers", c_decode_invalid_numbers),
    (c"encode_escape_forward_slash", c_encode_escape_forward_slash),
    (c"encode_indent", c_encode_indent),
];
