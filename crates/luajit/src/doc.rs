//! The document handle the C ABI hands out, and its lifetime: freeing,
//! closing, pinning, and the count of live documents.

use super::read_error::set_error;
use super::slot::free_boxed;
use super::{guard, Status};
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
/// is kept per thread, not in the handle (`read_error.rs`).
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

/// Frees a document (null is ignored).
///
/// # Safety
/// - `doc` is null or a handle from `qjson_parse`,
///   `qjson_parse_measured` or `qjson_parse_file` not yet freed; it is
///   not used again after this call.
#[no_mangle]
pub unsafe extern "C" fn qjson_free(doc: *mut Handle) {
    // SAFETY: `doc` came from `qjson_parse*` and is freed once (the Lua
    // binding frees it only from its garbage-collection hook).
    unsafe { free_boxed(doc) }
}

/// Releases a document's memory now (its tape, and its bytes for
/// `qjson_parse_file`); the handle stays valid and every later read on it
/// fails with "document is closed". A pinned document is only marked
/// closed: its memory goes with the last pin. Null is ignored.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
#[no_mangle]
pub unsafe extern "C" fn qjson_close(doc: *mut Handle) {
    on_handle(doc, Handle::close)
}

/// Runs `f` on the handle `doc` (null is ignored), inside `guard`.
fn on_handle(doc: *mut Handle, f: impl FnOnce(&mut Handle)) {
    guard((), || {
        // SAFETY: `doc` is null or a live handle from `qjson_parse*`.
        if let Some(h) = unsafe { doc.as_mut() } {
            f(h);
        }
    })
}

/// Pins a document: its memory stays until `qjson_unpin`, even if it is
/// closed meanwhile (reads then fail as for a closed document). For a
/// reader that keeps pointers into the document across calls that may run
/// other code. Returns 1, or `Error` for a closed document or null.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
#[no_mangle]
pub unsafe extern "C" fn qjson_pin(doc: *mut Handle) -> i32 {
    guard(Status::Panic as i32, || match open_doc(doc) {
        Ok(_) => {
            // SAFETY: `open_doc` checked that `doc` is a live handle.
            let h = unsafe { &mut *doc };
            h.pins = h.pins.saturating_add(1);
            1
        }
        Err(status) => status,
    })
}

/// Takes back a pin of `qjson_pin`; the last one completes a close that
/// waited for it. Null is ignored.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
#[no_mangle]
pub unsafe extern "C" fn qjson_unpin(doc: *mut Handle) {
    on_handle(doc, |h| {
        h.pins = h.pins.saturating_sub(1);
        if h.pins == 0 && h.closing {
            h.release();
        }
    })
}

/// Releases the document of a handle in caller memory at the end of the
/// memory's life (its finalizer), pins or not. The handle stays readable
/// (closed) until the memory is freed. Null is ignored.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
#[no_mangle]
pub unsafe extern "C" fn qjson_finalize(doc: *mut Handle) {
    on_handle(doc, Handle::release)
}

/// How many documents are alive (parsed, neither closed nor freed),
/// process-wide:
/// a leak check for tests and a gauge for monitoring.
#[no_mangle]
pub extern "C" fn qjson_live_documents() -> u64 {
    LIVE.load(std::sync::atomic::Ordering::Relaxed)
}
