//! `qjson_text_events` (what `qjson.cjson.decode` builds its tables from) on
//! any sequence of texts, with any of lua-cjson's number options: the
//! events give the value the document API reads from a parse with the
//! same options, and the thread's key cache, which lives from one decode
//! to the next, never gives an id or a shape id two meanings within one
//! generation (a wrong key there would be a silently wrong table). The
//! same for `qjson_doc_events` of a lazy-mode document (`qjson.materialize`),
//! whose values are checked as the walk reads them: it fails exactly
//! when the strict parse does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson::doc::qjson_free;
use qjson::events::{qjson_doc_events, qjson_text_events};
use qjson::parse::qjson_parse;
use qjson::{take_panic, ErrorInfo};
use qjson_core::events::{Event, EventTag, EventsInfo};
use qjson_core::{Document, Kind, Node, Options};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, CStr};

mod common;

/// What the key cache said so far: per (generation, id) the key's bytes,
/// per (generation, shape id) the object's keys.
#[derive(Default)]
struct Seen {
    keys: HashMap<(u32, u32), Vec<u8>>,
    shapes: HashMap<(u32, u32), Vec<Vec<u8>>>,
}

thread_local! {
    static SEEN: RefCell<Seen> = RefCell::new(Seen::default());
}

fn number_text(v: f64) -> String {
    // -0 and 0 alike (lua-cjson's integers read -0 as 0); NaNs alike.
    if v.is_nan() {
        "NaN".into()
    } else {
        format!("{:?}", if v == 0.0 { 0.0 } else { v })
    }
}

/// Reads one value from the events at `ev[*i]`, as text.
fn from_events(ev: &[Event], i: &mut usize, generation: u32, seen: &mut Seen) -> String {
    let e = ev[*i];
    *i += 1;
    // SAFETY: each tag says which union field was written; strings point
    // into the input, the stream's buffer or the key cache, all alive.
    unsafe {
        match e.tag {
            EventTag::Null => "null".into(),
            EventTag::True => "true".into(),
            EventTag::False => "false".into(),
            EventTag::Number => number_text(e.v.num),
            EventTag::String => {
                format!("{:?}", std::slice::from_raw_parts(e.v.ptr.cast::<u8>(), e.n as usize))
            }
            EventTag::Key => panic!("a key where a value belongs"),
            EventTag::Array | EventTag::ScalarArray => {
                let items: Vec<String> = (0..e.n).map(|_| from_events(ev, i, generation, seen)).collect();
                format!("[{}]", items.join(","))
            }
            EventTag::Object | EventTag::ScalarObject => {
                let mut keys = Vec::new();
                let mut members = Vec::new();
                for _ in 0..e.n {
                    let k = ev[*i];
                    *i += 1;
                    let key = match k.tag {
                        EventTag::Key => {
                            let bytes = CStr::from_ptr(k.v.ptr).to_bytes().to_vec();
                            let known = seen.keys.entry((generation, k.n)).or_insert_with(|| bytes.clone());
                            assert_eq!(*known, bytes, "key id {} names two keys in one generation", k.n);
                            bytes
                        }
                        EventTag::String => std::slice::from_raw_parts(k.v.ptr.cast::<u8>(), k.n as usize).to_vec(),
                        tag => panic!("{tag:?} where a key belongs"),
                    };
                    let value = from_events(ev, i, generation, seen);
                    members.push(format!("{key:?}:{value}"));
                    keys.push(key);
                }
                let shape = e.v.num as u32;
                if shape != 0 {
                    let known = seen.shapes.entry((generation, shape)).or_insert_with(|| keys.clone());
                    assert_eq!(*known, keys, "shape id {shape} names two key lists in one generation");
                }
                format!("{{{}}}", members.join(","))
            }
        }
    }
}

/// The value the `info.count` events at `ev` give, as text.
fn events_text(ev: *const Event, info: &EventsInfo) -> String {
    // SAFETY: `count` events at `ev`, valid until the next call.
    let events = unsafe { std::slice::from_raw_parts(ev, info.count as usize) };
    let mut i = 0;
    let got = SEEN.with(|s| from_events(events, &mut i, info.key_generation, &mut s.borrow_mut()));
    assert_eq!(i, events.len(), "events left over");
    got
}

/// The value at `node`, as text, through the document API. `cjson`: an
/// integer literal reads as lua-cjson reads it (C's strtoll, saturating).
fn from_document(d: &mut Document<'_>, node: Node, cjson: bool) -> String {
    match d.kind(node).unwrap() {
        Kind::Null => "null".into(),
        Kind::Boolean => d.bool(node).unwrap().to_string(),
        Kind::Number => {
            let raw = d.raw(node).unwrap();
            let digits = raw.strip_prefix(b"-").or_else(|| raw.strip_prefix(b"+")).unwrap_or(raw);
            let integer = !digits.is_empty() && digits.iter().all(u8::is_ascii_digit);
            if cjson && integer {
                let n: i128 = std::str::from_utf8(raw).unwrap().parse().unwrap_or(if raw[0] == b'-' {
                    i128::MIN
                } else {
                    i128::MAX
                });
                number_text(n.clamp(i64::MIN as i128, i64::MAX as i128) as i64 as f64)
            } else {
                number_text(d.f64(node).unwrap())
            }
        }
        Kind::String => format!("{:?}", d.str(node).unwrap()),
        Kind::Array => {
            let mut items = Vec::new();
            let mut child = d.first_child(node);
            while let Some(c) = child {
                items.push(from_document(d, c, cjson));
                child = d.next_child(node, c);
            }
            format!("[{}]", items.join(","))
        }
        Kind::Object => {
            let mut members = Vec::new();
            let mut child = d.first_child(node);
            while let Some(k) = child {
                let key = d.str(k).unwrap().to_vec();
                members.push(format!("{key:?}:{}", from_document(d, k + 1, cjson)));
                child = d.next_child(node, k);
            }
            format!("{{{}}}", members.join(","))
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        // The first byte: the options; then texts separated by 0xFF (a byte
        // no JSON text holds), decoded one after another.
        let Some((&ctl, rest)) = data.split_first() else { return };
        let opts = Options {
            invalid_numbers: u32::from(ctl & 1),
            cjson_integers: u32::from(ctl >> 1 & 1),
            max_depth: if ctl & 4 != 0 { 3 } else { 1000 },
            ..Default::default()
        };
        for text in rest.split(|&b| b == 0xFF) {
            let mut info = EventsInfo { count: 0, key_generation: 0 };
            let mut err = ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] };
            let ev = qjson_text_events(text.as_ptr() as *const c_char, text.len(), &opts, 0, &mut info, &mut err);
            if let Some(p) = take_panic() {
                panic!("qjson_text_events panicked: {p}");
            }
            common::printing_panics();
            let parsed = Document::parse(text, &opts);
            if ev.is_null() {
                assert!(err.message[0] != 0, "a failed decode explains itself");
                assert!(parsed.is_err(), "decode refused what the parser accepts");
                continue;
            }
            let mut d = parsed.expect("the parser refused what decode accepts");
            let got = events_text(ev, &info);
            assert_eq!(
                got,
                from_document(&mut d, qjson_core::ROOT, opts.cjson_integers != 0),
                "events differ from the document"
            );
        }

        // Lazy documents, walked (numbers as the document reads them).
        let lazy = Options { mode: 1, ..opts };
        let strict = Options { cjson_integers: 0, ..opts };
        for text in rest.split(|&b| b == 0xFF) {
            let mut err = ErrorInfo { offset: 0, line: 0, column: 0, message: [0; 256] };
            let doc = qjson_parse(text.as_ptr() as *const c_char, text.len(), &lazy, &mut err);
            let parsed = Document::parse(text, &strict);
            if doc.is_null() {
                assert!(parsed.is_err(), "a lazy parse refused what the strict one accepts");
                continue;
            }
            let mut info = EventsInfo { count: 0, key_generation: 0 };
            let ev = qjson_doc_events(doc, qjson_core::ROOT, 1, &mut info, &mut err);
            if let Some(p) = take_panic() {
                panic!("qjson_doc_events panicked: {p}");
            }
            match parsed {
                Ok(mut d) => {
                    assert!(!ev.is_null(), "qjson_doc_events refused a valid document");
                    assert_eq!(
                        events_text(ev, &info),
                        from_document(&mut d, qjson_core::ROOT, false),
                        "qjson_doc_events differs"
                    );
                }
                Err(_) => {
                    assert!(
                        ev.is_null() && err.message[0] != 0,
                        "qjson_doc_events accepted what the strict parse refuses"
                    )
                }
            }
            qjson_free(doc);
        }
    }
});
