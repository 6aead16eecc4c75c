//! The C ABI of selectors and stream splitters, as LuaJIT calls it: null
//! pointers, outputs too small, bad formats and closed documents give a
//! status and a message, never a crash.

use qjson::select::{qjson_select, qjson_selector_add, qjson_selector_free, qjson_selector_new, SelectOut};
use qjson::stream::{qjson_stream_feed, qjson_stream_free, qjson_stream_new, qjson_stream_split, StreamOut};
use qjson_core::select::{Item, ItemTag, ItemValue};
use std::ptr::{null, null_mut};

mod common;
use common::{error_info, message};

fn add(sel: *mut qjson_core::select::Selector, spec: &str) -> i32 {
    let mut e = error_info();
    qjson_selector_add(sel, spec.as_ptr().cast(), spec.len(), null(), 0, &mut e)
}

#[test]
fn select_reports_sizes_errors_and_nonsense() {
    common::print_test_panics();
    let sel = qjson_selector_new();
    assert_eq!(add(sel, "a[*]"), 1);
    assert_eq!(add(sel, "b:string"), 1);
    assert_eq!(add(sel, "a:nope"), 0);
    let text = br#"{"a":["\u00e9x","\u00e9y","z"],"b":"q"}"#;
    let blank = Item { tag: ItemTag::Missing, len: 0, v: ItemValue { num: 0.0 } };
    // Too small: the needs are reported, nothing is written past the caps.
    let (mut items, mut bytes) = ([blank; 2], [0u8; 2]);
    let mut out = SelectOut::new(&mut items, &mut bytes);
    let rc = qjson_select(sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out);
    assert_eq!((rc, out.count, out.used), (0, 5, 6));
    let (mut items, mut bytes) = ([blank; 5], [0u8; 6]);
    let mut out = SelectOut::new(&mut items, &mut bytes);
    let rc = qjson_select(sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out);
    assert_eq!(rc, 1);
    assert_eq!(items[0].tag, ItemTag::List);
    assert_eq!(items[0].len, 3);
    assert_eq!(items[4].tag, ItemTag::String);
    // SAFETY: a string item's pointer and length.
    let s = |i: &Item| unsafe { std::slice::from_raw_parts(i.v.ptr.cast::<u8>(), i.len as usize) }.to_vec();
    assert_eq!(s(&items[1]), "éx".as_bytes());
    assert_eq!(s(&items[3]), b"z");
    assert_eq!(s(&items[4]), b"q");
    // Invalid JSON: the position; a type mismatch: the path.
    let mut out = SelectOut::new(&mut items, &mut bytes);
    assert_eq!(qjson_select(sel, null_mut(), 0, b"{\"a\":}".as_ptr().cast(), 6, null(), &mut out), -1);
    assert!(message(&out.err).ends_with("(byte 5)"), "{}", message(&out.err));
    let mut out = SelectOut::new(&mut items, &mut bytes);
    assert_eq!(qjson_select(sel, null_mut(), 0, b"{\"b\":1}".as_ptr().cast(), 7, null(), &mut out), -1);
    assert_eq!(message(&out.err), "type mismatch at 'b': expected string, got number");
    // A NUL in a path's key reads as \0 in the message (a C string).
    let nul = qjson_selector_new();
    let mut e = error_info();
    assert_eq!(qjson_selector_add(nul, b"k\0ey".as_ptr().cast(), 4, b"number".as_ptr().cast(), 6, &mut e), 1);
    let mut out = SelectOut::new(&mut items, &mut bytes);
    let text = b"{\"k\\u0000ey\":true}";
    assert_eq!(qjson_select(nul, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out), -1);
    assert_eq!(message(&out.err), "type mismatch at 'k\\0ey': expected number, got boolean");
    qjson_selector_free(nul);
    // Nonsense: a null selector, a null output, null input.
    let mut out = SelectOut::new(&mut items, &mut bytes);
    assert_eq!(qjson_select(null(), null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out), -1);
    assert_eq!(qjson_select(sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), null_mut()), -1);
    let mut out = SelectOut::new(&mut items, &mut bytes);
    assert_eq!(qjson_select(sel, null_mut(), 0, null(), 0, null(), &mut out), -1);
    assert_eq!(qjson_selector_add(null_mut(), null(), 0, null(), 0, null_mut()), 0);
    qjson_selector_free(sel);
    qjson_selector_free(null_mut());
}

#[test]
fn splitters_report_positions_and_nonsense() {
    common::print_test_panics();
    assert!(qjson_stream_new(7, 100).is_null());
    let st = qjson_stream_new(1, 100);
    let mut out = StreamOut { spans: null(), count: 0, done: 0, data: null(), joined: null(), err: error_info() };
    let text = b"[1] {\"a\":2} } 3";
    assert_eq!(qjson_stream_split(st, text.as_ptr().cast(), text.len(), &mut out), -1);
    assert_eq!(out.count, 2);
    assert_eq!(message(&out.err), "unexpected '}' between values at byte 12 of the stream");
    assert_eq!(out.err.offset, 12);
    // A value over max_size, fed in pieces.
    let chunk = [b'7'; 60];
    assert_eq!(qjson_stream_feed(st, b"[".as_ptr().cast(), 1, 0, &mut out), 1);
    let fed = (0..5).take_while(|_| qjson_stream_feed(st, chunk.as_ptr().cast(), chunk.len(), 0, &mut out) == 1);
    // (An unfinished value may hold max_size plus 64 bytes.)
    assert_eq!(fed.count(), 2);
    assert_eq!(message(&out.err), "value larger than max_size (100 bytes) at byte 0 of the stream");
    assert_eq!(qjson_stream_feed(st, null(), 0, 1, &mut out), -1);
    assert_eq!(qjson_stream_split(null_mut(), text.as_ptr().cast(), text.len(), &mut out), -1);
    assert_eq!(message(&out.err), "no stream splitter");
    assert_eq!(qjson_stream_feed(st, null(), 0, 1, null_mut()), -1);
    qjson_stream_free(st);
    qjson_stream_free(null_mut());
}
