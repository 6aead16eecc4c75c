//! JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386): the
//! json-patch-tests suite, RFC 7386's examples, byte passthrough of what
//! a patch does not touch, and the bounds on hostile patches.

mod common;

use proptest::prelude::*;
use qjson_core::patch::{merge_patch, Patch, PatchErrorKind};
use qjson_core::{Document, Options};
use serde_json::Value;

fn parse(text: &[u8]) -> Document<'_> {
    Document::parse(text, &Options::default()).unwrap()
}

/// Applies `patch` (no arguments) to `doc`: the result's text or the error's message.
fn apply(doc: &str, patch: &str) -> Result<String, String> {
    let p = Patch::compile(patch.as_bytes(), false).map_err(|e| e.to_string())?;
    let target = parse(doc.as_bytes());
    let mut out = Vec::new();
    p.apply(&target, &[], 0, &mut out).map_err(|e| e.to_string())?;
    Ok(String::from_utf8(out).unwrap())
}

/// JSON equality with numbers compared by value (the suite writes `1` and
/// `1.0` for the same number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn json_patch_tests_suite() {
    let Some(dir) = common::data_dir().map(|d| d.join("json-patch-tests")) else { return };
    let mut counts = (0, 0, 0); // passed, expected errors seen, disabled
    for file in ["tests.json", "spec_tests.json"] {
        let cases: Vec<Value> = serde_json::from_slice(&std::fs::read(dir.join(file)).unwrap()).unwrap();
        for case in cases {
            let comment = case.get("comment").and_then(Value::as_str).unwrap_or("").to_owned();
            if case.get("disabled").and_then(Value::as_bool) == Some(true) {
                counts.2 += 1;
                continue;
            }
            let doc = serde_json::to_string(&case["doc"]).unwrap();
            let patch = serde_json::to_string(&case["patch"]).unwrap();
            let got = apply(&doc, &patch);
            if let Some(err) = case.get("error") {
                assert!(got.is_err(), "{file}: {comment}: expected an error ({err}), got {got:?}");
                counts.1 += 1;
            } else if let Some(expected) = case.get("expected") {
                let got = got.unwrap_or_else(|e| panic!("{file}: {comment}: {e}"));
                let value: Value = serde_json::from_str(&got).unwrap();
                assert!(same(&value, expected), "{file}: {comment}: got {got}, expected {expected}");
                counts.0 += 1;
            } else {
                // No expectation: it must apply.
                got.unwrap_or_else(|e| panic!("{file}: {comment}: {e}"));
                counts.0 += 1;
            }
        }
    }
    eprintln!(
        "json-patch-tests: {} applied as expected, {} refused as expected, {} disabled (skipped)",
        counts.0, counts.1, counts.2
    );
    assert_eq!(counts, (74, 34, 4));
}

#[test]
fn untouched_bytes_are_copied_as_they_are() {
    let doc = "{ \"model\" : \"m\",\n  \"n\": 1.50, \"t\": 0.70 ,\"messages\":[ {\"a\" :1e0} ]\n}";
    // Replacing one member keeps every other member's bytes (the
    // whitespace next to the commas around it is not a member's).
    assert_eq!(
        apply(doc, r#"[{"op":"replace","path":"/t","value":0.2}]"#).unwrap(),
        "{ \"model\" : \"m\",\n  \"n\": 1.50,\"t\":0.2,\"messages\":[ {\"a\" :1e0} ]\n}"
    );
    // Removing one keeps the whitespace inside the brackets and between
    // the others.
    assert_eq!(
        apply(doc, r#"[{"op":"remove","path":"/n"}]"#).unwrap(),
        "{ \"model\" : \"m\",\"t\": 0.70 ,\"messages\":[ {\"a\" :1e0} ]\n}"
    );
    // An edit below copies the siblings at every level.
    assert_eq!(
        apply(doc, r#"[{"op":"add","path":"/messages/0/b","value":[1]}]"#).unwrap(),
        "{ \"model\" : \"m\",\n  \"n\": 1.50, \"t\": 0.70,\"messages\":[ {\"a\" :1e0,\"b\":[1]} ]\n}"
    );
    // Reads (test) and an empty patch change nothing.
    assert_eq!(apply(doc, r#"[{"op":"test","path":"/n","value":1.5}]"#).unwrap(), doc);
    assert_eq!(apply(doc, "[]").unwrap(), doc);
}

#[test]
fn copied_values_end_where_their_text_does() {
    // The writer finds where an original value ends from what follows it
    // (the next member, or the closing bracket): whitespace before commas
    // and brackets, containers last in containers, a string last in the
    // document, and whitespace after the root.
    let doc = "{ \"a\" : [ 1 , { \"b\" : \"x\" , \"c\" : [ \"u\" ] \n } \t] , \"d\" : { \"e\" : \"long\" } \n}\n ";
    assert_eq!(
        apply(doc, r#"[{"op":"replace","path":"/a/1/b","value":2}]"#).unwrap(),
        "{ \"a\":[ 1,{ \"b\":2,\"c\" : [ \"u\" ] \n } \t],\"d\" : { \"e\" : \"long\" } \n}"
    );
    assert_eq!(
        apply(doc, r#"[{"op":"add","path":"/a/1/c/-","value":"v"}]"#).unwrap(),
        "{ \"a\":[ 1,{ \"b\" : \"x\",\"c\":[ \"u\",\"v\" ] \n } \t],\"d\" : { \"e\" : \"long\" } \n}"
    );
    assert_eq!(
        apply(doc, r#"[{"op":"remove","path":"/d/e"}]"#).unwrap(),
        "{ \"a\" : [ 1 , { \"b\" : \"x\" , \"c\" : [ \"u\" ] \n } \t],\"d\":{} \n}"
    );
    assert_eq!(apply(doc, "[]").unwrap(), doc.trim_end());
    let arr = "[ [ \"s\" ] , [ [ 1 ] , \"t\" ] ]  ";
    assert_eq!(apply(arr, r#"[{"op":"remove","path":"/1/1"}]"#).unwrap(), "[ [ \"s\" ],[ [ 1 ] ] ]");
}

#[test]
fn test_compares_numbers_exactly() {
    assert!(apply("[1e400]", r#"[{"op":"test","path":"/0","value":10e399}]"#).is_ok());
    assert!(apply("[1e400]", r#"[{"op":"test","path":"/0","value":1e401}]"#).is_err());
    assert!(apply("[18446744073709551617]", r#"[{"op":"test","path":"/0","value":18446744073709551616}]"#).is_err());
    assert!(apply("[1e-400]", r#"[{"op":"test","path":"/0","value":0}]"#).is_err());
    assert!(apply(r#"{"a":{"b":[1,{"c":"\u0041"}]}}"#, r#"[{"op":"test","path":"/a","value":{"b":[1.0,{"c":"A"}]}}]"#)
        .is_ok());
    // A repeated key is its last value, as every qjson read.
    assert!(apply(r#"{"a":1,"a":2}"#, r#"[{"op":"test","path":"","value":{"a":2}}]"#).is_ok());
    assert!(apply(r#"{"a":1,"a":2}"#, r#"[{"op":"test","path":"/a","value":1}]"#).is_err());
}

#[test]
fn a_repeated_key_is_edited_as_its_last_value() {
    // Removing it must not bring an earlier value back.
    assert_eq!(apply(r#"{"role":"user","role":"admin"}"#, r#"[{"op":"remove","path":"/role"}]"#).unwrap(), "{}");
    assert_eq!(
        apply(r#"{"role":"user","x":1,"role":"admin"}"#, r#"[{"op":"replace","path":"/role","value":"guest"}]"#)
            .unwrap(),
        r#"{"role":"guest","x":1}"#
    );
}

#[test]
fn errors_name_the_operation_and_nothing_is_half_applied() {
    let err = apply(r#"{"a":1}"#, r#"[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/c"}]"#).unwrap_err();
    assert_eq!(err, "operation 2: remove at \"/c\": no such member");
    let err = apply(r#"{"a":1}"#, r#"[{"op":"test","path":"/a","value":2}]"#).unwrap_err();
    assert_eq!(err, "operation 1: test at \"/a\" failed: the values differ");
    let err = apply("{}", r#"[{"op":"spam","path":"/a"}]"#).unwrap_err();
    assert!(err.starts_with("operation 1: unknown op \"spam\""), "{err}");
    let err = apply("[]", r#"[{"op":"add","path":"/01","value":1}]"#).unwrap_err();
    assert!(err.contains("leading zero"), "{err}");
    let err = apply("{}", "[1").unwrap_err();
    assert!(err.starts_with("the patch is not JSON: unexpected end of input"), "{err}");
}

#[test]
fn values_given_per_call() {
    let p = Patch::compile(
        br#"[{"op":"replace","path":"/temperature"},{"op":"remove","path":"/user"},{"op":"add","path":"/n"}]"#,
        true,
    )
    .unwrap();
    assert_eq!(p.args(), 2);
    let target = parse(br#"{"temperature":0.7,"user":"u","model":"m"}"#);
    let (a, b) = (parse(b"0.2"), parse(br#"{"k":[]}"#));
    let mut out = Vec::new();
    p.apply(&target, &[&a, &b], 0, &mut out).unwrap();
    assert_eq!(out, br#"{"temperature":0.2,"model":"m","n":{"k":[]}}"#);
    let err = p.apply(&target, &[&a], 0, &mut out).unwrap_err();
    assert!(matches!(err.kind, PatchErrorKind::Args(_)));
    // Without placeholders, a missing value is an error.
    assert!(Patch::compile(br#"[{"op":"replace","path":"/t"}]"#, false).is_err());
}

/// Values as JSON texts (what the bindings pass): one value (parsed into
/// the thread's buffers for the call) and several agree with the parsed
/// form, and a text that is not JSON is named and writes nothing.
#[test]
fn values_given_as_texts() {
    let target = parse(br#"{"temperature":0.7,"user":"u","model":"m"}"#);
    let one = Patch::compile(br#"[{"op":"replace","path":"/temperature"}]"#, true).unwrap();
    let mut out = b"kept".to_vec();
    one.apply_texts(&target, &[b"0.5"], 0, &mut out).unwrap();
    assert_eq!(out, br#"kept{"temperature":0.5,"user":"u","model":"m"}"#);
    let err = one.apply_texts(&target, &[b"0.5 x"], 0, &mut out).unwrap_err();
    assert!(err.to_string().starts_with("value 1 is not JSON: "), "{err}");
    assert_eq!(out, br#"kept{"temperature":0.5,"user":"u","model":"m"}"#);
    // A failing operation after a value parsed for the call: the error, no output.
    let test = Patch::compile(br#"[{"op":"test","path":"/model"}]"#, true).unwrap();
    let err = test.apply_texts(&target, &[br#""other""#], 0, &mut out).unwrap_err();
    assert!(matches!(err.kind, PatchErrorKind::TestFailed { .. }), "{err}");
    let two = Patch::compile(br#"[{"op":"replace","path":"/temperature"},{"op":"add","path":"/n"}]"#, true).unwrap();
    let mut out = Vec::new();
    two.apply_texts(&target, &[b"0.2", br#"{"k":[]}"#], 0, &mut out).unwrap();
    assert_eq!(out, br#"{"temperature":0.2,"user":"u","model":"m","n":{"k":[]}}"#);
    let err = two.apply_texts(&target, &[b"0.2", b"{"], 0, &mut out).unwrap_err();
    assert!(err.to_string().starts_with("value 2 is not JSON: "), "{err}");
}

#[test]
fn copies_cannot_grow_the_output_without_bound() {
    // Each copy of the whole document into itself doubles it.
    let ops: Vec<String> = (0..40).map(|i| format!(r#"{{"op":"copy","from":"","path":"/c{i}"}}"#)).collect();
    let patch = format!("[{}]", ops.join(","));
    let err = apply(r#"{"a":"0123456789"}"#, &patch).unwrap_err();
    assert!(err.contains("larger than max_size"), "{err}");
    // Within the bound, a copy works.
    assert_eq!(apply(r#"{"a":[1]}"#, r#"[{"op":"copy","from":"/a","path":"/b"}]"#).unwrap(), r#"{"a":[1],"b":[1]}"#);
}

#[test]
fn deep_edits_are_refused_not_overflowed() {
    // A chain of adds each one level deeper.
    let mut ops = Vec::new();
    let mut path = String::new();
    for _ in 0..1100 {
        path.push_str("/a");
        ops.push(format!(r#"{{"op":"add","path":"{path}","value":{{}}}}"#));
    }
    let err = apply("{}", &format!("[{}]", ops.join(","))).unwrap_err();
    assert!(err.contains("deeper than 1000"), "{err}");
}

/// RFC 7386, appendix A, and the passthrough of untouched members.
#[test]
fn merge_patch_rfc_7386_examples() {
    let cases = [
        (r#"{"a":"b"}"#, r#"{"a":"c"}"#, r#"{"a":"c"}"#),
        (r#"{"a":"b"}"#, r#"{"b":"c"}"#, r#"{"a":"b","b":"c"}"#),
        (r#"{"a":"b"}"#, r#"{"a":null}"#, r#"{}"#),
        (r#"{"a":"b","b":"c"}"#, r#"{"a":null}"#, r#"{"b":"c"}"#),
        (r#"{"a":["b"]}"#, r#"{"a":"c"}"#, r#"{"a":"c"}"#),
        (r#"{"a":"c"}"#, r#"{"a":["b"]}"#, r#"{"a":["b"]}"#),
        (r#"{"a":{"b":"c"}}"#, r#"{"a":{"b":"d","c":null}}"#, r#"{"a":{"b":"d"}}"#),
        (r#"{"a":[{"b":"c"}]}"#, r#"{"a":[1]}"#, r#"{"a":[1]}"#),
        (r#"["a","b"]"#, r#"["c","d"]"#, r#"["c","d"]"#),
        (r#"{"a":"b"}"#, r#"["c"]"#, r#"["c"]"#),
        (r#"{"a":"foo"}"#, "null", "null"),
        (r#"{"a":"foo"}"#, r#""bar""#, r#""bar""#),
        (r#"{"e":null}"#, r#"{"a":1}"#, r#"{"e":null,"a":1}"#),
        (r#"[1,2]"#, r#"{"a":"b","c":null}"#, r#"{"a":"b"}"#),
        (r#"{}"#, r#"{"a":{"bb":{"ccc":null}}}"#, r#"{"a":{"bb":{}}}"#),
    ];
    for (target, patch, expected) in cases {
        let (t, p) = (parse(target.as_bytes()), parse(patch.as_bytes()));
        let mut out = Vec::new();
        merge_patch(&t, &p, &mut out);
        let got: Value = serde_json::from_slice(&out).unwrap();
        let want: Value = serde_json::from_str(expected).unwrap();
        assert_eq!(got, want, "{target} + {patch}");
    }
    // Untouched members keep their bytes.
    let t = parse(b"{ \"keep\" : [1.0, 2] ,\"set\":1 }");
    let p = parse(br#"{"set":2}"#);
    let mut out = Vec::new();
    merge_patch(&t, &p, &mut out);
    assert_eq!(String::from_utf8(out).unwrap(), "{ \"keep\" : [1.0, 2],\"set\":2 }");
}

/// RFC 6902 over `serde_json::Value`, written from the RFC as plainly as
/// possible: the oracle of the random differential below.
mod oracle {
    use serde_json::Value;

    fn tokens(p: &str) -> Option<Vec<String>> {
        if p.is_empty() {
            return Some(Vec::new());
        }
        let rest = p.strip_prefix('/')?;
        rest.split('/').map(|t| Some(t.replace("~1", "/").replace("~0", "~"))).collect()
    }

    fn index(t: &str, len: usize, append: bool) -> Option<usize> {
        if append && t == "-" {
            return Some(len);
        }
        if t.is_empty() || (t.len() > 1 && t.starts_with('0')) || !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let i: usize = t.parse().ok()?;
        (if append { i <= len } else { i < len }).then_some(i)
    }

    fn get<'v>(v: &'v Value, ts: &[String]) -> Option<&'v Value> {
        ts.iter().try_fold(v, |v, t| match v {
            Value::Object(m) => m.get(t),
            Value::Array(a) => a.get(index(t, a.len(), false)?),
            _ => None,
        })
    }

    fn parent<'v>(v: &'v mut Value, ts: &[String]) -> Option<&'v mut Value> {
        ts.iter().try_fold(v, |v, t| match v {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => {
                let i = index(t, a.len(), false)?;
                a.get_mut(i)
            }
            _ => None,
        })
    }

    fn add(doc: &mut Value, ts: &[String], value: Value) -> Option<()> {
        let Some((last, up)) = ts.split_last() else {
            *doc = value;
            return Some(());
        };
        match parent(doc, up)? {
            Value::Object(m) => {
                m.insert(last.clone(), value);
            }
            Value::Array(a) => {
                let i = index(last, a.len(), true)?;
                a.insert(i, value);
            }
            _ => return None,
        }
        Some(())
    }

    fn remove(doc: &mut Value, ts: &[String]) -> Option<Value> {
        let (last, up) = ts.split_last()?;
        match parent(doc, up)? {
            Value::Object(m) => m.remove(last),
            Value::Array(a) => {
                let i = index(last, a.len(), false)?;
                Some(a.remove(i))
            }
            _ => None,
        }
    }

    /// The patched document, or `None` for an error.
    pub fn apply(mut doc: Value, patch: &[Value]) -> Option<Value> {
        for op in patch {
            let path = tokens(op.get("path")?.as_str()?)?;
            let from = op.get("from").and_then(Value::as_str).map(tokens);
            match op.get("op")?.as_str()? {
                "add" => add(&mut doc, &path, op.get("value")?.clone())?,
                "remove" => drop(remove(&mut doc, &path)?),
                "replace" => {
                    get(&doc, &path)?;
                    match path.split_last() {
                        None => doc = op.get("value")?.clone(),
                        Some(_) => *parent(&mut doc, &path)? = op.get("value")?.clone(),
                    }
                }
                "move" => {
                    let from = from??;
                    if path.len() > from.len() && path.starts_with(&from) {
                        return None;
                    }
                    if path != from {
                        let v = remove(&mut doc, &from)?;
                        add(&mut doc, &path, v)?;
                    } else {
                        get(&doc, &from)?;
                    }
                }
                "copy" => {
                    let v = get(&doc, &from??)?.clone();
                    add(&mut doc, &path, v)?;
                }
                "test" => {
                    if !super::same(get(&doc, &path)?, op.get("value")?) {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        Some(doc)
    }
}

mod random {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    pub fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-50i64..50).prop_map(|n| json!(n)),
            "[a-c]{0,2}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-c~/]{0,2}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// A pointer into `doc` most of the time, else a made-up one.
    fn pointer(doc: &Value, choices: &[u8]) -> String {
        let mut p = String::new();
        let mut v = doc;
        for &c in choices {
            let step = match v {
                Value::Object(m) if !m.is_empty() && c % 5 != 0 => {
                    let (k, next) = m.iter().nth(c as usize % m.len()).unwrap();
                    v = next;
                    k.replace('~', "~0").replace('/', "~1")
                }
                Value::Array(a) if !a.is_empty() && c % 5 != 0 => {
                    let i = c as usize % (a.len() + 1);
                    if i == a.len() {
                        return format!("{p}/-");
                    }
                    v = &a[i];
                    i.to_string()
                }
                _ => ["x", "0", "-", "01", "a~1b"][c as usize % 5].to_string(),
            };
            p.push('/');
            p.push_str(&step);
            if c % 3 == 0 {
                break;
            }
        }
        p
    }

    pub fn patch(doc: Value) -> impl Strategy<Value = (Value, Vec<Value>)> {
        let op = (0u8..6, prop::collection::vec(any::<u8>(), 0..4), prop::collection::vec(any::<u8>(), 0..4), value());
        prop::collection::vec(op, 0..5).prop_map(move |ops| {
            let ops = ops
                .into_iter()
                .map(|(kind, path, from, value)| {
                    let name = ["add", "remove", "replace", "move", "copy", "test"][kind as usize];
                    // (Pointers into the original document: later ones may
                    // miss after earlier edits, as a real patch may.)
                    json!({"op": name, "path": pointer(&doc, &path), "from": pointer(&doc, &from), "value": value})
                })
                .collect();
            (doc.clone(), ops)
        })
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(2048)))]

    /// The patch applies exactly when the oracle's does, to the same value.
    #[test]
    fn agrees_with_the_rfc_on_random_patches((doc, ops) in random::value().prop_flat_map(random::patch)) {
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let patch = serde_json::to_string(&ops).unwrap();
        let ours = apply(&text, &patch);
        match oracle::apply(doc, &ops) {
            Some(want) => {
                let got = ours.unwrap_or_else(|e| panic!("{text}\n{patch}\n{e}"));
                let got: Value = serde_json::from_str(&got).unwrap();
                prop_assert!(same(&got, &want), "{}\n{}\ngot {}\nwant {}", text, patch, got, want);
            }
            None => prop_assert!(ours.is_err(), "{}\n{}\nthe RFC refuses it, got {:?}", text, patch, ours),
        }
    }

    /// Merge patch agrees with RFC 7386's pseudo-code.
    #[test]
    fn merge_agrees_with_the_rfc(target in random::value(), patch in random::value()) {
        fn merge(target: Value, patch: &Value) -> Value {
            let Value::Object(p) = patch else { return patch.clone() };
            let mut t = match target { Value::Object(t) => t, _ => serde_json::Map::new() };
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    let old = t.remove(k).unwrap_or(Value::Null);
                    t.insert(k.clone(), merge(old, v));
                }
            }
            Value::Object(t)
        }
        let (t, p) = (serde_json::to_string_pretty(&target).unwrap(), serde_json::to_string(&patch).unwrap());
        let (td, pd) = (parse(t.as_bytes()), parse(p.as_bytes()));
        let mut out = Vec::new();
        merge_patch(&td, &pd, &mut out);
        let got: Value = serde_json::from_slice(&out).unwrap();
        prop_assert_eq!(got, merge(target, &patch));
    }
}
