//! The C ABI of selectors and stream splitters, as LuaJIT calls it: null
//! pointers, outputs too small, bad formats and closed documents give a
//! status and a message, never a crash.

use qjson::select::{qjson_select, qjson_selector_add, qjson_selector_new_in, qjson_selector_release, SelectOut};
use qjson::stream::{
    qjson_stream_feed, qjson_stream_new_in, qjson_stream_release, qjson_stream_split, qjson_stream_trim, StreamOut,
};
use qjson_core::select::{Item, ItemTag, ItemValue};
use std::ptr::{null, null_mut};

mod common;
use common::{error_info, message};

fn stream_out() -> StreamOut {
    StreamOut {
        spans: null(),
        count: 0,
        done: 0,
        data: null(),
        joined: null(),
        joined_len: 0,
        unread: 0,
        err: error_info(),
    }
}

fn add(sel: &mut *mut qjson_core::select::Selector, spec: &str) -> i32 {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut e = error_info();
        qjson_selector_add(sel, spec.as_ptr().cast(), spec.len(), null(), 0, &mut e)
    }
}

#[test]
fn select_reports_sizes_errors_and_nonsense() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let mut sel = null_mut();
        assert_eq!(qjson_selector_new_in(&mut sel, &mut error_info()), 1);
        assert_eq!(add(&mut sel, "a[*]"), 1);
        assert_eq!(add(&mut sel, "b:string"), 1);
        assert_eq!(add(&mut sel, "a:nope"), 0);
        let text = br#"{"a":["\u00e9x","\u00e9y","z"],"b":"q"}"#;
        let blank = Item { tag: ItemTag::Missing, len: 0, v: ItemValue { num: 0.0 } };
        // Too small: the needs are reported, nothing is written past the caps.
        let (mut items, mut bytes) = ([blank; 2], [0u8; 2]);
        let mut out = SelectOut::new(&mut items, &mut bytes);
        let rc = qjson_select(&sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out);
        assert_eq!((rc, out.count, out.used), (0, 5, 6));
        let (mut items, mut bytes) = ([blank; 5], [0u8; 6]);
        let mut out = SelectOut::new(&mut items, &mut bytes);
        let rc = qjson_select(&sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out);
        assert_eq!(rc, 1);
        assert_eq!(items[0].tag, ItemTag::List);
        assert_eq!(items[0].len, 3);
        assert_eq!(items[4].tag, ItemTag::String);
        // Sound: a string item's pointer and length.
        let s = |i: &Item| std::slice::from_raw_parts(i.v.ptr.cast::<u8>(), i.len as usize).to_vec();
        assert_eq!(s(&items[1]), "éx".as_bytes());
        assert_eq!(s(&items[3]), b"z");
        assert_eq!(s(&items[4]), b"q");
        // Invalid JSON: the position; a type mismatch: the path.
        let mut out = SelectOut::new(&mut items, &mut bytes);
        assert_eq!(qjson_select(&sel, null_mut(), 0, b"{\"a\":}".as_ptr().cast(), 6, null(), &mut out), -1);
        assert!(message(&out.err).ends_with("(byte 5)"), "{}", message(&out.err));
        let mut out = SelectOut::new(&mut items, &mut bytes);
        assert_eq!(qjson_select(&sel, null_mut(), 0, b"{\"b\":1}".as_ptr().cast(), 7, null(), &mut out), -1);
        assert_eq!(message(&out.err), "type mismatch at 'b': expected string, got number");
        // A NUL in a path's key reads as \0 in the message (a C string).
        let mut nul = null_mut();
        let mut e = error_info();
        assert_eq!(qjson_selector_new_in(&mut nul, &mut e), 1);
        assert_eq!(qjson_selector_add(&mut nul, b"k\0ey".as_ptr().cast(), 4, b"number".as_ptr().cast(), 6, &mut e), 1);
        let mut out = SelectOut::new(&mut items, &mut bytes);
        let text = b"{\"k\\u0000ey\":true}";
        assert_eq!(qjson_select(&nul, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out), -1);
        assert_eq!(message(&out.err), "type mismatch at 'k\\0ey': expected number, got boolean");
        qjson_selector_release(&mut nul);
        assert!(nul.is_null());
        // Nonsense: a null selector, a null output, null input.
        let mut out = SelectOut::new(&mut items, &mut bytes);
        assert_eq!(qjson_select(null(), null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out), -1);
        assert_eq!(qjson_select(&sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), null_mut()), -1);
        let mut out = SelectOut::new(&mut items, &mut bytes);
        assert_eq!(qjson_select(&sel, null_mut(), 0, null(), 0, null(), &mut out), -1);
        assert_eq!(qjson_selector_add(null_mut(), null(), 0, null(), 0, null_mut()), 0);
        qjson_selector_release(&mut sel);
        // After a release, the empty slot is an error, not a use of freed memory.
        let mut out = SelectOut::new(&mut items, &mut bytes);
        assert_eq!(qjson_select(&sel, null_mut(), 0, text.as_ptr().cast(), text.len(), null(), &mut out), -1);
        assert_eq!(message(&out.err), "selector is freed");
        assert_eq!(add(&mut sel, "a"), 0);
        qjson_selector_release(&mut sel);
        qjson_selector_release(null_mut());
        assert_eq!(qjson_selector_new_in(null_mut(), &mut e), 0);
    }
}

#[test]
fn splitters_report_positions_and_nonsense() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let mut st = null_mut();
        let mut e = error_info();
        assert_eq!(qjson_stream_new_in(7, 100, &mut st, &mut e), 0);
        assert_eq!(message(&e), "unknown stream format");
        assert!(st.is_null());
        assert_eq!(qjson_stream_new_in(1, 100, &mut st, &mut e), 1);
        let mut out = stream_out();
        let text = b"[1] {\"a\":2} } 3";
        assert_eq!(qjson_stream_split(&mut st, text.as_ptr().cast(), text.len(), &mut out), -1);
        assert_eq!(out.count, 2);
        assert_eq!(message(&out.err), "unexpected '}' between values at byte 12 of the stream");
        assert_eq!(out.err.offset, 12);
        // A value over max_size, fed in pieces.
        let chunk = [b'7'; 60];
        assert_eq!(qjson_stream_feed(&mut st, b"[".as_ptr().cast(), 1, 0, &mut out), 1);
        let fed =
            (0..5).take_while(|_| qjson_stream_feed(&mut st, chunk.as_ptr().cast(), chunk.len(), 0, &mut out) == 1);
        // (An unfinished value may hold max_size plus 64 bytes.)
        assert_eq!(fed.count(), 2);
        assert_eq!(message(&out.err), "value larger than max_size (100 bytes) at byte 0 of the stream");
        assert_eq!(qjson_stream_feed(&mut st, null(), 0, 1, &mut out), -1);
        assert_eq!(qjson_stream_split(null_mut(), text.as_ptr().cast(), text.len(), &mut out), -1);
        assert_eq!(message(&out.err), "no stream splitter");
        // After a release, the empty slot is an error, not a use of freed memory.
        let mut freed = null_mut();
        assert_eq!(qjson_stream_new_in(0, 10, &mut freed, &mut e), 1);
        qjson_stream_release(&mut freed);
        assert_eq!(qjson_stream_split(&mut freed, text.as_ptr().cast(), text.len(), &mut out), -1);
        assert_eq!(message(&out.err), "stream splitter is freed");
        assert_eq!(qjson_stream_feed(&mut freed, text.as_ptr().cast(), text.len(), 0, &mut out), -1);
        assert_eq!(message(&out.err), "stream splitter is freed");
        qjson_stream_trim(&mut freed);
        assert_eq!(qjson_stream_feed(&mut st, null(), 0, 1, null_mut()), -1);
        qjson_stream_trim(&mut st);
        qjson_stream_trim(null_mut());
        qjson_stream_release(&mut st);
        assert!(st.is_null());
        qjson_stream_release(&mut st);
        qjson_stream_release(null_mut());
    }
}

/// The texts of the spans `out` holds.
fn texts(out: &StreamOut) -> Vec<String> {
    // SAFETY: `count` spans, each within its area, until the next call.
    let spans = unsafe { std::slice::from_raw_parts(out.spans, out.count as usize) };
    spans
        .iter()
        .map(|s| {
            let area = if s.joined == 1 { out.joined } else { out.data };
            // SAFETY: as above.
            let b = unsafe { std::slice::from_raw_parts(area.add(s.start as usize).cast::<u8>(), s.len as usize) };
            String::from_utf8_lossy(b).into_owned()
        })
        .collect()
}

#[test]
fn a_feed_whose_values_were_not_taken_gives_them_again_first() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let mut st = null_mut();
        assert_eq!(qjson_stream_new_in(2, 100, &mut st, &mut error_info()), 1);
        let mut out = stream_out();
        let mut feed =
            |out: &mut StreamOut, s: &[u8], end: i32| qjson_stream_feed(&mut st, s.as_ptr().cast(), s.len(), end, out);
        // An SSE stream: one event of two data lines (in the joined area), one
        // of one line.
        assert_eq!(feed(&mut out, b"data: [1,\ndata: 2]\n\ndata: 3\n\nda", 0), 1);
        assert_eq!((texts(&out), out.unread), (vec!["[1,\n2]".to_string(), "3".into()], 1));
        // Not taken (unread left at 1): the next feed gives them again, first.
        assert_eq!(feed(&mut out, b"ta: 4\n\n", 0), 1);
        assert_eq!(texts(&out), ["[1,\n2]", "3", "4"]);
        out.unread = 0;
        assert_eq!(feed(&mut out, b"data: [5,\ndata: 6]\n\n", 0), 1);
        assert_eq!(texts(&out), ["[5,\n6]"]);
        out.unread = 0;
        // The end, then a feed after it: refused, and not for good (the end
        // may be said again); a value left unread comes with the refusal.
        assert_eq!(feed(&mut out, b"data: 7", 1), 1);
        assert_eq!(texts(&out), ["7"]);
        assert_eq!(feed(&mut out, b"data: 8\n\n", 0), -1);
        assert_eq!(texts(&out), ["7"]);
        assert_eq!(message(&out.err), "feed after the end of the stream at byte 65 of the stream");
        out.unread = 0;
        assert_eq!(feed(&mut out, b"", 0), -1);
        assert_eq!(feed(&mut out, b"", 1), 1);
        assert_eq!(out.count, 0);
        qjson_stream_release(&mut st);
    }
}
