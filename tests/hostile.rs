//! Hostile input never crashes and gets the documented result: truncated
//! real documents, a million levels of nesting, NUL bytes, invalid UTF-8,
//! huge strings and numbers, and lazy mode's deferred value errors.

mod common;

use common::{assert_error, reject, reject_with};
use proptest::prelude::*;
use qjson::{Document, Error, ErrorKind, Kind, Node, Options, ROOT};

/// Parses every prefix of `doc` listed in `lens`: a prefix shorter than
/// the document without its trailing whitespace is rejected (with an error
/// a truncation can cause, inside the prefix), a longer one is accepted.
fn check_prefixes(name: &str, doc: &[u8], lens: impl Iterator<Item = usize>) -> usize {
    let complete = doc.trim_ascii_end().len();
    let mut n = 0;
    for len in lens {
        let prefix = &doc[..len];
        for (opts, mode) in [(Options::default(), "strict"), (Options::lazy(), "lazy")] {
            match Document::parse(prefix, &opts) {
                Ok(_) => assert!(len >= complete, "{name}: {mode} accepts the {len}-byte prefix"),
                Err(e) => {
                    assert!(len < complete, "{name}: {mode} rejects the whole document: {e}");
                    let expected = match e.kind {
                        ErrorKind::Empty => len == 0,
                        ErrorKind::UnexpectedEnd => e.offset == len,
                        ErrorKind::UnterminatedString => e.offset < len && prefix[e.offset] == b'"',
                        // A number or literal cut short (strict mode checks it).
                        ErrorKind::InvalidNumber | ErrorKind::InvalidLiteral => mode == "strict" && e.offset <= len,
                        _ => false,
                    };
                    assert!(expected, "{name}: {mode}, {len}-byte prefix: unexpected error {e}");
                }
            }
        }
        n += 1;
    }
    n
}

#[test]
fn every_prefix_of_real_documents() {
    for (name, evenly) in [("twitter.json", 2000), ("citm_catalog.json", 2000), ("canada.json", 500)] {
        let Some(doc) = common::data_file(&format!("corpus/{name}")) else { return };
        let head = check_prefixes(name, &doc, 0..doc.len().min(20_000));
        let spread = check_prefixes(name, &doc, (0..=evenly).map(|i| i * doc.len() / evenly));
        assert!(head + spread > evenly);
    }
}

fn nested_arrays(n: usize) -> Vec<u8> {
    let mut v = vec![b'['; n];
    v.resize(2 * n, b']');
    v
}

fn nested_objects(n: usize, innermost: &[u8]) -> Vec<u8> {
    let mut v = b"{\"a\":".repeat(n);
    v.extend_from_slice(innermost);
    v.resize(v.len() + n, b'}');
    v
}

const MILLION: usize = 1_000_000;
const UNLIMITED: Options = Options { mode: 0, max_depth: u32::MAX, duplicate_keys: 0, ijson: 0, invalid_numbers: 0 };

#[test]
fn a_million_nested_arrays() {
    let text = nested_arrays(MILLION);
    assert_error(&text, ErrorKind::TooDeep(1000), 1000, 1, 1001);
    assert_eq!(reject_with(&text, &Options::lazy()).kind, ErrorKind::TooDeep(1000));

    // Without a depth limit: stage 2 is iterative, so the parse succeeds
    // and reads walk all the way down without recursion.
    for opts in [UNLIMITED, Options { mode: 1, ..UNLIMITED }] {
        let doc = Document::parse(&text, &opts).expect("a million levels parse without a limit");
        assert_eq!(doc.len(ROOT), Some(1));
        assert_eq!(doc.raw(ROOT).unwrap().len(), text.len());
        let mut node = ROOT;
        let mut depth = 1;
        while let Some(child) = doc.first_child(node) {
            node = child;
            depth += 1;
        }
        assert_eq!((depth, doc.len(node), doc.kind(node).unwrap()), (MILLION, Some(0), Kind::Array));
        assert_eq!(doc.raw(node).unwrap(), b"[]");
    }
    // Unbalanced: a million opens and nothing else.
    let e = reject_with(&text[..MILLION], &UNLIMITED);
    assert_eq!((e.kind, e.offset), (ErrorKind::UnexpectedEnd, MILLION));
    let mut extra = text.clone();
    extra.push(b']');
    let e = reject_with(&extra, &UNLIMITED);
    assert_eq!((e.kind, e.offset), (ErrorKind::TrailingContent, 2 * MILLION));
}

#[test]
fn a_million_nested_objects() {
    let text = nested_objects(MILLION, b"null");
    assert_error(&text, ErrorKind::TooDeep(1000), 5000, 1, 5001);

    let reject_dups = Options { duplicate_keys: 1, ..UNLIMITED };
    for opts in [UNLIMITED, reject_dups, Options { mode: 1, ..UNLIMITED }] {
        let doc = Document::parse(&text, &opts).expect("a million levels parse without a limit");
        let dotted = vec!["a"; MILLION].join(".");
        let innermost = doc.find(ROOT, dotted.as_bytes()).unwrap().expect("the innermost value");
        assert_eq!(doc.kind(innermost).unwrap(), Kind::Null);
        let pointer = "/a".repeat(MILLION);
        assert_eq!(doc.find(ROOT, pointer.as_bytes()).unwrap(), Some(innermost));
        assert_eq!(doc.find(ROOT, format!("{pointer}/a").as_bytes()).unwrap(), None);
        assert_eq!(doc.raw(ROOT).unwrap().len(), text.len());
    }
    // A repeated key at the bottom, found by the (iterative) duplicate check.
    let text = nested_objects(MILLION, b"{\"b\":1,\"b\":2}");
    let e = reject_with(&text, &reject_dups);
    assert_eq!((e.kind, e.offset), (ErrorKind::DuplicateKey, 5 * MILLION + 7));
}

#[test]
fn nul_bytes() {
    use ErrorKind::*;
    assert_error(b"[\"a\x00b\"]", ControlInString, 3, 1, 4);
    assert_error(b"{\"\x00\":1}", ControlInString, 2, 1, 3);
    assert_error(b"\x00[]", UnexpectedChar(0), 0, 1, 1);
    assert_error(b"[]\x00", TrailingContent, 2, 1, 3);
    assert_error(b"[1,\x00 2]", UnexpectedChar(0), 3, 1, 4);
    assert_error(b"[1\x00]", InvalidNumber, 2, 1, 3);
    assert_error(b"{\"a\"\x00:1}", ExpectedColon, 4, 1, 5);
    assert_error(&[0u8; 1 << 20], UnexpectedChar(0), 0, 1, 1);
    // An escaped NUL is a valid character.
    let mut doc = Document::parse(b"[\"a\\u0000b\"]", &Options::default()).unwrap();
    let s = doc.element(ROOT, 0).unwrap();
    assert_eq!(doc.str(s).unwrap(), b"a\0b");
    // Lazy mode defers the NUL in a string to the read.
    let mut doc = Document::parse(b"[\"a\x00b\"]", &Options::lazy()).unwrap();
    let s = doc.element(ROOT, 0).unwrap();
    assert_eq!(doc.str(s).unwrap_err().offset, 3);
}

/// Every one- and two-byte string body, and three- and four-byte ones from
/// every lead byte, against the standard library's UTF-8 check: accepted
/// exactly when it is UTF-8 (bodies with a quote, backslash or control
/// byte are left out; other tests cover them).
#[test]
fn utf8_in_strings_matches_std() {
    let plain = |b: &u8| *b >= 0x20 && *b != b'"' && *b != b'\\';
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        bodies.push(vec![a]);
        for b in 0..=255u8 {
            bodies.push(vec![a, b]);
        }
        if a >= 0xC0 {
            for b in 0x70..=0xFFu8 {
                for c in [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
                    bodies.push(vec![a, b, c]);
                    bodies.push(vec![a, b, c, 0x80]);
                    bodies.push(vec![a, b, c, 0xBF]);
                }
            }
        }
    }
    let mut checked = 0;
    for body in bodies.iter().filter(|b| b.iter().all(plain)) {
        for (open, close) in [(&b"[\"x"[..], &b"\"]"[..]), (b"{\"", b"\":0}")] {
            let text = [open, body, close].concat();
            let valid = std::str::from_utf8(body).is_ok();
            match Document::parse(&text, &Options::default()) {
                Ok(_) => assert!(valid, "accepted {}", common::show(&text)),
                Err(e) => {
                    assert!(!valid, "rejected valid {}: {e}", common::show(&text));
                    let at = open.len() + std::str::from_utf8(body).unwrap_err().valid_up_to();
                    assert_eq!((e.kind, e.offset), (ErrorKind::InvalidUtf8, at), "{}", common::show(&text));
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 100_000, "{checked}");
}

/// A document of about `size` bytes over many lines, with multi-byte text.
fn big_document(size: usize) -> Vec<u8> {
    let mut v = b"[\n".to_vec();
    let mut i = 0u64;
    while v.len() < size {
        let line = format!(
            "  {{\"id\": {i}, \"name\": \"é€😀 user {i}\", \"score\": {}.5e-3, \"ok\": {}, \"tags\": [\"a\", null]}},\n",
            i * 7919 % 100_003,
            i.is_multiple_of(3)
        );
        v.extend_from_slice(line.as_bytes());
        i += 1;
    }
    v.extend_from_slice(b"  {}\n]");
    v
}

/// Line and column of byte `offset`, the slow obvious way.
fn locate(text: &[u8], offset: usize) -> (usize, usize) {
    let before = std::str::from_utf8(&text[..offset]).unwrap();
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

#[test]
fn lone_quote_at_the_end_of_a_10mb_document() {
    let doc = big_document(10 << 20);
    assert!(Document::parse(&doc, &Options::default()).is_ok());
    // A quote after the complete document: it is both trailing content and
    // an unterminated string, at the same byte; the grammar's error is
    // reported (at equal offsets stage 2's error wins).
    let mut text = doc.clone();
    text.push(b'"');
    let (line, column) = locate(&text, doc.len());
    assert_error(&text, ErrorKind::TrailingContent, doc.len(), line, column);
    assert_eq!(reject_with(&text, &Options::lazy()).offset, doc.len());
    // A quote as the last element, before the closing bracket: the string
    // runs to the end of the input.
    let mut text = doc[..doc.len() - 1].to_vec();
    let at = text.len() + 1;
    text.extend_from_slice(b",\"]");
    let (line, column) = locate(&text, at);
    assert_error(&text, ErrorKind::UnterminatedString, at, line, column);
    let e = reject_with(&text, &Options::lazy());
    assert_eq!((e.kind, e.offset), (ErrorKind::UnterminatedString, at));
}

#[test]
fn a_10mb_string() {
    const SIZE: usize = 10 << 20;
    let body: Vec<u8> =
        (0..SIZE).map(|i| b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i * 7 % 64]).collect();
    let text = [&b"{\"data\":\""[..], &body, b"\"}"].concat();
    for opts in [Options::default(), Options::lazy()] {
        let mut doc = Document::parse(&text, &opts).unwrap();
        let s = doc.member(ROOT, b"data").unwrap();
        assert_eq!(doc.str(s).unwrap(), &body[..]);
        assert_eq!(doc.raw(s).unwrap().len(), SIZE + 2);
    }
    // With escapes and multi-byte characters throughout.
    let mut escaped = Vec::with_capacity(SIZE + SIZE / 50);
    let mut decoded = Vec::with_capacity(SIZE);
    while escaped.len() < SIZE {
        escaped.extend_from_slice("plain text é€😀 \\n\\\"\\u00e9\\uD83D\\uDE00\\\\ ".as_bytes());
        decoded.extend_from_slice("plain text é€😀 \n\"é😀\\ ".as_bytes());
    }
    let text = [&b"[\""[..], &escaped, b"\"]"].concat();
    let mut doc = Document::parse(&text, &Options::default()).unwrap();
    let s = doc.element(ROOT, 0).unwrap();
    assert_eq!(doc.str(s).unwrap(), &decoded[..]);
    // One bad byte near the end, found at its exact offset.
    for (byte, kind) in [(0x01, ErrorKind::ControlInString), (0xFF, ErrorKind::InvalidUtf8)] {
        let mut bad = [&b"[\""[..], &body, b"\"]"].concat();
        let at = bad.len() - 1000;
        bad[at] = byte;
        assert_error(&bad, kind, at, 1, at + 1);
    }
    // Unterminated: reported at the opening quote.
    assert_error(&text[..text.len() - 2], ErrorKind::UnterminatedString, 1, 1, 2);
}

#[test]
fn numbers_with_100000_digits() {
    let digits = "7".repeat(100_000);
    let cases = [
        (format!("1{}", "0".repeat(99_999)), f64::INFINITY),
        (format!("-{digits}"), f64::NEG_INFINITY),
        (format!("[{digits}.{digits}]"), f64::INFINITY),
        (format!("0.{digits}"), 0.7777777777777778),
        (format!("1e{digits}"), f64::INFINITY),
        (format!("-1e-{digits}"), -0.0),
        (format!("0.{}1e99999", "0".repeat(99_990)), 1e8),
    ];
    for (text, want) in cases {
        for opts in [Options::default(), Options::lazy()] {
            let doc = Document::parse(text.as_bytes(), &opts).expect("long numbers are valid JSON");
            let n = if text.starts_with('[') { doc.element(ROOT, 0).unwrap() } else { ROOT };
            assert_eq!(doc.kind(n).unwrap(), Kind::Number);
            let f = doc.f64(n).unwrap();
            assert_eq!(f.to_bits(), want.to_bits(), "{}...: {f}", &text[..20]);
            assert_eq!(doc.i64(n).unwrap(), None);
            assert_eq!(doc.u64(n).unwrap(), None);
            assert_eq!(doc.raw(n).unwrap().len(), text.len() - 2 * usize::from(text.starts_with('[')));
        }
        let ijson = Options { ijson: 1, ..Options::default() };
        // Integers beyond 2^53 and overflows are out of I-JSON's range.
        let integer = text.starts_with('1') && !text.contains('e');
        let fits = want.is_finite() && !integer;
        assert_eq!(Document::parse(text.as_bytes(), &ijson).is_ok(), fits, "ijson, {}...", &text[..20]);
    }
}

// ---- lazy mode ----

#[test]
fn lazy_mode_rejects_structure_errors_at_parse() {
    let cases: [&[u8]; 14] = [
        b"",
        b"  ",
        b"\xEF\xBB\xBF[]",
        b"[1,]",
        b"[1 2]",
        b"{\"a\" 1}",
        b"{\"a\":1,}",
        b"{1:2}",
        b"[}",
        b"[\"abc",
        b"[1]x",
        b"[NaN]",
        b"[\x00]",
        b"[\xff]",
    ];
    for input in cases {
        let strict = reject(input);
        let lazy = reject_with(input, &Options::lazy());
        assert_eq!(lazy, strict, "{}", common::show(input));
    }
    let deep = nested_arrays(1001);
    assert_eq!(reject_with(&deep, &Options::lazy()).kind, ErrorKind::TooDeep(1000));
}

#[track_caller]
fn assert_read_error(
    got: Result<impl std::fmt::Debug, Error>,
    kind: ErrorKind,
    offset: usize,
    line: usize,
    column: usize,
) {
    let e = got.expect_err("the read should fail");
    assert_eq!((e.kind, e.offset, e.line, e.column), (kind, offset, line, column), "{e}");
}

#[test]
fn lazy_mode_reports_value_errors_on_read() {
    use ErrorKind::*;
    let text = b"{\"lit\": tru, \"num\": 01,\n \"ctl\": \"a\x01\", \"utf\": \"b\xff\", \"esc\": \"\\x\",\n \"sur\": \"\\uD800\", \"ok\": [1, \"fine\", true], \"\xc0\": 1}";
    assert!(Document::parse(text, &Options::default()).is_err(), "strict mode rejects it");
    let mut doc = Document::parse(text, &Options::lazy()).expect("lazy mode checks structure only");
    let at = |doc: &Document, path: &str| doc.find(ROOT, path.as_bytes()).unwrap().unwrap();

    let lit = at(&doc, "lit");
    assert_read_error(doc.kind(lit), InvalidLiteral, 8, 1, 9);
    assert_read_error(doc.bool(lit), InvalidLiteral, 8, 1, 9);
    assert_eq!(doc.raw(lit).unwrap(), b"tru");

    let num = at(&doc, "num");
    assert_read_error(doc.kind(num), InvalidNumber, 21, 1, 22);
    assert_read_error(doc.f64(num), InvalidNumber, 21, 1, 22);
    assert_read_error(doc.i64(num), InvalidNumber, 21, 1, 22);
    assert_read_error(doc.u64(num), InvalidNumber, 21, 1, 22);

    let ctl = at(&doc, "ctl");
    assert_eq!(doc.kind(ctl).unwrap(), Kind::String);
    assert_read_error(doc.str(ctl), ControlInString, 34, 2, 11);
    let utf = at(&doc, "utf");
    assert_read_error(doc.str(utf), InvalidUtf8, 47, 2, 24);
    let esc = at(&doc, "esc");
    assert_read_error(doc.str(esc), InvalidEscape, 59, 2, 36);
    let sur = at(&doc, "sur");
    assert_read_error(doc.str(sur), LoneSurrogate, 73, 3, 10);

    // The rest of the document reads normally.
    let ok = at(&doc, "ok");
    assert_eq!(doc.len(ok), Some(3));
    assert_eq!(doc.f64(doc.element(ok, 0).unwrap()).unwrap(), 1.0);
    let fine = doc.element(ok, 1).unwrap();
    assert_eq!(doc.str(fine).unwrap(), b"fine");
    assert!(doc.bool(doc.element(ok, 2).unwrap()).unwrap());
    // A key with invalid UTF-8: its read fails; lookups of other keys work.
    let last_key = std::iter::successors(doc.first_child(ROOT), |&k| doc.next_child(ROOT, k)).last().unwrap();
    assert_read_error(doc.str(last_key), InvalidUtf8, 108, 3, 45);
    assert_eq!(doc.member(ROOT, b"nope"), None);
}

#[test]
fn lazy_mode_value_errors_one_at_a_time() {
    use ErrorKind::*;
    let cases: [(&[u8], ErrorKind, usize); 10] = [
        (b"[tru]", InvalidLiteral, 1),
        (b"[truex]", InvalidLiteral, 1),
        (b"[01]", InvalidNumber, 2),
        (b"[-]", InvalidNumber, 2),
        (b"[1.]", InvalidNumber, 3),
        (b"[\"a\x01\"]", ControlInString, 3),
        (b"[\"a\xff\"]", InvalidUtf8, 3),
        (b"[\"\\x\"]", InvalidEscape, 2),
        (b"[\"\\u12\"]", InvalidUnicodeEscape, 2),
        (b"[\"\\uDC00\"]", LoneSurrogate, 2),
    ];
    for (text, kind, offset) in cases {
        assert_eq!(reject(text).kind, kind, "strict: {}", common::show(text));
        let mut doc = Document::parse(text, &Options::lazy()).unwrap();
        let v = doc.element(ROOT, 0).unwrap();
        let got = match doc.kind(v) {
            Ok(Kind::String) => doc.str(v).map(|_| ()),
            Ok(_) => panic!("kind() should fail for {}", common::show(text)),
            Err(e) => Err(e),
        };
        assert_read_error(got, kind, offset, 1, offset + 1);
    }
}

// ---- random input never panics ----

/// Reads everything readable under `node`, ignoring read errors (lazy
/// mode defers them): what matters is that nothing panics.
fn read_everything(doc: &mut Document, node: Node, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let _ = doc.raw(node);
    let _ = doc.len(node);
    let _ = (doc.f64(node), doc.i64(node), doc.u64(node), doc.bool(node));
    match doc.kind(node) {
        Ok(Kind::String) => {
            let _ = doc.str(node);
        }
        Ok(Kind::Array) => {
            let _ = doc.element(node, 3);
            let mut c = doc.first_child(node);
            while let Some(child) = c {
                read_everything(doc, child, budget);
                c = doc.next_child(node, child);
            }
        }
        Ok(Kind::Object) => {
            let _ = doc.unique_members(node);
            let _ = doc.member(node, b"a");
            let mut c = doc.first_child(node);
            while let Some(key) = c {
                let _ = doc.str(key);
                read_everything(doc, key + 1, budget);
                c = doc.next_child(node, key);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(512)))]

    #[test]
    fn random_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..300)) {
        for opts in [Options::default(), Options::lazy(), Options { ijson: 1, ..Options::default() }] {
            if let Ok(mut doc) = Document::parse(&input, &opts) {
                read_everything(&mut doc, ROOT, &mut 10_000);
            }
        }
    }

    #[test]
    fn damaged_json_never_panics_in_lazy_mode(
        v in common::arb_value(),
        damage in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        paths in prop::collection::vec("[a-z0-9./~\\[\\]-]{0,12}", 0..4),
    ) {
        let mut text = serde_json::to_vec(&v).unwrap();
        for (at, byte) in damage {
            let i = at.index(text.len().max(1));
            if i < text.len() {
                text[i] = byte;
            }
        }
        for opts in [Options::lazy(), Options { duplicate_keys: 1, ..Options::lazy() }] {
            if let Ok(mut doc) = Document::parse(&text, &opts) {
                read_everything(&mut doc, ROOT, &mut 10_000);
                for p in &paths {
                    if let Ok(Some(n)) = doc.find(ROOT, p.as_bytes()) {
                        read_everything(&mut doc, n, &mut 100);
                    }
                }
            }
        }
    }
}
