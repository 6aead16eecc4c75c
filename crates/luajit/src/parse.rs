//! Parsing: the entry points that make a document handle, boxed, placed
//! in caller memory (`*_size`, `*_in`, `*_into`, `*_measured*`) or read
//! from a file. Freeing and closing a handle are in `doc.rs`.

use std::ffi::c_char;
use std::os::unix::ffi::OsStrExt;

use super::{bytes, fill_error, guard, panic_message, report, ErrorInfo, Handle};
use qjson_core::document::file::read_file;
use qjson_core::{Document, Options};

fn options(opts: *const Options) -> Options {
    // SAFETY: the caller passes a valid `qjson_options` or null.
    unsafe { opts.as_ref() }.copied().unwrap_or_default()
}

/// Parses `len` bytes at `input`, which must stay alive and unchanged until
/// the document is freed (the Lua binding keeps the string referenced).
/// Returns null on error, with `err` filled in.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes that stay alive
///   and unchanged until the document is freed (or its memory
///   released).
/// - `opts` is null or points to a readable `qjson_options`.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    err: *mut ErrorInfo,
) -> *mut Handle {
    boxed(input, len, opts, err, Document::parse)
}

/// A boxed document of `len` bytes at `input`, built by `build`; null on
/// error, with `err` filled in.
fn boxed(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    err: *mut ErrorInfo,
    build: impl FnOnce(&'static [u8], &Options) -> Result<Document<'static>, qjson_core::Error>,
) -> *mut Handle {
    let parsed = guard(None, || {
        // SAFETY: the input stays alive and unchanged until the document is
        // freed (the contract of `qjson_parse`).
        let input: &'static [u8] = unsafe { bytes(input as *const u8, len) };
        Some(build(input, &options(opts)))
    });
    finish(parsed, err)
}

/// First half of a parse in two calls: parses `len` bytes at `input` (same
/// contract as `qjson_parse`) and returns how many bytes `qjson_parse_in`
/// needs to place the document in caller memory (saturating at
/// `INT32_MAX`), or 0 on error, with `err` filled in. The caller then
/// places it (`qjson_parse_in`, worth it for small documents, where a
/// boxed handle's allocation and finalizer would cost more than the
/// parse) or has it boxed (`qjson_parse_measured`); either way the input
/// is parsed once.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes, for the call.
///   When the document is then made by `qjson_parse_in` or
///   `qjson_parse_measured`, their requirements on `input` apply.
/// - `opts` is null or points to a readable `qjson_options`.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_size(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    err: *mut ErrorInfo,
) -> i32 {
    let measured = guard(None, || {
        // SAFETY: the caller passes `len` readable bytes.
        let input = unsafe { bytes(input as *const u8, len) };
        Some(Document::measure(input, &options(opts)))
    });
    settle(measured, err)
        .map_or(0, |tape_and_scratch| i32::try_from(PLACED_HEADER + tape_and_scratch).unwrap_or(i32::MAX))
}

/// Second half for a document the caller chose not to place (it needs more
/// memory than the caller would give it): a boxed document, as from
/// `qjson_parse`, of the same `input`, `len` and `opts` as the
/// `qjson_parse_size` call before, without parsing again.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes that stay alive
///   and unchanged until the document is freed (or its memory
///   released).
/// - `opts` is null or points to a readable `qjson_options`.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_measured(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    err: *mut ErrorInfo,
) -> *mut Handle {
    boxed(input, len, opts, err, Document::parse_measured)
}

/// Bytes before the tape in a placed document: the handle, rounded up so
/// that the tape after it is 4-byte aligned.
const PLACED_HEADER: usize = std::mem::size_of::<Handle>().next_multiple_of(4);

/// Whether caller memory `mem` of `size` bytes can hold a handle: not
/// null, aligned for one, and large enough.
fn holds_handle(mem: *mut std::ffi::c_void, size: usize) -> bool {
    !mem.is_null() && (mem as usize).is_multiple_of(std::mem::align_of::<Handle>()) && size >= PLACED_HEADER
}

/// The caller memory after the handle, as tape slots.
///
/// # Safety
/// `mem` passed [`holds_handle`] and has `size` writable bytes that outlive
/// the document placed there.
unsafe fn after_handle(mem: *mut std::ffi::c_void, size: usize) -> &'static mut [u32] {
    // SAFETY: by this function's contract; PLACED_HEADER keeps the slots aligned.
    unsafe { std::slice::from_raw_parts_mut(mem.cast::<u8>().add(PLACED_HEADER).cast(), (size - PLACED_HEADER) / 4) }
}

/// Second half: builds the document in `mem` (`size` bytes, 8-byte
/// aligned, as `qjson_parse_size` asked for; same `input`, `len` and
/// `opts`), which then serves as its `qjson_doc *` until the caller
/// releases the memory. It owns nothing else: never pass it to
/// `qjson_free`. Returns 1, or 0 with `err` filled in.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes that stay alive
///   and unchanged until the document is freed (or its memory
///   released).
/// - `opts` is null or points to a readable `qjson_options`.
/// - `mem` is null or points to `size` writable bytes, 8-byte aligned,
///   that the caller keeps, unmoved and unused otherwise, for the
///   document's life.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_in(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    mem: *mut std::ffi::c_void,
    size: usize,
    err: *mut ErrorInfo,
) -> i32 {
    let refuse = |msg: &str| {
        fill_error(err, msg);
        None
    };
    let placed = guard(None, || {
        if !holds_handle(mem, size) {
            return refuse("bad memory for a placed document");
        }
        // SAFETY: the caller keeps `input` alive and unchanged while the
        // document lives (as for `qjson_parse`), and passes `size` writable
        // bytes at `mem`, which outlive the document.
        let input: &'static [u8] = unsafe { bytes(input as *const u8, len) };
        // SAFETY: as above; `holds_handle` checked `mem`.
        let rest = unsafe { after_handle(mem, size) };
        match Document::place(input, &options(opts), rest) {
            Ok(Some(doc)) => {
                // SAFETY: aligned and large enough (checked above).
                unsafe { mem.cast::<Handle>().write(Handle::placed(doc)) };
                Some(Ok(()))
            }
            Ok(None) => refuse("memory too small for the placed document"),
            Err(e) => Some(Err(e)),
        }
    });
    settle(placed, err).map_or(0, |()| 1)
}

/// A parse in one call for small documents: parses `len` bytes at `input`
/// (same contract as `qjson_parse`) and places the document in `mem`
/// (`size` bytes, 8-byte aligned) when it fits, as `qjson_parse_in` does.
/// Returns minus the bytes it used when placed; else the bytes it needs
/// (the parse is kept: follow with `qjson_parse_in` on memory that large,
/// or `qjson_parse_measured`), or 0 with `err` filled in. A double, exact
/// for any size: LuaJIT boxes a 64-bit integer result, an allocation that
/// may run a finalizer (which may parse) before the caller reads `err`.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes that stay alive
///   and unchanged until the document is freed (or its memory
///   released).
/// - `opts` is null or points to a readable `qjson_options`.
/// - `mem` is null or points to `size` writable bytes, 8-byte aligned,
///   that the caller keeps, unmoved and unused otherwise, for the
///   document's life.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_into(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    mem: *mut std::ffi::c_void,
    size: usize,
    err: *mut ErrorInfo,
) -> f64 {
    let placed = guard(None, || {
        if !holds_handle(mem, size) {
            fill_error(err, "bad memory for a placed document");
            return None;
        }
        // SAFETY: as for `qjson_parse_in`.
        let input: &'static [u8] = unsafe { bytes(input as *const u8, len) };
        // SAFETY: as for `qjson_parse_in`.
        let rest = unsafe { after_handle(mem, size) };
        let o = options(opts);
        // Always a fresh parse: the last one measured may have been of
        // another string at the same address (`place` alone would reuse it).
        if let Err(e) = Document::measure(input, &o) {
            return Some(Err(e));
        }
        Some(match Document::place(input, &o, rest) {
            Ok(Some(doc)) => {
                let used = PLACED_HEADER + Document::measured_size(input, &o).unwrap_or(size - PLACED_HEADER);
                // SAFETY: aligned and large enough (checked above).
                unsafe { mem.cast::<Handle>().write(Handle::placed(doc)) };
                Ok(-(used as f64))
            }
            Ok(None) => Ok(Document::measured_size(input, &o).map_or(f64::MAX, |n| (PLACED_HEADER + n) as f64)),
            Err(e) => Err(e),
        })
    });
    settle(placed, err).unwrap_or(0.0)
}

/// Reads the file at `path` (`path_len` bytes, not NUL-terminated) and
/// parses it; the document owns the bytes. Only a regular file of at most
/// `max_size` bytes is read (values above the input limit, 4 GiB − 1
/// bytes, mean that limit): its size is checked before reading, and a file
/// that grows past the limit while read is refused. A FIFO, a device or a
/// directory is refused without blocking.
///
/// # Safety
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `opts` is null or points to a readable `qjson_options`.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_file(
    path: *const c_char,
    path_len: usize,
    max_size: u64,
    opts: *const Options,
    err: *mut ErrorInfo,
) -> *mut Handle {
    let parsed = guard(None, || parse_file_at(path, path_len, max_size, opts, err));
    finish(parsed, err)
}

/// `qjson_parse_file`, with the handle written to `mem` (`size` bytes,
/// 8-byte aligned, at least `qjson_handle_size()`), as for
/// `qjson_parse_measured_in`. Returns 1, or 0 with `err` filled in.
///
/// # Safety
/// - `path` is null or points to `path_len` readable bytes, for the
///   call.
/// - `opts` is null or points to a readable `qjson_options`.
/// - `mem` is null or points to `size` writable bytes, 8-byte aligned,
///   that the caller keeps, unmoved and unused otherwise, for the
///   document's life. It is passed to `qjson_finalize` before it is
///   released.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_file_in(
    path: *const c_char,
    path_len: usize,
    max_size: u64,
    opts: *const Options,
    mem: *mut std::ffi::c_void,
    size: usize,
    err: *mut ErrorInfo,
) -> i32 {
    in_memory(mem, size, err, || parse_file_at(path, path_len, max_size, opts, err))
}

fn parse_file_at(
    path: *const c_char,
    path_len: usize,
    max_size: u64,
    opts: *const Options,
    err: *mut ErrorInfo,
) -> Option<Result<Document<'static>, qjson_core::Error>> {
    // SAFETY: the caller passes `path_len` readable bytes.
    let raw = unsafe { bytes(path as *const u8, path_len) };
    // File names are bytes on Unix, not necessarily UTF-8.
    let file = std::path::Path::new(std::ffi::OsStr::from_bytes(raw));
    let name = String::from_utf8_lossy(raw);
    match read_file(file, max_size) {
        Ok(data) => Some(Document::parse_owned(data, &options(opts))),
        Err(e) => {
            fill_error(err, &format!("cannot read file '{name}': {e}"));
            None
        }
    }
}

/// Second half for a document too large to place, like
/// `qjson_parse_measured`, but with the handle itself written to `mem`
/// (`size` bytes, 8-byte aligned, at least `qjson_handle_size()`), memory
/// the caller owns and frees after `qjson_finalize`; the document's tape
/// and strings are on the heap. The handle then lives exactly as long as
/// that memory: a read after `qjson_finalize` (the Lua binding's
/// finalizer; at `lua_close` LuaJIT runs it before finalizers of other
/// objects that may still read) reports a closed document instead of
/// reading freed memory. Returns 1, or 0 with `err` filled in.
///
/// # Safety
/// - `input` is null or points to `len` readable bytes that stay alive
///   and unchanged until the document is freed (or its memory
///   released).
/// - `opts` is null or points to a readable `qjson_options`.
/// - `mem` is null or points to `size` writable bytes, 8-byte aligned,
///   that the caller keeps, unmoved and unused otherwise, for the
///   document's life. It is passed to `qjson_finalize` before it is
///   released.
/// - `err` is null or points to a writable `qjson_error`.
#[no_mangle]
pub unsafe extern "C" fn qjson_parse_measured_in(
    input: *const c_char,
    len: usize,
    opts: *const Options,
    mem: *mut std::ffi::c_void,
    size: usize,
    err: *mut ErrorInfo,
) -> i32 {
    in_memory(mem, size, err, || {
        // SAFETY: as for `qjson_parse`.
        let input: &'static [u8] = unsafe { bytes(input as *const u8, len) };
        Some(Document::parse_measured(input, &options(opts)))
    })
}

/// Bytes of caller memory a handle needs (`qjson_parse_measured_in`,
/// `qjson_parse_file_in`).
#[no_mangle]
pub extern "C" fn qjson_handle_size() -> usize {
    PLACED_HEADER
}

/// Writes a counted handle for the document `build` makes to `mem`.
fn in_memory(
    mem: *mut std::ffi::c_void,
    size: usize,
    err: *mut ErrorInfo,
    build: impl FnOnce() -> Option<Result<Document<'static>, qjson_core::Error>>,
) -> i32 {
    let built = guard(None, || {
        if !holds_handle(mem, size) {
            fill_error(err, "bad memory for a document handle");
            return None;
        }
        build()
    });
    settle(built, err).map_or(0, |doc| {
        // SAFETY: aligned and large enough (checked above).
        unsafe { mem.cast::<Handle>().write(Handle::counted(doc)) };
        1
    })
}

/// A boxed handle for the parsed document, or null with `err` filled in.
fn finish(parsed: Option<Result<Document<'static>, qjson_core::Error>>, err: *mut ErrorInfo) -> *mut Handle {
    settle(parsed, err).map_or(std::ptr::null_mut(), |doc| Box::into_raw(Handle::boxed(doc)))
}

/// The value of a guarded call, or `None` with `err` filled in: the error's
/// message and position, or for `None` (a panic, unless the call reported
/// its own failure first) the panic's message.
fn settle<T>(outcome: Option<Result<T, qjson_core::Error>>, err: *mut ErrorInfo) -> Option<T> {
    match outcome {
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            report(err, |r| r.fill_from(&e));
            None
        }
        None => {
            report(err, |r| {
                if r.message[0] == 0 {
                    r.fill(&panic_message(), 0, 0, 0);
                }
            });
            None
        }
    }
}
