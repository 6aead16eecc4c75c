//! JSON Schema validation: compiled schemas (`qjson_schema`) and checks of
//! a body, or of a node of a parsed document, against one.
//!
//! Checks that report errors write them into memory the caller owns
//! (`out`, `cap` bytes; see `records`).

use std::ffi::c_char;

use super::doc::{open_doc, Handle};
use super::records::Records;
use super::slot::{box_into, in_slot};
use super::{bytes, fill_error, guard, panic_message, report, ErrorInfo, Status};
use qjson_core::schema::{Failure, Schema, SchemaOptions};

/// Why a check failed: a bad argument, or input that is not JSON (with
/// its position).
enum Fail {
    Msg(String),
    At(qjson_core::Error),
}

impl From<String> for Fail {
    fn from(m: String) -> Fail {
        Fail::Msg(m)
    }
}

impl From<qjson_core::Error> for Fail {
    fn from(e: qjson_core::Error) -> Fail {
        Fail::At(e)
    }
}

fn fill_fail(err: *mut ErrorInfo, f: &Fail) {
    match f {
        Fail::Msg(m) => fill_error(err, m),
        Fail::At(e) => report(err, |r| r.fill_from(e)),
    }
}

/// Compiles the schema in `len` bytes of JSON at `schema`. `remotes`
/// (`remotes_len` bytes, or null) is a JSON object mapping URIs to the
/// documents `$ref` may reach; nothing is ever fetched. Boxes the schema
/// into the caller's slot `out` (see `box_into`) and returns 1; 0 on
/// error, with `err` filled in (the message says where in the schema).
///
/// # Safety
/// - `schema` is null or points to `len` readable bytes, for the call.
/// - `remotes` is null or points to `remotes_len` readable bytes, for
///   the call.
/// - `opts` is null or points to a readable `qjson_schema_options`.
/// - `out` is null or points to a writable slot holding null or a
///   schema from `qjson_schema_new_in` (released by this call).
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_schema_new_in(
    schema: *const c_char,
    len: usize,
    remotes: *const c_char,
    remotes_len: usize,
    opts: *const SchemaOptions,
    out: *mut *mut Schema,
    err: *mut ErrorInfo,
) -> i32 {
    let built = guard(None, || {
        // SAFETY: the caller passes readable bytes and a valid or null `opts`.
        let text = unsafe { bytes(schema as *const u8, len) };
        // SAFETY: as above.
        let remotes = (!remotes.is_null()).then(|| unsafe { bytes(remotes as *const u8, remotes_len) });
        // SAFETY: as above.
        let opts = unsafe { opts.as_ref() }.copied().unwrap_or_default();
        Some(Schema::compile(text, remotes, &opts).map_err(|e| e.to_string()))
    });
    box_into(built, out, err, |r, m| r.fill(&m, 0, 0, 0))
}

/// Frees the compiled schema in slot `schema` and empties the slot (null
/// or empty: nothing).
///
/// # Safety
/// - `schema` is null or points to a writable slot holding null or the
///   compiled schema `qjson_schema_new_in` put there and no one has
///   freed since.
#[no_mangle]
pub unsafe extern "C" fn qjson_schema_release(schema: *mut *mut Schema) {
    // SAFETY: a slot filled by `qjson_schema_new_in`.
    unsafe { super::slot::release(schema) }
}

/// Parses `len` bytes at `input` (strict) and checks them against the
/// schema in slot `schema`: 0 when valid; else the size of the error report, written to
/// `out` when it fits in `cap` bytes (call again with more room when it
/// does not). `Status::Error` (-1) when the input is not JSON (or a bad
/// argument), `Status::Panic` (-2), with `err` filled in.
///
/// # Safety
/// - `schema` is null or points to a readable slot holding null or the
///   compiled schema `qjson_schema_new_in` put there and no one has
///   freed since.
/// - `input` is null or points to `len` readable bytes, for the call.
/// - `out` is null or points to `cap` writable bytes.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_schema_check(
    schema: *const *mut Schema,
    input: *const c_char,
    len: usize,
    out: *mut u8,
    cap: usize,
    err: *mut ErrorInfo,
) -> i32 {
    run(err, || {
        let s = schema_ref(schema)?;
        // SAFETY: `len` readable bytes.
        let input = unsafe { bytes(input as *const u8, len) };
        write(s.validate_bytes(input).map_err(Fail::At), out, cap)
    })
}

/// As `qjson_schema_check`, for `node` of a parsed document.
///
/// # Safety
/// - `schema` is null or points to a readable slot holding null or the
///   compiled schema `qjson_schema_new_in` put there and no one has
///   freed since.
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out` is null or points to `cap` writable bytes.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_schema_check_doc(
    schema: *const *mut Schema,
    doc: *mut Handle,
    node: u32,
    out: *mut u8,
    cap: usize,
    err: *mut ErrorInfo,
) -> i32 {
    run(err, || {
        let s = schema_ref(schema)?;
        let d = doc_at(doc, node)?;
        write(s.validate(d, node).map_err(Fail::At), out, cap)
    })
}

/// 1 when the `len` bytes at `input` are JSON valid against `schema`, 0
/// when not; -1 when they are not JSON (or a bad argument), -2 on a
/// panic, with `err` filled in.
///
/// # Safety
/// - `schema` is null or points to a readable slot holding null or the
///   compiled schema `qjson_schema_new_in` put there and no one has
///   freed since.
/// - `input` is null or points to `len` readable bytes, for the call.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_schema_valid(
    schema: *const *mut Schema,
    input: *const c_char,
    len: usize,
    err: *mut ErrorInfo,
) -> i32 {
    valid(err, || {
        let s = schema_ref(schema)?;
        // SAFETY: `len` readable bytes.
        let input = unsafe { bytes(input as *const u8, len) };
        Ok(s.is_valid_bytes(input)?)
    })
}

/// As `qjson_schema_valid`, for `node` of a parsed document (-1 for a bad
/// argument or a closed document).
///
/// # Safety
/// - `schema` is null or points to a readable slot holding null or the
///   compiled schema `qjson_schema_new_in` put there and no one has
///   freed since.
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_schema_valid_doc(
    schema: *const *mut Schema,
    doc: *mut Handle,
    node: u32,
    err: *mut ErrorInfo,
) -> i32 {
    valid(err, || {
        let s = schema_ref(schema)?;
        let d = doc_at(doc, node)?;
        Ok(s.is_valid(d, node)?)
    })
}

/// The compiled schema in slot `schema`.
fn schema_ref<'a>(schema: *const *mut Schema) -> Result<&'a Schema, Fail> {
    in_slot(schema, "validator").map(|s| &*s).map_err(Fail::from)
}

/// The open document behind `doc`, when `node` is one of its nodes.
fn doc_at<'a>(doc: *mut Handle, node: u32) -> Result<&'a mut qjson_core::Document<'static>, Fail> {
    let d = open_doc(doc).map_err(|_| Fail::from("document is closed".to_string()))?;
    if node as usize >= d.tape_len() {
        return Err(Fail::from("no such node".to_string()));
    }
    Ok(d)
}

fn run(err: *mut ErrorInfo, f: impl FnOnce() -> Result<i32, Fail>) -> i32 {
    match guard(None, || Some(f())) {
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            fill_fail(err, &e);
            Status::Error as i32
        }
        None => {
            fill_error(err, &panic_message());
            Status::Panic as i32
        }
    }
}

fn valid(err: *mut ErrorInfo, f: impl FnOnce() -> Result<bool, Fail>) -> i32 {
    run(err, || f().map(i32::from))
}

/// The report's size, written to `out` when it fits (0: valid). Head:
/// the error count; per error the numbers `byte, line, column` and the
/// strings instance location, keyword location, message (`records`).
fn write(failures: Result<Vec<Failure>, Fail>, out: *mut u8, cap: usize) -> Result<i32, Fail> {
    let failures = failures?;
    if failures.is_empty() {
        return Ok(0);
    }
    let mut report = Records::new(&[failures.len()]);
    for f in &failures {
        report.push(&[f.byte, f.line, f.column], &[&f.instance_location, &f.keyword_location, &f.message]);
    }
    report.deliver(out, cap).map_err(Fail::from)
}
