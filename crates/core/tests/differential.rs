//! Differential test against serde_json: qjson (strict, default options)
//! accepts a document exactly when `serde_json::from_slice::<Value>` does,
//! and every value read from an accepted document (kind, strings, numbers,
//! booleans, lengths, members, elements, raw text, JSON Pointer lookups)
//! matches serde_json's `Value`.
//!
//! Documents come from random `serde_json::Value` trees (serialized compact
//! and pretty), from a writer of our own that serde_json's types cannot
//! express (repeated keys, escapes of every form, random whitespace,
//! number texts of any length), and from random mutations of both.
//!
//! Known, intended differences (the only ones):
//!
//! 1. Nesting: serde_json stops at 128 levels, qjson at `max_depth` (1000).
//!    The generators stay below 100 levels, mutations included.
//! 2. Numbers beyond binary64 (`1e400`, `-123e99999`): qjson accepts them
//!    by default (RFC 8259 allows any magnitude; they read as ±inf) and
//!    rejects them with `ijson` (RFC 7493). serde_json is built with
//!    `arbitrary_precision` (for qjson's JSON Schema validation), which
//!    keeps them as their text: `check` finds them there and asserts
//!    exactly that for such documents.
//! 3. Repeated keys: both accept and both read the last value; qjson also
//!    keeps the earlier ones (`len` counts every occurrence, iteration sees
//!    them all). Compared below rather than excluded.
//!
//! `PROPTEST_CASES=N` raises the number of random cases.

mod common;

use proptest::prelude::*;
use qjson_core::{Document, ErrorKind, Kind, Node, Options, ROOT};
use serde_json::Value;

/// The outcome of one differential check, for the tests' own statistics.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    BothAccept,
    BothReject,
    /// Intended difference 2 (see the top of the file).
    BeyondBinary64,
}

/// Parses `bytes` with both parsers and compares everything.
fn check(bytes: &[u8]) -> Outcome {
    let ours = Document::parse(bytes, &Options::default());
    let theirs = serde_json::from_slice::<Value>(bytes);
    match (ours, theirs) {
        (Ok(mut doc), Ok(v)) if !beyond_binary64(&v) => {
            walk(&mut doc, ROOT, &v, &mut String::new());
            Outcome::BothAccept
        }
        (Err(_), Err(_)) => Outcome::BothReject,
        (Ok(_), Ok(_)) => {
            let e = "a number out of range";
            let ijson = Options { ijson: 1, ..Options::default() };
            match Document::parse(bytes, &ijson) {
                Err(e) if e.kind == ErrorKind::NumberOutOfRange => Outcome::BeyondBinary64,
                other => panic!(
                    "serde_json: {e}; qjson accepts by default but with ijson gives {:?} for {}",
                    other.err(),
                    common::show(bytes)
                ),
            }
        }
        (Ok(_), Err(e)) => panic!("qjson accepts, serde_json rejects ({e}): {}", common::show(bytes)),
        (Err(e), Ok(_)) => panic!("qjson rejects ({e}), serde_json accepts: {}", common::show(bytes)),
    }
}

/// Whether a number of `v` is beyond binary64 (`arbitrary_precision`
/// keeps its text; it reads as ±inf).
fn beyond_binary64(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_str().parse::<f64>().is_ok_and(f64::is_infinite),
        Value::Array(a) => a.iter().any(beyond_binary64),
        Value::Object(o) => o.values().any(beyond_binary64),
        _ => false,
    }
}

/// Appends a JSON Pointer token (RFC 6901 escapes) to `ptr`.
fn push_token(ptr: &mut String, token: &str) {
    ptr.push('/');
    ptr.push_str(&token.replace('~', "~0").replace('/', "~1"));
}

/// Compares the value at `node` with `v`, recursively. `ptr` is the JSON
/// Pointer of `node` when it is reachable by one (not a shadowed
/// repeated key), else empty with `node != ROOT`.
fn walk(doc: &mut Document, node: Node, v: &Value, ptr: &mut String) {
    let raw = doc.raw(node).unwrap().to_vec();
    let reparsed: Value = serde_json::from_slice(&raw)
        .unwrap_or_else(|e| panic!("raw text of {ptr:?} does not parse ({e}): {}", common::show(&raw)));
    assert_eq!(&reparsed, v, "raw text of {ptr:?}");
    if node == ROOT || !ptr.is_empty() {
        assert_eq!(doc.find(ROOT, ptr.as_bytes()), Ok(Some(node)), "find {ptr:?}");
    }
    let kind = doc.kind(node).unwrap();
    match v {
        Value::Null => assert_eq!(kind, Kind::Null),
        Value::Bool(b) => {
            assert_eq!(kind, Kind::Boolean);
            assert_eq!(doc.bool(node).unwrap(), *b);
        }
        Value::Number(n) => {
            assert_eq!(kind, Kind::Number);
            // (The text's binary64 reading; ±inf past its range.)
            let f: f64 = n.as_str().parse().unwrap();
            assert_eq!(doc.f64(node).unwrap().to_bits(), f.to_bits(), "f64 of {}", common::show(&raw));
            let (i, u) = (doc.i64(node).unwrap(), doc.u64(node).unwrap());
            if n.is_f64() {
                // A fraction, an exponent, or an integer beyond 64 bits: no
                // exact read. `-0` is the one integer text serde_json keeps
                // as a float; qjson reads it as the integer 0.
                if raw != b"-0" {
                    assert_eq!((i, u), (None, None), "exact reads of {}", common::show(&raw));
                }
                assert!(i.is_none_or(|i| i as f64 == f), "i64 of {}", common::show(&raw));
            } else {
                assert_eq!(i, n.as_i64(), "i64 of {}", common::show(&raw));
                // (`-0` is an i64 to serde_json's `arbitrary_precision`, not
                // a u64; qjson reads it as the integer 0 either way.)
                let u_want = if raw == b"-0" { Some(0) } else { n.as_u64() };
                assert_eq!(u, u_want, "u64 of {}", common::show(&raw));
            }
            assert_eq!(doc.len(node), None);
        }
        Value::String(s) => {
            assert_eq!(kind, Kind::String);
            assert_eq!(doc.str(node).unwrap(), s.as_bytes(), "string {ptr:?}");
            assert_eq!(doc.len(node), None);
            assert_eq!(doc.first_child(node), None);
        }
        Value::Array(a) => {
            assert_eq!(kind, Kind::Array);
            assert_eq!(doc.len(node), Some(a.len()));
            let children: Vec<Node> =
                std::iter::successors(doc.first_child(node), |&c| doc.next_child(node, c)).collect();
            assert_eq!(children.len(), a.len());
            for (i, (&c, item)) in children.iter().zip(a).enumerate() {
                assert_eq!(doc.element(node, i), Some(c));
                let mut p = if ptr.is_empty() && node != ROOT { String::new() } else { format!("{ptr}/{i}") };
                walk(doc, c, item, &mut p);
            }
            assert_eq!(doc.element(node, a.len()), None);
            assert_eq!(doc.member(node, b"0"), None, "a key asked of an array");
        }
        Value::Object(m) => {
            assert_eq!(kind, Kind::Object);
            let keys: Vec<Node> = std::iter::successors(doc.first_child(node), |&c| doc.next_child(node, c)).collect();
            assert_eq!(doc.len(node), Some(keys.len()), "len counts every occurrence of a key");
            let mut members: Vec<(String, Node)> = Vec::new();
            for &k in &keys {
                assert_eq!(doc.kind(k).unwrap(), Kind::String);
                let name = String::from_utf8(doc.str(k).unwrap().to_vec()).expect("keys are UTF-8");
                members.push((name, k + 1));
            }
            // Each key's last value is the one serde_json keeps.
            let mut firsts: Vec<&str> = Vec::new();
            for (name, _) in &members {
                if !firsts.contains(&name.as_str()) {
                    firsts.push(name);
                }
            }
            assert_eq!(firsts.len(), m.len(), "distinct keys");
            let unique = doc.unique_members(node);
            assert_eq!(unique.is_some(), firsts.len() < members.len(), "unique_members only when keys repeat");
            for (i, name) in firsts.iter().enumerate() {
                let want = m.get(*name).unwrap_or_else(|| panic!("serde_json has no key {name:?}"));
                let last = members.iter().rev().find(|(n, _)| n == name).unwrap().1;
                assert_eq!(doc.member(node, name.as_bytes()), Some(last), "member {name:?}");
                if let Some(u) = &unique {
                    let first = members.iter().find(|(n, _)| n == name).unwrap().1 - 1;
                    assert_eq!(u[i], (first, last), "unique_members entry {i}");
                }
                let mut p = String::new();
                if node == ROOT || !ptr.is_empty() {
                    p = ptr.clone();
                    push_token(&mut p, name);
                }
                walk(doc, last, want, &mut p);
            }
            // The shadowed values of repeated keys are read too, against
            // serde_json's reading of their own text.
            for (name, value) in &members {
                if members.iter().rev().find(|(n, _)| n == name).unwrap().1 != *value {
                    let raw = doc.raw(*value).unwrap().to_vec();
                    let shadowed: Value = serde_json::from_slice(&raw).unwrap();
                    walk(doc, *value, &shadowed, &mut String::new());
                }
            }
            assert_eq!(doc.element(node, 0), None, "an index asked of an object");
        }
    }
}

// ---- documents from our own writer ----

/// A JSON value whose text we write ourselves: keys may repeat and numbers
/// are any text the grammar allows.
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// A small xorshift generator, seeded by proptest, for the writer's
/// choices of whitespace and escapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

struct Writer {
    out: Vec<u8>,
    rng: Rng,
    /// 0 compact, 1 pretty, 2 random whitespace.
    layout: u8,
    /// Escape characters that need no escape, now and then.
    escape_freely: bool,
    depth: usize,
}

impl Writer {
    fn space(&mut self) {
        if self.layout == 2 {
            while self.rng.one_in(3) {
                let ws = [b' ', b'\t', b'\n', b'\r'][(self.rng.next() % 4) as usize];
                self.out.push(ws);
            }
        }
    }

    fn newline(&mut self) {
        if self.layout == 1 {
            self.out.push(b'\n');
            self.out.resize(self.out.len() + 2 * self.depth, b' ');
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push(b'"');
        for ch in s.chars() {
            let free = self.escape_freely && self.rng.one_in(3);
            match ch {
                '"' => self.out.extend_from_slice(b"\\\""),
                '\\' => self.out.extend_from_slice(b"\\\\"),
                '/' if free => self.out.extend_from_slice(b"\\/"),
                '\u{8}' if !free => self.out.extend_from_slice(b"\\b"),
                '\u{c}' if !free => self.out.extend_from_slice(b"\\f"),
                '\n' if !free => self.out.extend_from_slice(b"\\n"),
                '\r' if !free => self.out.extend_from_slice(b"\\r"),
                '\t' if !free => self.out.extend_from_slice(b"\\t"),
                c if (c as u32) < 0x20 || free => {
                    let upper = self.rng.one_in(2);
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let hex = if upper { format!("\\u{unit:04X}") } else { format!("\\u{unit:04x}") };
                        self.out.extend_from_slice(hex.as_bytes());
                    }
                }
                c => self.out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        self.out.push(b'"');
    }

    fn value(&mut self, j: &J) {
        self.space();
        match j {
            J::Null => self.out.extend_from_slice(b"null"),
            J::Bool(b) => self.out.extend_from_slice(if *b { b"true" } else { b"false" }),
            J::Num(t) => self.out.extend_from_slice(t.as_bytes()),
            J::Str(s) => self.string(s),
            J::Arr(items) => {
                self.out.push(b'[');
                self.depth += 1;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.newline();
                    self.value(item);
                }
                self.depth -= 1;
                if !items.is_empty() {
                    self.newline();
                }
                self.space();
                self.out.push(b']');
            }
            J::Obj(members) => {
                self.out.push(b'{');
                self.depth += 1;
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.newline();
                    self.space();
                    self.string(k);
                    self.space();
                    self.out.push(b':');
                    if self.layout == 1 {
                        self.out.push(b' ');
                    }
                    self.value(v);
                }
                self.depth -= 1;
                if !members.is_empty() {
                    self.newline();
                }
                self.space();
                self.out.push(b'}');
            }
        }
        self.space();
    }
}

fn write(j: &J, seed: u64) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::new(),
        rng: Rng(seed | 1),
        layout: (seed % 3) as u8,
        escape_freely: seed & 4 != 0,
        depth: 0,
    };
    w.value(j);
    w.out
}

fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| serde_json::to_string(&f).unwrap()),
        // Any length of digits and exponent: beyond 64-bit integers, near
        // and beyond the edges of binary64 (intended difference 2).
        "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
        "-?[1-9][0-9]{18,40}",
        "-?(0|[1-9])\\.[0-9]{1,30}[eE][+-]?(30[0-9]|32[0-9])",
    ]
}

fn key() -> impl Strategy<Value = String> {
    // A small alphabet so that keys repeat, and any text.
    prop_oneof!["[ab]{1,2}", "\\PC{0,10}", Just("a/b~c".to_string()), Just("0".to_string())]
}

fn arb_j() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        number_text().prop_map(J::Num),
        "\\PC{0,30}".prop_map(J::Str),
        "[\"\\\\/\\x00-\\x1f\\u{7f}-\\u{ff}\\u{fffe}\\u{10000}-\\u{10ffff}a]{0,30}".prop_map(J::Str),
    ];
    leaf.prop_recursive(8, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(J::Arr),
            prop::collection::vec((key(), inner), 0..8).prop_map(J::Obj),
        ]
    })
}

// ---- mutations ----

/// Bytes worth inserting: structure, string and number syntax, and bytes
/// that are never valid where they land.
const INSERTS: &[u8] = b",]}[{:\"\\0-.e+/ \n\t\x00\x1f\x7f\x80\xbf\xc3\xed\xf4\xfftnu";

#[derive(Debug, Clone)]
enum Mutation {
    Flip(prop::sample::Index, u8),
    Insert(prop::sample::Index, u8),
    Replace(prop::sample::Index, u8),
    Delete(prop::sample::Index),
    Truncate(prop::sample::Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<prop::sample::Index>;
    prop_oneof![
        (at(), 0u8..8).prop_map(|(i, bit)| Mutation::Flip(i, bit)),
        (at(), prop::sample::select(INSERTS)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (at(), prop::sample::select(INSERTS)).prop_map(|(i, b)| Mutation::Replace(i, b)),
        at().prop_map(Mutation::Delete),
        at().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut v: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let n = v.len();
        match m {
            Mutation::Insert(i, b) => v.insert(i.index(n + 1), *b),
            _ if n == 0 => {}
            Mutation::Flip(i, bit) => v[i.index(n)] ^= 1 << bit,
            Mutation::Replace(i, b) => v[i.index(n)] = *b,
            Mutation::Delete(i) => {
                v.remove(i.index(n));
            }
            Mutation::Truncate(i) => v.truncate(i.index(n)),
        }
    }
    v
}

fn document() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        common::arb_value().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        common::arb_value().prop_map(|v| serde_json::to_vec_pretty(&v).unwrap()),
        (arb_j(), any::<u64>()).prop_map(|(j, seed)| write(&j, seed)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1024)))]

    #[test]
    fn serde_values_compact_and_pretty(v in common::arb_value()) {
        for text in [serde_json::to_vec(&v).unwrap(), serde_json::to_vec_pretty(&v).unwrap()] {
            prop_assert_eq!(check(&text), Outcome::BothAccept);
            let mut doc = Document::parse(&text, &Options::default()).unwrap();
            walk(&mut doc, ROOT, &v, &mut String::new());
        }
    }

    #[test]
    fn written_documents(j in arb_j(), seed in any::<u64>()) {
        let text = write(&j, seed);
        let outcome = check(&text);
        prop_assert!(outcome != Outcome::BothReject, "a written document was rejected: {}", common::show(&text));
    }

    #[test]
    fn mutated_documents(doc in document(), mutations in prop::collection::vec(mutation(), 1..4)) {
        check(&mutate(doc, &mutations));
    }
}

// ---- fixed cases: the intended differences, and a few exact readings ----

/// The generators reach every outcome, so the properties above compare
/// both acceptance and rejection (a fixed seed: the counts are stable).
#[test]
fn mutations_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (document(), prop::collection::vec(mutation(), 1..4));
    let (mut accept, mut reject, mut beyond) = (0, 0, 0);
    for _ in 0..2000 {
        let (doc, mutations) = strategy.new_tree(&mut runner).unwrap().current();
        match check(&mutate(doc, &mutations)) {
            Outcome::BothAccept => accept += 1,
            Outcome::BothReject => reject += 1,
            Outcome::BeyondBinary64 => beyond += 1,
        }
    }
    eprintln!("2000 mutated documents: {accept} accepted by both, {reject} rejected by both, {beyond} beyond binary64");
    assert!(accept >= 100 && reject >= 100 && beyond >= 1, "{accept} / {reject} / {beyond}");
}

#[test]
fn numbers_beyond_binary64_are_the_one_difference() {
    for text in ["1e400", "-1e400", "[123123e100000]", "{\"a\":1.5e+9999}", "[1,2,-123e309]"] {
        assert_eq!(check(text.as_bytes()), Outcome::BeyondBinary64, "{text}");
        let doc = Document::parse(text.as_bytes(), &Options::default()).unwrap();
        let mut node = ROOT;
        while let Some(last) = std::iter::successors(doc.first_child(node), |&c| doc.next_child(node, c)).last() {
            node = if doc.kind(node).unwrap() == Kind::Object { last + 1 } else { last };
        }
        assert!(doc.f64(node).unwrap().is_infinite(), "{text} reads as an infinity");
    }
    // Underflow is not out of range for either: it reads as (signed) zero.
    for text in ["1e-400", "-123e-10000000", "0e99999"] {
        assert_eq!(check(text.as_bytes()), Outcome::BothAccept, "{text}");
    }
}

#[test]
fn nesting_below_serde_jsons_limit_agrees() {
    for depth in [1, 10, 99, 127] {
        let mut v = vec![b'['; depth];
        v.resize(2 * depth, b']');
        assert_eq!(check(&v), Outcome::BothAccept);
        v.pop();
        assert_eq!(check(&v), Outcome::BothReject);
    }
}

#[test]
fn repeated_keys_read_the_last_value() {
    let text = br#"{"a":1,"b":[true],"a":{"x":null},"\u0061":"last","b":false}"#;
    assert_eq!(check(text), Outcome::BothAccept);
    let mut doc = Document::parse(text, &Options::default()).unwrap();
    let a = doc.member(ROOT, b"a").unwrap();
    assert_eq!(doc.str(a).unwrap(), b"last");
    assert_eq!(doc.len(ROOT), Some(5));
}

#[test]
fn numbers_read_exactly() {
    let cases: [(&str, f64, Option<i64>, Option<u64>); 12] = [
        ("0", 0.0, Some(0), Some(0)),
        ("-0", -0.0, Some(0), Some(0)),
        ("9007199254740993", 9007199254740992.0, Some(9007199254740993), Some(9007199254740993)),
        ("-9223372036854775808", -9223372036854775808.0, Some(i64::MIN), None),
        ("9223372036854775808", 9223372036854775808.0, None, Some(1 << 63)),
        ("18446744073709551615", 18446744073709551615.0, None, Some(u64::MAX)),
        ("18446744073709551616", 18446744073709551616.0, None, None),
        ("1.0", 1.0, None, None),
        ("1e2", 100.0, None, None),
        ("0.1", 0.1, None, None),
        ("2.2250738585072011e-308", 2.225073858507201e-308, None, None),
        ("1.7976931348623157e308", f64::MAX, None, None),
    ];
    for (text, f, i, u) in cases {
        assert_eq!(check(text.as_bytes()), Outcome::BothAccept, "{text}");
        let doc = Document::parse(text.as_bytes(), &Options::default()).unwrap();
        assert_eq!(doc.f64(ROOT).unwrap().to_bits(), f.to_bits(), "{text}");
        assert_eq!(doc.i64(ROOT).unwrap(), i, "{text}");
        assert_eq!(doc.u64(ROOT).unwrap(), u, "{text}");
    }
}
