//! Strict parsing agrees with serde_json on accept/reject, and every value
//! qjson reads from an accepted document equals serde_json's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qjson_core::{Document, Kind, Node, Options, ROOT};
use serde_json::Value;

/// Nesting serde_json refuses (its recursion limit is 128) but qjson
/// accepts up to max_depth 1000: not compared.
fn too_deep_for_serde(data: &[u8]) -> bool {
    let (mut depth, mut max) = (0i32, 0i32);
    for &c in data {
        match c {
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth)
            }
            b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    max > 120
}

fn check(doc: &mut Document<'_>, node: Node, want: &Value) {
    let kind = doc.kind(node).expect("strict documents read without error");
    match (kind, want) {
        (Kind::Null, Value::Null) => {}
        (Kind::Boolean, Value::Bool(b)) => assert_eq!(doc.bool(node).unwrap(), *b),
        (Kind::Number, Value::Number(n)) => {
            if let Some(i) = n.as_i64() {
                assert_eq!(doc.i64(node).unwrap(), Some(i));
            } else if let Some(u) = n.as_u64() {
                assert_eq!(doc.u64(node).unwrap(), Some(u));
            } else {
                // From the text: serde_json's arbitrary_precision (the
                // schema's feature, unified here) gives no f64 past binary64,
                // where qjson reads +-inf.
                let want: f64 = n.to_string().parse().expect("a JSON number parses as f64");
                assert_eq!(doc.f64(node).unwrap(), want);
            }
        }
        (Kind::String, Value::String(s)) => assert_eq!(doc.str(node).unwrap(), s.as_bytes()),
        (Kind::Array, Value::Array(items)) => {
            assert_eq!(doc.len(node), Some(items.len()));
            let mut child = doc.first_child(node);
            for item in items {
                let c = child.expect("as many children as serde_json");
                check(doc, c, item);
                child = doc.next_child(node, c);
            }
            assert!(child.is_none());
        }
        (Kind::Object, Value::Object(map)) => {
            for (key, value) in map {
                let member = doc.member(node, key.as_bytes()).expect("every key is found");
                check(doc, member, value);
            }
        }
        (k, v) => panic!("kind {k:?} for serde_json value {v}"),
    }
    let raw = doc.raw(node).unwrap().to_vec();
    let reparsed: Value = serde_json::from_slice(&raw).expect("raw text parses");
    assert_eq!(&reparsed, want);
}

fuzz_target!(|data: &[u8]| {
    let ours = Document::parse(data, &Options::default());
    let theirs = serde_json::from_slice::<Value>(data);
    if let Err(e) = &ours {
        assert!(e.offset <= data.len());
    }
    match (ours, theirs) {
        (Ok(mut doc), Ok(value)) => check(&mut doc, ROOT, &value),
        (Err(_), Err(_)) => {}
        // Intended differences: serde_json refuses numbers that overflow a
        // double (qjson reads them as +-inf) and nesting past 128.
        (Ok(_), Err(e)) if e.to_string().contains("number out of range") || too_deep_for_serde(data) => {}
        (Ok(_), Err(e)) => panic!("qjson accepted what serde_json rejects: {e}"),
        (Err(e), Ok(_)) => panic!("qjson rejected what serde_json accepts: {e}"),
    }
    // Lazy mode accepts a superset and never panics on reads.
    if let Ok(mut doc) = Document::parse(data, &Options::lazy()) {
        let mut node = ROOT;
        while let Some(next) = doc.first_child(node) {
            node = next;
        }
        let _ = doc.kind(node);
        let _ = doc.str(node);
        let _ = doc.f64(node);
        let _ = doc.raw(ROOT);
    }
});
