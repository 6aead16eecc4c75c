//! Reads: every function resolves `path` from node `base`, then reads the
//! value there. They return the value's [`Kind`] (positive) whether or not
//! it is the kind asked for, so the caller can name both in a type error;
//! the out-parameter is written only when the kinds match.
//!
//! `path`/`path_len` is a path string (dotted or JSON Pointer; empty for
//! `base` itself), or, when `compiled` is non-null, the compiled path in
//! that slot (`qjson_path_compile_in`).

use std::ffi::c_char;

use super::doc::open_doc;
use super::read_error::set_error;
use super::slot::in_slot;
use super::{bytes, guard, Handle, Status};
use qjson_core::error::ErrorKind;
use qjson_core::{Document, Error, Kind, Node, Path};

type Doc = Document<'static>;

/// Records `msg` as the handle's last error.
fn fail(doc: *const Handle, msg: impl ToString) -> i32 {
    set_error(doc, &msg.to_string())
}

/// Resolves the path, then runs `read` on the node found.
fn read_at(
    doc: *mut Handle,
    base: Node,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    read: impl FnOnce(&mut Doc, Node, Kind) -> Result<(), Error>,
) -> i32 {
    guard(Status::Panic as i32, || {
        let d = match open_doc(doc) {
            Ok(d) => d,
            Err(status) => return status,
        };
        let found = if compiled.is_null() {
            // SAFETY: the caller passes `path_len` readable bytes.
            d.find(base, unsafe { bytes(path as *const u8, path_len) })
        } else {
            match in_slot(compiled, "compiled path") {
                Ok(p) => Ok(d.find_compiled(base, p)),
                Err(m) => return fail(doc, m),
            }
        };
        let node = match found {
            Ok(Some(n)) => n,
            Ok(None) => return Status::Missing as i32,
            Err(e) => return fail(doc, e),
        };
        let kind = match d.kind(node) {
            Ok(k) => k,
            Err(e) => return fail(doc, e),
        };
        match read(d, node, kind) {
            Ok(()) => kind as i32,
            Err(e) => fail(doc, e),
        }
    })
}

/// Writes `v` through `out` when non-null.
fn put<T>(out: *mut T, v: T) {
    // SAFETY: the caller passes a valid out-parameter or null.
    if let Some(o) = unsafe { out.as_mut() } {
        *o = v;
    }
}

/// Writes where `s` is and its length through the out-parameters.
fn put_bytes(out_ptr: *mut *const c_char, out_len: *mut usize, s: &[u8]) {
    put(out_ptr, s.as_ptr().cast());
    put(out_len, s.len());
}

/// The kind at `path`; with `out_node`, the node too (for cursors).
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out_node` is null or points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_find(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out_node: *mut u32,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, |_, node, _| {
        put(out_node, node);
        Ok(())
    })
}

/// A string, unescaped. The bytes stay valid until the next read.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out_ptr` is null or points to a writable `const char *`.
/// - `out_len` is null or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_str(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out_ptr: *mut *const c_char,
    out_len: *mut usize,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, |d, node, kind| {
        if kind == Kind::String {
            put_bytes(out_ptr, out_len, d.str(node)?);
        }
        Ok(())
    })
}

/// Copies the string at `node`, unescaped, to `dst` when it fits in `cap`
/// bytes; returns its length either way, or a negative status (`Error`
/// for a closed document or a value that is not a string). The Lua
/// binding's way to read a string with no pointer into the document held
/// while Lua code may run (see lua/qjson/base.lua).
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `dst` is null or points to `cap` writable bytes, outside the
///   document's memory.
#[no_mangle]
pub unsafe extern "C" fn qjson_copy_str(doc: *mut Handle, node: u32, dst: *mut u8, cap: usize) -> i64 {
    copy_out(doc, node, dst, cap, |d, node| d.str(node))
}

/// `qjson_copy_str` for the exact JSON text of any value.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `dst` is null or points to `cap` writable bytes, outside the
///   document's memory.
#[no_mangle]
pub unsafe extern "C" fn qjson_copy_raw(doc: *mut Handle, node: u32, dst: *mut u8, cap: usize) -> i64 {
    copy_out(doc, node, dst, cap, |d, node| d.raw(node))
}

fn copy_out(
    doc: *mut Handle,
    node: u32,
    dst: *mut u8,
    cap: usize,
    bytes_of: impl FnOnce(&mut Doc, Node) -> Result<&[u8], Error>,
) -> i64 {
    let mut len = 0usize;
    let status = read_at(doc, node, std::ptr::null(), 0, std::ptr::null(), |d, node, _| {
        let b = bytes_of(d, node)?;
        len = b.len();
        if !dst.is_null() && len <= cap {
            // SAFETY: the caller passes `cap` writable bytes at `dst`,
            // which are not the document's.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst, len) };
        }
        Ok(())
    });
    if status <= 0 {
        return status as i64;
    }
    len as i64
}

/// A number as the nearest double.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out` is null or points to a writable `double`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_num(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out: *mut f64,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, |d, node, kind| {
        if kind == Kind::Number {
            // (Checked by `kind` above: the one-pass conversion applies.)
            put(out, d.number_checked(node)?.0);
        }
        Ok(())
    })
}

fn exact_integer<T>(
    d: &Doc,
    node: Node,
    ty: &'static str,
    read: impl FnOnce(&Doc, Node) -> Result<Option<T>, Error>,
) -> Result<T, Error> {
    read(d, node)?.ok_or_else(|| {
        let offset = d.raw(node).map(|r| r.as_ptr() as usize - d.input().as_ptr() as usize).unwrap_or(0);
        Error::at(ErrorKind::NotInteger(ty), d.input(), offset)
    })
}

/// The read of an exact integer into `out`, for `read_at` (`ty` names the
/// type in errors).
fn integer_into<T>(
    out: *mut T,
    ty: &'static str,
    read: fn(&Doc, Node) -> Result<Option<T>, Error>,
) -> impl FnOnce(&mut Doc, Node, Kind) -> Result<(), Error> {
    move |d, node, kind| {
        if kind == Kind::Number {
            put(out, exact_integer(d, node, ty, read)?);
        }
        Ok(())
    }
}

/// A number as an exact int64; an error when it is not an integer in range.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out` is null or points to a writable `int64_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_i64(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out: *mut i64,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, integer_into(out, "int64", Doc::i64))
}

/// A number as an exact uint64; an error when it is not an integer in range.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out` is null or points to a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_u64(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out: *mut u64,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, integer_into(out, "uint64", Doc::u64))
}

/// A boolean (1 for true, 0 for false).
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out` is null or points to a writable `uint8_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_bool(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out: *mut u8,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, |d, node, kind| {
        if kind == Kind::Boolean {
            put(out, d.bool(node)? as u8);
        }
        Ok(())
    })
}

/// The member or element count of an object or array.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out` is null or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_len(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out: *mut usize,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, |d, node, _| {
        if let Some(n) = d.len(node) {
            put(out, n);
        }
        Ok(())
    })
}

/// The exact JSON text of any value (borrowed from the input).
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `compiled` is null or points to a slot holding null or a path from
///   `qjson_path_compile_in` that no one has freed since.
/// - `out_ptr` is null or points to a writable `const char *`.
/// - `out_len` is null or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_get_raw(
    doc: *mut Handle,
    base: u32,
    path: *const c_char,
    path_len: usize,
    compiled: *const *mut Path,
    out_ptr: *mut *const c_char,
    out_len: *mut usize,
) -> i32 {
    read_at(doc, base, path, path_len, compiled, |d, node, _| {
        put_bytes(out_ptr, out_len, d.raw(node)?);
        Ok(())
    })
}

/// Iterates a container: `prev` 0 asks for the first child, otherwise the
/// child after `prev`. Writes the child's node to `out` (for an object,
/// the key's node; its value is the next node) and returns the kind of
/// the element or member value, or `Missing` after the last one.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out` is null or points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_next(doc: *mut Handle, parent: u32, prev: u32, out: *mut u32) -> i32 {
    guard(Status::Panic as i32, || {
        let d = match open_doc(doc) {
            Ok(d) => d,
            Err(status) => return status,
        };
        let child = if prev == 0 { d.first_child(parent) } else { d.next_child(parent, prev) };
        let Some(child) = child else { return Status::Missing as i32 };
        put(out, child);
        let value = if d.kind(parent).ok() == Some(Kind::Object) { child + 1 } else { child };
        match d.kind(value) {
            Ok(k) => k as i32,
            Err(e) => fail(doc, e),
        }
    })
}

/// The child of container `parent` whose subtree holds node `target`:
/// writes its node (for an object, the key's node) to `out_node` and its
/// index among the children to `out_index`, and returns 1; `Missing` when
/// `target` is not inside `parent`. Checks no value on the way (unlike
/// `qjson_next`, whose kinds check each child in lazy mode): for finding
/// the path to a node without reading its siblings.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out_node` is null or points to a writable `uint32_t`.
/// - `out_index` is null or points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_child_holding(
    doc: *mut Handle,
    parent: u32,
    target: u32,
    out_node: *mut u32,
    out_index: *mut u32,
) -> i32 {
    guard(Status::Panic as i32, || {
        let d = match open_doc(doc) {
            Ok(d) => d,
            Err(status) => return status,
        };
        let Some((child, index)) = d.child_holding(parent, target) else { return Status::Missing as i32 };
        put(out_node, child);
        put(out_index, index as u32);
        1
    })
}

/// For an object whose keys repeat: writes up to `cap` pairs (key node,
/// node of the key's last value), each key once in order of first
/// appearance, and returns the number of pairs. Returns 0 when no key
/// repeats (iterate with `qjson_next` then), -1 on error.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out` is null or points to `2 × cap` writable `uint32_t`s.
#[no_mangle]
pub unsafe extern "C" fn qjson_unique_members(doc: *mut Handle, obj: u32, out: *mut u32, cap: usize) -> i64 {
    guard(-1, || {
        let Ok(d) = open_doc(doc) else { return -1 };
        let Some(pairs) = d.unique_members(obj) else { return 0 };
        if !out.is_null() {
            for (i, &(k, v)) in pairs.iter().take(cap).enumerate() {
                // SAFETY: the caller passes room for `cap` pairs.
                unsafe {
                    *out.add(2 * i) = k;
                    *out.add(2 * i + 1) = v;
                }
            }
        }
        pairs.len() as i64
    })
}

/// Bytes of native memory the document's index holds (for measurements):
/// its tape, and the indexes built since for random access.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
#[no_mangle]
pub unsafe extern "C" fn qjson_index_bytes(doc: *const Handle) -> usize {
    // SAFETY: a valid handle or null.
    guard(0, || unsafe { doc.as_ref() }.and_then(|h| h.doc.as_ref()).map_or(0, |d| d.tape_bytes() + d.lookup_bytes()))
}
