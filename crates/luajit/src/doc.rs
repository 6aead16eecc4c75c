//! The document handle the C ABI hands out.

use std::cell::RefCell;

use super::Status;
use qjson_core::Document;

/// A parsed document. `doc` is `None` once closed: the document's memory
/// is released at once, while the handle itself stays valid (reads report
/// `CLOSED`) until freed. A handle may be pinned (`qjson_pin`) while the
/// binding reads from its memory across calls that can run Lua code (a
/// finalizer that closes it): closing a pinned handle only marks it closed
/// (reads report `CLOSED`), and the memory goes when the last pin does, or
/// at `qjson_free` / `qjson_finalize`.
///
/// A handle is either boxed (`qjson_parse*`, freed by `qjson_free`) or
/// placed in memory the caller owns (`qjson_parse_in`), which the caller
/// simply releases: such a handle owns no heap memory at all (its tape and
/// string scratch live in the same block). The message of a failed read
/// is kept per thread, not in the handle: a small document
/// is placed in Lua memory on every decode, and an inline message would
/// have been half of that memory.
pub struct Handle {
    pub(crate) doc: Option<Document<'static>>,
    /// Counted in `LIVE` (boxed handles only: the caller frees a placed one
    /// without telling us).
    counted: bool,
    /// Pins held (`qjson_pin`), and whether a close waits for them.
    pub(crate) pins: u32,
    pub(crate) closing: bool,
}

pub(crate) const CLOSED: &str = "document is closed";

/// Documents neither closed nor freed, for leak checks and monitoring.
pub(crate) static LIVE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Handle {
    pub(crate) fn boxed(doc: Document<'static>) -> Box<Handle> {
        LIVE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Box::new(Handle::counted(doc))
    }

    /// A counted handle, for memory the caller owns but whose document
    /// owns heap memory (released by `qjson_finalize`).
    pub(crate) fn counted(doc: Document<'static>) -> Handle {
        LIVE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Handle { doc: Some(doc), counted: true, pins: 0, closing: false }
    }

    /// A handle for a document placed in caller memory (not counted).
    pub(crate) fn placed(doc: Document<'static>) -> Handle {
        Handle { doc: Some(doc), counted: false, pins: 0, closing: false }
    }

    /// Closes the document: at once, or when the last pin goes.
    pub(crate) fn close(&mut self) {
        self.closing = true;
        if self.pins == 0 {
            self.release();
        }
    }

    /// Releases the document now, pinned or not; the handle stays until
    /// freed.
    pub(crate) fn release(&mut self) {
        self.closing = true;
        self.pins = 0;
        if self.doc.take().is_some() && self.counted {
            LIVE.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.release();
    }
}

/// The handle's document, or the status to return: `Error` for a null
/// handle or a closed document (with `CLOSED` as the handle's error).
pub(crate) fn open_doc<'h>(doc: *mut Handle) -> Result<&'h mut Document<'static>, i32> {
    // SAFETY: `doc` is null or a live handle from `qjson_parse*`.
    let Some(h) = (unsafe { doc.as_mut() }) else { return Err(Status::Error as i32) };
    match &mut h.doc {
        Some(d) if !h.closing => Ok(d),
        _ => Err(set_error(doc, CLOSED)),
    }
}

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
