//! qjson for PUC Lua 5.1-5.4: the native module `qjson.so`, built once per
//! Lua version over the core (`qjson_core`) with the raw C API
//! (mlua-sys, no liblua linked: the host's symbols are used).
//!
//! One file serves four modules through Lua's all-in-one loader:
//! `qjson` (`luaopen_qjson`), `qjson.safe`, `qjson.cjson` (a drop-in for
//! lua-cjson on that Lua version) and `qjson.cjson.safe`. The rule that
//! keeps a Lua error (a `longjmp`) from skipping a Rust destructor is in
//! `lua.rs` and docs/design.md ("The PUC Lua binding").

// Errors are `lua::Msg`, a fixed-size message on the stack, on purpose:
// an error is raised after every owning frame has returned, and a message
// that owned heap memory would leak when `lua_error` jumps past its drop.
#![allow(clippy::result_large_err)]

use std::ffi::{c_int, c_void, CStr};

mod cjson;
mod config;
mod decode;
mod doc;
mod encode;
mod lua;
mod markers;
mod openapi;
mod options;
mod patch;
mod schema;
mod select;
mod stream;

use config::{Config, CONFIG};
use lua::{lua_fn, sys, Ret, State};

/// Which module an instance is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Qjson,
    Cjson,
}

/// The registry keys of the settings `qjson` and `qjson.safe` share.
static QJSON_CONFIG: u8 = 0;

fn registry_key(k: &'static u8) -> *const c_void {
    (k as *const u8).cast()
}

/// The decode function of an instance: upvalue 1 its settings, 2 a spare
/// decoder.
unsafe fn qjson_decode(l: State) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        let input = lua::check_bytes(l, 1);
        let c = config::of(l);
        let mut opts = options::parse(l, 2, c.decode_max_depth as u32);
        if c.decode_invalid_numbers != 0 {
            opts.invalid_numbers = 1;
        }
        let array_mt = c.array_with_array_mt != 0;
        sys::lua_settop(l, 1);
        markers::push_array_mt(l);
        markers::push_empty_array_mt(l);
        let build = decode::Build { opts, array_mt: if array_mt { 2 } else { 0 }, empty_array_mt: 3 };
        decode::decode(l, input, decode::Spare::Upvalue(2), build)?;
        Ok(1)
    }
}

/// `encode(v [, opts])`: upvalue 1 the settings, 2 a spare encoder.
unsafe fn qjson_encode(l: State) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        sys::luaL_checkany(l, 1);
        let top = sys::lua_gettop(l);
        if top > 2 {
            sys::luaL_argerror(l, 3, c"found too many arguments".as_ptr());
        }
        let opts = if top >= 2 && sys::lua_type(l, 2) != sys::LUA_TNIL { 2 } else { 0 };
        let c = config::of(l);
        encode::encode(l, 1, opts, 2, c)?;
        Ok(1)
    }
}

unsafe fn parse(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { doc::parse(l, qjson_core::options::DEFAULT_MAX_DEPTH) }
}

unsafe fn parse_file(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { doc::parse_file(l, qjson_core::options::DEFAULT_MAX_DEPTH) }
}

unsafe fn backend(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let name = qjson_core::arch::Backend::detect().name();
        lua::push_bytes(l, name.as_bytes());
        Ok(1)
    }
}

/// `new()`: an instance of the same module with settings of its own
/// (upvalue 1: the flavour, 2: whether it is the safe one).
unsafe fn new_instance(l: State) -> Ret {
    // SAFETY: called by Lua as a closure made by `push_instance`.
    unsafe {
        let flavour =
            if sys::lua_toboolean(l, sys::lua_upvalueindex(1)) != 0 { Flavour::Cjson } else { Flavour::Qjson };
        let safe = sys::lua_toboolean(l, sys::lua_upvalueindex(2)) != 0;
        new_config(l, flavour);
        push_instance(l, flavour, safe);
        Ok(1)
    }
}

/// `safe` functions: upvalue 1 the raising function, called protected;
/// an error comes back as `nil, message`, except running out of memory,
/// which raises (as lua-cjson's `json_protect_conversion` does). Upvalue
/// 2: whether arguments other than one raise first (lua-cjson's safe
/// `decode` and `encode`).
unsafe fn protected(l: State) -> Ret {
    // SAFETY: called by Lua as a closure made by `push_instance`.
    unsafe {
        let n = sys::lua_gettop(l);
        if sys::lua_toboolean(l, sys::lua_upvalueindex(2)) != 0 && n != 1 {
            sys::luaL_argerror(l, 1, c"expected 1 argument".as_ptr());
        }
        sys::lua_pushvalue(l, sys::lua_upvalueindex(1));
        sys::lua_insert(l, 1);
        match sys::lua_pcall(l, n, sys::LUA_MULTRET, 0) {
            0 => Ok(sys::lua_gettop(l)),
            sys::LUA_ERRMEM => sys::lua_error(l),
            _ => {
                sys::lua_pushnil(l);
                sys::lua_insert(l, -2);
                Ok(2)
            }
        }
    }
}

lua_fn!(c_qjson_decode => qjson_decode);
lua_fn!(c_qjson_encode => qjson_encode);
lua_fn!(c_parse => parse);
lua_fn!(c_parse_file => parse_file);
lua_fn!(c_path => doc::compile_path);
lua_fn!(c_backend => backend);
lua_fn!(c_new => new_instance);
lua_fn!(c_protected => protected);

/// Pushes a new settings userdata.
unsafe fn new_config(l: State, flavour: Flavour) {
    // SAFETY: a valid state.
    unsafe {
        lua::new_userdata(l, CONFIG, || Config::new(flavour == Flavour::Cjson));
    }
}

/// Sets field `name` of the table at the top to the closure `f` over the
/// settings at `cfg` and `extra` nils (spare buffers); in a safe
/// instance, wrapped by `protected` (`one_argument`: its check first).
unsafe fn set_fn(
    l: State,
    name: &CStr,
    f: sys::lua_CFunction,
    cfg: c_int,
    extra: c_int,
    safe: bool,
    one_argument: bool,
) {
    // SAFETY: a valid state; the instance table at the top.
    unsafe {
        sys::lua_pushvalue(l, cfg);
        for _ in 0..extra {
            sys::lua_pushnil(l);
        }
        sys::lua_pushcclosure(l, f, 1 + extra);
        if safe {
            sys::lua_pushboolean(l, one_argument as c_int);
            sys::lua_pushcclosure(l, c_protected, 2);
        }
        sys::lua_setfield(l, -2, name.as_ptr());
    }
}

/// Pushes an instance over the settings at the top (which it pops).
unsafe fn push_instance(l: State, flavour: Flavour, safe: bool) {
    // SAFETY: a valid state; a Config userdata at the top.
    unsafe {
        register_types(l);
        let cfg = sys::lua_gettop(l);
        sys::lua_createtable(l, 0, 32);
        let (decode_fn, encode_fn): (sys::lua_CFunction, sys::lua_CFunction) = match flavour {
            Flavour::Qjson => (c_qjson_decode, c_qjson_encode),
            Flavour::Cjson => (cjson::C_DECODE, cjson::C_ENCODE),
        };
        // lua-cjson's safe module protects decode and encode only; qjson's
        // every function.
        let cjson = flavour == Flavour::Cjson;
        set_fn(l, c"decode", decode_fn, cfg, 1, safe, cjson);
        set_fn(l, c"encode", encode_fn, cfg, 1, safe, cjson);
        for (name, f) in config::FUNCTIONS {
            set_fn(l, name, *f, cfg, 0, safe && !cjson, false);
        }
        sys::lua_pushboolean(l, (flavour == Flavour::Cjson) as c_int);
        sys::lua_pushboolean(l, safe as c_int);
        sys::lua_pushcclosure(l, c_new, 2);
        sys::lua_setfield(l, -2, c"new".as_ptr());
        lua::push_null(l);
        sys::lua_setfield(l, -2, c"null".as_ptr());
        markers::set_fields(l);
        match flavour {
            Flavour::Qjson => {
                for (name, f) in [
                    (c"parse", c_parse as sys::lua_CFunction),
                    (c"parse_file", c_parse_file),
                    (c"path", c_path),
                    (c"backend", c_backend),
                ] {
                    sys::lua_pushcfunction(l, f);
                    if safe {
                        sys::lua_pushboolean(l, 0);
                        sys::lua_pushcclosure(l, c_protected, 2);
                    }
                    sys::lua_setfield(l, -2, name.as_ptr());
                }
                for (name, plain, for_safe) in
                    patch::FUNCTIONS.iter().chain(schema::FUNCTIONS).chain(openapi::FUNCTIONS)
                {
                    set_fn(l, name, if safe { *for_safe } else { *plain }, cfg, 1, safe, false);
                }
                stream::set_field(l);
                for (name, plain, for_safe) in select::FUNCTIONS {
                    set_fn(l, name, if safe { *for_safe } else { *plain }, cfg, 0, safe, false);
                }
                sys::lua_pushstring(l, c"qjson".as_ptr());
                sys::lua_setfield(l, -2, c"_NAME".as_ptr());
            }
            Flavour::Cjson => {
                // What OpenResty's lua-cjson 2.1.0.17 reports.
                sys::lua_pushstring(l, c"cjson".as_ptr());
                sys::lua_setfield(l, -2, c"_NAME".as_ptr());
                sys::lua_pushstring(l, c"2.1.0.11".as_ptr());
                sys::lua_setfield(l, -2, c"_VERSION".as_ptr());
            }
        }
        sys::lua_remove(l, cfg);
    }
}

/// The metatables, once per state.
unsafe fn register_types(l: State) {
    // SAFETY: a valid state.
    unsafe {
        lua::register_type::<Config>(l, CONFIG, &[], &[]);
        lua::register_type::<decode::Decoder>(l, decode::DECODER, &[], &[]);
        lua::register_type::<encode::Encoder>(l, encode::ENCODER, &[], &[]);
        doc::register(l);
        cjson::register(l);
        patch::register(l, c_protected);
        stream::register(l);
        schema::register(l, c_protected);
        openapi::register(l, c_protected);
        select::register(l);
        markers::init(l);
    }
}

/// Pushes the settings `qjson` and `qjson.safe` share (made once per state).
unsafe fn push_qjson_config(l: State) {
    // SAFETY: a valid state.
    unsafe {
        register_types(l);
        if sys::lua_rawgetp(l, sys::LUA_REGISTRYINDEX, registry_key(&QJSON_CONFIG)) == sys::LUA_TNIL {
            sys::lua_pop(l, 1);
            new_config(l, Flavour::Qjson);
            sys::lua_pushvalue(l, -1);
            sys::lua_rawsetp(l, sys::LUA_REGISTRYINDEX, registry_key(&QJSON_CONFIG));
        }
    }
}

unsafe fn open_qjson(l: State) -> Ret {
    // SAFETY: called by `require`.
    unsafe {
        push_qjson_config(l);
        push_instance(l, Flavour::Qjson, false);
        Ok(1)
    }
}

unsafe fn open_qjson_safe(l: State) -> Ret {
    // SAFETY: called by `require`.
    unsafe {
        push_qjson_config(l);
        push_instance(l, Flavour::Qjson, true);
        Ok(1)
    }
}

unsafe fn open_cjson(l: State) -> Ret {
    // SAFETY: called by `require`.
    unsafe {
        register_types(l);
        new_config(l, Flavour::Cjson);
        push_instance(l, Flavour::Cjson, false);
        Ok(1)
    }
}

unsafe fn open_cjson_safe(l: State) -> Ret {
    // SAFETY: called by `require`.
    unsafe {
        register_types(l);
        new_config(l, Flavour::Cjson);
        push_instance(l, Flavour::Cjson, true);
        Ok(1)
    }
}

/// `require "qjson"`.
///
/// # Safety
/// Called by Lua's loader with a valid state.
#[no_mangle]
pub unsafe extern "C-unwind" fn luaopen_qjson(l: State) -> c_int {
    // SAFETY: as documented.
    unsafe { lua::entry(l, open_qjson) }
}

/// `require "qjson.safe"`.
///
/// # Safety
/// Called by Lua's loader with a valid state.
#[no_mangle]
pub unsafe extern "C-unwind" fn luaopen_qjson_safe(l: State) -> c_int {
    // SAFETY: as documented.
    unsafe { lua::entry(l, open_qjson_safe) }
}

/// `require "qjson.cjson"`.
///
/// # Safety
/// Called by Lua's loader with a valid state.
#[no_mangle]
pub unsafe extern "C-unwind" fn luaopen_qjson_cjson(l: State) -> c_int {
    // SAFETY: as documented.
    unsafe { lua::entry(l, open_cjson) }
}

/// `require "qjson.cjson.safe"`.
///
/// # Safety
/// Called by Lua's loader with a valid state.
#[no_mangle]
pub unsafe extern "C-unwind" fn luaopen_qjson_cjson_safe(l: State) -> c_int {
    // SAFETY: as documented.
    unsafe { lua::entry(l, open_cjson_safe) }
}
