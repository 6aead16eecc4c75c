//! Reads for the lazy views (lua/qjson/view.lua): one call finds a child
//! and reads it, so indexing a view costs one crossing of the boundary.

use std::cell::RefCell;
use std::ffi::c_char;

use super::doc::{open_doc, set_error};
use super::{bytes, guard, Handle, Status};
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
#[no_mangle]
pub extern "C" fn qjson_child(
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
#[no_mangle]
pub extern "C" fn qjson_read(doc: *mut Handle, node: u32, out: *mut Value) -> i32 {
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
#[no_mangle]
pub extern "C" fn qjson_entry(doc: *mut Handle, parent: u32, prev: u32, key: *mut Value, value: *mut Value) -> i32 {
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
