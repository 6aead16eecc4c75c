//! OpenAPI request validation: a compiled spec (`qjson_openapi`), the
//! headers a request's operation reads, and the check of a request.
//!
//! Nothing is kept in Rust between calls (a finalizer may use the same
//! spec between two of them): each call routes the request afresh and
//! writes its outcome into memory the caller owns (`records`).

use std::ffi::c_char;

use std::borrow::Cow;

use super::records::{self, Records};
use super::slot::{box_into, in_slot};
use super::{bytes, fill_error, guard, panic_message, ErrorInfo, Status};
use qjson_core::openapi::{problem_json, Api, ApiOptions, Matched, ProblemItem, Request, RequestError};

/// A request header: its lower-case name and its value (a null value:
/// the header is absent), each a pointer and a byte length.
#[repr(C)]
pub struct OpenApiHeader {
    pub name: *const c_char,
    pub name_len: usize,
    pub value: *const c_char,
    pub value_len: usize,
}

/// Compiles the OpenAPI 3.0/3.1 spec in `len` bytes of JSON at `spec`,
/// with at most `max_errors` errors per request (0: the default) and, when
/// `formats` is not 0, `format` asserted. Boxes it into the caller's slot
/// `out` and returns 1; 0 on error, with `err` filled in ("invalid OpenAPI
/// spec at <JSON Pointer>: <why>").
///
/// # Safety
/// - `spec` is null or points to `len` readable bytes, for the call.
/// - `out` is null or points to a writable slot holding null or a spec
///   from `qjson_openapi_new_in` (released by this call).
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_openapi_new_in(
    spec: *const c_char,
    len: usize,
    max_errors: u32,
    formats: i32,
    out: *mut *mut Api,
    err: *mut ErrorInfo,
) -> i32 {
    let built = guard(None, || {
        // SAFETY: the caller passes readable bytes.
        let text = unsafe { bytes(spec as *const u8, len) };
        let opts = ApiOptions { max_errors: max_errors as usize, formats: formats != 0 };
        Some(Api::compile(text, &opts).map_err(|e| e.to_string()))
    });
    box_into(built, out, err, |r, m| r.fill(&m, 0, 0, 0))
}

/// Frees the compiled spec in slot `api` and empties the slot (null or
/// empty: nothing).
///
/// # Safety
/// - `api` is null or points to a writable slot holding null or the spec
///   `qjson_openapi_new_in` put there and no one has freed since.
#[no_mangle]
pub unsafe extern "C" fn qjson_openapi_release(api: *mut *mut Api) {
    // SAFETY: a slot filled by `qjson_openapi_new_in`.
    unsafe { super::slot::release(api) }
}

/// The lower-case names of the headers the operation routed by `method`
/// and `path` reads (none without a route): the report's size, the report
/// written to `out` when it fits in `cap` bytes. Head: the count; one
/// record per name, its one string. `Status::Error` (a bad argument) or
/// `Status::Panic`, with `err` filled in.
///
/// # Safety
/// - `api` is null or points to a readable slot holding null or the spec
///   `qjson_openapi_new_in` put there and no one has freed since.
/// - `method` and `path` are null or point to `method_len` and `path_len`
///   readable bytes, for the call.
/// - `out` is null or points to `cap` writable bytes.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_openapi_header_names(
    api: *const *mut Api,
    method: *const c_char,
    method_len: usize,
    path: *const c_char,
    path_len: usize,
    out: *mut u8,
    cap: usize,
    err: *mut ErrorInfo,
) -> i32 {
    run(err, || {
        let api = in_slot(api, "OpenAPI spec")?;
        // SAFETY: readable bytes, by the contract.
        let (method, path) = unsafe { (bytes(method as *const u8, method_len), bytes(path as *const u8, path_len)) };
        let names = match (std::str::from_utf8(method), std::str::from_utf8(path)) {
            (Ok(m), Ok(p)) => api.header_names(m, p),
            _ => &[],
        };
        names_report(names.iter().map(String::as_str), out, cap)
    })
}

/// Every header name any operation of the spec in slot `api` reads, each
/// once (lower case), as `qjson_openapi_header_names` reports them.
///
/// # Safety
/// - `api` is null or points to a readable slot holding null or the spec
///   `qjson_openapi_new_in` put there and no one has freed since.
/// - `out` is null or points to `cap` writable bytes.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_openapi_all_header_names(
    api: *const *mut Api,
    out: *mut u8,
    cap: usize,
    err: *mut ErrorInfo,
) -> i32 {
    run(err, || {
        let api = in_slot(api, "OpenAPI spec")?;
        names_report(api.all_header_names().into_iter(), out, cap)
    })
}

/// Head: the count; one record per name, its one string.
fn names_report<'a>(names: impl ExactSizeIterator<Item = &'a str>, out: *mut u8, cap: usize) -> Result<i32, String> {
    let mut report = Records::new(&[names.len()]);
    for n in names {
        report.push(&[], &[n]);
    }
    report.deliver(out, cap)
}

/// Checks a request against the spec in slot `api`: `method`, the raw
/// `path` (no query), the raw `query`, `body` and `content_type` (each a
/// pointer and a byte length; a null `query`, `body` or `content_type`
/// is absent), and `nheaders` headers at `headers` (the operation asks
/// only for those it declares, `qjson_openapi_header_names`). Returns the
/// report's size (never 0), the report written to `out` when it fits in
/// `cap` bytes (call again with more room when it does not). Head: the
/// HTTP status (0 when valid) and a count. Valid: a record with the
/// number 1 when there is an operation id and the strings operation id
/// and path template, then `count` records of a path parameter's name and
/// value as JSON text. Invalid: `count` errors, each the numbers byte,
/// line, column (0 when not located in the body) and status, then the
/// strings where (`route`, `path`, `query`, `header`, `body`), name,
/// instance location, keyword location and message. `Status::Error` (a
/// bad argument) or `Status::Panic`, with `err` filled in.
///
/// # Safety
/// - `api` is null or points to a readable slot holding null or the spec
///   `qjson_openapi_new_in` put there and no one has freed since.
/// - Each text pointer is null or points to as many readable bytes as its
///   length says, for the call; `headers` is null or points to `nheaders`
///   readable `qjson_openapi_header`s whose pointers are so too.
/// - `out` is null or points to `cap` writable bytes.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn qjson_openapi_validate(
    api: *const *mut Api,
    method: *const c_char,
    method_len: usize,
    path: *const c_char,
    path_len: usize,
    query: *const c_char,
    query_len: usize,
    body: *const c_char,
    body_len: usize,
    content_type: *const c_char,
    content_type_len: usize,
    headers: *const OpenApiHeader,
    nheaders: usize,
    out: *mut u8,
    cap: usize,
    err: *mut ErrorInfo,
) -> i32 {
    run(err, || {
        let api = in_slot(api, "OpenAPI spec")?;
        let headers = if headers.is_null() {
            &[][..]
        } else {
            // SAFETY: `nheaders` readable entries, by the contract.
            unsafe { std::slice::from_raw_parts(headers, nheaders) }
        };
        let lookup = |name: &str| header(headers, name);
        // SAFETY: readable bytes (or null), by the contract.
        let (method, path, query, body, content_type) = unsafe {
            (
                bytes(method as *const u8, method_len),
                bytes(path as *const u8, path_len),
                (!query.is_null()).then(|| bytes(query as *const u8, query_len)),
                (!body.is_null()).then(|| bytes(body as *const u8, body_len)),
                (!content_type.is_null()).then(|| bytes(content_type as *const u8, content_type_len)),
            )
        };
        let outcome = Request::from_bytes(method, path, query, &lookup, body, content_type)
            .and_then(|req| api.validate_request(&req));
        match outcome {
            Ok(m) => matched(&m),
            Err(errors) => failed(&errors),
        }
        .deliver(out, cap)
    })
}

/// The value of header `name` among the caller's.
fn header<'a>(headers: &'a [OpenApiHeader], name: &str) -> Option<&'a [u8]> {
    // SAFETY: each name and value points to its length's readable bytes.
    let h = headers.iter().find(|h| unsafe { bytes(h.name as *const u8, h.name_len) } == name.as_bytes())?;
    // SAFETY: as above.
    (!h.value.is_null()).then(|| unsafe { bytes(h.value as *const u8, h.value_len) })
}

fn matched(m: &Matched<'_>) -> Records {
    let mut report = Records::new(&[0, m.path_params.len()]);
    report.push(&[usize::from(m.operation_id.is_some())], &[m.operation_id.unwrap_or_default(), m.template]);
    for (name, json) in &m.path_params {
        report.push(&[], &[name, json]);
    }
    report
}

/// The response status for `errors`: the route's (404, 405), else 415
/// when an error has it, else 400.
fn status(errors: &[RequestError]) -> u16 {
    let has = |s: u16| errors.iter().any(|e| e.status == s);
    [404, 405, 415].into_iter().find(|&s| has(s)).unwrap_or(400)
}

fn failed(errors: &[RequestError]) -> Records {
    let mut report = Records::new(&[usize::from(status(errors)), errors.len()]);
    for e in errors {
        let (byte, line, column) = e.position.map_or((0, 0, 0), |p| (p.byte, p.line, p.column));
        report.push(
            &[byte, line, column, usize::from(e.status)],
            &[e.location.as_str(), &e.name, &e.instance_location, &e.keyword_location, &e.message],
        );
    }
    report
}

/// One error of a failed validation, for `qjson_openapi_problem`: its
/// where, name, instance location, keyword location and message, each a
/// pointer and a byte length (bytes that are not UTF-8 are replaced), and
/// its line, column and byte in the body, each a non-negative integer or
/// -1 when not known.
#[repr(C)]
pub struct OpenApiProblemItem {
    pub r#where: *const c_char,
    pub where_len: usize,
    pub name: *const c_char,
    pub name_len: usize,
    pub instance_location: *const c_char,
    pub instance_location_len: usize,
    pub keyword_location: *const c_char,
    pub keyword_location_len: usize,
    pub message: *const c_char,
    pub message_len: usize,
    pub line: f64,
    pub column: f64,
    pub byte: f64,
}

/// The RFC 9457 problem document (application/problem+json) of
/// `nitems` errors at `items` with HTTP `status`, as the core renders it
/// (crates/core/src/openapi/problem.rs): its size, the text written to
/// `out` when it fits in `cap` bytes (call again with more room when it
/// does not). `Status::Error` for a status other than 400, 404, 405 or 415
/// (`err` says "errors.status: 400, 404, 405 or 415 expected, got N") or
/// `Status::Panic`, with `err` filled in.
///
/// # Safety
/// - `items` is null or points to `nitems` readable `qjson_openapi_problem_item`s
///   whose pointers each point to as many readable bytes as their length
///   says, for the call.
/// - `out` is null or points to `cap` writable bytes.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_openapi_problem(
    status: f64,
    items: *const OpenApiProblemItem,
    nitems: usize,
    out: *mut u8,
    cap: usize,
    err: *mut ErrorInfo,
) -> i32 {
    run(err, || {
        let items = if items.is_null() {
            &[][..]
        } else {
            // SAFETY: `nitems` readable entries, by the contract.
            unsafe { std::slice::from_raw_parts(items, nitems) }
        };
        // SAFETY: readable bytes, by the contract.
        let text = |p: *const c_char, n: usize| String::from_utf8_lossy(unsafe { bytes(p as *const u8, n) });
        let texts: Vec<[Cow<'_, str>; 5]> = items
            .iter()
            .map(|e| {
                [
                    text(e.r#where, e.where_len),
                    text(e.name, e.name_len),
                    text(e.instance_location, e.instance_location_len),
                    text(e.keyword_location, e.keyword_location_len),
                    text(e.message, e.message_len),
                ]
            })
            .collect();
        let known = |n: f64| (n >= 0.0).then_some(n as u64);
        let items: Vec<ProblemItem<'_>> = items
            .iter()
            .zip(&texts)
            .map(|(e, [r#where, name, instance_location, keyword_location, message])| ProblemItem {
                r#where,
                name,
                instance_location,
                keyword_location,
                message,
                line: known(e.line),
                column: known(e.column),
                byte: known(e.byte),
            })
            .collect();
        let doc = (status.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(&status))
            .then(|| problem_json(status as u16, &items))
            .flatten()
            .ok_or_else(|| format!("errors.status: 400, 404, 405 or 415 expected, got {status}"))?;
        records::deliver(doc.as_bytes(), out, cap)
    })
}

fn run(err: *mut ErrorInfo, f: impl FnOnce() -> Result<i32, String>) -> i32 {
    match guard(None, || Some(f())) {
        Some(Ok(n)) => n,
        Some(Err(m)) => {
            fill_error(err, &m);
            Status::Error as i32
        }
        None => {
            fill_error(err, &panic_message());
            Status::Panic as i32
        }
    }
}
