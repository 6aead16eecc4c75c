//! Native objects the caller holds (selectors, stream splitters, compiled
//! schemas and paths) live behind a slot: one pointer in memory the caller
//! owns (for the Lua binding, a cdata in Lua memory whose finalizer calls
//! the object's `*_release`). The `*_new_in`-style exports box the object
//! into the slot; `*_release` frees it and empties the slot, so that the
//! caller sees the object is gone: after a release (by the collector, or
//! by `lua_close`, which runs every cdata finalizer before any userdata's
//! `__gc`) a use finds an empty slot and raises, instead of reading freed
//! memory.

use super::{fill_error, guard, panic_message, report, ErrorInfo};

/// The object in the caller's slot `slot`: every export that uses one
/// takes it through here, so a use after the release is an error: "<what>
/// is freed" (an empty slot), or "no <what>" (a null one).
pub(crate) fn in_slot<'a, T>(slot: *const *mut T, what: &str) -> Result<&'a mut T, String> {
    // SAFETY: the caller passes a valid slot or null.
    let Some(&p) = (unsafe { slot.as_ref() }) else { return Err(format!("no {what}")) };
    // SAFETY: a slot holds null or a live object boxed by `box_into`.
    unsafe { p.as_mut() }.ok_or_else(|| format!("{what} is freed"))
}

/// Boxes `outcome`'s object into the caller's slot `out` (releasing what
/// it held) and returns 1; else returns 0 with `err` filled in: by `fill`
/// for a failure, with the panic's message for a caught panic.
pub(crate) fn box_into<T, E>(
    outcome: Option<Result<T, E>>,
    out: *mut *mut T,
    err: *mut ErrorInfo,
    fill: impl FnOnce(&mut ErrorInfo, E),
) -> i32 {
    if out.is_null() {
        fill_error(err, "no slot for the result");
        return 0;
    }
    match outcome {
        Some(Ok(v)) => {
            // SAFETY: a valid slot (checked non-null above).
            unsafe { release(out) };
            // SAFETY: as above.
            unsafe { *out = Box::into_raw(Box::new(v)) };
            1
        }
        Some(Err(e)) => {
            report(err, |r| fill(r, e));
            0
        }
        None => {
            fill_error(err, &panic_message());
            0
        }
    }
}

/// Frees the object in the caller's slot `slot` and empties the slot (a
/// null or empty slot is left as it is), inside `guard`.
///
/// # Safety
/// `slot` is null or a valid slot, holding null or an object boxed by
/// [`box_into`].
pub(crate) unsafe fn release<T>(slot: *mut *mut T) {
    // SAFETY: by this function's contract.
    let Some(s) = (unsafe { slot.as_mut() }) else { return };
    let p = std::mem::replace(s, std::ptr::null_mut());
    // SAFETY: `p` came from `Box::into_raw` and left the slot: freed once.
    unsafe { free_boxed(p) }
}

/// Frees an object boxed for the caller (null is ignored), inside `guard`.
///
/// # Safety
/// `p` is null or came from `Box::into_raw` and is freed once.
pub(crate) unsafe fn free_boxed<T>(p: *mut T) {
    guard((), || {
        if !p.is_null() {
            // SAFETY: by this function's contract.
            drop(unsafe { Box::from_raw(p) });
        }
    })
}
