//! Hostile input never crashes and gets the documented result: truncated
//! real documents (every prefix), a million levels of nesting, a 100 MB
//! string, an object of a million keys, numbers of 100,000 digits, NUL
//! bytes, invalid UTF-8, byte-order marks, lone and swapped surrogates,
//! 10,000 random byte flips of a real document against serde_json, and
//! lazy mode's deferred value errors; and the work is linear in the input
//! (`work_is_linear_in_the_input`: time and counted memory at n and 4n).

mod common;

use common::{assert_error, reject, reject_with};
use proptest::prelude::*;
use qjson_core::{Document, Error, ErrorKind, Kind, Node, Options, ROOT};

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
const UNLIMITED: Options =
    Options { mode: 0, max_depth: u32::MAX, duplicate_keys: 0, ijson: 0, invalid_numbers: 0, cjson_integers: 0 };

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

// ---- the battery of issue 6: sizes, real documents damaged, and work
// ---- linear in the input

/// Bytes allocated and not yet freed by this thread, and their peak, so
/// that a test run in a thread of its own can measure a parse's memory
/// (other tests run in other threads).
struct Counting;

thread_local! {
    static LIVE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
    static PEAK: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

fn account(delta: isize) {
    let live = LIVE.with(|l| {
        l.set(l.get() + delta);
        l.get()
    });
    PEAK.with(|p| p.set(p.get().max(live)));
}

// SAFETY: every call goes to the system allocator with the caller's
// arguments; only a counter is added.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        account(layout.size() as isize);
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        account(-(layout.size() as isize));
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        account(new_size as isize - layout.size() as isize);
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `work` on `input` in a fresh thread (empty scratch buffers): the
/// best of three times, each the mean of as many runs as fill 5 ms (a
/// run of a few microseconds is too short to time alone), and the peak of
/// the bytes it allocated beyond what was live when it started.
fn measure(input: &[u8], work: fn(&[u8])) -> (std::time::Duration, usize) {
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut best = std::time::Duration::MAX;
            let mut peak = 0;
            for _ in 0..3 {
                let base = LIVE.with(|l| l.get());
                PEAK.with(|p| p.set(base));
                let start = std::time::Instant::now();
                let mut runs = 0;
                while runs == 0 || start.elapsed() < std::time::Duration::from_millis(5) {
                    work(input);
                    runs += 1;
                }
                best = best.min(start.elapsed() / runs);
                peak = peak.max((PEAK.with(|p| p.get()) - base) as usize);
            }
            (best, peak)
        })
        .join()
        .unwrap()
    })
}

/// Asserts that `work` takes time and memory linear in the input: on an
/// input built for `n` and one built for `4n`, the larger costs less than
/// 10 times the smaller. Linear work gives 4, up to about 8 when the
/// larger input falls out of a cache level or the machine is busy, and
/// more when it falls out of the last level into memory (a plain scan of
/// 32 MiB against 128 MiB gave 10.4 where the last level held the smaller
/// only): the sizes are chosen to stay under that. Quadratic work gives
/// 16 every time. A machine busy with other work can stretch
/// one measurement, so a ratio over the limit is measured again, up to
/// three times in all, and fails only when every one is over it. Memory
/// is counted exactly (linear: 4); under 64 KiB at both sizes it counts as
/// constant.
fn assert_linear(name: &str, n: usize, make: impl Fn(usize) -> Vec<u8>, work: fn(&[u8])) {
    const LIMIT: f64 = 10.0;
    let (small, big) = (make(n), make(4 * n));
    let mut ratios = Vec::new();
    let (mut m1, mut m2) = (0, 0);
    for _ in 0..3 {
        let (t1, p1) = measure(&small, work);
        let (t2, p2) = measure(&big, work);
        (m1, m2) = (p1, p2);
        let time = t2.as_secs_f64() / t1.as_secs_f64().max(1e-6);
        eprintln!(
            "linear: {name}: {} -> {} bytes: time {t1:?} -> {t2:?} ({time:.2}x), peak memory {m1} -> {m2} bytes",
            small.len(),
            big.len()
        );
        ratios.push(time);
        if time < LIMIT {
            break;
        }
    }
    let time = ratios.iter().cloned().fold(f64::MAX, f64::min);
    assert!(time < LIMIT, "{name}: 4 times the input took {ratios:.2?} times as long");
    if m2 >= 64 << 10 {
        let memory = m2 as f64 / m1.max(1) as f64;
        assert!(memory < 5.0, "{name}: 4 times the input took {memory:.2} times the memory ({m1} -> {m2})");
    }
}

const REJECT_DUPLICATES: Options = Options { duplicate_keys: 1, ..UNLIMITED };

/// Parses in every mode and reads every value, with an explicit stack
/// (nesting may be deep); errors are the input's own (the work must be
/// linear either way).
fn parse_and_read(input: &[u8]) {
    for opts in [UNLIMITED, Options { mode: 1, ..UNLIMITED }, REJECT_DUPLICATES] {
        let Ok(mut doc) = Document::parse(input, &opts) else { continue };
        // (The raw text of every node would be quadratic in the nesting.)
        let _ = doc.raw(ROOT).map(<[u8]>::len);
        let mut stack = vec![ROOT];
        while let Some(node) = stack.pop() {
            let _ = doc.len(node);
            match doc.kind(node) {
                Ok(Kind::Number) => {
                    let _ = (doc.f64(node), doc.i64(node));
                }
                Ok(Kind::String) => {
                    let _ = doc.str(node).map(<[u8]>::len);
                }
                Ok(Kind::Array) => {
                    stack.extend(std::iter::successors(doc.first_child(node), |&c| doc.next_child(node, c)))
                }
                Ok(Kind::Object) => {
                    let _ = doc.unique_members(node);
                    let keys: Vec<Node> =
                        std::iter::successors(doc.first_child(node), |&c| doc.next_child(node, c)).collect();
                    for key in keys {
                        let _ = doc.str(key).map(<[u8]>::len);
                        stack.push(key + 1);
                    }
                }
                _ => {}
            }
        }
    }
}

fn object_of_keys(n: usize, key: impl Fn(usize) -> String) -> Vec<u8> {
    let mut v = Vec::with_capacity(n * 16);
    v.push(b'{');
    for i in 0..n {
        if i > 0 {
            v.push(b',');
        }
        v.extend_from_slice(format!("\"{}\":{i}", key(i)).as_bytes());
    }
    v.push(b'}');
    v
}

#[test]
fn work_is_linear_in_the_input() {
    assert_linear("nested arrays", 200_000, nested_arrays, parse_and_read);
    assert_linear("nested objects", 100_000, |n| nested_objects(n, b"null"), parse_and_read);
    assert_linear("one long string", 1 << 20, |n| [&b"[\""[..], &vec![b'x'; n], b"\"]"].concat(), parse_and_read);
    assert_linear(
        "a long string of escapes",
        1 << 20,
        |n| [&b"[\""[..], &b"\\u00e9\\n\\uD83D\\uDE00".repeat(n / 16), b"\"]"].concat(),
        parse_and_read,
    );
    assert_linear("distinct keys", 100_000, |n| object_of_keys(n, |i| format!("k{i}")), parse_and_read);
    assert_linear("one repeated key", 100_000, |n| object_of_keys(n, |_| "a".to_string()), parse_and_read);
    assert_linear(
        "keys equal after unescaping",
        50_000,
        |n| object_of_keys(n, |i| if i % 2 == 0 { "a".into() } else { "\\u0061".into() }),
        parse_and_read,
    );
    assert_linear("many numbers", 200_000, |n| format!("[{}1]", "1.5e3,".repeat(n)).into_bytes(), parse_and_read);
    assert_linear("a long number", 100_000, |n| format!("[1{}]", "7".repeat(n)).into_bytes(), parse_and_read);
    assert_linear(
        "a long fraction and exponent",
        100_000,
        |n| format!("[0.{}e{}]", "3".repeat(n), "9".repeat(n)).into_bytes(),
        parse_and_read,
    );
    // Invalid inputs: the error is found (at the end) in linear time too.
    assert_linear("unclosed arrays", 200_000, |n| vec![b'['; n], parse_and_read);
    assert_linear(
        "a bad byte at the end of a long valid prefix",
        100_000,
        |n| format!("[{}\"\u{1}\"]", "\"abc\",".repeat(n)).into_bytes(),
        parse_and_read,
    );
    assert_linear("an unterminated long string", 64 << 10, |n| [&b"[\""[..], &vec![b'y'; n]].concat(), parse_and_read);
}

#[test]
fn a_100mb_string() {
    const SIZE: usize = 100 << 20;
    let body: Vec<u8> = (0..SIZE).map(|i| b"0123456789abcdefghijklmnopqrstuvwxyz+/"[i % 38]).collect();
    let text = [&b"{\"data\":\""[..], &body, b"\",\"n\":1}"].concat();
    for opts in [Options::default(), Options::lazy(), Options { ijson: 1, ..Options::default() }] {
        let (mut doc, peak) = {
            let base = LIVE.with(|l| l.get());
            PEAK.with(|p| p.set(base));
            let doc = Document::parse(&text, &opts).expect("a 100 MB string is valid JSON");
            (doc, (PEAK.with(|p| p.get()) - base) as usize)
        };
        // The string is not copied: the parse allocates a small, fixed amount.
        assert!(peak < 1 << 20, "parsing a 100 MB string allocated {peak} bytes");
        let s = doc.member(ROOT, b"data").unwrap();
        assert_eq!(doc.str(s).unwrap().len(), SIZE);
        assert!(doc.str(s).unwrap() == &body[..]);
        assert_eq!(doc.raw(s).unwrap().len(), SIZE + 2);
        let n = doc.member(ROOT, b"n").unwrap();
        assert_eq!(doc.f64(n).unwrap(), 1.0);
    }
    // A bad byte 10 bytes before the end of the string: found at its offset.
    let mut bad = text.clone();
    let at = 9 + SIZE - 10;
    bad[at] = 0x1F;
    assert_error(&bad, ErrorKind::ControlInString, at, 1, at + 1);
}

#[test]
fn an_object_of_a_million_keys() {
    let text = object_of_keys(MILLION, |i| format!("k{i}"));
    for opts in [Options::default(), Options::lazy(), REJECT_DUPLICATES] {
        let doc = Document::parse(&text, &opts).expect("a million distinct keys");
        assert_eq!(doc.len(ROOT), Some(MILLION));
        let last = doc.member(ROOT, b"k999999").unwrap();
        assert_eq!(doc.i64(last).unwrap(), Some(999_999));
        assert_eq!(doc.find(ROOT, b"/k500000").unwrap().map(|n| doc.i64(n).unwrap()), Some(Some(500_000)));
        assert_eq!(doc.unique_members(ROOT), None, "no key repeats");
    }
    // The same key a million times: the last value wins; with reject, the
    // second occurrence is the error.
    let text = object_of_keys(MILLION, |_| "a".to_string());
    let doc = Document::parse(&text, &Options::default()).unwrap();
    assert_eq!(doc.len(ROOT), Some(MILLION));
    assert_eq!(doc.i64(doc.member(ROOT, b"a").unwrap()).unwrap(), Some(999_999));
    let unique = doc.unique_members(ROOT).expect("the key repeats");
    assert_eq!(unique.len(), 1);
    assert_eq!(doc.i64(unique[0].1).unwrap(), Some(999_999));
    let e = reject_with(&text, &REJECT_DUPLICATES);
    assert_eq!((e.kind, e.offset), (ErrorKind::DuplicateKey, 7));
}

/// A real document of a few kilobytes: the first statuses of twitter.json,
/// as one array (multi-byte text, escapes, numbers beyond 2^53, nulls).
fn real_document() -> Option<Vec<u8>> {
    let twitter = common::data_file("corpus/twitter.json")?;
    let doc = Document::parse(&twitter, &Options::default()).unwrap();
    let statuses = doc.member(ROOT, b"statuses").unwrap();
    let parts: Vec<&[u8]> = (0..3).map(|i| doc.raw(doc.element(statuses, i).unwrap()).unwrap()).collect();
    Some([&b"[\n"[..], &parts.join(&b",\n"[..]), b"\n]\n"].concat())
}

#[test]
fn every_prefix_of_a_real_document() {
    let Some(doc) = real_document() else { return };
    let n = check_prefixes("three twitter statuses", &doc, 0..=doc.len());
    assert_eq!(n, doc.len() + 1);
}

/// Whether qjson's reading of `node` is serde_json's `v`: kinds, strings,
/// numbers (the same double, and the same integer when serde_json has
/// one), members (the last of a repeated key) and elements.
fn same(doc: &mut Document, node: Node, v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (doc.kind(node).unwrap(), v) {
        (Kind::Null, Value::Null) => true,
        (Kind::Boolean, Value::Bool(b)) => doc.bool(node).unwrap() == *b,
        (Kind::String, Value::String(s)) => doc.str(node).unwrap() == s.as_bytes(),
        (Kind::Number, Value::Number(n)) => {
            doc.f64(node).unwrap().to_bits() == n.as_f64().unwrap().to_bits()
                && (n.is_f64() || doc.i64(node).unwrap() == n.as_i64() && doc.u64(node).unwrap() == n.as_u64())
        }
        (Kind::Array, Value::Array(a)) => {
            doc.len(node) == Some(a.len())
                && a.iter().enumerate().all(|(i, item)| {
                    let c = doc.element(node, i).unwrap();
                    same(doc, c, item)
                })
        }
        (Kind::Object, Value::Object(m)) => {
            let unique = doc.unique_members(node).map_or_else(|| doc.len(node).unwrap(), |u| u.len());
            unique == m.len()
                && m.iter().all(|(k, item)| match doc.member(node, k.as_bytes()) {
                    Some(c) => same(doc, c, item),
                    None => false,
                })
        }
        _ => false,
    }
}

#[test]
fn ten_thousand_random_byte_flips_of_a_real_document() {
    let Some(original) = real_document() else { return };
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut accepted, mut rejected, mut beyond_binary64) = (0, 0, 0);
    for _ in 0..10_000 {
        let mut text = original.clone();
        let at = (rand() % text.len() as u64) as usize;
        text[at] = (rand() % 256) as u8;
        let theirs = serde_json::from_slice::<serde_json::Value>(&text);
        match (Document::parse(&text, &Options::default()), theirs) {
            (Ok(mut doc), Ok(v)) => {
                assert!(same(&mut doc, ROOT, &v), "flip at {at}: qjson and serde_json read different values");
                accepted += 1;
            }
            (Err(e), Err(_)) => {
                // A positioned error, consistent with itself, never before
                // the token the flipped byte is in.
                assert!(e.offset <= text.len(), "flip at {at}: {e}");
                if std::str::from_utf8(&text[..e.offset]).is_ok() {
                    assert_eq!((e.line, e.column), locate(&text, e.offset), "flip at {at}: {e}");
                }
                let token_start = text[..at].iter().rposition(|b| b"{}[],: \n\t\r".contains(b)).map_or(0, |p| p + 1);
                let earlier_quote = matches!(e.kind, ErrorKind::UnterminatedString | ErrorKind::LoneSurrogate);
                assert!(e.offset >= token_start || earlier_quote, "flip at {at}: error before the flip: {e}");
                let shown = e.to_string();
                assert!(shown.ends_with(&format!("at line {}, column {} (byte {})", e.line, e.column, e.offset)));
                rejected += 1;
            }
            (Ok(_), Err(e)) if e.to_string().starts_with("number out of range") => {
                // Documented: qjson accepts numbers beyond binary64 (they
                // read as ±inf), serde_json does not; ijson rejects them.
                let ijson = Options { ijson: 1, ..Options::default() };
                assert_eq!(reject_with(&text, &ijson).kind, ErrorKind::NumberOutOfRange);
                beyond_binary64 += 1;
            }
            (ours, theirs) => panic!("flip at {at}: qjson {:?}, serde_json {:?}", ours.err(), theirs.err()),
        }
        // Lazy mode: no panic whatever is read.
        if let Ok(mut doc) = Document::parse(&text, &Options::lazy()) {
            read_everything(&mut doc, ROOT, &mut 100_000);
        }
    }
    eprintln!("byte flips: {accepted} accepted as serde_json reads them, {rejected} rejected, {beyond_binary64} beyond binary64");
    assert!(accepted > 1000 && rejected > 1000);
}

#[test]
fn byte_order_marks() {
    use ErrorKind::*;
    let bom = "\u{FEFF}";
    // After a value, it is trailing content, or part of a number or
    // literal that does not end where it should.
    let after = [
        ("{}", TrailingContent, 2),
        ("[]", TrailingContent, 2),
        ("\"s\"", TrailingContent, 3),
        ("1", InvalidNumber, 1),
        ("null", InvalidLiteral, 0),
    ];
    for (value, kind, at) in after {
        assert_error(format!("{bom}{value}").as_bytes(), ByteOrderMark, 0, 1, 1);
        assert_eq!(reject_with(format!("{bom}{value}").as_bytes(), &Options::lazy()).kind, ByteOrderMark);
        // After whitespace, it is a byte no value starts with.
        assert_error(format!(" {bom}{value}").as_bytes(), UnexpectedChar(0xEF), 1, 1, 2);
        assert_error(format!("{value}{bom}").as_bytes(), kind, at, 1, at + 1);
    }
    assert_error(format!("[1,{bom}2]").as_bytes(), UnexpectedChar(0xEF), 3, 1, 4);
    // UTF-16 byte-order marks: not JSON text at all.
    assert_error(b"\xFF\xFE[\x00]\x00", UnexpectedChar(0xFF), 0, 1, 1);
    assert_error(b"\xFE\xFF\x00[\x00]", UnexpectedChar(0xFE), 0, 1, 1);
    // U+FEFF inside a string is a character like any other.
    let text = format!("[\"{bom}a\", \"\\uFEFF\"]");
    let mut doc = Document::parse(text.as_bytes(), &Options::default()).unwrap();
    let (a, b) = (doc.element(ROOT, 0).unwrap(), doc.element(ROOT, 1).unwrap());
    assert_eq!(doc.str(a).unwrap(), format!("{bom}a").as_bytes());
    assert_eq!(doc.str(b).unwrap(), bom.as_bytes());
}

#[test]
fn lone_and_swapped_surrogates() {
    use ErrorKind::*;
    let high = ["\\uD800", "\\udbff", "\\uD83D"];
    let low = ["\\uDC00", "\\udfff", "\\uDE00"];
    let mut checked = 0;
    for h in high {
        for l in low {
            // A pair, in order: one character.
            let ok = format!("[\"{h}{l}\"]");
            let mut doc = Document::parse(ok.as_bytes(), &Options::default()).unwrap();
            let s = doc.element(ROOT, 0).unwrap();
            assert_eq!(std::str::from_utf8(doc.str(s).unwrap()).unwrap().chars().count(), 1);
            // Swapped: the low one comes first and is alone.
            for text in [format!("[\"{l}{h}\"]"), format!("{{\"{l}{h}\":1}}")] {
                assert_error(text.as_bytes(), LoneSurrogate, 2, 1, 3);
            }
            checked += 1;
        }
        // A high surrogate alone: at the end, before a character, before
        // another escape, before another high surrogate; in a key too.
        for rest in ["", "a", "\\n", "\\u0041", h, "\\uD800\\uDC00"] {
            for text in [format!("[\"{h}{rest}\"]"), format!("{{\"{h}{rest}\":1}}")] {
                assert_error(text.as_bytes(), LoneSurrogate, 2, 1, 3);
                // ijson rejects them as strict mode does; lazy mode defers
                // the error to the read of the string.
                let ijson = Options { ijson: 1, ..Options::default() };
                assert_eq!(reject_with(text.as_bytes(), &ijson).kind, LoneSurrogate);
                let mut doc = Document::parse(text.as_bytes(), &Options::lazy()).unwrap();
                let s = doc.first_child(ROOT).unwrap();
                assert_eq!(doc.str(s).unwrap_err().kind, LoneSurrogate);
                checked += 1;
            }
        }
    }
    for l in low {
        for text in [format!("[\"{l}\"]"), format!("[\"a{l}b\"]")] {
            assert_eq!(reject(text.as_bytes()).kind, LoneSurrogate, "{text}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9 + 36 + 6);
}
