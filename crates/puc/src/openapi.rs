//! `qjson.openapi` on PUC Lua: OpenAPI request validation (crates/core/
//! src/openapi/) with the Lua-facing contract of both bindings
//! (docs/puc-lua.md). `qjson.openapi(spec [, opts])` compiles a spec given
//! as a text or a table (encoded) into an api userdata;
//! `api:validate_request(req)` checks a request table, `api:problem(errors)`
//! renders a failed validation's errors as RFC 9457 problem details.
//!
//! As patch.rs: everything that calls Lua comes first (the request's
//! fields, then the headers the routed operation declares, each read from
//! the headers table or function and left on the stack), then the core
//! validates with a lookup over those stack values and no Lua call, its
//! outcome kept in a userdata while the result tables are pushed.

use std::ffi::{c_int, CStr};

use qjson_core::openapi::{problem_json, problem_title, Api, ApiOptions, ProblemItem, Request, RequestError, Where};

use crate::config;
use crate::decode::{self, Build, Spare};
use crate::doc::{guarded, where_msg};
use crate::lua::{self, lua_fn, msg, sys, Msg, Ret, State};
use crate::schema::json_text;

const API: &CStr = c"qjson.openapi";
const SAFE_API: &CStr = c"qjson.safe_openapi";
const OUTCOME: &CStr = c"qjson.openapi_outcome";
const PROBLEM: &CStr = c"qjson.openapi_problem";

/// What a valid request matched, owned (the core's borrows the api).
struct Valid {
    operation_id: Option<String>,
    template: String,
    /// Each path parameter's name and value as JSON text.
    path_params: Vec<(String, String)>,
}

type Outcome = Result<Valid, Vec<RequestError>>;

/// One error of `problem`'s argument, copied from Lua: where, name,
/// instance location, keyword location and message (bytes that are not
/// UTF-8 replaced), then line, column and byte when given.
struct Entry {
    strings: [String; 5],
    position: [Option<u64>; 3],
}

/// `problem`'s state: the errors read, then the text (the core's
/// renderer, `problem_json`).
#[derive(Default)]
struct Problem {
    entries: Vec<Entry>,
    out: String,
}

/// The options table at `arg` (nil: the defaults).
unsafe fn options(l: State, arg: c_int) -> ApiOptions {
    // SAFETY: a valid state and index.
    unsafe {
        let mut o = ApiOptions::default();
        match sys::lua_type(l, arg) {
            sys::LUA_TNIL | sys::LUA_TNONE => return o,
            sys::LUA_TTABLE => {}
            _ => lua::arg_error(l, 2, &msg!("options table expected, got {}", lua::type_name(l, arg))),
        }
        sys::lua_pushnil(l);
        while sys::lua_next(l, arg) != 0 {
            let (k, v) = (sys::lua_gettop(l) - 1, sys::lua_gettop(l));
            let bad = |what: &str| -> ! {
                let m = msg!("{what}, got {}", lua::to_text(l, v).as_str());
                lua::arg_error(l, 2, &m)
            };
            match lua::string_at(l, k).unwrap_or_default() {
                b"max_errors" => {
                    let n = sys::lua_tonumber(l, v);
                    if sys::lua_type(l, v) != sys::LUA_TNUMBER
                        || !(1.0..=u32::MAX as f64).contains(&n)
                        || n.fract() != 0.0
                    {
                        bad("max_errors: positive integer expected");
                    }
                    o.max_errors = n as usize;
                }
                b"format" => {
                    if sys::lua_type(l, v) != sys::LUA_TBOOLEAN {
                        let m = msg!("format: boolean expected, got {}", lua::type_name(l, v));
                        lua::arg_error(l, 2, &m);
                    }
                    o.formats = sys::lua_toboolean(l, v) != 0;
                }
                _ => lua::arg_error(l, 2, &msg!("unknown option '{}'", lua::to_text(l, k).as_str())),
            }
            sys::lua_pop(l, 1);
        }
        o
    }
}

/// `qjson.openapi(spec [, opts])` (`safe`: `qjson.safe`'s, whose apis'
/// methods return nil and the message): upvalue 1 the settings, 2 a spare
/// encoder (for a spec given as a table).
unsafe fn compile(l: State, safe: bool) -> Ret {
    // SAFETY: called by Lua as an instance's closure.
    unsafe {
        sys::lua_settop(l, 2);
        let c = config::of(l);
        let text = json_text(l, 1, 1, 2, c, "spec as JSON or YAML")?;
        let opts = options(l, 2);
        // The userdata first (an allocation that may raise), then the
        // compiled api, which owns memory.
        let ud = lua::new_empty::<Api>(l, if safe { SAFE_API } else { API });
        match guarded(|| Api::compile(text, &opts).map_err(|e| msg!("qjson: {e}"))) {
            Ok(api) => *ud = Some(api),
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

/// The api at argument 1 of method `method`.
unsafe fn this<'a>(l: State, method: &str) -> Result<&'a Api, Msg> {
    // SAFETY: a valid state; an api is never changed once compiled.
    unsafe {
        let p = match lua::userdata_at::<Option<Api>>(l, 1, API) {
            Some(p) => p,
            None => match lua::userdata_at::<Option<Api>>(l, 1, SAFE_API) {
                Some(p) => p,
                None => lua::method_arg_error(l, 2, method, &msg!("qjson.openapi expected")),
            },
        };
        (*p).as_ref().ok_or_else(|| msg!("qjson: the api did not compile"))
    }
}

// The request's fields, at these stack slots.
const METHOD: c_int = 3;
const PATH: c_int = 4;
const QUERY: c_int = 5;
const BODY: c_int = 6;
const CONTENT_TYPE: c_int = 7;
const HEADERS: c_int = 8;
/// The first declared header's value (nil when absent), then the others.
const HEADER_VALUES: c_int = 9;

/// Reads field `name` of the request (argument 2) into the next slot: a
/// string, or nil unless `required`.
unsafe fn field(l: State, name: &CStr, required: bool) {
    // SAFETY: a valid state; the request table at 2.
    unsafe {
        sys::lua_getfield(l, 2, name.as_ptr());
        let t = sys::lua_type(l, -1);
        if t != sys::LUA_TSTRING && (required || t != sys::LUA_TNIL) {
            let what = if required { "string" } else { "string or nil" };
            let m = msg!("{}: {what} expected, got {}", name.to_str().unwrap_or("?"), lua::type_name(l, -1));
            lua::method_arg_error(l, 2, "validate_request", &m);
        }
    }
}

/// Pushes the value of header `name` (the headers table or function at
/// `HEADERS`): a string, or nil when absent. A table of strings (a
/// repeated header) is joined with ", ".
unsafe fn push_header(l: State, name: &str) {
    // SAFETY: a valid state; nothing owned here.
    unsafe {
        let bad = |m: Msg| -> ! { lua::method_arg_error(l, 2, "validate_request", &m) };
        sys::lua_pushvalue(l, HEADERS);
        lua::push_bytes(l, name.as_bytes());
        if sys::lua_type(l, HEADERS) == sys::LUA_TFUNCTION {
            sys::lua_call(l, 1, 1);
            match sys::lua_type(l, -1) {
                sys::LUA_TSTRING | sys::LUA_TNIL => {}
                _ => bad(msg!(
                    "headers: the function returned {} for '{name}', string or nil expected",
                    lua::type_name(l, -1)
                )),
            }
            return;
        }
        sys::lua_gettable(l, -2);
        sys::lua_remove(l, -2);
        match sys::lua_type(l, -1) {
            sys::LUA_TSTRING | sys::LUA_TNIL => {}
            sys::LUA_TTABLE => {
                let list = sys::lua_gettop(l);
                let n = sys::lua_rawlen(l, list);
                sys::luaL_checkstack(l, 4, c"qjson: too many headers for the Lua stack".as_ptr());
                if n == 0 {
                    sys::lua_pushnil(l);
                }
                for i in 1..=n {
                    sys::lua_rawgeti(l, list, i as _);
                    if sys::lua_type(l, -1) != sys::LUA_TSTRING {
                        bad(msg!("headers: value {i} of '{name}' is a {}, string expected", lua::type_name(l, -1)));
                    }
                    if i > 1 {
                        lua::push_bytes(l, b", ");
                        sys::lua_insert(l, -2);
                        sys::lua_concat(l, 3);
                    }
                }
                sys::lua_remove(l, list);
            }
            _ => bad(msg!(
                "headers: the value of '{name}' is a {}, string or table of strings expected",
                lua::type_name(l, -1)
            )),
        }
    }
}

/// `api:validate_request(req)`: true and the match, or false and the
/// errors.
unsafe fn validate_request(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        sys::lua_settop(l, 2);
        let api = this(l, "validate_request")?;
        if sys::lua_type(l, 2) != sys::LUA_TTABLE {
            let m = msg!("request table expected, got {}", lua::type_name(l, 2));
            lua::method_arg_error(l, 2, "validate_request", &m);
        }
        field(l, c"method", true);
        field(l, c"path", true);
        field(l, c"query", false);
        field(l, c"body", false);
        field(l, c"content_type", false);
        sys::lua_getfield(l, 2, c"headers".as_ptr());
        match sys::lua_type(l, HEADERS) {
            sys::LUA_TTABLE | sys::LUA_TFUNCTION | sys::LUA_TNIL => {}
            _ => {
                let m = msg!("headers: table or function expected, got {}", lua::type_name(l, HEADERS));
                lua::method_arg_error(l, 2, "validate_request", &m);
            }
        }
        let method = lua::string_at(l, METHOD).unwrap_or_default();
        let path = lua::string_at(l, PATH).unwrap_or_default();
        let (query, body, content_type) =
            (lua::string_at(l, QUERY), lua::string_at(l, BODY), lua::string_at(l, CONTENT_TYPE));
        // The declared headers (a borrow of the api, which argument 1
        // keeps), each value read now: the core calls no Lua.
        let names: &[String] = match (std::str::from_utf8(method), std::str::from_utf8(path)) {
            (Ok(m), Ok(p)) => api.header_names(m, p),
            _ => &[],
        };
        let has_headers = sys::lua_type(l, HEADERS) != sys::LUA_TNIL;
        if has_headers {
            let n = names.len().min(c_int::MAX as usize / 2) as c_int;
            sys::luaL_checkstack(l, n + 8, c"qjson: too many headers for the Lua stack".as_ptr());
            for name in names {
                push_header(l, name);
            }
        }
        let outcome = lua::new_empty::<Outcome>(l, OUTCOME);
        let found = |name: &str| -> Option<&[u8]> {
            let i = names.iter().position(|n| n == name).filter(|_| has_headers)?;
            lua::string_at(l, HEADER_VALUES + i as c_int)
        };
        *outcome = Some(guarded(|| {
            let req = match Request::from_bytes(method, path, query, &found, body, content_type) {
                Ok(req) => req,
                Err(e) => return Ok(Err(e)),
            };
            Ok(api.validate_request(&req).map(|m| Valid {
                operation_id: m.operation_id.map(str::to_owned),
                template: m.template.to_owned(),
                path_params: m.path_params.into_iter().map(|(n, v)| (n.to_owned(), v)).collect(),
            }))
        })?);
        match (*outcome).as_ref().expect("just set") {
            Ok(valid) => {
                sys::lua_pushboolean(l, 1);
                push_valid(l, valid)?;
            }
            Err(errors) => {
                sys::lua_pushboolean(l, 0);
                push_errors(l, errors);
            }
        }
        // Freed now rather than at the userdata's collection.
        drop((*outcome).take());
        Ok(2)
    }
}

/// Pushes `{operation_id =, template =, path = {name = value}}`, each
/// path parameter decoded from its JSON text as `qjson.decode` does.
/// `valid` lives in a userdata on the stack.
unsafe fn push_valid(l: State, valid: &Valid) -> Result<(), Msg> {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_createtable(l, 0, 3);
        if let Some(id) = &valid.operation_id {
            lua::push_bytes(l, id.as_bytes());
            sys::lua_setfield(l, -2, c"operation_id".as_ptr());
        }
        lua::push_bytes(l, valid.template.as_bytes());
        sys::lua_setfield(l, -2, c"template".as_ptr());
        sys::lua_createtable(l, 0, valid.path_params.len().min(c_int::MAX as usize) as c_int);
        let build = Build { opts: qjson_core::Options::default(), array_mt: 0, empty_array_mt: 0 };
        for (name, json) in &valid.path_params {
            lua::push_bytes(l, json.as_bytes());
            decode::decode(l, lua::string_bytes(l, -1), Spare::Registry, build)?;
            lua::push_bytes(l, name.as_bytes());
            sys::lua_insert(l, -2);
            sys::lua_settable(l, -4);
            sys::lua_pop(l, 1);
        }
        sys::lua_setfield(l, -2, c"path".as_ptr());
        Ok(())
    }
}

/// The status of a failed validation: the route's (404, 405), else 415
/// when any error has it, else 400.
fn status(errors: &[RequestError]) -> u16 {
    match errors.iter().find(|e| e.location == Where::Route) {
        Some(e) => e.status,
        None if errors.iter().any(|e| e.status == 415) => 415,
        None => 400,
    }
}

/// Pushes the errors table; `errors` lives in a userdata on the stack.
unsafe fn push_errors(l: State, errors: &[RequestError]) {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_createtable(l, errors.len().min(c_int::MAX as usize) as c_int, 1);
        lua::push_int(l, status(errors) as i64);
        sys::lua_setfield(l, -2, c"status".as_ptr());
        for (i, e) in errors.iter().enumerate() {
            sys::lua_createtable(l, 0, 9);
            for (name, s) in [
                (c"where", e.location.as_str()),
                (c"name", &e.name),
                (c"instance_location", &e.instance_location),
                (c"keyword_location", &e.keyword_location),
                (c"message", &e.message),
            ] {
                lua::push_bytes(l, s.as_bytes());
                sys::lua_setfield(l, -2, name.as_ptr());
            }
            lua::push_int(l, e.status as i64);
            sys::lua_setfield(l, -2, c"status".as_ptr());
            if let Some(p) = e.position {
                for (name, n) in [(c"line", p.line), (c"column", p.column), (c"byte", p.byte)] {
                    lua::push_int(l, n as i64);
                    sys::lua_setfield(l, -2, name.as_ptr());
                }
            }
            sys::lua_rawseti(l, -2, (i + 1) as _);
        }
    }
}

/// `api:problem(errors)`: the RFC 9457 problem details of a failed
/// validation's errors (as `validate_request` returned them), and their
/// status.
unsafe fn problem(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        sys::lua_settop(l, 2);
        this(l, "problem")?;
        let bad = |m: Msg| -> ! { lua::method_arg_error(l, 2, "problem", &m) };
        if sys::lua_type(l, 2) != sys::LUA_TTABLE {
            bad(msg!("errors of a failed validation expected, got {}", lua::type_name(l, 2)));
        }
        sys::lua_getfield(l, 2, c"status".as_ptr());
        let status = lua::integer_at(l, 3).or_else(|| {
            let n = sys::lua_tonumber(l, 3);
            (sys::lua_type(l, 3) == sys::LUA_TNUMBER && n.fract() == 0.0).then_some(n as i64)
        });
        let Some(status) = status.and_then(|s| u16::try_from(s).ok()).filter(|&s| problem_title(s).is_some()) else {
            bad(msg!("errors.status: 400, 404, 405 or 415 expected, got {}", lua::to_text(l, 3).as_str()))
        };
        let p = lua::new_userdata(l, PROBLEM, Problem::default);
        let p = (*p).as_mut().expect("just made");
        let mut i = 1;
        loop {
            sys::lua_rawgeti(l, 2, i);
            match sys::lua_type(l, -1) {
                sys::LUA_TNIL => break,
                sys::LUA_TTABLE => {}
                _ => bad(msg!("errors[{i}]: table expected, got {}", lua::type_name(l, -1))),
            }
            let e = sys::lua_gettop(l);
            for name in [c"where", c"name", c"instance_location", c"keyword_location", c"message"] {
                sys::lua_getfield(l, e, name.as_ptr());
                if sys::lua_type(l, -1) != sys::LUA_TSTRING {
                    let name = name.to_str().unwrap_or("?");
                    bad(msg!("errors[{i}].{name}: string expected, got {}", lua::type_name(l, -1)));
                }
            }
            let mut position = [None; 3];
            for (slot, name) in position.iter_mut().zip([c"line", c"column", c"byte"]) {
                sys::lua_getfield(l, e, name.as_ptr());
                let n = sys::lua_tonumber(l, -1);
                match sys::lua_type(l, -1) {
                    sys::LUA_TNIL => {}
                    sys::LUA_TNUMBER if n >= 0.0 && n.fract() == 0.0 && n <= u64::MAX as f64 => *slot = Some(n as u64),
                    _ => {
                        let name = name.to_str().unwrap_or("?");
                        bad(msg!(
                            "errors[{i}].{name}: non-negative integer expected, got {}",
                            lua::to_text(l, -1).as_str()
                        ))
                    }
                }
                sys::lua_pop(l, 1);
            }
            // The five strings at e+1..e+5; no Lua call until they are copied.
            let s = |k: c_int| String::from_utf8_lossy(lua::string_at(l, e + k).unwrap_or_default()).into_owned();
            p.entries.push(Entry { strings: [s(1), s(2), s(3), s(4), s(5)], position });
            sys::lua_settop(l, e - 1);
            i += 1;
        }
        p.out = guarded(|| {
            let items: Vec<ProblemItem<'_>> = p.entries.iter().map(item).collect();
            problem_json(status, &items).ok_or_else(|| msg!("qjson: no title for status {status}"))
        })?;
        lua::push_bytes(l, p.out.as_bytes());
        lua::push_int(l, status.into());
        drop(std::mem::take(p));
        Ok(2)
    }
}

fn item(e: &Entry) -> ProblemItem<'_> {
    let [r#where, name, instance_location, keyword_location, message] = e.strings.each_ref().map(String::as_str);
    let [line, column, byte] = e.position;
    ProblemItem { r#where, name, instance_location, keyword_location, message, line, column, byte }
}

unsafe fn tostring(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        lua::push_bytes(l, b"qjson.openapi");
        Ok(1)
    }
}

lua_fn!(c_compile => compile_plain);
lua_fn!(c_compile_safe => compile_safe);
lua_fn!(c_validate_request => validate_request);
lua_fn!(c_problem => problem);
lua_fn!(c_tostring => tostring);

/// An instance's functions: (name, for qjson, for qjson.safe), set as
/// closures over its settings and a spare encoder (`qjson.safe` protects
/// `openapi` as its other functions, and its apis' methods).
pub const FUNCTIONS: &[(&CStr, sys::lua_CFunction, sys::lua_CFunction)] = &[(c"openapi", c_compile, c_compile_safe)];

/// Registers the api, outcome and problem metatables.
pub unsafe fn register(l: State, protected: sys::lua_CFunction) {
    // SAFETY: a valid state.
    unsafe {
        lua::register_type::<Outcome>(l, OUTCOME, &[], &[]);
        lua::register_type::<Problem>(l, PROBLEM, &[], &[]);
        let methods = [(c"validate_request", c_validate_request as sys::lua_CFunction), (c"problem", c_problem)];
        for (name, protect) in [(API, None), (SAFE_API, Some(protected))] {
            lua::register_object_type::<Api>(l, name, &methods, c_tostring, protect);
        }
    }
}
