//! Streams of values (`qjson_core::stream`): one call finds every value of a
//! buffer (`qjson_stream_split`), or of the chunks fed so far
//! (`qjson_stream_feed`). The spans stay in the splitter until its next
//! call; the caller gives each splitter to one reader at a time.

use std::ffi::c_char;

use super::{bytes, free_boxed, guard, panic_message, ErrorInfo};
use qjson_core::stream::{Span, Splitter, StreamError, StreamFormat};

/// What a split found. `spans` (`count` of them) stay valid until the
/// splitter's next call; a span's bytes are at `data + start`, or at
/// `joined + start` when its `joined` is 1. `done` is 1 once an SSE
/// stream sent `[DONE]`.
#[repr(C)]
pub struct StreamOut {
    pub spans: *const Span,
    pub count: u32,
    pub done: u32,
    pub data: *const c_char,
    pub joined: *const c_char,
    pub err: ErrorInfo,
}

/// A splitter for `format` (a `qjson_stream_format`) that holds at most
/// `max_size` bytes of an unfinished value; null for an unknown format.
#[no_mangle]
pub extern "C" fn qjson_stream_new(format: u32, max_size: usize) -> *mut Splitter {
    guard(std::ptr::null_mut(), || match StreamFormat::from_u32(format) {
        Some(f) => Box::into_raw(Box::new(Splitter::new(f, max_size))),
        None => std::ptr::null_mut(),
    })
}

/// Frees a splitter (null is ignored).
#[no_mangle]
pub extern "C" fn qjson_stream_free(st: *mut Splitter) {
    // SAFETY: from `qjson_stream_new`, freed once.
    unsafe { free_boxed(st) }
}

fn finish(st: &Splitter, data: *const c_char, r: Result<(), StreamError>, out: &mut StreamOut) -> i32 {
    out.spans = st.spans().as_ptr();
    out.count = st.spans().len() as u32;
    out.done = u32::from(st.done());
    out.data = data;
    out.joined = st.joined().as_ptr().cast();
    match r {
        Ok(()) => 1,
        Err(e) => {
            out.err.fill(&e.to_string(), e.at, 0, 0);
            -1
        }
    }
}

/// Splits a whole stream of `len` bytes at `input` (spans refer to
/// `input`, which the caller keeps). Returns 1, or -1 with `out.err`
/// filled in: the spans found before the error are still in `out`.
/// -2 after a caught panic.
#[no_mangle]
pub extern "C" fn qjson_stream_split(st: *mut Splitter, input: *const c_char, len: usize, out: *mut StreamOut) -> i32 {
    with_splitter(st, out, |s, o| {
        // SAFETY: the caller passes `len` readable bytes.
        let r = s.split_all(unsafe { bytes(input as *const u8, len) });
        finish(s, input, r, o)
    })
}

/// Feeds the next `len` bytes of a stream (copied: the caller may free
/// them); `end` non-zero says the stream ends there. Spans refer to the
/// splitter's own buffer (`out.data`) until its next call. Returns as
/// `qjson_stream_split`; after an error every later call fails with it.
#[no_mangle]
pub extern "C" fn qjson_stream_feed(
    st: *mut Splitter,
    chunk: *const c_char,
    len: usize,
    end: i32,
    out: *mut StreamOut,
) -> i32 {
    with_splitter(st, out, |s, o| {
        // SAFETY: the caller passes `len` readable bytes.
        let r = s.feed(unsafe { bytes(chunk as *const u8, len) }, end != 0);
        let data = s.buffer().as_ptr().cast();
        finish(s, data, r, o)
    })
}

/// Runs `f` on the splitter `st` and the output `out`, checked for null
/// (-1), inside `guard` (-2 with `out.err` filled in after a panic).
fn with_splitter(st: *mut Splitter, out: *mut StreamOut, f: impl FnOnce(&mut Splitter, &mut StreamOut) -> i32) -> i32 {
    // SAFETY: the caller passes a valid output or null.
    let Some(o) = (unsafe { out.as_mut() }) else { return -1 };
    o.count = 0;
    if st.is_null() {
        o.err.fill("no stream splitter", 0, 0, 0);
        return -1;
    }
    let r = guard(None, || {
        // SAFETY: a live splitter (checked non-null above).
        let s = unsafe { st.as_mut() }?;
        Some(f(s, o))
    });
    r.unwrap_or_else(|| {
        o.count = 0;
        o.err.fill(&panic_message(), 0, 0, 0);
        -2
    })
}
