//! Encoder helpers for `lua/qjson/encode.lua`. Both write into memory the
//! caller reserved in a LuaJIT `string.buffer` and return the bytes
//! written; the caller commits them.

use std::ffi::c_char;

use super::{bytes, guard};
use qjson_core::encode::escape::{self, Escaped, MAX_EXPANSION, SLACK};
use qjson_core::encode::number;

/// Longest input one `qjson_escape` call takes (its output fits `i32`).
pub(super) const MAX_CHUNK: usize = 256 << 20;

/// Escapes the `len` bytes at `src` into `dst` (room for
/// `QJSON_LIMIT_ESCAPE_EXPANSION` × `len` + `QJSON_LIMIT_ESCAPE_SLACK`
/// bytes) as the body of a JSON string; `flags` are `qjson_escape_flag`
/// bits. With `last` false the input continues in a later call, and a
/// UTF-8 sequence cut at the end is left for it.
///
/// Returns the bytes written and sets `*consumed` to the input bytes used;
/// -1 for invalid UTF-8 (then `*consumed` is its offset); -2 on a bug or
/// when `len` is over `QJSON_LIMIT_ESCAPE_MAX_CHUNK` (the caller passes
/// longer strings in parts, so the result always fits an `int32_t`, a
/// plain number in LuaJIT).
///
/// # Safety
/// - `src` is null or points to `len` readable bytes, for the call.
/// - `dst` is null or points to room for `len` ×
///   `QJSON_LIMIT_ESCAPE_EXPANSION` plus `QJSON_LIMIT_ESCAPE_SLACK`
///   writable bytes, not overlapping `src`.
/// - `consumed` is null or points to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn qjson_escape(
    src: *const c_char,
    len: usize,
    dst: *mut u8,
    flags: u32,
    last: bool,
    consumed: *mut usize,
) -> i32 {
    guard(-2, || {
        if dst.is_null() || consumed.is_null() || len > MAX_CHUNK {
            return -2;
        }
        // SAFETY: the caller passes `len` readable bytes at `src`, room for
        // `MAX_EXPANSION * len + SLACK` bytes at `dst` (`len` is at most
        // MAX_CHUNK, so this does not overflow), and a valid `consumed`.
        let (src, dst) =
            unsafe { (bytes(src as *const u8, len), std::slice::from_raw_parts_mut(dst, len * MAX_EXPANSION + SLACK)) };
        let (r, used) = match escape::escape(src, dst, flags, last) {
            Escaped::Done { written, consumed } => (written as i32, consumed),
            Escaped::InvalidUtf8(at) => (-1, at),
        };
        // SAFETY: checked non-null above.
        unsafe { *consumed = used };
        r
    })
}

/// Writes the finite double `v` to `dst` (room for
/// `QJSON_LIMIT_NUMBER_MAX_LEN` bytes) as C's
/// `%.{precision}g` (1..17), or as the shortest text that reads back to
/// `v` when `precision` is 0. Returns the bytes written (0 on a bug).
///
/// # Safety
/// - `dst` is null or points to `QJSON_LIMIT_NUMBER_MAX_LEN` writable
///   bytes.
#[no_mangle]
pub unsafe extern "C" fn qjson_format_number(v: f64, precision: u32, dst: *mut u8) -> u32 {
    guard(0, || {
        if dst.is_null() || !v.is_finite() {
            return 0;
        }
        // SAFETY: the caller reserved `number::MAX_LEN` bytes at `dst`.
        let out = unsafe { std::slice::from_raw_parts_mut(dst, number::MAX_LEN) };
        if precision == 0 {
            number::format_shortest(v, out) as u32
        } else {
            number::format_g(v, precision, out) as u32
        }
    })
}
