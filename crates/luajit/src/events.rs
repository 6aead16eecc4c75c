//! Whole values as streams of events (see `qjson_core::events`), for building
//! plain Lua tables with one call: `qjson_text_events` parses and flattens a
//! string, `qjson_doc_events` flattens a value of a parsed document.
//!
//! The events live in buffers of the calling thread, reused by the next
//! call with the same `slot`, so a decode allocates nothing that Lua must
//! free. The caller copies what it needs at once. A caller that may start
//! a decode while reading another one's events (a Lua finalizer running
//! in the middle of building tables) passes a different slot. Object keys
//! come from a key cache per thread (see `qjson_core::events::KeyCache`).

use std::cell::RefCell;
use std::ffi::c_char;

use super::{bytes, guard, panic_message, report, ErrorInfo, Handle};
use qjson_core::events::{Event, EventsInfo, KeyCache, Walker};
use qjson_core::{Document, Options};

/// Slots per thread: how deeply decodes may nest.
const SLOTS: usize = 16;

/// A thread's streams, one per slot, and the object keys they share.
#[derive(Default)]
struct Buffers {
    walkers: Vec<Walker>,
    keys: KeyCache,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

enum Failure {
    Input(qjson_core::Error),
    Message(String),
}

fn fail(err: *mut ErrorInfo, failure: Option<Failure>) -> *const Event {
    report(err, |e| match failure {
        Some(Failure::Input(ref error)) => e.fill_from(error),
        Some(Failure::Message(m)) => e.fill(&m, 0, 0, 0),
        None => e.fill(&panic_message(), 0, 0, 0),
    });
    std::ptr::null()
}

/// Runs `f` with the stream of `slot` and the key cache; returns the first
/// event and fills `info`, or null with `err` filled in.
fn with_stream(
    slot: u32,
    info: *mut EventsInfo,
    err: *mut ErrorInfo,
    f: impl FnOnce(&mut Walker, &mut KeyCache) -> Result<(*const Event, usize), Failure>,
) -> *const Event {
    let result = guard(None, || {
        let slot = slot as usize;
        if slot >= SLOTS {
            return Some(Err(Failure::Message(format!("decodes nested more than {SLOTS} deep"))));
        }
        Some(BUFFERS.with(|b| {
            let b = &mut *b.borrow_mut();
            if b.walkers.len() <= slot {
                b.walkers.resize_with(slot + 1, Walker::default);
            }
            // Only an outermost decode may renew the keys: a nested one
            // runs while the events of another are still being read.
            if slot == 0 {
                b.keys.renew_if_full();
            }
            f(&mut b.walkers[slot], &mut b.keys).map(|(events, n)| (events, n, b.keys.generation()))
        }))
    });
    match result {
        Some(Ok((events, n, generation))) => {
            // SAFETY: the caller passes a valid `qjson_events_info` or null.
            if let Some(i) = unsafe { info.as_mut() } {
                i.count = n as u32;
                i.key_generation = generation;
            }
            events
        }
        Some(Err(failure)) => fail(err, Some(failure)),
        None => fail(err, None),
    }
}

/// Parses the `len` bytes at `input` and returns the events of the whole
/// value, their number in `info`. Null on invalid input, with `err`
/// filled in as `qjson_parse` does. String events point into `input` or
/// into the slot's buffers, key events into the thread's key cache: valid
/// while `input` is, until the next call with the same `slot` on this
/// thread (or, for keys, until a call with slot 0 renews the cache, which
/// `info.key_generation` then tells). A caller that may decode while
/// still reading another decode's events (a finalizer run by the Lua
/// collector) passes a different slot.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes, for the call.
///   The events returned point into it: the caller keeps it while it
///   reads them.
/// - `opts` is null or points to a readable `qjson_options`.
/// - `info` is null or points to a writable `qjson_events_info`.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_text_events(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    slot: u32,
    info: *mut EventsInfo,
    err: *mut ErrorInfo,
) -> *const Event {
    with_stream(slot, info, err, |stream, keys| {
        // SAFETY: the caller passes `len` readable bytes and a valid
        // `qjson_options` or null.
        let input = unsafe { bytes(input.cast(), len) };
        // SAFETY: as above.
        let opts = unsafe { opts.as_ref() }.copied().unwrap_or_default();
        // Straight from the bytes first, with no tape: faster at every
        // size (docs/performance-log.md, under `tables.lua`). A text it does not
        // take is parsed as usual, which finds the error.
        if let Some(events) = stream.events_direct(input, &opts, keys) {
            return Ok((events.as_ptr(), events.len()));
        }
        let flat = Document::parse_then(input, &opts, |doc| {
            stream.events(doc, qjson_core::ROOT, Some(keys)).map(|events| (events.as_ptr(), events.len()))
        });
        match flat {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) | Err(e) => Err(Failure::Input(e)),
        }
    })
}

/// The events of the value at `node` of a parsed document, as
/// `qjson_text_events`; strings stay valid while the document is open, until
/// the next call with the same `slot` on this thread.
///
/// # Safety
/// - `doc` is null or a live handle: from `qjson_parse*` and not yet
///   passed to `qjson_free`, or in caller memory (`qjson_parse_in`,
///   `qjson_parse_into`, `*_measured_in`, `qjson_parse_file_in`) that
///   the caller has not released.
/// - `info` is null or points to a writable `qjson_events_info`.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_doc_events(
    doc: *mut Handle,
    node: u32,
    slot: u32,
    info: *mut EventsInfo,
    err: *mut ErrorInfo,
) -> *const Event {
    with_stream(slot, info, err, |stream, keys| {
        // SAFETY: `doc` is null or a live handle from `qjson_parse*`.
        let Some(h) = (unsafe { doc.as_mut() }) else { return Err(Failure::Message("no document".into())) };
        let Some(d) = (if h.closing { None } else { h.doc.as_mut() }) else {
            return Err(Failure::Message(super::doc::CLOSED.into()));
        };
        // Every node is below the root's end (nodes come from the library;
        // a number past the tape is refused rather than trusted).
        if node >= d.skip(d.root()) {
            return Err(Failure::Message(format!("no value at node {node}")));
        }
        let events = stream.events(d, node, Some(keys)).map_err(Failure::Input)?;
        Ok((events.as_ptr(), events.len()))
    })
}
