//! `qjson.cjson`: lua-cjson's `decode` and `encode` on this Lua version.
//!
//! `decode` builds tables from the core's events (`decode.rs`), with
//! lua-cjson's integer reading; a text the strict parser rejects (or one
//! nested deeper than it takes) is decoded again by a port of OpenResty's
//! lua-cjson 2.1.0.17 decoder (lua_cjson.c's `json_decode` and what it
//! calls, as `lua/qjson/cjson/decoder.lua` ports it for LuaJIT), which
//! gives lua-cjson's value or message: lua-cjson accepts more than JSON
//! (NaN, hex, bytes that are not UTF-8, control bytes, comments...). The
//! port reads the whole text into items first (no Lua call), then the
//! tables are built from them, so its buffers are in a userdata as the
//! decoder's are. Messages carry the caller's position, as lua-cjson's
//! `luaL_error` gives them.

use std::ffi::{c_int, CStr};

use qjson_core::Options;

use crate::config;
use crate::decode::{self, Build, Spare};
use crate::doc::where_msg;
use crate::encode;
use crate::lua::{self, lua_fn, msg, sys, Ret, State};

mod port;
use port::{read, Item, Port};

const PORT: &CStr = c"qjson.cjson.port";

/// The strict parser's depth limit for `decode`: below every depth at
/// which lua-cjson runs out of Lua stack (`lua_checkstack`: LUAI_MAXCSTACK
/// 8000 slots on 5.1, LUAI_MAXSTACK 1,000,000 from 5.2; an object takes
/// 3), so what the strict parser accepts lua-cjson accepts too.
const FAST_MAX_DEPTH: u32 = if cfg!(feature = "lua51") { 2000 } else { 200_000 };

unsafe fn cjson_decode(l: State) -> Ret {
    // SAFETY: called by Lua as an instance's closure (upvalue 1 the
    // settings, 2 a spare decoder).
    unsafe {
        if sys::lua_gettop(l) != 1 {
            sys::luaL_argerror(l, 1, c"expected 1 argument".as_ptr());
        }
        let input = lua::check_bytes(l, 1);
        let c = config::of(l);
        let (max_depth, invalid, allow_comment) = (c.decode_max_depth, c.decode_invalid_numbers, c.allow_comment);
        let array_mt = if c.array_with_array_mt != 0 {
            crate::markers::push_array_mt(l);
            sys::lua_gettop(l)
        } else {
            0
        };
        let opts =
            Options { max_depth: (max_depth as u32).min(FAST_MAX_DEPTH), cjson_integers: 1, ..Options::default() };
        let build = Build { opts, array_mt, empty_array_mt: 0 };
        if decode::decode(l, input, Spare::Upvalue(2), build).is_ok() {
            return Ok(1);
        }
        // lua-cjson's answer.
        let port = lua::new_userdata(l, PORT, Port::default);
        let port = (*port).as_mut().expect("just made");
        let text = lua::string_at(l, 1).unwrap_or_default();
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read(port, text, max_depth as i64, invalid != 0, allow_comment != 0)
        }))
        .unwrap_or_else(|_| Err(msg!("qjson: internal error (a panic in the native module)")));
        if let Err(m) = read {
            // Emptied now, not by `__gc` (see patch.rs's `run`).
            drop(std::mem::take(port));
            return Err(where_msg(l, m));
        }
        build_items(l, port, array_mt);
        drop(std::mem::take(port));
        sys::lua_remove(l, -2);
        Ok(1)
    }
}

unsafe fn cjson_encode(l: State) -> Ret {
    // SAFETY: called by Lua as an instance's closure (upvalue 1 the
    // settings, 2 a spare encoder).
    unsafe {
        if sys::lua_gettop(l) != 1 {
            sys::luaL_argerror(l, 1, c"expected 1 argument".as_ptr());
        }
        let c = config::of(l);
        match encode::encode(l, 1, 0, 2, c) {
            Ok(()) => Ok(1),
            Err(m) => Err(where_msg(l, m)),
        }
    }
}

lua_fn!(c_decode => cjson_decode);
lua_fn!(c_encode => cjson_encode);
pub const C_DECODE: sys::lua_CFunction = c_decode;
pub const C_ENCODE: sys::lua_CFunction = c_encode;

/// Registers the port's buffers' metatable.
pub unsafe fn register(l: State) {
    // SAFETY: a valid state.
    unsafe { lua::register_type::<Port>(l, PORT, &[], &[]) };
}

/// Pushes the value of the items the port read.
unsafe fn build_items(l: State, port: &mut Port, array_mt: c_int) {
    // SAFETY: a valid state; `array_mt` is 0 or a metatable's index.
    unsafe {
        let Port { items, strings, frames } = port;
        frames.clear();
        let mut i = 0;
        loop {
            let item = items[i];
            i += 1;
            match item {
                Item::Null => lua::push_null(l),
                Item::Bool(b) => sys::lua_pushboolean(l, b as c_int),
                Item::Int(v) => lua::push_int(l, v),
                Item::Num(v) => sys::lua_pushnumber(l, v),
                Item::Str(at, n) => lua::push_bytes(l, &strings[at..at + n]),
                Item::Array | Item::Object => {
                    let object = matches!(item, Item::Object);
                    sys::luaL_checkstack(l, 4, c"qjson: nesting too deep for the Lua stack".as_ptr());
                    sys::lua_createtable(l, 0, 0);
                    if !object && array_mt != 0 {
                        sys::lua_pushvalue(l, array_mt);
                        sys::lua_setmetatable(l, -2);
                    }
                    frames.push((object, 0));
                    if object {
                        push_key(l, items, strings, &mut i);
                    }
                    continue;
                }
                Item::End => {
                    frames.pop();
                }
            }
            // A complete value: into its container.
            let Some(top) = frames.last_mut() else { return };
            if top.0 {
                sys::lua_rawset(l, -3);
                push_key(l, items, strings, &mut i);
            } else {
                top.1 += 1;
                sys::lua_rawseti(l, -2, top.1);
            }
        }
    }
}

/// Pushes the object key at `items[*i]`, if one is there (not the end).
unsafe fn push_key(l: State, items: &[Item], strings: &[u8], i: &mut usize) {
    if let Item::Str(at, n) = items[*i] {
        // SAFETY: a valid state.
        unsafe { lua::push_bytes(l, &strings[at..at + n]) };
        *i += 1;
    }
}
