//! The C ABI used by the LuaJIT binding. `crates/luajit/include/qjson.h` is generated from
//! these exports by cbindgen (see `crates/luajit/tests/header.rs`); the Lua `ffi.cdef` is
//! checked against that header by the Lua test suite.
//!
//! Every export runs inside [`guard`], so a panic becomes an error code and
//! never unwinds into LuaJIT.

// These functions are the C ABI: their pointer arguments are valid by the
// header's contract (and null is checked), as for any C library.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod consts;
mod doc;
mod encode;
pub mod events;
mod load;
pub mod parse;
pub mod patch;
pub mod read;
#[cfg(feature = "schema")]
pub mod schema;
pub mod select;
pub mod stream;
mod view;

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

    pub(crate) fn fill_from(&mut self, e: &qjson_core::Error) {
        self.fill(&e.to_string(), e.offset as u64, e.line as u32, e.column as u32);
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

/// Native objects the caller holds (selectors, stream splitters, compiled
/// schemas and paths) live behind a slot: one pointer in memory the caller
/// owns (for the Lua binding, a cdata in Lua memory whose finalizer calls
/// the object's `*_release`). The `*_new_in`-style exports box the object
/// into the slot; `*_release` frees it and empties the slot, so that the
/// caller sees the object is gone: after a release (by the collector, or
/// by `lua_close`, which runs every cdata finalizer before any userdata's
/// `__gc`) a use finds an empty slot and raises, instead of reading freed
/// memory.
///
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
