//! The lazy views' exports. Reads (lua/qjson/view.lua): one call finds a
//! child and reads it, so indexing a view costs one crossing of the
//! boundary. Spans and copies of the input (lua/qjson/view/write.lua):
//! encoding a changed view copies its untouched members from the input
//! text, runs of them at a time.

use std::cell::RefCell;
use std::ffi::c_char;

use super::doc::open_doc;
use super::read_error::set_error;
use super::{bytes, guard, Handle, Status};
use qjson_core::tape::ROOT;
use qjson_core::{Document, Error, Kind, Node};

/// A value as a view reads it. Scalars are read in full; for a container
/// `node`, `len` and `flag` are set (a view is opened on it).
#[repr(C)]
pub struct Value {
    /// The value's node.
    pub node: u32,
    /// A boolean: 1 for true. A number: 1 when it is an integer beyond
    /// ±(2^53 − 1), which `num` may not hold exactly. An array or object:
    /// 1 when none of its members is an array or object.
    pub flag: u32,
    /// A number's nearest double.
    pub num: f64,
    /// A string, unescaped: valid until the next read of this document.
    pub ptr: *const c_char,
    /// A string's length in bytes; a container's member count.
    pub len: usize,
}

thread_local! {
    /// An escaped key is copied here, so that reading its value (which
    /// may unescape into the document's scratch buffer) keeps it valid.
    static KEY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Reads the value at `node` into `out`; returns its kind.
fn read(d: &mut Document<'static>, node: Node, out: &mut Value) -> Result<Kind, Error> {
    let kind = d.kind(node)?;
    out.node = node;
    match kind {
        Kind::String => {
            let s = d.str(node)?;
            out.ptr = s.as_ptr().cast();
            out.len = s.len();
        }
        Kind::Number => {
            let (v, big) = d.number_checked(node)?;
            out.num = v;
            out.flag = big as u32;
        }
        Kind::Boolean => out.flag = d.bool(node)? as u32,
        Kind::Array | Kind::Object => {
            out.len = d.len(node).unwrap_or(0);
            out.flag = d.scalars_only(node) as u32;
        }
        Kind::Null => {}
    }
    Ok(kind)
}

/// Runs `f` on the handle's document, turning errors into statuses.
fn with_doc(doc: *mut Handle, f: impl FnOnce(&mut Document<'static>) -> Result<Option<Kind>, Error>) -> i32 {
    guard(Status::Panic as i32, || {
        let d = match open_doc(doc) {
            Ok(d) => d,
            Err(status) => return status,
        };
        match f(d) {
            Ok(Some(kind)) => kind as i32,
            Ok(None) => Status::Missing as i32,
            Err(e) => set_error(doc, &e.to_string()),
        }
    })
}

/// Reads a child of container `parent`: the member `key` of an object
/// (the last one when the key repeats) when `key` is non-null, else
/// element `index` (0-based) of an array. Returns the child's kind, or
/// `Missing` when there is no such child.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `key` is null or points to `key_len` readable bytes, for the call.
/// - `out` is null or points to a writable `qjson_value`.
#[no_mangle]
pub unsafe extern "C" fn qjson_child(
    doc: *mut Handle,
    parent: u32,
    key: *const c_char,
    key_len: usize,
    index: usize,
    out: *mut Value,
) -> i32 {
    with_doc(doc, |d| {
        // SAFETY: `out` is a valid `qjson_value`; `key` holds `key_len` bytes.
        let Some(out) = (unsafe { out.as_mut() }) else { return Ok(None) };
        let node = if key.is_null() {
            d.element(parent, index)
        } else {
            // SAFETY: as above.
            d.member(parent, unsafe { bytes(key.cast(), key_len) })
        };
        node.map(|n| read(d, n, out)).transpose()
    })
}

/// Reads the value at `node` (a node from `qjson_child` or `qjson_entry`).
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out` is null or points to a writable `qjson_value`.
#[no_mangle]
pub unsafe extern "C" fn qjson_read(doc: *mut Handle, node: u32, out: *mut Value) -> i32 {
    with_doc(doc, |d| {
        // SAFETY: `out` is a valid `qjson_value` or null.
        let Some(out) = (unsafe { out.as_mut() }) else { return Ok(None) };
        if node as usize >= d.tape_len() {
            return Ok(None);
        }
        read(d, node, out).map(Some)
    })
}

/// Steps through container `parent`: the child after node `prev` (0 for
/// the first). Reads an element into `value`; for an object, reads the
/// key into `key` (its `node` is the key's node) and the member's value
/// into `value`. Returns the value's kind, or `Missing` after the last.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `key` is null or points to a writable `qjson_value`.
/// - `value` is null or points to a writable `qjson_value`.
#[no_mangle]
pub unsafe extern "C" fn qjson_entry(
    doc: *mut Handle,
    parent: u32,
    prev: u32,
    key: *mut Value,
    value: *mut Value,
) -> i32 {
    with_doc(doc, |d| {
        // SAFETY: `key` and `value` are valid `qjson_value`s or null.
        let (Some(key), Some(value)) = (unsafe { key.as_mut() }, unsafe { value.as_mut() }) else { return Ok(None) };
        let child = if prev == 0 { d.first_child(parent) } else { d.next_child(parent, prev) };
        let Some(child) = child else { return Ok(None) };
        if d.kind(parent)? != Kind::Object {
            return read(d, child, value).map(Some);
        }
        read(d, child, key)?;
        // Keep an unescaped key out of the scratch buffer the value may use.
        if !d.input().as_ptr_range().contains(&(key.ptr as *const u8)) && key.len > 0 {
            KEY.with(|k| {
                let mut k = k.borrow_mut();
                k.clear();
                // SAFETY: `ptr`/`len` were just written by `read`.
                k.extend_from_slice(unsafe { bytes(key.ptr.cast(), key.len) });
                key.ptr = k.as_ptr().cast();
            });
        }
        read(d, child + 1, value).map(Some)
    })
}

/// The document's input text (`*out_ptr`, `*out_len`), for copying
/// untouched members of a changed view (see `qjson_member_span`).
/// Returns 1, or `Error` for a closed document.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out_ptr` is null or points to a writable `const char *`.
/// - `out_len` is null or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_input(doc: *mut Handle, out_ptr: *mut *const c_char, out_len: *mut usize) -> i32 {
    with_input(doc, |d| {
        let input = d.input();
        // SAFETY: valid out-parameters or null.
        unsafe {
            if let Some(p) = out_ptr.as_mut() {
                *p = input.as_ptr().cast();
            }
            if let Some(l) = out_len.as_mut() {
                *l = input.len();
            }
        }
        Ok(1)
    })
}

/// Where value `node` lies in the input: bytes `out[0]`..`out[1]` (for
/// `qjson_copy_input`). Returns the value's kind, or `Error`.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out` is null or points to 2 writable `uint32_t`s.
#[no_mangle]
pub unsafe extern "C" fn qjson_raw_span(doc: *mut Handle, node: u32, out: *mut u32) -> i32 {
    with_input(doc, |d| {
        if out.is_null() || node as usize >= d.tape_len() {
            return Err("qjson_raw_span: no such value".into());
        }
        let kind = d.kind(node).map_err(|e| e.to_string())?;
        let raw = d.raw(node).map_err(|e| e.to_string())?;
        let start = raw.as_ptr() as usize - d.input().as_ptr() as usize;
        // SAFETY: `out` has room for two offsets (the contract); offsets
        // fit u32 (inputs are at most u32::MAX bytes).
        unsafe {
            *out = start as u32;
            *out.add(1) = (start + raw.len()) as u32;
        }
        Ok(kind as i32)
    })
}

/// Copies the input's bytes `start`..`start + len` to `dst` (room for
/// `len` bytes). A changed view's encoder copies its untouched parts so,
/// one call per run, rather than from a pointer to the input that Lua
/// would hold across code that may close the document. Returns 1, or
/// `Error` (a closed document, a range past the input).
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `dst` is null or points to `len` writable bytes, outside the
///   document's memory.
#[no_mangle]
pub unsafe extern "C" fn qjson_copy_input(doc: *mut Handle, start: u32, len: u32, dst: *mut u8) -> i32 {
    with_input(doc, |d| {
        let input = d.input();
        let (start, len) = (start as usize, len as usize);
        if dst.is_null() || start > input.len() || len > input.len() - start {
            return Err("qjson_copy_input: range past the input".into());
        }
        // SAFETY: the caller reserved `len` bytes at `dst`, which cannot
        // overlap the document's memory.
        unsafe { std::ptr::copy_nonoverlapping(input.as_ptr().add(start), dst, len) };
        Ok(1)
    })
}

/// Where child `child` of container `parent` lies in the input, for
/// encoding a changed view (untouched members are copied from the input,
/// runs of them at a time, without looking for the end of each value).
/// `child` is a node from `qjson_next` on `parent` (an object's key node).
/// Writes eight offsets to `out`: `out[0]` the next child's node (0 after
/// the last), `out[1]`..`out[2]` the key (for an array element, both are
/// where the element starts), `out[3]`..`out[4]` the value, `out[5]`,
/// after the last child only, the offset just past the parent's closing
/// bracket, and `out[6]`..`out[7]` the parent's text when its end is
/// known without a search (the root's, or `parent_end`; else both 0). A
/// value's end comes from where the next child starts, or for the last
/// child from the parent's end: `parent_end` when the caller knows it (0
/// when not: then found from the input's end for the root, else from the
/// text); a `parent_end` that is not just past the parent's closing
/// bracket is refused, whichever the child. Returns the value's kind, or
/// `Error`.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `out` is null or points to 8 writable `uint32_t`s.
#[no_mangle]
pub unsafe extern "C" fn qjson_member_span(
    doc: *mut Handle,
    parent: u32,
    child: u32,
    parent_end: u32,
    out: *mut u32,
) -> i32 {
    with_input(doc, |d| {
        if out.is_null() || parent as usize >= d.tape_len() || child <= parent || child as usize >= d.tape_len() {
            return Err(BAD_SPAN.into());
        }
        let input = d.input();
        let pos = |n: Node| d.offset(n);
        let object = match input[pos(parent)] {
            b'{' => true,
            b'[' => false,
            _ => return Err(BAD_SPAN.into()),
        };
        let value = if object { child + 1 } else { child };
        let kind = d.kind(value).map_err(|e| e.to_string())?;
        let (key_start, value_start) = (pos(child), pos(value));
        let key_end = if object { before(input, value_start, b':')? } else { key_start };
        let close = if object { b'}' } else { b']' };
        let past_close = |end: usize| end != 0 && end <= input.len() && input[end - 1] == close;
        // The parent's end when known without a search: given, or the root's.
        let known_end = match parent_end as usize {
            0 if parent == ROOT => skip_ws_back(input, input.len()),
            e => e,
        };
        if known_end != 0 && !past_close(known_end) {
            return Err(BAD_SPAN.into());
        }
        let next = d.next_child(parent, child);
        let (value_end, end) = match next {
            Some(n) => (before(input, pos(n), b',')?, 0),
            None => {
                let end = if known_end != 0 {
                    known_end
                } else {
                    let raw = d.raw(parent).map_err(|e| e.to_string())?;
                    raw.as_ptr() as usize - input.as_ptr() as usize + raw.len()
                };
                if !past_close(end) {
                    return Err(BAD_SPAN.into());
                }
                (skip_ws_back(input, end - 1), end)
            }
        };
        if !(key_start <= key_end && key_end <= value_start && value_start < value_end) {
            return Err(BAD_SPAN.into());
        }
        let parent_text = if known_end == 0 { (0, 0) } else { (pos(parent), known_end) };
        // SAFETY: checked non-null above; the caller passes room for eight.
        let out = unsafe { std::slice::from_raw_parts_mut(out, 8) };
        // Offsets fit: a document's input is at most u32::MAX bytes.
        let offsets = [next.unwrap_or(0) as usize, key_start, key_end, value_start, value_end, end];
        for (o, v) in out.iter_mut().zip(offsets.into_iter().chain([parent_text.0, parent_text.1])) {
            *o = v as u32;
        }
        Ok(kind as i32)
    })
}

const BAD_SPAN: &str = "qjson_member_span: not a child of this container";

fn skip_ws_back(input: &[u8], mut at: usize) -> usize {
    while at > 0 && matches!(input[at - 1], b' ' | b'\t' | b'\n' | b'\r') {
        at -= 1;
    }
    at
}

/// The end of the token before `at` (where a token starts), over
/// whitespace, the separator `sep` and whitespace.
fn before(input: &[u8], at: usize, sep: u8) -> Result<usize, String> {
    let at = skip_ws_back(input, at);
    if at == 0 || input[at - 1] != sep {
        return Err(BAD_SPAN.into());
    }
    Ok(skip_ws_back(input, at - 1))
}

/// Runs `f` on the handle's document; its `Err` becomes the handle's last
/// error and `Error`.
fn with_input(doc: *mut Handle, f: impl FnOnce(&Document<'static>) -> Result<i32, String>) -> i32 {
    guard(Status::Panic as i32, || match open_doc(doc) {
        Ok(d) => f(d).unwrap_or_else(|e| set_error(doc, &e)),
        Err(status) => status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{qjson_close, qjson_free};
    use crate::parse::qjson_parse;
    use crate::read::qjson_next;
    use std::ptr::{null, null_mut};

    /// Each child's spans as text: (key, value), with the parent's end
    /// after the last; and the parent's text, which every child reports
    /// the same (None when its end is not known without a search).
    fn spans(text: &'static str, parent: u32, parent_end: u32) -> (Vec<(String, String, u32)>, Option<String>) {
        // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
        // point to locals, slices or statics of the right size that outlive the call;
        // handles and slots come from this code's own parse/new calls and are freed once,
        // after their last use; inputs outlive the documents parsed from them.
        unsafe {
            let doc = qjson_parse(text.as_ptr().cast(), text.len(), null(), null_mut());
            assert!(!doc.is_null());
            let (mut child, mut out, mut got, mut parents) = (0, [0u32; 8], Vec::new(), Vec::new());
            assert!(qjson_next(doc, parent, 0, &mut child) > 0);
            while child != 0 {
                assert!(qjson_member_span(doc, parent, child, parent_end, out.as_mut_ptr()) > 0, "{text}");
                let s = |a: u32, b: u32| text[a as usize..b as usize].to_string();
                got.push((s(out[1], out[2]), s(out[3], out[4]), out[5]));
                parents.push((out[7] != 0).then(|| s(out[6], out[7])));
                child = out[0];
            }
            qjson_free(doc);
            parents.dedup();
            assert_eq!(parents.len(), 1, "{text}");
            (got, parents.pop().unwrap())
        }
    }

    #[test]
    fn member_spans_come_from_the_next_member() {
        let text = " { \"a\" :\t1 , \"b\":[ \"x\" , {} ]\n,\"c\":{\"d\":\"}\"} } \n";
        let s = |k: &str, v: &str, e: u32| (k.to_string(), v.to_string(), e);
        let (root, root_text) = spans(text, 0, 0);
        assert_eq!(root, [s("\"a\"", "1", 0), s("\"b\"", "[ \"x\" , {} ]", 0), s("\"c\"", "{\"d\":\"}\"}", 46)]);
        assert_eq!(root_text.as_deref(), Some(text.trim()));
        // Elements of "b" (node 5: root header 2, key "a", 1, key "b"),
        // the array's end found from its text, then given.
        let (b, unknown) = spans(text, 5, 0);
        assert_eq!(b, [s("", "\"x\"", 0), s("", "{}", 29)]);
        assert_eq!(unknown, None);
        assert_eq!(spans(text, 5, 29), (b, Some("[ \"x\" , {} ]".to_string())));
    }

    #[test]
    fn member_span_rejects_what_does_not_fit() {
        // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
        // point to locals, slices or statics of the right size that outlive the call;
        // handles and slots come from this code's own parse/new calls and are freed once,
        // after their last use; inputs outlive the documents parsed from them.
        unsafe {
            let text = "[1, [2], 3]";
            let doc = qjson_parse(text.as_ptr().cast(), text.len(), null(), null_mut());
            let mut out = [0u32; 8];
            // A parent end that is not past a closing bracket, a scalar parent.
            assert_eq!(qjson_member_span(doc, 0, 6, 5, out.as_mut_ptr()), Status::Error as i32);
            assert_eq!(qjson_member_span(doc, 0, 2, 5, out.as_mut_ptr()), Status::Error as i32);
            assert_eq!(qjson_member_span(doc, 2, 3, 0, out.as_mut_ptr()), Status::Error as i32);
            assert_eq!(qjson_member_span(doc, 0, 2, 0, null_mut()), Status::Error as i32);
            assert!(qjson_member_span(doc, 0, 6, 0, out.as_mut_ptr()) > 0);
            assert_eq!(out, [0, 9, 9, 9, 10, 11, 0, 11]);
            let (mut p, mut n) = (null(), 0);
            assert_eq!(qjson_input(doc, &mut p, &mut n), 1);
            assert_eq!((p, n), (text.as_ptr().cast(), text.len()));
            qjson_close(doc);
            assert_eq!(qjson_member_span(doc, 0, 2, 0, out.as_mut_ptr()), Status::Error as i32);
            assert_eq!(qjson_input(doc, &mut p, &mut n), Status::Error as i32);
            qjson_free(doc);
            assert_eq!(qjson_input(null_mut(), &mut p, &mut n), Status::Error as i32);
        }
    }
}
