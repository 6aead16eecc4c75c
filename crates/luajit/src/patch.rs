//! JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) for
//! `lua/qjson/patch.lua`: compile a patch once (`qjson_patch_new_in`),
//! apply it to a document or a JSON text with the values of each call
//! (`qjson_patch_apply`), or merge a patch into a target
//! (`qjson_merge_patch`). The work is `qjson_core::patch`'s.
//!
//! A result is written into an `OutBytes` the caller owns, reusing its
//! buffer (for the Lua binding, a pooled record's, which no other call
//! holds meanwhile and whose finalizer calls `qjson_bytes_release`):
//! nothing of this library is shared between two calls, so a call made
//! from a finalizer while the caller still copies another call's result
//! changes nothing that one reads.

use std::ffi::c_char;

use super::doc::{open_doc, CLOSED};
use super::slot::{box_into, in_slot};
use super::{bytes, fill_error, guard, panic_message, report, ErrorInfo, Handle, Status};
use qjson_core::patch::{self, merge_patch, Patch, PatchError, PatchErrorKind};
use qjson_core::{Document, Options};

/// A result's bytes, owned by this library until `qjson_bytes_release`
/// (which empties the struct): `len` bytes at `data`, `cap` allocated.
#[repr(C)]
pub struct OutBytes {
    pub data: *mut u8,
    pub len: usize,
    pub cap: usize,
}

impl OutBytes {
    /// An empty output, for Rust callers of the C ABI (tests, fuzz targets).
    pub fn new() -> OutBytes {
        OutBytes { data: std::ptr::null_mut(), len: 0, cap: 0 }
    }

    /// The bytes held (empty when none).
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `data` is null or holds `len` bytes from `put`.
        unsafe { bytes(self.data, self.len) }
    }

    /// The buffer held, emptied of its bytes but not of its capacity: a
    /// call writes its result where the last call through this output
    /// wrote (no fresh allocation, whose pages the kernel must fault in
    /// and zero again for a large result).
    fn take_buffer(&mut self) -> Vec<u8> {
        let (data, _, cap) = std::mem::take(self).parts();
        if data.is_null() {
            return Vec::new();
        }
        // SAFETY: the parts of a vector `put` took apart, taken once (the
        // struct was emptied above); length 0 of `cap` allocated bytes.
        unsafe { Vec::from_raw_parts(data, 0, cap) }
    }

    /// Takes `v`, releasing what was held.
    fn put(&mut self, v: Vec<u8>) {
        self.release();
        let mut v = std::mem::ManuallyDrop::new(v);
        (self.data, self.len, self.cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    }

    fn release(&mut self) {
        let (data, len, cap) = std::mem::take(self).parts();
        if !data.is_null() {
            // SAFETY: the parts of a vector `put` took apart, freed once
            // (the struct was emptied above).
            drop(unsafe { Vec::from_raw_parts(data, len, cap) });
        }
    }

    fn parts(self) -> (*mut u8, usize, usize) {
        let parts = (self.data, self.len, self.cap);
        std::mem::forget(self);
        parts
    }
}

impl Default for OutBytes {
    fn default() -> Self {
        OutBytes::new()
    }
}

impl Drop for OutBytes {
    fn drop(&mut self) {
        self.release();
    }
}

/// Frees the bytes `out` holds and empties it (null or empty: nothing).
/// (A call that writes `out` reuses its buffer, whose capacity stays
/// until this release.)
///
/// # Safety
/// `out` is null or points to an `OutBytes` that is empty or was filled
/// by an export of this file.
#[no_mangle]
pub unsafe extern "C" fn qjson_bytes_release(out: *mut OutBytes) {
    guard((), || {
        // SAFETY: by this function's contract.
        if let Some(o) = unsafe { out.as_mut() } {
            o.release();
        }
    })
}

/// Compiles the JSON Patch in `len` bytes at `ops` (an array of RFC 6902
/// operations). With `args` non-zero, an `add`, `replace` or `test`
/// without a `value` takes the next of the values given to each
/// `qjson_patch_apply`, in order; with 0 it is an error. Boxes the patch
/// into the caller's slot `out` (see `box_into`) and returns 1; 0 with
/// `err` filled in (the message names the operation, counted from 1).
///
/// # Safety
/// `ops` holds `len` readable bytes; `out` is null or a valid slot;
/// `err` is null or valid.
#[no_mangle]
pub unsafe extern "C" fn qjson_patch_new_in(
    ops: *const c_char,
    len: usize,
    args: i32,
    out: *mut *mut Patch,
    err: *mut ErrorInfo,
) -> i32 {
    let built = guard(None, || {
        // SAFETY: by this function's contract.
        let text = unsafe { bytes(ops as *const u8, len) };
        Some(Patch::compile(text, args != 0))
    });
    box_into(built, out, err, |r, e| r.fill(&e.to_string(), 0, 0, 0))
}

/// Frees the patch in slot `patch` and empties the slot (null or empty:
/// nothing).
///
/// # Safety
/// `patch` is null or a slot filled by `qjson_patch_new_in`.
#[no_mangle]
pub unsafe extern "C" fn qjson_patch_release(patch: *mut *mut Patch) {
    // SAFETY: by this function's contract.
    unsafe { super::slot::release(patch) }
}

/// How many values each `qjson_patch_apply` of the patch in slot `patch`
/// takes; `Status::Error` (-1) for an empty or null slot.
///
/// # Safety
/// `patch` is null or a slot filled by `qjson_patch_new_in`.
#[no_mangle]
pub unsafe extern "C" fn qjson_patch_args(patch: *const *mut Patch) -> i32 {
    guard(Status::Panic as i32, || match in_slot(patch, "patch") {
        Ok(p) => i32::try_from(p.args()).unwrap_or(i32::MAX),
        Err(_) => Status::Error as i32,
    })
}

/// Applies the patch in slot `patch` to node `node` of document `doc`, or
/// when `doc` is null to the JSON text `input` (`len` bytes), with
/// `nvalues` values for the operations that take theirs per call: JSON
/// texts one after another at `values`, value `i` ending at byte
/// `ends[i]` (one string, so that the caller keeps one object alive). Writes the result into `out` and returns 1; else
/// returns -1 (nothing written to `out`) with `err` filled in: the
/// failing operation (counted from 1) and its pointer, a `test` that
/// failed, a target or value that is not JSON (with its position), a
/// result larger than `max_size` bytes (0: the default bound,
/// `qjson_core::patch::default_max_size`); -2 after a caught panic.
///
/// # Safety
/// `patch` is null or a slot filled by `qjson_patch_new_in`; `doc` is
/// null or a live handle; `input` holds `len` readable bytes; `ends`
/// holds `nvalues` offsets, non-decreasing, and `values` that many bytes
/// (`ends[nvalues - 1]`); `out` and `err` are null or valid.
#[no_mangle]
pub unsafe extern "C" fn qjson_patch_apply(
    patch: *const *mut Patch,
    doc: *mut Handle,
    node: u32,
    input: *const c_char,
    len: usize,
    values: *const c_char,
    ends: *const usize,
    nvalues: usize,
    max_size: usize,
    out: *mut OutBytes,
    err: *mut ErrorInfo,
) -> i32 {
    run(out, err, |result| {
        let p = in_slot(patch, "patch").map_err(Fail::Msg)?;
        let ends: &[usize] = if ends.is_null() || nvalues == 0 {
            &[]
        } else {
            // SAFETY: by this function's contract.
            unsafe { std::slice::from_raw_parts(ends, nvalues) }
        };
        // SAFETY: by this function's contract.
        let all = unsafe { bytes(values as *const u8, ends.last().copied().unwrap_or(0)) };
        let mut texts = Vec::with_capacity(ends.len());
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            texts.push(all.get(start..end).ok_or_else(|| Fail::Msg(format!("value {}: bad offsets", i + 1)))?);
            start = end;
        }
        with_target(doc, node, input, len, |target| p.apply_texts(target, &texts, max_size, result).map_err(Fail::from))
    })
}

/// Merges the JSON Merge Patch `patch` (`patch_len` bytes of JSON) into
/// node `node` of document `doc`, or when `doc` is null into the JSON
/// text `input` (`len` bytes). Writes the result into `out` and returns
/// 1; else -1 (nothing written to `out`) with `err` filled in (a target
/// or patch that is not JSON, with its position), or -2 after a caught
/// panic.
///
/// # Safety
/// `doc` is null or a live handle; `input` holds `len` readable bytes and
/// `patch` `patch_len`; `out` and `err` are null or valid.
#[no_mangle]
pub unsafe extern "C" fn qjson_merge_patch(
    doc: *mut Handle,
    node: u32,
    input: *const c_char,
    len: usize,
    patch: *const c_char,
    patch_len: usize,
    out: *mut OutBytes,
    err: *mut ErrorInfo,
) -> i32 {
    run(out, err, |result| {
        // SAFETY: by this function's contract.
        let text = unsafe { bytes(patch as *const u8, patch_len) };
        let patch = Document::parse(text, &Options::default()).map_err(|e| Fail::Msg(format!("the patch: {e}")))?;
        with_target(doc, node, input, len, |target| {
            merge_patch(target, &patch, result);
            Ok(())
        })
    })
}

/// Why a call failed.
enum Fail {
    Msg(String),
    /// The target text is not JSON: its position goes into the error.
    Target(qjson_core::Error),
}

impl From<PatchError> for Fail {
    fn from(e: PatchError) -> Fail {
        match e.kind {
            PatchErrorKind::Target(t) => Fail::Target(t),
            _ => Fail::Msg(e.to_string()),
        }
    }
}

/// Runs `f` with `out`'s buffer, emptied of its bytes (its capacity
/// kept): `out` then holds the result when `f` succeeds, else no bytes.
fn run(out: *mut OutBytes, err: *mut ErrorInfo, f: impl FnOnce(&mut Vec<u8>) -> Result<(), Fail>) -> i32 {
    let outcome = guard(None, || {
        // SAFETY: the caller passes a valid output or null.
        let Some(o) = (unsafe { out.as_mut() }) else { return Some(Err(Fail::Msg("no output".into()))) };
        let mut result = o.take_buffer();
        let done = f(&mut result);
        if done.is_err() {
            result.clear();
        }
        o.put(result);
        Some(done)
    });
    match outcome {
        Some(Ok(())) => 1,
        Some(Err(Fail::Msg(m))) => {
            fill_error(err, &m);
            Status::Error as i32
        }
        Some(Err(Fail::Target(e))) => {
            report(err, |r| r.fill_from(&e));
            Status::Error as i32
        }
        None => {
            fill_error(err, &panic_message());
            Status::Panic as i32
        }
    }
}

/// Runs `f` on the target: node `node` of `doc` as it is when `node` is
/// the root of a document parsed as strict standard JSON (the patch
/// copies its untouched bytes, so it needs them checked); else the text
/// of that node (or, for a null `doc`, `input`) parsed as such.
fn with_target<R>(
    doc: *mut Handle,
    node: u32,
    input: *const c_char,
    len: usize,
    f: impl FnOnce(&Document<'_>) -> Result<R, Fail>,
) -> Result<R, Fail> {
    let strict = Options::default();
    if doc.is_null() {
        // SAFETY: the caller passes `len` readable bytes.
        let text = unsafe { bytes(input as *const u8, len) };
        return f(&Document::parse(text, &strict).map_err(Fail::Target)?);
    }
    let d = open_doc(doc).map_err(|_| Fail::Msg(CLOSED.into()))?;
    if node as usize >= d.tape_len() {
        return Err(Fail::Msg("no such node".into()));
    }
    patch::with_target(d, node, f).map_err(Fail::Msg)?
}
