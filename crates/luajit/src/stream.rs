//! Streams of values (`qjson_core::stream`): one call finds every value of a
//! buffer (`qjson_stream_split`), or of the chunks fed so far
//! (`qjson_stream_feed`). The spans stay in the splitter until its next
//! call; the caller gives each splitter to one reader at a time.
//!
//! A feed's values are the caller's once it says it took them
//! (`unread` 0): a caller whose copy was cut short by an error (in Lua, a
//! finalizer's error or out of memory) gets them again, in front of the
//! next feed's, instead of losing them.

use std::ffi::c_char;

use super::slot::{box_into, in_slot};
use super::{bytes, guard, panic_message, ErrorInfo};
use qjson_core::stream::{Span, Splitter, StreamError, StreamFormat};

/// What a split found. `spans` (`count` of them) stay valid until the
/// splitter's next call; a span's bytes are at `data + start`, or at
/// `joined + start` when its `joined` is 1. `done` is 1 once an SSE
/// stream sent `[DONE]`. `unread` is set to 1 by `qjson_stream_feed`;
/// the caller sets it to 0 once it has taken the values: while it is 1,
/// the next feed keeps them, in front of its own.
#[repr(C)]
pub struct StreamOut {
    pub spans: *const Span,
    pub count: u32,
    pub done: u32,
    pub data: *const c_char,
    pub joined: *const c_char,
    /// Bytes at `joined`.
    pub joined_len: usize,
    pub unread: u32,
    pub err: ErrorInfo,
}

/// A splitter for `format` (a `qjson_stream_format`) whose values may
/// have up to `max_size` bytes (at most `qjson_stream_max_size()`;
/// more is taken as that), boxed into the caller's slot `out` (see
/// `box_into`): 1, or 0 (an unknown format, a null slot, a caught panic)
/// with `err` filled in.
///
/// # Safety
/// - `out` is null or points to a writable slot holding null or a
///   splitter from `qjson_stream_new_in` (released by this call).
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_stream_new_in(
    format: u32,
    max_size: usize,
    out: *mut *mut Splitter,
    err: *mut ErrorInfo,
) -> i32 {
    let made = guard(None, || Some(StreamFormat::from_u32(format).map(|f| Splitter::new(f, max_size)).ok_or(())));
    box_into(made, out, err, |e, ()| e.fill("unknown stream format", 0, 0, 0))
}

/// The largest `max_size` a splitter takes: a value's length is a `u32`.
#[no_mangle]
pub extern "C" fn qjson_stream_max_size() -> u64 {
    qjson_core::stream::MAX_SIZE as u64
}

/// Frees the splitter in slot `st` and empties the slot (null or empty:
/// nothing).
///
/// # Safety
/// - `st` is null or points to a writable slot holding null or the
///   splitter `qjson_stream_new_in` put there and no one has freed
///   since.
#[no_mangle]
pub unsafe extern "C" fn qjson_stream_release(st: *mut *mut Splitter) {
    // SAFETY: a slot filled by `qjson_stream_new_in`.
    unsafe { super::slot::release(st) }
}

/// Forgets the last call's values and gives back what the splitter in
/// slot `st` holds beyond a small bound: for a splitter kept idle in a
/// pool (a null or empty slot is ignored).
///
/// # Safety
/// - `st` is null or points to a writable slot holding null or the
///   splitter `qjson_stream_new_in` put there and no one has freed
///   since.
#[no_mangle]
pub unsafe extern "C" fn qjson_stream_trim(st: *mut *mut Splitter) {
    guard((), || {
        if let Ok(s) = in_slot(st, "stream splitter") {
            s.trim()
        }
    })
}

fn finish(st: &Splitter, data: *const c_char, r: Result<(), StreamError>, out: &mut StreamOut) -> i32 {
    out.spans = st.spans().as_ptr();
    out.count = st.spans().len() as u32;
    out.done = u32::from(st.done());
    out.data = data;
    out.joined = st.joined().as_ptr().cast();
    out.joined_len = st.joined().len();
    match r {
        Ok(()) => 1,
        Err(e) => {
            out.err.fill(&e.to_string(), e.at, 0, 0);
            -1
        }
    }
}

/// Splits, with the splitter in slot `st`, a whole stream of `len` bytes
/// at `input` (spans refer to
/// `input`, which the caller keeps). Returns 1, or -1 with `out.err`
/// filled in: the spans found before the error are still in `out`.
/// -2 after a caught panic.
///
/// # Safety
/// - `st` is null or points to a writable slot holding null or the
///   splitter `qjson_stream_new_in` put there and no one has freed
///   since.
/// - `input` is null or points to `len` readable bytes, for the call.
///   The spans refer to it: the caller keeps it while it reads them.
/// - `out` is null or points to a writable `qjson_stream_out`.
#[no_mangle]
pub unsafe extern "C" fn qjson_stream_split(
    st: *mut *mut Splitter,
    input: *const c_char,
    len: usize,
    out: *mut StreamOut,
) -> i32 {
    with_splitter(st, out, |s, o| {
        // SAFETY: the caller passes `len` readable bytes.
        let r = s.split_all(unsafe { bytes(input as *const u8, len) });
        finish(s, input, r, o)
    })
}

/// Feeds the splitter in slot `st` the next `len` bytes of a stream
/// (copied: the caller may free
/// them); `end` non-zero says the stream ends there. Spans refer to the
/// splitter's own buffer (`out.data`) until its next call; when the
/// caller left `out.unread` at 1, the spans of the previous call come
/// first (`Splitter::feed_keeping`). Sets `out.unread` to 1. Returns as
/// `qjson_stream_split`; after an error every later call fails with it.
///
/// # Safety
/// - `st` is null or points to a writable slot holding null or the
///   splitter `qjson_stream_new_in` put there and no one has freed
///   since.
/// - `chunk` is null or points to `len` readable bytes, for the call.
/// - `out` is null or points to a writable `qjson_stream_out`.
#[no_mangle]
pub unsafe extern "C" fn qjson_stream_feed(
    st: *mut *mut Splitter,
    chunk: *const c_char,
    len: usize,
    end: i32,
    out: *mut StreamOut,
) -> i32 {
    with_splitter(st, out, |s, o| {
        // SAFETY: the caller passes `len` readable bytes.
        let chunk = unsafe { bytes(chunk as *const u8, len) };
        let r = if o.unread != 0 { s.feed_keeping(chunk, end != 0) } else { s.feed(chunk, end != 0) };
        let data = s.buffer().as_ptr().cast();
        o.unread = 1;
        finish(s, data, r, o)
    })
}

/// Runs `f` on the splitter in slot `st` and the output `out`: -1 for a
/// null output, or with `out.err` filled in for a null or empty slot;
/// inside `guard` (-2 with `out.err` filled in after a panic).
fn with_splitter(
    st: *mut *mut Splitter,
    out: *mut StreamOut,
    f: impl FnOnce(&mut Splitter, &mut StreamOut) -> i32,
) -> i32 {
    // SAFETY: the caller passes a valid output or null.
    let Some(o) = (unsafe { out.as_mut() }) else { return -1 };
    o.count = 0;
    let s = match in_slot(st, "stream splitter") {
        Ok(s) => s,
        Err(m) => {
            o.err.fill(&m, 0, 0, 0);
            return -1;
        }
    };
    let r = guard(None, || Some(f(s, o)));
    r.unwrap_or_else(|| {
        o.count = 0;
        o.err.fill(&panic_message(), 0, 0, 0);
        -2
    })
}
