//! The options tables of `parse`, `decode` and `encode`: checked, with
//! the LuaJIT binding's messages (`lua/qjson/parse/options.lua`,
//! `lua/qjson/encode/options.lua`), raised as Lua's argument errors.

use std::ffi::c_int;

use qjson_core::options::{DUPLICATES_LAST, DUPLICATES_REJECT, MODE_LAZY, MODE_STRICT};
use qjson_core::Options;

use crate::config::Config;
use crate::encode::Call;
use crate::lua::{self, msg, sys, Msg, State};

/// A value as the messages show it: a string quoted, a number as itself,
/// anything else by its type.
pub unsafe fn describe(l: State, idx: c_int) -> Msg {
    // SAFETY: a valid state and index.
    unsafe {
        match sys::lua_type(l, idx) {
            sys::LUA_TSTRING => {
                let s = lua::string_at(l, idx).unwrap_or_default();
                msg!("{:?}", String::from_utf8_lossy(s))
            }
            sys::LUA_TNUMBER => match lua::integer_at(l, idx) {
                Some(i) => msg!("{i}"),
                None => {
                    let v = sys::lua_tonumber(l, idx);
                    let mut text = [0u8; 40];
                    let n = qjson_core::encode::number::format_g(v, 14, &mut text);
                    msg!("{}", std::str::from_utf8(&text[..n]).unwrap_or("?"))
                }
            },
            _ => msg!("{}", lua::type_name(l, idx)),
        }
    }
}

/// Whom a bad option is reported against: an argument of the running
/// function (`bad argument #2 to 'parse' (...)`), or a named call whose
/// options came in a table of their own (`bad argument to 'each' (...)`,
/// as the LuaJIT binding's `qjson.stream` says).
#[derive(Clone, Copy)]
pub enum Blame<'a> {
    Arg(c_int),
    Call(&'a str),
}

unsafe fn blame(l: State, who: Blame<'_>, m: &Msg) -> ! {
    // SAFETY: a valid state.
    unsafe {
        match who {
            Blame::Arg(arg) => lua::arg_error(l, arg, m),
            Blame::Call(name) => {
                lua::raise_here(l, &msg!("bad argument to '{name}' ({})", String::from_utf8_lossy(m.bytes())))
            }
        }
    }
}

unsafe fn bad(l: State, who: Blame<'_>, name: &[u8], want: &str, value: c_int) -> ! {
    // SAFETY: a valid state.
    unsafe {
        let got = describe(l, value);
        let m = msg!(
            "bad option '{}' ({want} expected, got {})",
            String::from_utf8_lossy(name),
            String::from_utf8_lossy(got.bytes())
        );
        blame(l, who, &m)
    }
}

/// The key at -2 of a `lua_next` walk, as text for messages.
unsafe fn key_text<'a>(l: State) -> &'a [u8] {
    // SAFETY: a valid state.
    unsafe { lua::string_at(l, -2).unwrap_or(b"?") }
}

/// Walks the options table at `arg`, calling `each(name, value index)`
/// for every field; a key that is not a string is an unknown option.
unsafe fn each_option(l: State, arg: c_int, who: Blame<'_>, mut each: impl FnMut(&[u8]) -> bool) {
    // SAFETY: a valid state; the table at `arg`.
    unsafe {
        sys::luaL_checkstack(l, 3, std::ptr::null());
        sys::lua_pushnil(l);
        while sys::lua_next(l, arg) != 0 {
            let name = if sys::lua_type(l, -2) == sys::LUA_TSTRING { key_text(l) } else { b"?" };
            if !each(name) {
                let k = describe(l, -2);
                let shown = if sys::lua_type(l, -2) == sys::LUA_TSTRING {
                    lua::string_at(l, -2).unwrap_or_default()
                } else {
                    k.bytes()
                };
                let m = msg!("unknown option '{}'", String::from_utf8_lossy(shown));
                blame(l, who, &m);
            }
            sys::lua_pop(l, 1);
        }
    }
}

/// Checks that the argument at `arg` is nil or a table.
unsafe fn table_or_nil(l: State, arg: c_int) -> bool {
    // SAFETY: a valid state.
    unsafe {
        match sys::lua_type(l, arg) {
            sys::LUA_TNIL | sys::LUA_TNONE => false,
            sys::LUA_TTABLE => true,
            _ => {
                let m = msg!("bad options (table expected, got {})", lua::type_name(l, arg));
                lua::arg_error(l, arg, &m)
            }
        }
    }
}

/// The parse options at `arg` (nil: the defaults, with `max_depth`).
pub unsafe fn parse(l: State, arg: c_int, max_depth: u32) -> Options {
    // SAFETY: a valid state.
    unsafe {
        if !table_or_nil(l, arg) {
            return Options { max_depth, ..Options::default() };
        }
        parse_table(l, arg, max_depth, Blame::Arg(arg))
    }
}

/// The parse options in the table at `arg`, a bad one reported against
/// `who`.
pub unsafe fn parse_table(l: State, arg: c_int, max_depth: u32, who: Blame<'_>) -> Options {
    // SAFETY: a valid state; a table at `arg`.
    unsafe {
        let mut o = Options { max_depth, ..Options::default() };
        each_option(l, arg, who, |name| {
            match name {
                b"mode" => match lua::string_at(l, -1) {
                    Some(b"strict") => o.mode = MODE_STRICT,
                    Some(b"lazy") => o.mode = MODE_LAZY,
                    _ => bad(l, who, name, "\"strict\" or \"lazy\"", -1),
                },
                b"duplicate_keys" => match lua::string_at(l, -1) {
                    Some(b"last") => o.duplicate_keys = DUPLICATES_LAST,
                    Some(b"reject") => o.duplicate_keys = DUPLICATES_REJECT,
                    _ => bad(l, who, name, "\"last\" or \"reject\"", -1),
                },
                b"ijson" | b"invalid_numbers" => {
                    if sys::lua_type(l, -1) != sys::LUA_TBOOLEAN {
                        bad(l, who, name, "boolean", -1);
                    }
                    let on = sys::lua_toboolean(l, -1) as u32;
                    if name == b"ijson" {
                        o.ijson = on;
                    } else {
                        o.invalid_numbers = on;
                    }
                }
                b"max_depth" => {
                    let v = if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { f64::NAN };
                    if !(1.0..=2147483647.0).contains(&v) || v.floor() != v {
                        bad(l, who, name, "integer from 1 to 2^31-1", -1);
                    }
                    o.max_depth = v as u32;
                }
                _ => return false,
            }
            true
        });
        o
    }
}

/// The options of `patch` and `patcher` at `arg`: `max_size`, the most
/// bytes a result may have (0 when not given: the core's bound).
pub unsafe fn patch(l: State, arg: c_int) -> usize {
    // SAFETY: a valid state.
    unsafe {
        let mut max_size = 0;
        if !table_or_nil(l, arg) {
            return max_size;
        }
        each_option(l, arg, Blame::Arg(arg), |name| {
            if name != b"max_size" {
                return false;
            }
            let v = if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { f64::NAN };
            if !(1.0..=4503599627370496.0).contains(&v) || v.floor() != v {
                bad(l, Blame::Arg(arg), name, "positive integer", -1);
            }
            max_size = v as usize;
            true
        });
        max_size
    }
}

/// What `encode(v, opts)` does: the instance's settings `c` with the
/// options at `arg`; the indent unit goes into `indent`.
pub unsafe fn encode(l: State, arg: c_int, c: &Config, indent: &mut Vec<u8>) -> Call {
    // SAFETY: a valid state.
    unsafe {
        let mut call = Call {
            precision: c.precision as u32,
            flags: if c.escape_slash != 0 { qjson_core::encode::escape::ESCAPE_SLASH } else { 0 },
            indent: false,
            sort_keys: false,
            max_depth: c.encode_max_depth as i64,
            sparse_convert: c.sparse_convert != 0,
            sparse_ratio: c.sparse_ratio as i64,
            sparse_safe: c.sparse_safe as i64,
            invalid_numbers: c.invalid_numbers,
            empty_table_as_object: c.empty_table_as_object != 0,
            skip_unsupported: c.skip_unsupported != 0,
            dropin: c.dropin,
            keep_buffer: c.keep_buffer != 0,
        };
        indent.clear();
        indent.extend_from_slice(&c.indent);
        if arg == 0 || !table_or_nil(l, arg) {
            call.indent = !indent.is_empty();
            return call;
        }
        use qjson_core::encode::escape::{ASCII, ESCAPE_SLASH, HTML_SAFE, VALIDATE_UTF8};
        each_option(l, arg, Blame::Arg(arg), |name| {
            let flag = match name {
                b"ascii" => ASCII,
                b"html_safe" => HTML_SAFE,
                b"validate_utf8" => VALIDATE_UTF8,
                b"escape_slash" => ESCAPE_SLASH,
                b"sort_keys" => 0,
                b"precision" => {
                    if lua::string_at(l, -1) == Some(b"shortest") {
                        call.precision = 0;
                    } else {
                        let v =
                            if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { f64::NAN };
                        if !(1.0..=17.0).contains(&v) || v.floor() != v {
                            bad(l, Blame::Arg(arg), name, "integer from 1 to 17 or \"shortest\"", -1);
                        }
                        call.precision = v as u32;
                    }
                    return true;
                }
                b"indent" => {
                    match sys::lua_type(l, -1) {
                        sys::LUA_TNUMBER => {
                            let v = sys::lua_tonumber(l, -1);
                            if !(0.0..=64.0).contains(&v) || v.floor() != v {
                                bad(l, Blame::Arg(arg), name, "0 to 64 spaces or a string", -1);
                            }
                            indent.clear();
                            indent.resize(v as usize, b' ');
                        }
                        sys::LUA_TSTRING => {
                            let s = lua::string_at(l, -1).unwrap_or_default();
                            if s.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
                                bad(l, Blame::Arg(arg), name, "a string of JSON whitespace (space, tab, CR, LF)", -1);
                            }
                            indent.clear();
                            indent.extend_from_slice(s);
                        }
                        _ => bad(l, Blame::Arg(arg), name, "number or string", -1),
                    }
                    return true;
                }
                _ => return false,
            };
            if sys::lua_type(l, -1) != sys::LUA_TBOOLEAN {
                bad(l, Blame::Arg(arg), name, "boolean", -1);
            }
            let on = sys::lua_toboolean(l, -1) != 0;
            if name == b"sort_keys" {
                call.sort_keys = on;
            } else if on {
                call.flags |= flag;
            } else {
                call.flags &= !flag;
            }
            true
        });
        call.indent = !indent.is_empty();
        call
    }
}
