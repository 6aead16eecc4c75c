//! The message of the last panic on this thread, for bindings that turn
//! panics into error reports: a binding's panic hook records the message
//! here ([`record`]), its boundary takes it ([`take`]) when it catches a
//! panic, and the core clears it when it catches one of its own
//! ([`catch`]), so that no caught panic is reported later.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records `message` as this thread's last panic (from a panic hook).
pub fn record(message: String) {
    LAST.with(|p| *p.borrow_mut() = Some(message));
}

/// Whether a panic message is recorded and not yet taken.
pub fn recorded() -> bool {
    LAST.with(|p| p.borrow().is_some())
}

/// Takes this thread's last panic message, if any.
pub fn take() -> Option<String> {
    LAST.with(|p| p.borrow_mut().take())
}

/// Runs `f`; a panic becomes `Err` with its message (the recorded one
/// when the payload carries none), and is no longer this thread's last.
#[cfg_attr(not(feature = "schema"), allow(dead_code))]
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let recorded = take();
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .or(recorded)
            .unwrap_or_default()
    })
}
