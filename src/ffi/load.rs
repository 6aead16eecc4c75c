//! Loads from out-parameter boxes, returned by value.
//!
//! The Lua binding reuses one box per kind of read. LuaJIT's x86-64
//! backend may fuse a load from such a box into the instruction that uses
//! the value, and that instruction can come after a later C call that has
//! rewritten the box: its fusion check (`noconflict` in `lj_asm_x86.h`)
//! looks for stores in the trace, not for calls. A number read from a box
//! and used after the next read would then be the next read's number
//! (seen with Debian's luajit2 on compiled loops). Values that Lua code
//! keeps are therefore taken from these functions' return registers.

use super::guard;

/// The double at `p` (0 when `p` is null).
#[no_mangle]
pub extern "C" fn qjson_load_f64(p: *const f64) -> f64 {
    // SAFETY: `p` is null or points to a double (a box of the binding).
    guard(0.0, || unsafe { p.as_ref() }.copied().unwrap_or(0.0))
}

/// The int64_t at `p` (0 when `p` is null).
#[no_mangle]
pub extern "C" fn qjson_load_i64(p: *const i64) -> i64 {
    // SAFETY: as for `qjson_load_f64`.
    guard(0, || unsafe { p.as_ref() }.copied().unwrap_or(0))
}

/// The uint64_t at `p` (0 when `p` is null).
#[no_mangle]
pub extern "C" fn qjson_load_u64(p: *const u64) -> u64 {
    // SAFETY: as for `qjson_load_f64`.
    guard(0, || unsafe { p.as_ref() }.copied().unwrap_or(0))
}
