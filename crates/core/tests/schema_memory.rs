//! The memory `validate` takes to collect its errors is bounded by
//! `max_errors`, not by the work (issue 39, item 5): the `jsonschema` crate
//! builds every error, those of `anyOf`'s failing branches included, before
//! returning any. Measured with an allocator that keeps the peak of the
//! bytes allocated and not yet freed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use qjson_core::schema::{Schema, SchemaOptions};

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to the system allocator with the caller's
// arguments; only counters are added.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let live = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
        PEAK.fetch_max(live, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// Bytes `f` took at its peak, beyond what was live before it.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed) - before)
}

/// An `anyOf` of `n` object shapes.
fn shapes(n: usize, combinator: &str) -> String {
    let shapes: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"type":"object","required":["k{i}"],"properties":{{"k{i}":{{"type":"string"}}}}}}"#))
        .collect();
    format!(r#"{{"items":{{"{combinator}":[{}]}}}}"#, shapes.join(","))
}

#[test]
fn collecting_errors_takes_memory_bounded_by_max_errors() {
    // Issue 39's body: 16,000 integers, 32 KB.
    let body = format!("[{}]", vec!["1"; 16_000].join(","));
    for (combinator, n) in [("anyOf", 20), ("allOf", 50)] {
        let s = Schema::compile(shapes(n, combinator).as_bytes(), None, &SchemaOptions::default()).unwrap();
        let (errs, peak) = peak_of(|| s.validate_bytes(body.as_bytes()).unwrap());
        println!("{combinator} of {n} shapes, 16,000 integers: {} errors reported, peak {peak} bytes", errs.len());
        assert!(!errs.is_empty());
        // max_errors (100) × 64 KB, and the parse, with room to spare.
        assert!(peak < 10 << 20, "{combinator}: {peak} bytes at the peak");
    }
    // A body whose errors fit is reported whole.
    let s = Schema::compile(shapes(20, "anyOf").as_bytes(), None, &SchemaOptions::default()).unwrap();
    let errs = s.validate_bytes(format!("[{}]", vec!["1"; 150].join(",")).as_bytes()).unwrap();
    assert_eq!(errs.len(), 100);
    assert_eq!(errs[99].instance_location, "/99");
}
