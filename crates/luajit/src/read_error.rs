//! The message of a failed read: kept per thread, keyed by the handle's
//! address, not in the handle (a small document is placed in Lua memory
//! on every decode, and an inline message would have been half of that
//! memory), and copied out by `qjson_last_error`.

use std::cell::RefCell;

use super::{guard, ErrorInfo, Handle, Status};

/// How many failed reads' messages a thread keeps.
const KEPT_ERRORS: usize = 8;

thread_local! {
    /// The last failed reads on this thread: each handle's address and
    /// message, `.1` the slot the next one takes. Callers read a message
    /// right after the failure (`qjson_last_error`); a finalizer that
    /// fails reads on other documents in between (LuaJIT runs one at a
    /// trace exit, between any two statements) leaves it there unless it
    /// fails more than `KEPT_ERRORS - 1` of them.
    /// (Each message's room is allocated with the first: a failed read
    /// allocates nothing after that.)
    static LAST_ERRORS: RefCell<([(usize, String); KEPT_ERRORS], usize)> =
        RefCell::new((std::array::from_fn(|_| (0, String::with_capacity(MESSAGE_MAX))), 0));
}

/// Longest message kept, in bytes (as much as `qjson_error` holds), so the
/// thread's buffers stay small whatever a message quotes.
const MESSAGE_MAX: usize = 255;

/// Records `msg` as the last error of handle `doc`; returns `Error`.
pub(crate) fn set_error(doc: *const Handle, msg: &str) -> i32 {
    let mut n = msg.len().min(MESSAGE_MAX);
    while !msg.is_char_boundary(n) {
        n -= 1;
    }
    LAST_ERRORS.with(|e| {
        let (slots, next) = &mut *e.borrow_mut();
        let slot = &mut slots[*next];
        *next = (*next + 1) % KEPT_ERRORS;
        slot.0 = doc as usize;
        slot.1.clear();
        slot.1.push_str(&msg[..n]);
    });
    Status::Error as i32
}

/// Runs `f` with the message of the last failed read on `doc` on this
/// thread, if it is still kept.
pub(crate) fn with_error<R>(doc: *const Handle, f: impl FnOnce(Option<&str>) -> R) -> R {
    LAST_ERRORS.with(|e| {
        let (slots, next) = &*e.borrow();
        let mut newest_first = (1..=KEPT_ERRORS).map(|back| &slots[(next + KEPT_ERRORS - back) % KEPT_ERRORS]);
        let found = newest_first.find(|slot| slot.0 == doc as usize);
        f(found.map(|slot| slot.1.as_str()))
    })
}

/// Copies the message of the last failed read into `err`: the panic
/// caught after a `Panic` status, else the error of the last failed read
/// on this thread when it was on `doc` (so call it right after the read).
///
/// # Safety
/// - `doc` is only compared, never read: any value.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_last_error(doc: *const Handle, err: *mut ErrorInfo) {
    guard((), || {
        // SAFETY: valid handle and error struct, or null.
        let Some(e) = (unsafe { err.as_mut() }) else { return };
        let panicked = qjson_core::panic::recorded();
        if panicked {
            e.fill(&super::panic_message(), 0, 0, 0);
        } else {
            with_error(doc, |m| e.fill(m.unwrap_or(""), 0, 0, 0));
        }
    })
}
