//! The event stream (`qjson::flatten`, and `qjson_text_events` / `qjson_doc_events`
//! at the C ABI): the value the events describe equals serde_json's for the
//! corpus and for random documents, in strict and lazy mode, with and
//! without the key cache; escaped strings survive the buffer growing under
//! them; one stream serves document after document; slots keep nested
//! decodes apart; the key cache keeps its ids and renews only when told.
//!
//! Values are compared with numbers as doubles (what Lua gets) and objects
//! keeping the last of a repeated key (what a Lua table keeps).

mod common;
use common::{error_info, message};

use proptest::prelude::*;
use qjson::doc::{qjson_close, qjson_free};
use qjson::events::{qjson_doc_events, qjson_text_events};
use qjson::parse::qjson_parse;
use qjson_core::events::{Event, EventTag, EventsInfo, KeyCache, Walker};
use qjson_core::{Document, Options, ROOT};
use serde_json::{Map, Number, Value};
use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

/// The bytes of a string or key event.
fn text(e: &Event) -> Vec<u8> {
    // SAFETY: the events are read while their stream, document and key
    // cache are alive and untouched; a key's bytes are NUL-terminated.
    unsafe {
        match e.tag {
            EventTag::String => std::slice::from_raw_parts(e.v.ptr.cast::<u8>(), e.n as usize).to_vec(),
            EventTag::Key => CStr::from_ptr(e.v.ptr).to_bytes().to_vec(),
            tag => panic!("expected a string or key event, got {tag:?}"),
        }
    }
}

fn number(x: f64) -> Value {
    Value::Number(Number::from_f64(x).expect("finite"))
}

/// The value the events from `*at` describe; moves `*at` past them.
fn value_at(events: &[Event], at: &mut usize) -> Value {
    let e = events[*at];
    *at += 1;
    let members = e.n as usize;
    let scalars_only = matches!(e.tag, EventTag::ScalarArray | EventTag::ScalarObject);
    let member = |events: &[Event], at: &mut usize| {
        if scalars_only {
            // Scalars, or empty containers as single events.
            let (t, n) = (events[*at].tag, events[*at].n);
            assert!(!matches!(t, EventTag::Array | EventTag::Object));
            assert!(n == 0 || !matches!(t, EventTag::ScalarArray | EventTag::ScalarObject));
        }
        value_at(events, at)
    };
    match e.tag {
        EventTag::Null => Value::Null,
        EventTag::False => Value::Bool(false),
        EventTag::True => Value::Bool(true),
        // SAFETY: a number event holds `num`.
        EventTag::Number => number(unsafe { e.v.num }),
        EventTag::String => Value::String(String::from_utf8(text(&e)).expect("valid UTF-8")),
        EventTag::Key => panic!("a key where a value belongs (event {})", *at - 1),
        EventTag::Array | EventTag::ScalarArray => Value::Array((0..members).map(|_| member(events, at)).collect()),
        EventTag::Object | EventTag::ScalarObject => {
            let mut m = Map::new();
            for _ in 0..members {
                let k = String::from_utf8(text(&events[*at])).expect("valid UTF-8");
                *at += 1;
                m.insert(k, member(events, at)); // in order: the last repeat wins
            }
            Value::Object(m)
        }
    }
}

/// The value of a whole stream, which must hold nothing more.
fn value_of(events: &[Event]) -> Value {
    let mut at = 0;
    let v = value_at(events, &mut at);
    assert_eq!(at, events.len(), "events left after the value");
    v
}

/// serde_json's value with every number as the nearest double.
fn as_doubles(v: &Value) -> Value {
    match v {
        Value::Number(n) => number(n.as_f64().expect("a number")),
        Value::Array(a) => Value::Array(a.iter().map(as_doubles).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), as_doubles(v))).collect()),
        other => other.clone(),
    }
}

/// Every object of a stream: its shape id (0 for none) and its keys in
/// order, appended to `out`; moves `*at` past the value.
fn shapes_at(events: &[Event], at: &mut usize, out: &mut Vec<(u32, Vec<Vec<u8>>)>) {
    let e = events[*at];
    *at += 1;
    match e.tag {
        EventTag::Array | EventTag::ScalarArray => (0..e.n).for_each(|_| shapes_at(events, at, out)),
        EventTag::Object | EventTag::ScalarObject => {
            // SAFETY: an object event holds its shape id in `num`.
            let shape = unsafe { e.v.num };
            assert!(shape >= 0.0 && shape == shape.trunc(), "shape id {shape}");
            let slot = out.len();
            out.push((shape as u32, Vec::new()));
            for _ in 0..e.n {
                out[slot].1.push(text(&events[*at]));
                *at += 1;
                shapes_at(events, at, out);
            }
        }
        _ => {}
    }
}

/// Checks the shape ids of the strict stream of `bytes` against the keys:
/// objects of one shape have the same keys in the same order, and objects
/// with the same keys, all with ids, one shape. Shapes carry over from
/// document to document through `keys` (the same `seen` for both).
fn check_shapes(bytes: &[u8], stream: &mut Walker, keys: &mut KeyCache, seen: &mut Vec<(u32, Vec<Vec<u8>>)>) {
    let mut doc = Document::parse(bytes, &Options::default()).expect("qjson accepts");
    let events = stream.events(&mut doc, ROOT, Some(keys)).expect("flattens");
    let (mut objects, mut at) = (Vec::new(), 0);
    shapes_at(events, &mut at, &mut objects);
    for (shape, names) in objects {
        let all_keys_have_ids = !names.is_empty() && names.iter().all(|k| k.len() <= 64 && !k.contains(&0));
        for (other, other_names) in seen.iter() {
            if shape != 0 && *other == shape {
                assert_eq!(&names, other_names, "shape {shape}: {}", common::show(bytes));
            }
            if all_keys_have_ids && *other != 0 && shape != 0 && names == *other_names {
                assert_eq!(shape, *other, "{names:?}: {}", common::show(bytes));
            }
        }
        seen.push((shape, names));
    }
}

/// Flattens `bytes` every way (strict and lazy, with and without the key
/// cache) and compares each stream with serde_json's value.
fn check(bytes: &[u8], stream: &mut Walker, keys: &mut KeyCache) {
    let want = as_doubles(&serde_json::from_slice::<Value>(bytes).expect("serde_json accepts"));
    for opts in [Options::default(), Options::lazy()] {
        let mut doc = Document::parse(bytes, &opts).expect("qjson accepts");
        for cache in [true, false] {
            let events = stream.events(&mut doc, ROOT, if cache { Some(&mut *keys) } else { None }).expect("flattens");
            assert_eq!(value_of(events), want, "mode {}, cache {cache}: {}", opts.mode, common::show(bytes));
        }
    }
}

#[test]
fn corpus_matches_serde_json() {
    common::print_test_panics();
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    for name in ["twitter.json", "citm_catalog.json", "canada.json"] {
        let Some(bytes) = common::data_file(&format!("corpus/{name}")) else { return };
        check(&bytes, &mut stream, &mut keys);
    }
}

/// One event, owned: its tag, count, and payload as bytes (a string's or
/// key's) or bits (a number, an object's shape id).
type Owned = (EventTag, u32, Vec<u8>, u64);

fn owned(events: &[Event]) -> Vec<Owned> {
    events
        .iter()
        .map(|e| match e.tag {
            EventTag::String | EventTag::Key => (e.tag, e.n, text(e), 0),
            // SAFETY: these events hold `num` (for Null, False and True, 0).
            _ => (e.tag, e.n, Vec::new(), unsafe { e.v.num }.to_bits()),
        })
        .collect()
}

/// The direct walk (`Walker::events_direct`, which `qjson_text_events` tries
/// first on small texts) takes `bytes` only when the tape walk accepts
/// them, and then gives its events, event for event: same tags, counts,
/// strings, number bits, key ids and shape ids. Returns whether it took
/// them.
fn check_direct(bytes: &[u8], opts: &Options, stream: &mut Walker, keys: &mut KeyCache) -> bool {
    let direct = stream.events_direct(bytes, opts, keys).map(owned);
    let tape =
        Document::parse(bytes, opts).ok().map(|mut doc| owned(stream.events(&mut doc, ROOT, Some(keys)).unwrap()));
    if let Some(d) = &direct {
        assert_eq!(Some(d), tape.as_ref(), "direct walk differs: {}", common::show(bytes));
    }
    direct.is_some()
}

/// A walker as PUC Lua 5.3 and 5.4 set theirs: integer literals as
/// integers, no shape ids.
fn puc_walker() -> Walker {
    let mut w = Walker::default();
    w.set_integers(true);
    w.set_shapes(false);
    w
}

/// Options the direct walk applies under: the default, and the drop-in's.
fn direct_options() -> [Options; 2] {
    [Options::default(), Options { cjson_integers: 1, ..Options::default() }]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    #[test]
    fn random_documents_match_serde_json(v in common::arb_value()) {
        let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
        check(serde_json::to_string(&v).unwrap().as_bytes(), &mut stream, &mut keys);
        check(serde_json::to_string_pretty(&v).unwrap().as_bytes(), &mut stream, &mut keys);
    }

    /// Valid texts are all taken by the direct walk, and as the tape walk
    /// gives them; each cut short, or with one byte changed, is taken
    /// only when valid, and then alike.
    #[test]
    fn direct_walk_gives_the_tape_walks_events(
        v in common::arb_value(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
        let mut puc = puc_walker();
        for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            let bytes = text.as_bytes();
            for opts in direct_options() {
                check_direct(bytes, &opts, &mut puc, &mut keys);
                prop_assert!(check_direct(bytes, &opts, &mut stream, &mut keys), "not taken: {}", common::show(bytes));
                let cut = at.index(bytes.len() + 1);
                check_direct(&bytes[..cut], &opts, &mut stream, &mut keys);
                let mut changed = bytes.to_vec();
                if cut < changed.len() {
                    changed[cut] = byte;
                    check_direct(&changed, &opts, &mut stream, &mut keys);
                }
            }
        }
    }
}

/// JSONTestSuite: every `y_` text taken by the direct walk and as the tape
/// walk gives it; every other text taken only when the tape walk accepts
/// it. Also each text cut short at every byte (of the first 200).
#[test]
fn direct_walk_on_the_test_suite() {
    common::print_test_panics();
    let Some(dir) = common::data_dir() else { return };
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    let (mut taken, mut valid) = (0, 0);
    for entry in std::fs::read_dir(dir.join("JSONTestSuite/test_parsing")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        for opts in direct_options() {
            let took = check_direct(&bytes, &opts, &mut stream, &mut keys);
            assert!(took || !name.starts_with("y_"), "{name} not taken");
            taken += took as usize;
            valid += name.starts_with("y_") as usize;
            for cut in 0..bytes.len().min(200) {
                check_direct(&bytes[..cut], &opts, &mut stream, &mut keys);
            }
        }
    }
    assert!(valid > 2 * 90 && taken >= valid, "{taken} texts taken, {valid} valid");
}

#[test]
fn direct_walk_limits() {
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let depth = |d: u32| Options { max_depth: d, ..Options::default() };
    // As deep as allowed, and no deeper; empty containers count too.
    assert!(check_direct(deep(3).as_bytes(), &depth(3), &mut stream, &mut keys));
    assert!(!check_direct(deep(4).as_bytes(), &depth(3), &mut stream, &mut keys));
    assert!(!check_direct(b"{}", &depth(0), &mut stream, &mut keys));
    assert!(check_direct(b"1", &depth(0), &mut stream, &mut keys));
    // Checks the walk leaves to the tape walk: not taken.
    for opts in [
        Options { duplicate_keys: 1, ..Options::default() },
        Options { ijson: 1, ..Options::default() },
        Options { invalid_numbers: 1, ..Options::default() },
        Options::lazy(),
    ] {
        assert!(!check_direct(b"[1]", &opts, &mut stream, &mut keys));
    }
    // Whitespace, escapes, cached and repeated keys, empty members, the
    // numbers lua-cjson reads as integers: taken, as the tape walk gives.
    let texts: [&[u8]; 9] = [
        b" \t\r\n{ \"a\" : [ ] , \"b\":{} ,\"c\" :[1 , -0, 1e400]}\n",
        b"[\n                \t   1,\r\n                         2        ,\"x\"                ]       ",
        br#"{"k\u00e9y":"\ud83d\ude00","a":"caf\u00e9 \"ok\"","\u0000":null}"#,
        br#"[{"id":1,"v":[true,false]},{"id":2,"v":[]},{"id":3,"v":{}}]"#,
        br#"[-0,-0.0,9223372036854775807,-9223372036854775809,18446744073709551616,0.1e1]"#,
        "[\"\u{e9}\u{4f60}\u{1f600}\"]".as_bytes(),
        br#"{"a":1,"a":2}"#,
        br#"[[[[1]]],[[]],[{}]]"#,
        br#""""#,
    ];
    for text in texts {
        for opts in direct_options() {
            assert!(check_direct(text, &opts, &mut stream, &mut keys), "{}", common::show(text));
        }
    }
    // Invalid: never taken.
    let invalid: [&[u8]; 14] = [
        b"[1,]",
        br#"{"a":1,}"#,
        b"[01]",
        b"[1.]",
        b"\"a\x01\"",
        br#"["\x"]"#,
        br#""\ud800""#,
        b"[1] x",
        b"\xef\xbb\xbf[]",
        b"[\"\xff\"]",
        br#"{"a" 1}"#,
        b"[tru]",
        b"[nulll]",
        b"",
    ];
    for text in invalid {
        for opts in direct_options() {
            assert!(!check_direct(text, &opts, &mut stream, &mut keys), "{}", common::show(text));
        }
    }
}

#[test]
fn scalars_at_the_root() {
    common::print_test_panics();
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    for doc in ["1", "-0.5e3", "\"a\\u00e9\"", "true", "false", "null", "[]", "{}", " [ ] "] {
        check(doc.as_bytes(), &mut stream, &mut keys);
    }
}

/// Many escaped strings: each is unescaped into a buffer that grows (and
/// moves) while later ones are added, so their pointers are set at the end.
#[test]
fn escaped_strings_survive_the_buffer_growing() {
    common::print_test_panics();
    let mut doc = String::from("{");
    for i in 0..5000 {
        if i > 0 {
            doc.push(',');
        }
        doc.push_str(&format!(r#""k\u00e9{i}":["v\n{i}\ud83d\ude00 \"q\"","\/plain{i}"]"#));
    }
    doc.push('}');
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    check(doc.as_bytes(), &mut stream, &mut keys);
    let mut d = Document::parse(doc.as_bytes(), &Options::default()).unwrap();
    let v = value_of(stream.events(&mut d, ROOT, Some(&mut keys)).unwrap());
    assert_eq!(v["ké4999"][0], Value::String("v\n4999😀 \"q\"".into()));
    assert_eq!(v["ké0"][1], Value::String("/plain0".into()));
}

#[test]
fn big_arrays() {
    common::print_test_panics();
    let n = 300_000;
    let flat = format!("[{}]", (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let nested = format!("[{}]", (0..n / 3).map(|i| format!("[{i},{{\"x\":{i}}}]")).collect::<Vec<_>>().join(","));
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    for doc in [&flat, &nested] {
        check(doc.as_bytes(), &mut stream, &mut keys);
    }
    let mut d = Document::parse(flat.as_bytes(), &Options::default()).unwrap();
    let events = stream.events(&mut d, ROOT, None).unwrap();
    assert_eq!((events[0].tag, events[0].n, events.len()), (EventTag::ScalarArray, n, n as usize + 1));
}

/// One stream, reused by both strict walks: after a document larger than
/// what it keeps between calls (its buffers are then released), and after
/// escapes, the next documents come out right.
#[test]
fn one_stream_serves_many_documents() {
    common::print_test_panics();
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    let huge = format!("[{}]", vec!["\"a\\tb\""; 1_200_000].join(","));
    let docs = [r#"{"a":"x\ny","b":[1,2]}"#, huge.as_str(), r#"["plain",{"a":1}]"#, "[]", r#"{"a":"\u0041"}"#];
    for _ in 0..3 {
        for doc in docs {
            check(doc.as_bytes(), &mut stream, &mut keys);
            assert!(check_direct(doc.as_bytes(), &Options::default(), &mut stream, &mut keys));
        }
    }
}

#[test]
fn nodes_of_a_document() {
    common::print_test_panics();
    let bytes = br#"{"a":[1,{"b":"c\"d"}],"e":{"f":null}}"#;
    let mut doc = Document::parse(bytes, &Options::default()).unwrap();
    let mut stream = Walker::default();
    let node = doc.find(ROOT, b"a").unwrap().unwrap();
    assert_eq!(value_of(stream.events(&mut doc, node, None).unwrap()), serde_json::json!([1.0, {"b": "c\"d"}]));
    let node = doc.find(ROOT, b"e.f").unwrap().unwrap();
    assert_eq!(value_of(stream.events(&mut doc, node, None).unwrap()), Value::Null);
}

/// Repeated keys all appear, in order, so that the last one wins.
#[test]
fn repeated_keys_in_order() {
    common::print_test_panics();
    let bytes = br#"{"a":1,"b":2,"a":3}"#;
    let mut doc = Document::parse(bytes, &Options::default()).unwrap();
    let mut stream = Walker::default();
    let events = stream.events(&mut doc, ROOT, None).unwrap();
    assert_eq!(events[0].n, 3);
    let keys: Vec<Vec<u8>> = [1, 3, 5].iter().map(|&i| text(&events[i])).collect();
    assert_eq!(keys, [b"a".to_vec(), b"b".to_vec(), b"a".to_vec()]);
    assert_eq!(value_of(events), serde_json::json!({"a": 3.0, "b": 2.0}));
}

/// Empty arrays and objects do not keep their container from being
/// scalars-only: each is one event with `n` 0.
#[test]
fn empty_containers_among_scalars() {
    common::print_test_panics();
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    let bytes = br#"[{"a":1,"b":[],"c":{},"d":"x"},[[],{},2],[[1]],{"e":[],"f":[3]}]"#;
    let mut doc = Document::parse(bytes, &Options::default()).unwrap();
    let events = stream.events(&mut doc, ROOT, Some(&mut keys)).unwrap();
    let tags: Vec<(EventTag, u32)> = events.iter().map(|e| (e.tag, e.n)).collect();
    use EventTag::*;
    assert_eq!(
        &tags[..10],
        [
            (Array, 4),
            (ScalarObject, 4),
            (Key, 1),
            (Number, 0),
            (Key, 2),
            (ScalarArray, 0),
            (Key, 3),
            (ScalarObject, 0),
            (Key, 4),
            (String, 1)
        ]
    );
    assert_eq!(&tags[10..14], [(ScalarArray, 3), (ScalarArray, 0), (ScalarObject, 0), (Number, 0)]);
    assert_eq!(tags[14], (Array, 1), "a nested container that is not empty");
    assert_eq!(tags[17], (Object, 2));
    for doc in [&br#"[[],{},[]]"#[..], br#"{"a":[],"b":{}}"#, br#"[{"a":{}},[{}],[[]]]"#] {
        check(doc, &mut stream, &mut keys);
    }
}

/// A key is first checked against the one that followed the object's
/// previous key last time: keys that start like it, end like it, or hold
/// an escape where it ends must not pass for it.
#[test]
fn objects_of_one_shape_have_the_same_keys() {
    common::print_test_panics();
    let (mut stream, mut keys, mut seen) = (Walker::default(), KeyCache::default(), Vec::new());
    let long = "k".repeat(70);
    let docs = [
        r#"[{"a":1,"b":2},{"a":3,"b":{"a":4,"b":[]}},{"b":1,"a":2},{"a":1,"b":2,"a":3},{"a":{"a":{"a":1}}}]"#
            .to_string(),
        // Not cached: an escaped key, a long one; empty objects.
        format!(r#"[{{"a":1,"b":2}},{{"a":1,"{long}":2}},{{}},{{"a":1,"b":2}}]"#),
        r#"{"x":{"y":1,"z":2},"w":{"y":1,"z":2},"v":[{"y":1},{"z":2},{"y":null}]}"#.to_string(),
    ];
    for doc in &docs {
        check_shapes(doc.as_bytes(), &mut stream, &mut keys, &mut seen);
    }
    // Shapes were given, and reused across documents.
    let given: Vec<u32> = seen.iter().map(|(s, _)| *s).filter(|&s| s != 0).collect();
    assert!(given.len() > 10 && given.iter().any(|s| given.iter().filter(|&t| t == s).count() > 3), "{seen:?}");
    for name in ["twitter.json", "citm_catalog.json"] {
        let Some(bytes) = common::data_file(&format!("corpus/{name}")) else { return };
        let mut seen = Vec::new();
        check_shapes(&bytes, &mut stream, &mut keys, &mut seen);
    }
}

#[test]
fn shape_ids() {
    let mut keys = KeyCache::default();
    let (a, b) = (keys.shape(&[1, 2, 3]), keys.shape(&[1, 2]));
    assert!(a != 0 && b != 0 && a != b);
    assert_eq!(keys.shape(&[1, 2, 3]), a);
    assert_ne!(keys.shape(&[3, 2, 1]), a, "order counts");
    assert_eq!(keys.shape(&[1, 0, 3]), 0, "a key without an id");
    assert_eq!(keys.shape(&[]), 0);
    assert_eq!(keys.shape(&[7; 300]), 0, "too many keys");
    // Full: new shapes get none, known ones keep theirs.
    let mut n = 1;
    while keys.shape(&[100, n]) != 0 {
        n += 1;
    }
    assert!(n > 1000, "{n} shapes");
    assert_eq!(keys.shape(&[100, n + 1]), 0);
    assert_eq!(keys.shape(&[1, 2, 3]), a);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(256)))]

    #[test]
    fn random_objects_of_one_shape_have_the_same_keys(docs in prop::collection::vec(common::arb_value(), 1..4)) {
        let (mut stream, mut keys, mut seen) = (Walker::default(), KeyCache::default(), Vec::new());
        for v in docs {
            check_shapes(serde_json::to_string(&v).unwrap().as_bytes(), &mut stream, &mut keys, &mut seen);
        }
    }
}

#[test]
fn keys_predicted_from_the_previous_key() {
    common::print_test_panics();
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    let long = "k".repeat(40);
    let docs = [
        r#"[{"ab":1,"abc":2},{"ab":1,"abcd":2},{"ab":1,"ab":2},{"ab":1,"abc\"":3},{"ab":1,"ab\u0063":4},{"ab":1,"abc":5}]"#
            .to_string(),
        format!(
            r#"[{{"a":1,"{long}":2}},{{"a":1,"{long}x":2}},{{"a":1,"{}y{}":2}},{{"a":1,"{long}":3}}]"#,
            &long[..20],
            &long[21..]
        ),
        format!(r#"[{{"a":1,"{}":2}},{{"a":1,"{}":2}}]"#, &long[..17], &long[..18]),
        r#"{"x":{"y":1,"z":2},"w":{"y":1,"z":2},"v":[{"y":1},{"z":2}]}"#.to_string(),
    ];
    for _ in 0..2 {
        for doc in &docs {
            check(doc.as_bytes(), &mut stream, &mut keys);
        }
    }
}

/// The direct walk predicts an object's first key from the key the
/// object stands under (directly or in arrays): objects under different
/// keys with different first keys, under one key with differing ones,
/// under no key, with keys the cache does not take; each text read as the
/// tape walk reads it and as serde_json does, twice through one cache.
#[test]
fn first_keys_predicted_from_the_key_above() {
    common::print_test_panics();
    let docs = [
        r#"{"a":{"x":1,"y":2},"b":{"y":1},"c":[{"x":1},{"z":{"x":2}},[{"y":3}]],"a":{"y":4,"x":5}}"#,
        r#"[{"a":{"x":1}},{"b":{"x":2}},{"a":{"w1":1,"x":1}},{"a":{}},{"x":{"a":{"x":3}}}]"#,
        r#"{"k":[[{"p":1}],[{"q":2}]],"l":{"p":{"p":{"p":1}}},"":{"":{"q":[]}}}"#,
    ];
    for mut stream in [Walker::default(), puc_walker()] {
        let mut keys = KeyCache::default();
        for _ in 0..2 {
            for doc in docs {
                for opts in direct_options() {
                    assert!(check_direct(doc.as_bytes(), &opts, &mut stream, &mut keys), "not taken: {doc}");
                }
            }
        }
    }
    let (mut stream, mut keys) = (Walker::default(), KeyCache::default());
    for doc in docs.iter().chain(&docs) {
        let events = stream.events_direct(doc.as_bytes(), &Options::default(), &mut keys).expect("taken");
        assert_eq!(value_of(events), as_doubles(&serde_json::from_str(doc).unwrap()), "{doc}");
    }
}

/// Integer literals read in the direct walk's one pass as the tape walk
/// reads them again: up to 18 digits from the pass, longer ones, past the
/// int64 range (saturating with the drop-in's option), `-0`, fractions and
/// exponents.
#[test]
fn direct_walk_integers() {
    common::print_test_panics();
    let text = "[0,-0,7,-7,123456789012345678,-123456789012345678,1234567890123456789,-9223372036854775808,\
        9223372036854775807,9223372036854775808,-9223372036854775809,123456789012345678901234,0.5,-0.0,1e2,\
        1E+2,10e-1,100000000000000000000.0]";
    let (mut stream, mut keys) = (puc_walker(), KeyCache::default());
    for opts in direct_options() {
        assert!(check_direct(text.as_bytes(), &opts, &mut stream, &mut keys));
        let events = stream.events_direct(text.as_bytes(), &opts, &mut keys).expect("taken");
        let ints: Vec<Option<i64>> = events[1..].iter().map(|e| e.integer()).collect();
        assert_eq!(ints[..5], [Some(0), Some(0), Some(7), Some(-7), Some(123456789012345678)]);
        assert_eq!(ints[6..9], [Some(1234567890123456789), Some(i64::MIN), Some(i64::MAX)]);
        let saturated = opts.cjson_integers != 0;
        assert_eq!(ints[9..12], if saturated { [Some(i64::MAX), Some(i64::MIN), Some(i64::MAX)] } else { [None; 3] });
        assert!(ints[12..].iter().all(Option::is_none), "{ints:?}");
    }
}

/// Lazy mode checks values as they are flattened: an error has a position.
#[test]
fn lazy_errors_have_positions() {
    common::print_test_panics();
    let mut stream = Walker::default();
    for (bytes, at) in [(&br#"[1, "a\x01"]"#[..], 6), (br#"{"a": tru}"#, 6), (br#"[01]"#, 2)] {
        let mut doc = Document::parse(bytes, &Options::lazy()).unwrap();
        let e = stream.events(&mut doc, ROOT, None).err().expect("an error");
        assert_eq!(e.offset, at, "{}: {e}", common::show(bytes));
    }
}

#[test]
fn key_cache_ids_are_stable() {
    common::print_test_panics();
    let mut keys = KeyCache::default();
    let (a, pa) = keys.id(b"model").unwrap();
    let (b, _) = keys.id(b"messages").unwrap();
    let long = [b'k'; 40];
    let (c, pc) = keys.id(&long).unwrap();
    assert_eq!((a, b, c), (1, 2, 3));
    assert_eq!(keys.id(b"model").unwrap(), (a, pa));
    assert_eq!(keys.id(&long).unwrap(), (c, pc));
    // Keys that share their two words but not their middle.
    let mut other = long;
    other[20] = b'x';
    assert_eq!(keys.id(&other).unwrap().0, 4);
    // SAFETY: stored keys are NUL-terminated and stay put.
    assert_eq!(unsafe { CStr::from_ptr(pa.cast::<c_char>()) }.to_bytes(), b"model");
    assert!(keys.id(&[b'x'; 65]).is_none(), "longer than cached");
    assert_eq!(keys.id(b"").unwrap().0, 5);
    for n in 0..3 {
        // Short keys of every length up to 16 are told apart.
        assert_eq!(keys.id(&b"abcdefghijklmnop"[..n]).unwrap(), keys.id(&b"abcdefghijklmnop"[..n]).unwrap());
    }
}

#[test]
fn key_cache_renews_only_after_many_misses() {
    common::print_test_panics();
    let mut keys = KeyCache::default();
    let mut n = 0u32;
    while keys.id(format!("key{n}").as_bytes()).is_some() {
        n += 1;
    }
    let generation = keys.generation();
    keys.renew_if_full();
    assert_eq!(keys.generation(), generation, "renewed on the first miss");
    assert_eq!(keys.id(b"key0").unwrap().0, 1, "ids kept while full");
    for i in 0..100_000 {
        keys.id(format!("other{i}").as_bytes());
    }
    keys.renew_if_full();
    assert_eq!(keys.generation(), generation + 1);
    assert_eq!(keys.id(b"fresh").unwrap().0, 1, "ids start again");
}

/// The events `qjson_text_events` returned, as a slice.
fn events<'a>(ptr: *const Event, info: &EventsInfo) -> &'a [Event] {
    assert!(!ptr.is_null());
    // SAFETY: `info.count` events start at `ptr`, alive until the next
    // call with the same slot.
    unsafe { std::slice::from_raw_parts(ptr, info.count as usize) }
}

fn decode(input: &[u8], opts: Option<&Options>, slot: u32) -> Result<(*const Event, EventsInfo), String> {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        let mut info = EventsInfo { count: 0, key_generation: 0 };
        let mut err = error_info();
        let opts = opts.map_or(null(), |o| o as *const Options);
        let ptr = qjson_text_events(input.as_ptr().cast(), input.len(), opts, slot, &mut info, &mut err);
        if ptr.is_null() {
            Err(message(&err))
        } else {
            Ok((ptr, info))
        }
    }
}

/// A decode in another slot (a finalizer decoding while the events of a
/// first decode are being read) leaves the first one's events intact.
#[test]
fn slots_keep_nested_decodes_apart() {
    common::print_test_panics();
    let outer = br#"{"a":"x\ty","b":[1,2,3]}"#;
    let inner = br#"["other\n",{"c":true}]"#;
    let (p0, i0) = decode(outer, None, 0).unwrap();
    let (p1, i1) = decode(inner, None, 1).unwrap();
    assert_eq!(value_of(events(p1, &i1)), serde_json::json!(["other\n", {"c": true}]));
    assert_eq!(value_of(events(p0, &i0)), serde_json::json!({"a": "x\ty", "b": [1.0, 2.0, 3.0]}));
    let e = decode(b"[1]", None, 16).unwrap_err();
    assert!(e.contains("nested more than 16 deep"), "{e}");
}

/// Errors are qjson_parse's: same message, same position.
#[test]
fn decode_errors_are_parse_errors() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        for bad in [&b"[1,2"[..], b"{\"a\" 1}", b"", b"[\"\xff\"]", b"[1] x", b"\xEF\xBB\xBF[]"] {
            let e = decode(bad, None, 0).unwrap_err();
            let mut err = error_info();
            assert!(qjson_parse(bad.as_ptr().cast(), bad.len(), null(), &mut err).is_null());
            assert_eq!(e, message(&err), "{}", common::show(bad));
        }
        let deep = Options { max_depth: 2, ..Options::default() };
        let e = decode(b"[[[1]]]", Some(&deep), 0).unwrap_err();
        assert!(e.starts_with("nesting deeper than max_depth (2)"), "{e}");
    }
}

/// lua-cjson's decode_invalid_numbers: what C's strtod reads.
#[test]
fn invalid_numbers_when_asked() {
    common::print_test_panics();
    let lenient = Options { invalid_numbers: 1, ..Options::default() };
    let text = b"[NaN, -Infinity, inf, 0x1F, -0x10, 01, 1., -.5, +2, nan(7), 1.5, null]";
    assert!(decode(text, None, 0).is_err());
    let (p, i) = decode(text, Some(&lenient), 0).unwrap();
    let ev = events(p, &i);
    // SAFETY: number events hold `num`.
    let nums: Vec<f64> = ev[1..12].iter().map(|e| unsafe { e.v.num }).collect();
    assert!(nums[0].is_nan() && nums[9].is_nan());
    assert_eq!(&nums[1..9], &[f64::NEG_INFINITY, f64::INFINITY, 31.0, -16.0, 1.0, 1.0, -0.5, 2.0]);
    assert_eq!(nums[10], 1.5);
    assert_eq!(ev[12].tag, EventTag::Null);
    // Still rejected: what strtod does not read, and I-JSON's limits.
    for bad in [&b"[.5]"[..], b"[0x]", b"[infinit]", b"[- 1]", b"[nul]"] {
        assert!(decode(bad, Some(&lenient), 0).is_err(), "{}", common::show(bad));
    }
    let both = Options { invalid_numbers: 1, ijson: 1, ..Options::default() };
    assert!(decode(b"[NaN]", Some(&both), 0).is_err());
}

#[test]
fn flatten_a_parsed_document() {
    // SAFETY: the C ABI's contracts hold for every call here: pointers are null or
    // point to locals, slices or statics of the right size that outlive the call;
    // handles and slots come from this code's own parse/new calls and are freed once,
    // after their last use; inputs outlive the documents parsed from them.
    unsafe {
        common::print_test_panics();
        let bytes = br#"{"a":[1,"\u00e9"],"b":2}"#;
        let mut err = error_info();
        let doc = qjson_parse(bytes.as_ptr().cast(), bytes.len(), null(), &mut err);
        assert!(!doc.is_null());
        let mut info = EventsInfo { count: 0, key_generation: 0 };
        let p = qjson_doc_events(doc, ROOT, 0, &mut info, &mut err);
        assert_eq!(value_of(events(p, &info)), serde_json::json!({"a": [1.0, "é"], "b": 2.0}));
        // A node past the tape is refused; so is a closed document.
        assert!(qjson_doc_events(doc, 1 << 20, 0, &mut info, &mut err).is_null());
        assert!(message(&err).contains("no value at node"));
        qjson_close(doc);
        assert!(qjson_doc_events(doc, ROOT, 0, &mut info, &mut err).is_null());
        assert_eq!(message(&err), "document is closed");
        qjson_free(doc);
        assert!(qjson_doc_events(null_mut(), ROOT, 0, &mut info, &mut err).is_null());
    }
}
