//! `qjson.patch`, `qjson.merge_patch` and `qjson.patcher` on PUC Lua: JSON
//! Patch and JSON Merge Patch (crates/core/src/patch/) with the LuaJIT
//! binding's arguments and messages (lua/qjson/patch.lua). The target is a
//! JSON text, a document or cursor (read where it lies) or a table
//! (encoded first); the operations a text or a table; the result a text.
//!
//! Each function first does everything that calls Lua (argument checks,
//! encoding tables, whose texts stay on the stack, the result's
//! userdata), then finds the document and runs the core with no Lua call,
//! writing into that userdata: no Rust frame owns anything when Lua can
//! raise (lua.rs), and no finalizer can close the document while the core
//! reads it.

use std::ffi::{c_int, CStr};

use qjson_core::patch::{self, merge_patch, Patch};
use qjson_core::{Document, Options};

use crate::config::{self, Config};
use crate::doc::{doc_node, guarded, set_anchor, target, Target};
use crate::encode;
use crate::lua::{self, lua_fn, msg, sys, Msg, Ret, State};

const PATCHER: &CStr = c"qjson.patcher";
const SAFE_PATCHER: &CStr = c"qjson.safe_patcher";
const RESULT: &CStr = c"qjson.patch_result";

/// A compiled patch and the bound of its results.
pub struct Patcher {
    patch: Patch,
    max_size: usize,
}

/// The text of a patch at `arg`: a string, or a table encoded (an empty
/// table is `empty` when given).
unsafe fn patch_text<'a>(
    l: State,
    arg: c_int,
    spare: c_int,
    c: &Config,
    empty: Option<&'a [u8]>,
) -> Result<&'a [u8], Msg> {
    // SAFETY: a valid state and index.
    unsafe {
        if let Some(text) = lua::string_at(l, arg) {
            return Ok(text);
        }
        if sys::lua_type(l, arg) != sys::LUA_TTABLE {
            let m = msg!("JSON string or table expected, got {}", lua::type_name(l, arg));
            lua::arg_error(l, arg, &m);
        }
        if let Some(empty) = empty {
            sys::lua_pushnil(l);
            if sys::lua_next(l, arg) == 0 {
                return Ok(empty);
            }
            sys::lua_pop(l, 2);
        }
        encode::encode(l, arg, 0, spare, c)?;
        Ok(lua::string_at(l, -1).unwrap_or_default())
    }
}

/// Runs `apply` on the target (its document opened now: no Lua call
/// follows until the result is written), into a new result userdata,
/// and pushes the result's text.
unsafe fn run(l: State, target: Target<'_>, apply: impl FnOnce(&Document<'_>, &mut Vec<u8>) -> Result<(), Msg>) -> Ret {
    // SAFETY: a valid state; the result's userdata stays on the stack.
    unsafe {
        let out = lua::new_userdata(l, RESULT, Vec::<u8>::new);
        let out = (*out).as_mut().expect("just made");
        match target {
            Target::Text(text) => guarded(|| {
                let doc = Document::parse(text, &Options::default()).map_err(|e| msg!("qjson: {e}"))?;
                apply(&doc, out)
            })?,
            Target::Document(ud, node) => {
                let doc = doc_node(l, ud, node)?;
                guarded(|| patch::with_target(doc, node, |d| apply(d, out)).map_err(|m| msg!("qjson: {m}"))?)?
            }
        }
        lua::push_bytes(l, out);
        // Emptied now, not by its `__gc`: a finalizer that Lua cannot call
        // for lack of memory is dropped, and would take the buffer with it.
        drop(std::mem::take(out));
        Ok(1)
    }
}

/// `qjson.patch(target, ops [, opts])`: upvalue 1 the settings, 2 a spare
/// encoder.
unsafe fn patch(l: State) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        sys::lua_settop(l, 3);
        let c = config::of(l);
        let ops = patch_text(l, 2, 2, c, Some(b"[]"))?;
        let max_size = crate::options::patch(l, 3);
        let target = target(l, 1, 2, c, None)?;
        run(l, target, |doc, out| {
            let p = Patch::compile(ops, false).map_err(|e| msg!("qjson: {e}"))?;
            p.apply(doc, &[], max_size, out).map_err(|e| msg!("qjson: {e}"))
        })
    }
}

/// `qjson.merge_patch(target, patch)`: upvalues as `patch`'s.
unsafe fn merge(l: State) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        if sys::lua_type(l, 3) > sys::LUA_TNIL {
            lua::arg_error(l, 3, &msg!("merge_patch takes no options"));
        }
        sys::lua_settop(l, 2);
        let c = config::of(l);
        let text = patch_text(l, 2, 2, c, None)?;
        let target = target(l, 1, 2, c, None)?;
        run(l, target, |doc, out| {
            let p = Document::parse(text, &Options::default()).map_err(|e| msg!("qjson: the patch: {e}"))?;
            merge_patch(doc, &p, out);
            Ok(())
        })
    }
}

/// `qjson.patcher(ops [, opts])` (`safe`: of `qjson.safe`, whose `apply`
/// returns nil and the message): upvalues as `patch`'s. The patcher's
/// user value is the settings, with which `apply` encodes its values.
unsafe fn new_patcher(l: State, safe: bool) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        sys::lua_settop(l, 2);
        let c = config::of(l);
        let ops = patch_text(l, 1, 2, c, Some(b"[]"))?;
        let max_size = crate::options::patch(l, 2);
        // The userdata first (an allocation that may raise), then the
        // compiled patch, which owns memory.
        let ud = lua::new_empty::<Patcher>(l, if safe { SAFE_PATCHER } else { PATCHER });
        let at = sys::lua_gettop(l);
        sys::lua_pushvalue(l, sys::lua_upvalueindex(1));
        set_anchor(l, at);
        let patch = guarded(|| Patch::compile(ops, true).map_err(|e| msg!("qjson: {e}")))?;
        *ud = Some(Patcher { patch, max_size });
        Ok(1)
    }
}

unsafe fn patcher(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { new_patcher(l, false) }
}

unsafe fn safe_patcher(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { new_patcher(l, true) }
}

/// `p:apply(target [, values])`: with one value taken per call, `values`
/// is that value; with more, a table of them; with none, nothing.
/// Upvalue 1: a spare encoder.
unsafe fn apply(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        sys::lua_settop(l, 3);
        let p = match lua::userdata_at::<Option<Patcher>>(l, 1, PATCHER) {
            Some(p) => p,
            None => match lua::userdata_at::<Option<Patcher>>(l, 1, SAFE_PATCHER) {
                Some(p) => p,
                None => lua::method_arg_error(l, 2, "apply", &msg!("qjson.patcher expected")),
            },
        };
        let (n, max_size) = match (*p).as_ref() {
            Some(p) => (p.patch.args(), p.max_size),
            None => return Err(msg!("qjson: the patcher did not compile")),
        };
        let c = config::of_userdata(l, 1);
        let none = sys::lua_type(l, 3) == sys::LUA_TNIL;
        // The stack indexes of the values' texts.
        let first = sys::lua_gettop(l) + 1;
        match n {
            0 if !none => lua::method_arg_error(l, 3, "apply", &msg!("the patch takes no values")),
            0 => {}
            1 if none => lua::method_arg_error(l, 3, "apply", &msg!("the patch takes a value (qjson.null for null)")),
            1 => encode::encode(l, 3, 0, 1, c)?,
            _ => {
                if sys::lua_type(l, 3) != sys::LUA_TTABLE {
                    let m = msg!("the patch takes {n} values: table expected, got {}", lua::type_name(l, 3));
                    lua::method_arg_error(l, 3, "apply", &m);
                }
                for i in 1..=n {
                    sys::luaL_checkstack(l, 4, c"qjson: too many values for the Lua stack".as_ptr());
                    sys::lua_rawgeti(l, 3, i as _);
                    if sys::lua_type(l, -1) == sys::LUA_TNIL {
                        lua::method_arg_error(l, 3, "apply", &msg!("value {i} of {n} missing (qjson.null for null)"));
                    }
                    encode::encode(l, -1, 0, 1, c)?;
                    sys::lua_remove(l, -2);
                }
                sys::lua_rawgeti(l, 3, (n + 1) as _);
                if sys::lua_type(l, -1) != sys::LUA_TNIL {
                    lua::method_arg_error(l, 3, "apply", &msg!("the patch takes {n} values, more given"));
                }
                sys::lua_pop(l, 1);
            }
        }
        let target = target(l, 2, 1, c, None)?;
        run(l, target, |doc, out| {
            // (Made here, with no Lua call to come before it is dropped.)
            let texts: Vec<&[u8]> = (0..n as c_int).map(|i| lua::string_at(l, first + i).unwrap_or_default()).collect();
            let p = (*p).as_ref().expect("checked above");
            p.patch.apply_texts(doc, &texts, max_size, out).map_err(|e| msg!("qjson: {e}"))
        })
    }
}

unsafe fn tostring(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        lua::push_bytes(l, b"qjson.patcher");
        Ok(1)
    }
}

lua_fn!(c_patch => patch);
lua_fn!(c_merge => merge);
lua_fn!(c_patcher => patcher);
lua_fn!(c_safe_patcher => safe_patcher);
lua_fn!(c_apply => apply);
lua_fn!(c_tostring => tostring);

/// An instance's functions: (name, for qjson, for qjson.safe), set as closures
/// over its settings and a spare encoder (`qjson.safe` protects `patch`
/// and `merge_patch` as its other functions; its `patcher` makes
/// patchers whose `apply` is protected).
pub const FUNCTIONS: &[(&CStr, sys::lua_CFunction, sys::lua_CFunction)] =
    &[(c"patch", c_patch, c_patch), (c"merge_patch", c_merge, c_merge), (c"patcher", c_patcher, c_safe_patcher)];

/// Registers the patcher and result metatables.
pub unsafe fn register(l: State, protected: sys::lua_CFunction) {
    // SAFETY: a valid state.
    unsafe {
        lua::register_type::<Vec<u8>>(l, RESULT, &[], &[]);
        for (name, protect) in [(PATCHER, None), (SAFE_PATCHER, Some(protected))] {
            lua::register_object_type::<Patcher>(l, name, &[(c"apply", c_apply)], c_tostring, protect);
        }
    }
}
