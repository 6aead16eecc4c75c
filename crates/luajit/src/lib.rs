//! The C ABI used by the LuaJIT binding. `crates/luajit/include/qjson.h` is generated from
//! these exports by cbindgen (see `crates/luajit/tests/header.rs`); the Lua `ffi.cdef` is
//! checked against that header by the Lua test suite.
//!
//! Every export that can panic runs inside [`guard`], so a panic becomes an
//! error code and never unwinds into LuaJIT. An export that reads or writes
//! through a pointer argument is an `unsafe fn` whose `# Safety` section
//! says what the caller guarantees (null is checked wherever it is allowed).

pub mod consts;
pub mod doc;
mod encode;
pub mod events;
mod load;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod parse;
pub mod patch;
pub mod path;
pub mod read;
pub mod read_error;
#[cfg(feature = "schema")]
mod records;
#[cfg(feature = "schema")]
pub mod schema;
pub mod select;
mod slot;
pub mod stream;
pub mod view;

use std::panic::{catch_unwind, AssertUnwindSafe};

pub use doc::Handle;

/// Outcome of a read when it is not a `qjson_kind` (positive) for success.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The path does not exist in the document.
    Missing = 0,
    /// The read failed; `qjson_last_error` has the message.
    Error = -1,
    /// A bug inside qjson was caught at the boundary; the message says so.
    Panic = -2,
}

/// Error details for the caller. `message` is NUL-terminated UTF-8 and
/// already includes the position when there is one.
#[repr(C)]
pub struct ErrorInfo {
    /// 0-based byte offset in the input (0 when not about the input).
    pub offset: u64,
    /// 1-based line and column (column in characters); 0 when unknown.
    pub line: u32,
    pub column: u32,
    pub message: [std::ffi::c_char; 256],
}

impl ErrorInfo {
    pub(crate) fn fill(&mut self, message: &str, offset: u64, line: u32, column: u32) {
        self.offset = offset;
        self.line = line;
        self.column = column;
        // The caller reads a C string: a NUL (from a key in a path) is
        // written as `\0`, not left to end the message there.
        let escaped;
        let message = if message.contains('\0') {
            escaped = message.replace('\0', "\\0");
            escaped.as_str()
        } else {
            message
        };
        // Truncate on a character boundary, keeping room for the NUL.
        let mut n = message.len().min(self.message.len() - 1);
        while !message.is_char_boundary(n) {
            n -= 1;
        }
        for (d, &s) in self.message.iter_mut().zip(&message.as_bytes()[..n]) {
            *d = s as std::ffi::c_char;
        }
        self.message[n] = 0;
    }

    /// (Runs after the call's own `guard`: the error's formatting is
    /// guarded here, so that a bug in it reports instead of aborting.)
    pub(crate) fn fill_from(&mut self, e: &qjson_core::Error) {
        let message = guard(None, || Some(e.to_string())).unwrap_or_else(panic_message);
        self.fill(&message, e.offset as u64, e.line as u32, e.column as u32);
    }
}

/// Panics are reported through error messages, not printed: this copy of
/// the Rust runtime belongs to the library alone, so its hook is ours to
/// set (the host process, LuaJIT or nginx, has no Rust of its own here).
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let msg = match (info.payload().downcast_ref::<&str>(), info.payload().downcast_ref::<String>()) {
                (Some(s), _) => s.to_string(),
                (_, Some(s)) => s.clone(),
                _ => "unknown panic".to_string(),
            };
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            qjson_core::panic::record(format!("{msg}{at}"));
        }))
    });
}

/// The message for a caught panic (taking it), for error reports.
pub(crate) fn panic_message() -> String {
    let detail = qjson_core::panic::take().unwrap_or_default();
    format!("internal error ({detail}); please report it as a qjson bug")
}

/// Takes the message of a panic caught on this thread, if any: lets tests
/// and fuzz targets see a panic that the boundary turned into a status.
#[doc(hidden)]
pub fn take_panic() -> Option<String> {
    qjson_core::panic::take()
}

/// Runs `f`, turning a panic into `fallback`.
#[inline(always)]
pub(crate) fn guard<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    quiet_panics();
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Runs `f` on the error struct `err` when it is not null.
pub(crate) fn report(err: *mut ErrorInfo, f: impl FnOnce(&mut ErrorInfo)) {
    // SAFETY: the caller passes a valid `qjson_error` or null.
    if let Some(e) = unsafe { err.as_mut() } {
        f(e)
    }
}

/// Fills `err` (or nothing, when null) with `message`, at no position.
pub(crate) fn fill_error(err: *mut ErrorInfo, message: &str) {
    report(err, |e| e.fill(message, 0, 0, 0))
}

/// A byte slice from a (pointer, length) pair; empty when the pointer is null.
///
/// # Safety
/// A non-null `ptr` must be valid for `len` bytes for the lifetime chosen.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: by this function's contract.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// The library's version, NUL-terminated.
#[no_mangle]
pub extern "C" fn qjson_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The stage 1 backend in use (`arch::Backend::name`: "avx512vbmi",
/// "avx512", "avx2", "neon", "neon-nopmull", "swar" or "scalar"),
/// NUL-terminated.
#[no_mangle]
pub extern "C" fn qjson_backend() -> *const std::ffi::c_char {
    guard(c"unknown", || qjson_core::arch::Backend::detect().c_name()).as_ptr()
}
