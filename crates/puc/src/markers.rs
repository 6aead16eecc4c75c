//! lua-cjson's markers, one set per Lua state, shared by every instance:
//! `empty_array` (a light userdata, as OpenResty's), `array_mt` and
//! `empty_array_mt` (tables, kept in the registry under this module's
//! addresses).

use std::ffi::{c_int, c_void};

use crate::lua::{sys, State};

static EMPTY_ARRAY: u8 = 0;
static ARRAY_MT: u8 = 0;
static EMPTY_ARRAY_MT: u8 = 0;

fn key(marker: &'static u8) -> *const c_void {
    (marker as *const u8).cast()
}

/// Makes the metatables when this state has none yet.
pub unsafe fn init(l: State) {
    // SAFETY: a valid state.
    unsafe {
        for marker in [&ARRAY_MT, &EMPTY_ARRAY_MT] {
            if sys::lua_rawgetp(l, sys::LUA_REGISTRYINDEX, key(marker)) == sys::LUA_TNIL {
                sys::lua_createtable(l, 0, 0);
                sys::lua_rawsetp(l, sys::LUA_REGISTRYINDEX, key(marker));
            }
            sys::lua_pop(l, 1);
        }
    }
}

/// Sets `empty_array`, `array_mt` and `empty_array_mt` in the table at
/// the top of the stack.
pub unsafe fn set_fields(l: State) {
    // SAFETY: a valid state; a table at the top.
    unsafe {
        sys::lua_pushlightuserdata(l, key(&EMPTY_ARRAY).cast_mut());
        sys::lua_setfield(l, -2, c"empty_array".as_ptr());
        push_array_mt(l);
        sys::lua_setfield(l, -2, c"array_mt".as_ptr());
        push_empty_array_mt(l);
        sys::lua_setfield(l, -2, c"empty_array_mt".as_ptr());
    }
}

pub unsafe fn push_array_mt(l: State) {
    // SAFETY: a valid state.
    unsafe { sys::lua_rawgetp(l, sys::LUA_REGISTRYINDEX, key(&ARRAY_MT)) };
}

pub unsafe fn push_empty_array_mt(l: State) {
    // SAFETY: a valid state.
    unsafe { sys::lua_rawgetp(l, sys::LUA_REGISTRYINDEX, key(&EMPTY_ARRAY_MT)) };
}

pub unsafe fn is_empty_array(l: State, idx: c_int) -> bool {
    // SAFETY: a valid state and index.
    unsafe { sys::lua_touserdata(l, idx).cast_const() == key(&EMPTY_ARRAY) }
}

/// What a table's metatable makes of it.
pub enum Marked {
    /// `array_mt`, or any metatable with `__len`: an array of its raw length.
    Array,
    /// `empty_array_mt`: `[]` when empty.
    EmptyArray,
    None,
}

pub unsafe fn array_kind(l: State, idx: c_int) -> Marked {
    // SAFETY: a valid state; the table at `idx`.
    unsafe {
        if sys::lua_getmetatable(l, idx) == 0 {
            return Marked::None;
        }
        push_array_mt(l);
        let kind = if sys::lua_rawequal(l, -1, -2) != 0 {
            Marked::Array
        } else {
            sys::lua_pop(l, 1);
            push_empty_array_mt(l);
            if sys::lua_rawequal(l, -1, -2) != 0 {
                Marked::EmptyArray
            } else {
                sys::lua_pop(l, 1);
                sys::lua_pushstring(l, c"__len".as_ptr());
                sys::lua_rawget(l, -2);
                if sys::lua_type(l, -1) != sys::LUA_TNIL {
                    Marked::Array
                } else {
                    Marked::None
                }
            }
        };
        sys::lua_pop(l, 2);
        kind
    }
}
