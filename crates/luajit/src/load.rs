//! A double from an out-parameter box, returned by value.
//!
//! The Lua binding reuses one box per kind of read. LuaJIT's x86-64
//! backend may fuse a load from such a box into the instruction that uses
//! the value, and that instruction can come after a later C call that has
//! rewritten the box: its fusion check (`noconflict` in `lj_asm_x86.h`)
//! looks for stores in the trace, not for calls. A number read from a box
//! and used after the next read would then be the next read's number
//! (seen with Debian's luajit2 on compiled loops). Doubles that Lua code
//! keeps are therefore taken from this function's return register.
//! (Integer boxes are read as 32-bit words, whose load is used at once by
//! its conversion to a Lua number: `lua/qjson/base.lua`.)

use super::guard;

/// The double at `p` (0 when `p` is null).
///
/// # Safety
/// - `p` is null or points to a readable, initialised `double`.
#[no_mangle]
pub unsafe extern "C" fn qjson_load_f64(p: *const f64) -> f64 {
    // SAFETY: `p` is null or points to a double (a box of the binding).
    guard(0.0, || unsafe { p.as_ref() }.copied().unwrap_or(0.0))
}
