//! Compiled paths: a path compiled once (`qjson_path_compile_in`) and
//! passed to the reads (`read.rs`) in place of its text.

use std::ffi::c_char;

use super::slot::box_into;
use super::{bytes, guard, ErrorInfo};
use qjson_core::Path;

/// `box_into`): 1, or 0 on a syntax error, with `err` filled in.
///
/// # Safety
/// - `path` is null or points to `len` readable bytes, for the call.
/// - `out` is null or points to a writable slot holding null or a path
///   from `qjson_path_compile_in` (released by this call).
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_path_compile_in(
    path: *const c_char,
    len: usize,
    out: *mut *mut Path,
    err: *mut ErrorInfo,
) -> i32 {
    let compiled = guard(None, || {
        // SAFETY: the caller passes `len` readable bytes.
        Some(Path::compile(unsafe { bytes(path as *const u8, len) }).map_err(|e| (e.to_string(), e.offset)))
    });
    box_into(compiled, out, err, |r, (m, at)| r.fill(&m, at as u64, 0, 0))
}

/// Frees the compiled path in slot `path` and empties the slot (null or
/// empty: nothing).
///
/// # Safety
/// - `path` is null or points to a writable slot holding null or the
///   compiled path `qjson_path_compile_in` put there and no one has
///   freed since.
#[no_mangle]
pub unsafe extern "C" fn qjson_path_release(path: *mut *mut Path) {
    // SAFETY: a slot filled by `qjson_path_compile_in`.
    unsafe { super::slot::release(path) }
}
