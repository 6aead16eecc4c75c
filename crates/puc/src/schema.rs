//! `qjson.schema` on PUC Lua: JSON Schema validation (crates/core/src/
//! schema/) with the LuaJIT binding's arguments, options, report and
//! messages (lua/qjson/schema.lua). `qjson.schema(schema [, opts])`
//! compiles a schema given as a text or a table (encoded) into a
//! validator userdata; `v:validate(x)` and `v:is_valid(x)` check a text,
//! a document or cursor (where it lies) or a table (encoded).
//!
//! As patch.rs: everything that calls Lua comes first (argument checks,
//! encoding tables, whose texts stay on the stack, the userdata that will
//! own the result), then the document is opened and the core runs with
//! no Lua call; a report is kept in its userdata while it is pushed.

use std::ffi::{c_int, CStr};

use qjson_core::schema::{Failure, Schema, SchemaDraft, SchemaOptions};

use crate::config::{self, Config};
use crate::doc::{doc_node, guarded, set_anchor, target, where_msg, Target};
use crate::encode;
use crate::lua::{self, lua_fn, msg, sys, Msg, Ret, State};

const VALIDATOR: &CStr = c"qjson.schema";
const SAFE_VALIDATOR: &CStr = c"qjson.safe_schema";
const REPORT: &CStr = c"qjson.schema_report";

/// The JSON text at `arg` (a string, or a boolean or table encoded with
/// `c`, its text pushed) for argument `n`; `what` names it and the
/// languages it may be in (`"spec as JSON or YAML"`) in the error.
pub unsafe fn json_text<'a>(
    l: State,
    arg: c_int,
    n: c_int,
    spare: c_int,
    c: &Config,
    what: &str,
) -> Result<&'a [u8], Msg> {
    // SAFETY: a valid state and index.
    unsafe {
        if let Some(text) = lua::string_at(l, arg) {
            return Ok(text);
        }
        match sys::lua_type(l, arg) {
            sys::LUA_TTABLE | sys::LUA_TBOOLEAN => {
                encode::encode(l, arg, 0, spare, c)?;
                Ok(lua::string_at(l, -1).unwrap_or_default())
            }
            _ => {
                let m = msg!("{what} string or table expected, got {}", lua::type_name(l, arg));
                lua::arg_error(l, n, &m)
            }
        }
    }
}

/// The `remotes` option at `arg` as one JSON object text, pushed:
/// `{"<uri>":<document>,...}`, each member built as a string kept on the
/// stack below the iteration and all joined at the end.
unsafe fn remotes_text<'a>(l: State, arg: c_int, spare: c_int, c: &Config) -> Result<&'a [u8], Msg> {
    // SAFETY: a valid state and index.
    unsafe {
        if sys::lua_type(l, arg) != sys::LUA_TTABLE {
            let m = msg!("remotes: table of URI -> document expected, got {}", lua::type_name(l, arg));
            lua::arg_error(l, 2, &m);
        }
        lua::push_bytes(l, b"{");
        let mut parts = 1;
        sys::lua_pushnil(l);
        while sys::lua_next(l, arg) != 0 {
            sys::luaL_checkstack(l, 8, c"qjson: too many remotes for the Lua stack".as_ptr());
            let (key, value) = (sys::lua_gettop(l) - 1, sys::lua_gettop(l));
            if sys::lua_type(l, key) != sys::LUA_TSTRING {
                let m = msg!("remotes: URI string keys expected, got {}", lua::type_name(l, key));
                lua::arg_error(l, 2, &m);
            }
            let member = sys::lua_gettop(l) + 1;
            if parts > 1 {
                lua::push_bytes(l, b",");
            }
            encode::encode(l, key, 0, spare, c)?;
            lua::push_bytes(l, b":");
            if lua::string_at(l, value).is_some() {
                sys::lua_pushvalue(l, value);
            } else {
                json_text(l, value, 2, spare, c, "remote document as JSON")?;
            }
            sys::lua_concat(l, sys::lua_gettop(l) - member + 1);
            // Below the key and value, for lua_next.
            sys::lua_insert(l, key);
            parts += 1;
            sys::lua_pop(l, 1);
        }
        lua::push_bytes(l, b"}");
        sys::lua_concat(l, parts + 1);
        Ok(lua::string_at(l, -1).unwrap_or_default())
    }
}

/// The options table at `arg` (nil: the defaults), and the `remotes`
/// text (pushed) when given.
unsafe fn options<'a>(
    l: State,
    arg: c_int,
    spare: c_int,
    c: &Config,
) -> Result<(SchemaOptions, Option<&'a [u8]>), Msg> {
    // SAFETY: a valid state and index.
    unsafe {
        let mut o = SchemaOptions::default();
        let mut remotes = None;
        match sys::lua_type(l, arg) {
            sys::LUA_TNIL | sys::LUA_TNONE => return Ok((o, None)),
            sys::LUA_TTABLE => {}
            _ => lua::arg_error(l, 2, &msg!("options table expected, got {}", lua::type_name(l, arg))),
        }
        sys::lua_pushnil(l);
        while sys::lua_next(l, arg) != 0 {
            let (k, v) = (sys::lua_gettop(l) - 1, sys::lua_gettop(l));
            let name = lua::string_at(l, k).unwrap_or_default();
            let bad = |what: Msg| -> ! {
                let m = msg!("{}, got {}", what.as_str(), lua::to_text(l, v).as_str());
                lua::arg_error(l, 2, &m)
            };
            match name {
                b"draft" => {
                    let n = sys::lua_tonumber(l, v);
                    let draft = match (sys::lua_type(l, v) == sys::LUA_TNUMBER, lua::string_at(l, v)) {
                        (true, _) if n == 4.0 => Some(SchemaDraft::Draft4),
                        (true, _) if n == 6.0 => Some(SchemaDraft::Draft6),
                        (true, _) if n == 7.0 => Some(SchemaDraft::Draft7),
                        (false, Some(b"4")) => Some(SchemaDraft::Draft4),
                        (false, Some(b"6")) => Some(SchemaDraft::Draft6),
                        (false, Some(b"7")) => Some(SchemaDraft::Draft7),
                        (false, Some(b"2019-09")) => Some(SchemaDraft::Draft201909),
                        (false, Some(b"2020-12")) => Some(SchemaDraft::Draft202012),
                        _ => None,
                    };
                    match draft {
                        Some(d) => o.draft = d as u32,
                        None => bad(msg!("draft: 4, 6, 7, '2019-09' or '2020-12' expected")),
                    }
                }
                b"format" => o.formats = sys::lua_toboolean(l, v) as u32,
                b"openapi" => {
                    if sys::lua_type(l, v) != sys::LUA_TBOOLEAN && lua::string_at(l, v) != Some(b"3.0") {
                        bad(msg!("openapi: \"3.0\" expected"));
                    }
                    o.openapi = sys::lua_toboolean(l, v) as u32;
                }
                b"remotes" => {
                    let text = remotes_text(l, v, spare, c)?;
                    // Kept below the key and value, for lua_next.
                    sys::lua_insert(l, k);
                    remotes = Some(text);
                }
                b"max_depth" | b"max_errors" | b"backtrack_limit" | b"backtrack_budget" | b"regex_size_limit" => {
                    let n = sys::lua_tonumber(l, v);
                    let whole = (1.0..=u32::MAX as f64).contains(&n) && n.fract() == 0.0;
                    if sys::lua_type(l, v) != sys::LUA_TNUMBER || !whole {
                        bad(msg!("{}: positive integer expected", std::str::from_utf8(name).unwrap_or_default()));
                    }
                    let slot = match name {
                        b"max_depth" => &mut o.max_depth,
                        b"max_errors" => &mut o.max_errors,
                        b"backtrack_limit" => &mut o.backtrack_limit,
                        b"backtrack_budget" => &mut o.backtrack_budget,
                        _ => &mut o.regex_size_limit,
                    };
                    *slot = n as u32;
                }
                _ => lua::arg_error(l, 2, &msg!("unknown option '{}'", lua::to_text(l, k).as_str())),
            }
            sys::lua_pop(l, 1);
        }
        Ok((o, remotes))
    }
}

/// `qjson.schema(schema [, opts])` (`safe`: `qjson.safe`'s, whose
/// validators' methods return nil and the message): upvalue 1 the
/// settings, 2 a spare encoder. The validator's user value is the
/// settings, with which its methods encode tables.
unsafe fn compile(l: State, safe: bool) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        sys::lua_settop(l, 2);
        let c = config::of(l);
        let text = json_text(l, 1, 1, 2, c, "schema as JSON")?;
        let (opts, remotes) = options(l, 2, 2, c)?;
        // The userdata first (an allocation that may raise), then the
        // compiled schema, which owns memory.
        let ud = lua::new_empty::<Schema>(l, if safe { SAFE_VALIDATOR } else { VALIDATOR });
        let at = sys::lua_gettop(l);
        sys::lua_pushvalue(l, sys::lua_upvalueindex(1));
        set_anchor(l, at);
        match guarded(|| Schema::compile(text, remotes, &opts).map_err(|e| msg!("qjson: {e}"))) {
            Ok(s) => *ud = Some(s),
            Err(m) => return Err(where_msg(l, m)),
        }
        Ok(1)
    }
}

unsafe fn compile_plain(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { compile(l, false) }
}

unsafe fn compile_safe(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { compile(l, true) }
}

/// The validator at argument 1 of method `method`, and the instance at
/// argument 2 (a table encoded with the validator's settings; upvalue 1 a
/// spare encoder).
unsafe fn instance<'a>(l: State, method: &str) -> Result<(*mut Option<Schema>, Target<'a>), Msg> {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_settop(l, 2);
        let v = match lua::userdata_at::<Option<Schema>>(l, 1, VALIDATOR) {
            Some(v) => v,
            None => match lua::userdata_at::<Option<Schema>>(l, 1, SAFE_VALIDATOR) {
                Some(v) => v,
                None => lua::method_arg_error(l, 2, method, &msg!("qjson.schema expected")),
            },
        };
        if (*v).is_none() {
            return Err(msg!("qjson: the validator did not compile"));
        }
        let c = config::of_userdata(l, 1);
        Ok((v, target(l, 2, 1, c, Some(method))?))
    }
}

/// A body that is not JSON as the one error of its report: the parse
/// error's message and place, empty locations.
fn not_json(e: &qjson_core::Error) -> Vec<Failure> {
    vec![Failure {
        instance_location: String::new(),
        keyword_location: String::new(),
        message: e.to_string(),
        byte: e.offset,
        line: e.line,
        column: e.column,
    }]
}

/// `v:validate(x)`: true, or false and the errors.
unsafe fn validate(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (v, target) = instance(l, "validate")?;
        // The report's userdata before the document is opened.
        let report = lua::new_empty::<Vec<Failure>>(l, REPORT);
        let run = match target {
            Target::Text(text) => guarded(|| {
                let s = (*v).as_ref().expect("checked by instance");
                *report = Some(s.validate_bytes(text).unwrap_or_else(|e| not_json(&e)));
                Ok(())
            }),
            Target::Document(ud, node) => doc_node(l, ud, node).and_then(|doc| {
                guarded(|| {
                    let s = (*v).as_ref().expect("checked by instance");
                    *report = Some(s.validate(doc, node).map_err(|e| msg!("qjson: {e}"))?);
                    Ok(())
                })
            }),
        };
        if let Err(m) = run {
            return Err(where_msg(l, m));
        }
        let failures = (*report).as_deref().unwrap_or_default();
        if failures.is_empty() {
            sys::lua_pushboolean(l, 1);
            return Ok(1);
        }
        sys::lua_pushboolean(l, 0);
        push_report(l, failures);
        // Freed now rather than at the userdata's collection.
        drop((*report).take());
        Ok(2)
    }
}

/// Pushes the list of errors; `failures` lives in a userdata on the
/// stack, so nothing this frame owns is lost if an allocation raises.
unsafe fn push_report(l: State, failures: &[Failure]) {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_createtable(l, failures.len().min(c_int::MAX as usize) as c_int, 0);
        for (i, f) in failures.iter().enumerate() {
            sys::lua_createtable(l, 0, 6);
            for (name, s) in [
                (c"instance_location", &f.instance_location),
                (c"keyword_location", &f.keyword_location),
                (c"message", &f.message),
            ] {
                lua::push_bytes(l, s.as_bytes());
                sys::lua_setfield(l, -2, name.as_ptr());
            }
            for (name, n) in [(c"byte", f.byte), (c"line", f.line), (c"column", f.column)] {
                lua::push_int(l, n as i64);
                sys::lua_setfield(l, -2, name.as_ptr());
            }
            sys::lua_rawseti(l, -2, (i + 1) as _);
        }
    }
}

/// `v:is_valid(x)`: the verdict alone (a body that is not JSON is not
/// valid).
unsafe fn is_valid(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (v, target) = instance(l, "is_valid")?;
        let verdict = match target {
            Target::Text(text) => guarded(|| Ok((*v).as_ref().expect("checked").is_valid_bytes(text).unwrap_or(false))),
            Target::Document(ud, node) => doc_node(l, ud, node).and_then(|doc| {
                guarded(|| (*v).as_ref().expect("checked").is_valid(doc, node).map_err(|e| msg!("qjson: {e}")))
            }),
        };
        match verdict {
            Ok(ok) => {
                sys::lua_pushboolean(l, ok as c_int);
                Ok(1)
            }
            Err(m) => Err(where_msg(l, m)),
        }
    }
}

unsafe fn tostring(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        lua::push_bytes(l, b"qjson.schema");
        Ok(1)
    }
}

lua_fn!(c_compile => compile_plain);
lua_fn!(c_compile_safe => compile_safe);
lua_fn!(c_validate => validate);
lua_fn!(c_is_valid => is_valid);
lua_fn!(c_tostring => tostring);

/// An instance's functions: (name, for qjson, for qjson.safe), set as
/// closures over its settings and a spare encoder (`qjson.safe` protects
/// `schema` as its other functions, and its validators' methods).
pub const FUNCTIONS: &[(&CStr, sys::lua_CFunction, sys::lua_CFunction)] = &[(c"schema", c_compile, c_compile_safe)];

/// Registers the validator and report metatables.
pub unsafe fn register(l: State, protected: sys::lua_CFunction) {
    // SAFETY: a valid state.
    unsafe {
        lua::register_type::<Vec<Failure>>(l, REPORT, &[], &[]);
        // (Each method's upvalue: a spare encoder.)
        let methods = [(c"validate", c_validate as sys::lua_CFunction), (c"is_valid", c_is_valid)];
        for (name, protect) in [(VALIDATOR, None), (SAFE_VALIDATOR, Some(protected))] {
            lua::register_object_type::<Schema>(l, name, &methods, c_tostring, protect);
        }
    }
}
