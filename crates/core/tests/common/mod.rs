//! Helpers shared by the integration tests: the shared test data, proptest
//! case counts, short ways to parse and to expect an error, and an
//! allocator that counts.

#![allow(dead_code)]

use qjson_core::{Document, Error, ErrorKind, Options};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;

/// A global allocator that counts, per thread, the allocations made
/// (reallocations included) and those not yet freed. A test binary that
/// counts installs it: `#[global_allocator] static GLOBAL: Counting = Counting;`.
pub struct Counting;

thread_local! {
    pub static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    pub static LIVE: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: every call goes to the system allocator with the caller's
// arguments; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        LIVE.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.with(|c| c.set(c.get() - 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// `../shared/data` beside the crate, or `None` (after saying so on stderr,
/// so a skipped test is visible) when this checkout has no data.
pub fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared/data not found");
        None
    }
}

/// A file under `../shared/data`, or `None` (reported) when absent.
pub fn data_file(rel: &str) -> Option<Vec<u8>> {
    let dir = data_dir()?;
    Some(std::fs::read(dir.join(rel)).unwrap_or_else(|e| panic!("reading ../shared/data/{rel}: {e}")))
}

/// Proptest cases: `default` unless `PROPTEST_CASES` asks for another count.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

pub fn strict() -> Options {
    Options::default()
}

/// The error of an input that must be rejected with `opts`.
pub fn reject_with(input: &[u8], opts: &Options) -> Error {
    match Document::parse(input, opts) {
        Ok(_) => panic!("accepted, should be rejected: {}", show(input)),
        Err(e) => e,
    }
}

/// The error of an input that strict default options must reject.
pub fn reject(input: &[u8]) -> Error {
    reject_with(input, &strict())
}

/// Asserts the error's kind and position (byte offset, line, column).
#[track_caller]
pub fn assert_error(input: &[u8], kind: ErrorKind, offset: usize, line: usize, column: usize) {
    let e = reject(input);
    let want = Error { kind, offset, line, column };
    assert_eq!(e, want, "input {}", show(input));
}

/// A short, printable rendering of an input for assertion messages.
pub fn show(input: &[u8]) -> String {
    const MAX: usize = 200;
    let s = String::from_utf8_lossy(&input[..input.len().min(MAX)]).into_owned();
    let s = format!("{s:?}");
    if input.len() > MAX {
        format!("{s}... ({} bytes)", input.len())
    } else {
        s
    }
}

/// Random `serde_json::Value` trees: at most 6 levels deep (well inside
/// serde_json's recursion limit of 128), strings with any character,
/// including the ones JSON must escape.
pub fn arb_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Into::into),
        any::<u64>().prop_map(Into::into),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Into::into),
        "\\PC{0,40}".prop_map(Value::String),
        "[\"\\\\/\\x00-\\x1f\\u{7f}-\\u{ff}\\u{10000}-\\u{10ffff}a-z]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,12}", inner), 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
