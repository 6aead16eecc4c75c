//! Batched reads (`qjson_core::select`): compile a selector once, then read all
//! its paths from a document or a JSON text in one call.
//!
//! The caller owns the output (`qjson_select_out`, its item array and byte
//! area): no state of this library is shared between two calls, so a call
//! made while the caller still reads another call's output (from a Lua
//! finalizer) changes nothing the first one reads, as long as the caller
//! gives each call its own output.

use std::ffi::c_char;

use super::doc::{open_doc, CLOSED};
use super::slot::{box_into, in_slot};
use super::{bytes, fill_error, guard, panic_message, ErrorInfo, Handle};
use qjson_core::select::{Failure, Item, Output, Selector};
use qjson_core::Options;

/// Where `qjson_select` writes. `count` and `used` say how many items and
/// bytes the call needed: more than `cap` / `bytes_cap` when it returned
/// 0 (retry with that much room).
#[repr(C)]
pub struct SelectOut {
    pub items: *mut Item,
    pub cap: u32,
    pub count: u32,
    /// Unescaped strings (those with escapes) are copied here.
    pub bytes: *mut u8,
    pub bytes_cap: u32,
    pub used: u32,
    pub err: ErrorInfo,
}

impl SelectOut {
    /// An output over `items` and `bytes`, for Rust callers of the C ABI
    /// (tests, fuzz targets).
    pub fn new(items: &mut [Item], bytes: &mut [u8]) -> SelectOut {
        SelectOut {
            items: items.as_mut_ptr(),
            cap: items.len() as u32,
            count: 0,
            bytes: bytes.as_mut_ptr(),
            bytes_cap: bytes.len() as u32,
            used: 0,
            err: ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] },
        }
    }
}

/// A new, empty selector (`qjson_selector_add` fills it), boxed into the
/// caller's slot `out` (see `box_into`): 1, or 0 (a null slot, a caught
/// panic) with `err` filled in.
///
/// # Safety
/// - `out` is null or points to a writable slot holding null or a
///   selector from `qjson_selector_new_in` (released by this call).
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_selector_new_in(out: *mut *mut Selector, err: *mut ErrorInfo) -> i32 {
    box_into(guard(None, || Some(Ok::<_, ()>(Selector::new()))), out, err, |_, ()| {})
}

/// Adds a path to the selector in slot `sel`: `spec` is `path` or `path:type`, or with a
/// non-null `ty` the path alone and `ty` the type's name. Returns 1, or 0
/// with `err` filled in.
///
/// # Safety
/// - `sel` is null or points to a writable slot holding null or the
///   selector `qjson_selector_new_in` put there and no one has freed
///   since.
/// - `spec` is null or points to `spec_len` readable bytes, for the
///   call.
/// - `ty` is null or points to `ty_len` readable bytes, for the call.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_selector_add(
    sel: *mut *mut Selector,
    spec: *const c_char,
    spec_len: usize,
    ty: *const c_char,
    ty_len: usize,
    err: *mut ErrorInfo,
) -> i32 {
    let outcome = guard(Err(panic_message()), || {
        let s = in_slot(sel, "selector")?;
        // SAFETY: the caller passes readable bytes of the lengths given.
        let spec = unsafe { bytes(spec as *const u8, spec_len) };
        // SAFETY: as above.
        let ty = (!ty.is_null()).then(|| unsafe { bytes(ty as *const u8, ty_len) });
        s.push(spec, ty).map_err(|e| e.message)
    });
    match outcome {
        Ok(()) => 1,
        Err(m) => {
            fill_error(err, &m);
            0
        }
    }
}

/// Frees the selector in slot `sel` and empties the slot (null or empty:
/// nothing).
///
/// # Safety
/// - `sel` is null or points to a writable slot holding null or the
///   selector `qjson_selector_new_in` put there and no one has freed
///   since.
#[no_mangle]
pub unsafe extern "C" fn qjson_selector_release(sel: *mut *mut Selector) {
    // SAFETY: a slot filled by `qjson_selector_new_in`.
    unsafe { super::slot::release(sel) }
}

/// Reads every path of the selector in slot `sel` from node `node` of `doc`, or when `doc` is
/// null from the JSON text `input` (`len` bytes, parsed with `opts`; no
/// document is kept). Returns 1 with `out.count` items written, 0 when
/// `out` was too small (`count` and `used` say what is needed; nothing
/// else was written that the caller may use), -1 with `out.err` filled in
/// (invalid JSON with its position, or a type mismatch), -2 after a
/// caught panic (`out.err` says so).
///
/// Strings point into the input (which the caller keeps alive while it
/// reads them) or into `out.bytes`; container items carry their node in
/// the document (for a text, in the document a parse of the same text
/// with the same options would build).
///
/// # Safety
/// - `sel` is null or points to a readable slot holding null or the
///   selector `qjson_selector_new_in` put there and no one has freed
///   since.
/// - `doc` is null (then `input` is read) or a live handle: from
///   `qjson_parse*` and not yet passed to `qjson_free`, or in caller
///   memory that the caller has not released.
/// - `input` is null or points to `len` readable bytes, for the call.
///   Strings in the output may point into it: the caller keeps it while
///   it reads them.
/// - `opts` is null or points to a readable `qjson_options`.
/// - `out` is null or points to a writable `qjson_select_out` whose
///   `items` is null or points to `cap` writable items and whose
///   `bytes` is null or points to `bytes_cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn qjson_select(
    sel: *const *mut Selector,
    doc: *mut Handle,
    node: u32,
    input: *const c_char,
    len: usize,
    opts: *const Options,
    out: *mut SelectOut,
) -> i32 {
    // SAFETY: the caller passes a valid output or null.
    let Some(o) = (unsafe { out.as_mut() }) else { return -1 };
    let outcome = guard(None, || {
        let s = match in_slot(sel, "selector") {
            Ok(s) => s,
            Err(m) => return Some(Err(Failure::Type(m))),
        };
        let items: &mut [Item] = if o.items.is_null() {
            &mut []
        } else {
            // SAFETY: the caller passes `cap` items.
            unsafe { std::slice::from_raw_parts_mut(o.items, o.cap as usize) }
        };
        let area: &mut [u8] = if o.bytes.is_null() {
            &mut []
        } else {
            // SAFETY: the caller passes `bytes_cap` bytes.
            unsafe { std::slice::from_raw_parts_mut(o.bytes, o.bytes_cap as usize) }
        };
        let mut w = Output { items, bytes: area, count: 0, used: 0 };
        let read = if doc.is_null() {
            // SAFETY: the caller passes `len` readable bytes.
            let text = unsafe { bytes(input as *const u8, len) };
            // SAFETY: null or a valid `qjson_options`.
            let opts = unsafe { opts.as_ref() }.copied().unwrap_or_default();
            s.read_text(text, &opts, &mut w)
        } else {
            match open_doc(doc) {
                Ok(d) => s.read(d, node, &mut w),
                Err(_) => Err(Failure::Type(CLOSED.to_string())),
            }
        };
        Some(read.map(|()| (w.fits(), w.count, w.used)))
    });
    match outcome {
        Some(Ok((fits, count, used))) => {
            o.count = u32::try_from(count).unwrap_or(u32::MAX);
            o.used = u32::try_from(used).unwrap_or(u32::MAX);
            i32::from(fits)
        }
        Some(Err(Failure::Input(e))) => {
            o.err.fill_from(&e);
            -1
        }
        Some(Err(Failure::Type(m))) => {
            o.err.fill(&m, 0, 0, 0);
            -1
        }
        None => {
            o.err.fill(&panic_message(), 0, 0, 0);
            -2
        }
    }
}
