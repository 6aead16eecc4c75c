//! Paths (dotted and RFC 6901 JSON Pointer), compiled paths, and repeated
//! keys: reads see the last value, `unique_members` lists each key once,
//! and `duplicate_keys = reject` (or `ijson`) makes them an error.

mod common;

use common::reject_with;
use qjson_core::path::PathError;
use qjson_core::{Document, ErrorKind, Kind, Node, Options, Path, ROOT};

const DOC: &str = r#"{
  "a": {"b": [10, {"c": "x"}]},
  "a/b": 1, "m~n": 2, "": 3, "01": 4, "-": 5, "k.e.y": 6, "é": 7, "q\"t": 8,
  "\u0075nicode": 9, "0": "zero",
  "arr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  "arr2": [[1, 2], [3, [4]]],
  "s": "text", "n": null, "t": true
}"#;

fn doc() -> Document<'static> {
    Document::parse(DOC.as_bytes(), &Options::default()).unwrap()
}

/// The raw text at `path`, or `None` when it is missing.
fn raw_at(doc: &Document, base: Node, path: &str) -> Option<String> {
    let node = doc.find(base, path.as_bytes()).unwrap_or_else(|e| panic!("{path:?}: {e}"))?;
    Some(String::from_utf8(doc.raw(node).unwrap().to_vec()).unwrap())
}

/// Every path that resolves, with the raw text it reaches.
const FOUND: &[(&str, &str)] = &[
    ("", ""),
    ("a.b[1].c", "\"x\""),
    ("a.b[0]", "10"),
    ("a.b", "[10, {\"c\": \"x\"}]"),
    ("arr[0]", "0"),
    ("arr[11]", "11"),
    ("arr2[1][1][0]", "4"),
    ("arr2[0]", "[1, 2]"),
    ("é", "7"),
    ("unicode", "9"),
    ("01", "4"),
    ("0", "\"zero\""),
    ("-", "5"),
    ("s", "\"text\""),
    ("n", "null"),
    ("/a/b/1/c", "\"x\""),
    ("/a/b/0", "10"),
    ("/a~1b", "1"),
    ("/m~0n", "2"),
    ("/", "3"),
    ("/01", "4"),
    ("/0", "\"zero\""),
    ("/-", "5"),
    ("/k.e.y", "6"),
    ("/é", "7"),
    ("/q\"t", "8"),
    ("/unicode", "9"),
    ("/arr/1", "1"),
    ("/arr/10", "10"),
    ("/arr/11", "11"),
    ("/arr2/1/1/0", "4"),
];

/// Well-formed paths that do not exist in `DOC`.
const MISSING: &[&str] = &[
    "x",
    "a.x",
    "a.b.c",
    "a[0]",
    "arr[12]",
    "/arr/99999999999999999999999",
    "[0]",
    "k.e.y",
    "s.x",
    "s[0]",
    "n.x",
    "a.b[1].c.d",
    "/x",
    "/a/",
    "/a/b/2",
    "/arr/01",
    "/arr/00",
    "/arr/-",
    "/arr/12",
    "/arr/+1",
    "/arr/1/",
    "/a/b/1/c/d",
    "/a~1b/x",
    "/m~1n",
];

/// Malformed paths and the byte of the path where each goes wrong.
const MALFORMED: &[(&str, usize)] = &[
    ("a..b", 2),
    ("a.", 1),
    (".a", 0),
    ("a[", 1),
    ("a[x]", 2),
    ("a[01]", 2),
    ("a[-1]", 2),
    ("a[]", 2),
    ("a]", 1),
    ("a[1]b", 4),
    ("a[1].", 4),
    ("/a~2", 2),
    ("/a~", 2),
    ("/~x/b", 1),
    // The rest of a path is checked even after a segment is missing.
    ("missing..x", 8),
    ("/missing/~2", 9),
];

#[test]
fn paths_that_resolve() {
    let doc = doc();
    for &(path, raw) in FOUND {
        let want = if path.is_empty() { DOC.to_string() } else { raw.to_string() };
        assert_eq!(raw_at(&doc, ROOT, path).as_deref(), Some(want.as_str()), "{path:?}");
    }
}

#[test]
fn missing_paths_are_none() {
    let doc = doc();
    for &path in MISSING {
        assert_eq!(doc.find(ROOT, path.as_bytes()), Ok(None), "{path:?}");
    }
}

#[test]
fn malformed_paths_are_errors() {
    let doc = doc();
    for &(path, offset) in MALFORMED {
        let e = doc.find(ROOT, path.as_bytes()).expect_err(path);
        assert_eq!(e.offset, offset, "{path:?}: {e}");
        assert_eq!(Path::compile(path.as_bytes()).unwrap_err(), e, "{path:?}");
    }
    let e = doc.find(ROOT, b"a..b").unwrap_err();
    assert_eq!(e, PathError { offset: 2, what: "empty key" });
    assert_eq!(e.to_string(), "invalid path: empty key at byte 2");
}

#[test]
fn compiled_paths_agree_with_find() {
    let doc = doc();
    let all = FOUND.iter().map(|&(p, _)| p).chain(MISSING.iter().copied());
    for path in all {
        let compiled = Path::compile(path.as_bytes()).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert_eq!(Ok(doc.find_compiled(ROOT, &compiled)), doc.find(ROOT, path.as_bytes()), "{path:?}");
        // And from a base other than the root.
        let a = doc.find(ROOT, b"a").unwrap().unwrap();
        assert_eq!(Ok(doc.find_compiled(a, &compiled)), doc.find(a, path.as_bytes()), "{path:?} from a");
    }
}

/// A plain key (no '/' first, no '.', '[' or ']') skips the segment
/// parser: from every node, scalars and arrays included, it reaches what
/// the parsed path does.
#[test]
fn plain_keys_agree_with_parsed_paths() {
    let doc = doc();
    let keys = ["a", "b", "c", "0", "01", "-", "é", "unicode", "m~n", "q\"t", "x", "s", "arr", "1"];
    // Every value: the root, then each container's children (an object's
    // values follow their keys).
    let mut nodes = vec![ROOT];
    let mut at = 0;
    while at < nodes.len() {
        let node = nodes[at];
        let object = doc.kind(node) == Ok(Kind::Object);
        let mut child = doc.first_child(node);
        while let Some(c) = child {
            nodes.push(if object { c + 1 } else { c });
            child = doc.next_child(node, c);
        }
        at += 1;
    }
    assert!(nodes.len() > 30);
    for base in nodes {
        for key in keys {
            let compiled = Path::compile(key.as_bytes()).unwrap();
            assert_eq!(doc.find(base, key.as_bytes()), Ok(doc.find_compiled(base, &compiled)), "{key:?} from {base}");
        }
    }
}

#[test]
fn paths_from_a_base_node() {
    let doc = doc();
    let a = doc.find(ROOT, b"a").unwrap().unwrap();
    assert_eq!(raw_at(&doc, a, "b[1].c").as_deref(), Some("\"x\""));
    assert_eq!(raw_at(&doc, a, "/b/0").as_deref(), Some("10"));
    assert_eq!(raw_at(&doc, a, "").as_deref(), Some("{\"b\": [10, {\"c\": \"x\"}]}"));
    assert_eq!(raw_at(&doc, a, "a"), None);
    let arr = doc.find(ROOT, b"arr2").unwrap().unwrap();
    assert_eq!(raw_at(&doc, arr, "[1][1]").as_deref(), Some("[4]"));
    assert_eq!(raw_at(&doc, arr, "/1/1/0").as_deref(), Some("4"));
    // An array root: a dotted path may start with an index.
    let doc = Document::parse(b"[{\"id\": 7}, [8]]", &Options::default()).unwrap();
    assert_eq!(raw_at(&doc, ROOT, "[0].id").as_deref(), Some("7"));
    assert_eq!(raw_at(&doc, ROOT, "[1][0]").as_deref(), Some("8"));
    assert_eq!(raw_at(&doc, ROOT, "/1/0").as_deref(), Some("8"));
    assert_eq!(raw_at(&doc, ROOT, "id"), None);
}

#[test]
fn element_walks_forward_and_back() {
    // `element` caches the last position; any order of reads is right.
    let doc = doc();
    let arr = doc.find(ROOT, b"arr").unwrap().unwrap();
    for i in [0usize, 5, 11, 3, 3, 4, 0, 11, 12, 7] {
        let want = (i < 12).then(|| i.to_string());
        let got = doc.element(arr, i).map(|n| String::from_utf8(doc.raw(n).unwrap().to_vec()).unwrap());
        assert_eq!(got, want, "element {i}");
    }
}

// ---- repeated keys ----

fn text_of(doc: &mut Document, node: Node) -> String {
    String::from_utf8(doc.raw(node).unwrap().to_vec()).unwrap()
}

fn key_of(doc: &mut Document, key: Node) -> String {
    String::from_utf8(doc.str(key).unwrap().to_vec()).unwrap()
}

#[test]
fn member_returns_the_last_value() {
    let mut doc = Document::parse(br#"{"a":1,"b":2,"a":3,"c":4,"b":5}"#, &Options::default()).unwrap();
    assert_eq!(doc.len(ROOT), Some(5), "every occurrence counts");
    for (key, want) in [("a", "3"), ("b", "5"), ("c", "4")] {
        let v = doc.member(ROOT, key.as_bytes()).unwrap();
        assert_eq!(text_of(&mut doc, v), want);
        assert_eq!(doc.find(ROOT, key.as_bytes()), Ok(Some(v)));
        assert_eq!(doc.find(ROOT, format!("/{key}").as_bytes()), Ok(Some(v)));
    }
    let pairs = doc.unique_members(ROOT).expect("keys repeat");
    let got: Vec<(String, String)> = pairs.iter().map(|&(k, v)| (key_of(&mut doc, k), text_of(&mut doc, v))).collect();
    let want = [("a", "3"), ("b", "5"), ("c", "4")].map(|(k, v)| (k.to_string(), v.to_string()));
    assert_eq!(got, want, "first-appearance order, last values");
    // The key nodes are the first occurrences.
    assert_eq!(pairs[0].0, doc.first_child(ROOT).unwrap());
}

#[test]
fn keys_equal_after_unescaping_are_the_same_key() {
    let text = br#"{"a":1, "\u0061":2, "\/":3, "/":4, "b\n":5, "b\u000a":6}"#;
    let mut doc = Document::parse(text, &Options::default()).unwrap();
    for (key, want) in [("a", "2"), ("/", "4"), ("b\n", "6")] {
        let v = doc.member(ROOT, key.as_bytes()).unwrap();
        assert_eq!(text_of(&mut doc, v), want, "{key:?}");
    }
    let pairs = doc.unique_members(ROOT).unwrap();
    let got: Vec<(String, String)> = pairs.iter().map(|&(k, v)| (key_of(&mut doc, k), text_of(&mut doc, v))).collect();
    let want = [("a", "2"), ("/", "4"), ("b\n", "6")].map(|(k, v)| (k.to_string(), v.to_string()));
    assert_eq!(got, want);
}

#[test]
fn lookups_find_the_last_value_behind_any_first_byte() {
    // Member lookups stop at the first match only in objects whose keys
    // are proven unique (by first bytes); in each of these a key repeats
    // in a way that proof must not miss.
    for (text, key, want) in [
        (r#"{"":1,"x":2,"" :3}"#, "", "3"),
        (r#"{"\u0061":1,"b":2,"a":3}"#, "a", "3"),
        (r#"{"a":1,"b":2,"\u0061":3}"#, "a", "3"),
        (r#"{"ab":1,"ac":2,"ab":3}"#, "ab", "3"),
        (r#"{"a":{"x":1},"b":0,"a":2}"#, "a", "2"),
        (r#"{"a":[{"a":1}],"b":{"a":{}},"a":2}"#, "a", "2"),
        (r#"{"id":1,"user":2,"scope":3}"#, "user", "2"),
    ] {
        let mut doc = Document::parse(text.as_bytes(), &Options::default()).unwrap();
        let v = doc.member(ROOT, key.as_bytes()).unwrap();
        assert_eq!(text_of(&mut doc, v), want, "{text}");
    }
}

#[test]
fn unique_members_is_none_without_repeats() {
    let doc = doc();
    assert_eq!(doc.unique_members(ROOT), None);
    let doc = Document::parse(b"{}", &Options::default()).unwrap();
    assert_eq!(doc.unique_members(ROOT), None);
    // Only objects have members: arrays (even of equal strings) and
    // scalars give `None`.
    for text in [&br#"["a","a"]"#[..], b"[1,1]", b"\"a\"", b"1"] {
        let doc = Document::parse(text, &Options::default()).unwrap();
        assert_eq!(doc.unique_members(ROOT), None, "{}", common::show(text));
    }
}

#[test]
fn duplicate_keys_rejected_on_request() {
    use ErrorKind::DuplicateKey;
    let reject_dups = Options { duplicate_keys: 1, ..Options::default() };
    let ijson = Options { ijson: 1, ..Options::default() };
    // (input, offset, line, column) of the second occurrence's quote.
    let cases: [(&[u8], usize, usize, usize); 7] = [
        (br#"{"a":1,"b":2,"a":3}"#, 13, 1, 14),
        (br#"{"a":1,"\u0061":2}"#, 7, 1, 8),
        (br#"{"\/":1,"/":2}"#, 8, 1, 9),
        (br#"{"x":{"k":1,"k":2}}"#, 12, 1, 13),
        (b"{\n \"a\": 1,\n \"a\": 2\n}", 12, 3, 2),
        ("{\"é\": 1, \"\\u00e9\": 2}".as_bytes(), 10, 1, 10),
        // Several repeats: the first in the input is reported, whether in
        // a later sibling or in a parent's later key.
        (br#"[{"a":1,"a":2},{"b":1,"b":2}]"#, 8, 1, 9),
    ];
    for (text, offset, line, column) in cases {
        assert!(Document::parse(text, &Options::default()).is_ok());
        for opts in [reject_dups, ijson, Options { mode: 1, ..reject_dups }] {
            let e = reject_with(text, &opts);
            assert_eq!(
                (e.kind, e.offset, e.line, e.column),
                (DuplicateKey, offset, line, column),
                "{}",
                common::show(text)
            );
        }
    }
    let e = reject_with(br#"{"a":{"x":1,"x":2},"a":3}"#, &reject_dups);
    assert_eq!((e.kind, e.offset), (DuplicateKey, 12));
    // The same key in different objects is not a repeat.
    for text in [&br#"[{"a":1},{"a":2}]"#[..], br#"{"a":{"a":{"a":1}}}"#, br#"{"a":1,"A":2,"a ":3}"#] {
        for opts in [reject_dups, ijson] {
            assert!(Document::parse(text, &opts).is_ok(), "{}", common::show(text));
        }
    }
    // Repeats are looked for only in a document that parses: a grammar
    // error anywhere is reported instead.
    assert_eq!(reject_with(br#"{"a":1,"a":2,}"#, &reject_dups).kind, ErrorKind::ExpectedKey);
}

#[test]
fn kinds_through_paths() {
    let doc = doc();
    let kind = |p: &str| doc.find(ROOT, p.as_bytes()).unwrap().map(|n| doc.kind(n).unwrap());
    assert_eq!(kind(""), Some(Kind::Object));
    assert_eq!(kind("a.b"), Some(Kind::Array));
    assert_eq!(kind("s"), Some(Kind::String));
    assert_eq!(kind("n"), Some(Kind::Null));
    assert_eq!(kind("t"), Some(Kind::Boolean));
    assert_eq!(kind("arr[3]"), Some(Kind::Number));
    assert_eq!(kind("nope"), None);
}
