//! Helpers shared by the binding's integration tests: the core's (the
//! shared test data, proptest case counts, parsing and errors, the counting
//! allocator), and the C ABI's error struct and panic reporting.

#![allow(dead_code)]

use qjson::ErrorInfo;
use std::ffi::CStr;

#[path = "../../../core/tests/common/mod.rs"]
mod core_common;
// (Each test binary uses some of these.)
#[allow(unused_imports)]
pub use core_common::*;

/// qjson installs a panic hook that records panics instead of printing
/// them (the library owns its Rust runtime). Chains one that still prints
/// the test files' own assertion failures, so that failing tests explain
/// themselves. Call it first in tests that go through the C ABI.
pub fn print_test_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Any guarded export installs qjson's hook.
        assert!(!qjson::qjson_backend().is_null());
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            quiet(info);
            if info.location().is_some_and(|l| l.file().starts_with("tests")) {
                eprintln!("{info}");
            }
        }));
    });
}

/// An empty `qjson_error` for a C ABI call to fill.
pub fn error_info() -> ErrorInfo {
    ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] }
}

/// The message a C ABI call left in `e`.
pub fn message(e: &ErrorInfo) -> String {
    // SAFETY: `fill` always NUL-terminates within the array.
    unsafe { CStr::from_ptr(e.message.as_ptr()) }.to_str().expect("messages are UTF-8").to_string()
}
