//! Access patterns that used to be quadratic (issue 18, item 6): reading a
//! large array backwards or at random, and a wide object key by key. Each
//! is timed against the forward loop over the same document in the same
//! test (best of three runs each, as the machine may be busy): quadratic,
//! these took hundreds to thousands of times the forward loop. The extra
//! memory is checked against the tape's size, and the answers against a
//! scan.

use std::time::{Duration, Instant};

use qjson_core::{Document, Node, Options, ROOT};

const N: usize = 80_000;

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

/// The best of three runs of `f` on a fresh document each (the machine
/// running the tests may be busy), with the last run's result.
fn best<R>(text: &str, opts: &Options, f: impl Fn(&Document) -> R) -> (Duration, R) {
    let runs = (0..3).map(|_| {
        let d = Document::parse(text.as_bytes(), opts).unwrap();
        time(|| f(&d))
    });
    runs.reduce(|a, b| (a.0.min(b.0), b.1)).unwrap()
}

/// Whether `slow` is within `factor` times `base` (plus a millisecond, so
/// that a very fast base does not make timer noise fail the test).
fn within(slow: Duration, base: Duration, factor: u32) -> bool {
    slow <= base * factor + Duration::from_millis(1)
}

fn messages(n: usize) -> String {
    let parts: Vec<String> = (0..n).map(|i| format!(r#"{{"role":"r{i}","n":[{i},[{i}]]}}"#)).collect();
    format!(r#"{{"model":"m","messages":[{}]}}"#, parts.join(","))
}

fn role(d: &Document, msgs: Node, i: usize) -> Node {
    let m = d.element(msgs, i).unwrap();
    d.member(m, b"role").unwrap()
}

#[test]
fn reverse_and_random_array_reads_are_linear() {
    let text = messages(N);
    let opts = Options::default();
    let d = Document::parse(text.as_bytes(), &opts).unwrap();
    let msgs = d.find(ROOT, b"messages").unwrap().unwrap();
    let forward: Vec<Node> = (0..N).map(|i| role(&d, msgs, i)).collect();
    assert_eq!(d.lookup_bytes(), 0, "a forward loop builds no index");
    let (fwd, _) = best(&text, &opts, |d| (0..N).map(|i| role(d, msgs, i)).collect::<Vec<_>>());
    let (rev, mut backward) = best(&text, &opts, |d| (0..N).rev().map(|i| role(d, msgs, i)).collect::<Vec<_>>());
    backward.reverse();
    assert_eq!(forward, backward);
    assert!(within(rev, fwd, 25), "reverse {rev:?} against forward {fwd:?}");
    // A stride that jumps back and forth, through path strings.
    let path = |i: usize| format!("messages[{i}].role");
    let order: Vec<usize> = (0..N).map(|i| (i * 7919) % N).collect();
    let (jumps, found) = best(&text, &opts, |d| {
        order.iter().map(|&i| d.find(ROOT, path(i).as_bytes()).unwrap().unwrap()).collect::<Vec<_>>()
    });
    assert!(order.iter().zip(&found).all(|(&i, &node)| node == forward[i]));
    let (fwd_paths, _) =
        best(&text, &opts, |d| (0..N).map(|i| d.find(ROOT, path(i).as_bytes()).unwrap()).collect::<Vec<_>>());
    assert!(within(jumps, fwd_paths, 25), "random {jumps:?} against forward {fwd_paths:?}");
    // One index, 4 bytes an element (and a map entry).
    (0..N).rev().for_each(|i| assert_eq!(role(&d, msgs, i), forward[i]));
    let extra = d.lookup_bytes();
    assert!((4 * N..=4 * N + 256).contains(&extra), "{extra} bytes for {N} elements");
}

#[test]
fn nested_arrays_read_in_turn_do_not_thrash_the_cache() {
    // messages[i].n[1][0]: three arrays visited per read.
    let text = messages(N);
    let opts = Options::default();
    let read = |d: &Document, i: usize| d.find(ROOT, format!("messages[{i}].n[1][0]").as_bytes()).unwrap().unwrap();
    let (fwd, a) = best(&text, &opts, |d| (0..N).map(|i| read(d, i)).collect::<Vec<_>>());
    let (rev, mut b) = best(&text, &opts, |d| (0..N).rev().map(|i| read(d, i)).collect::<Vec<_>>());
    b.reverse();
    assert_eq!(a, b);
    assert!(within(rev, fwd, 25), "reverse {rev:?} against forward {fwd:?}");
    let d = Document::parse(text.as_bytes(), &opts).unwrap();
    assert_eq!(d.raw(a[12345]).unwrap(), b"12345");
}

fn wide(n: usize) -> String {
    let parts: Vec<String> = (0..n).map(|i| format!(r#""k{i}":{i}"#)).collect();
    format!("{{{}}}", parts.join(","))
}

#[test]
fn keyed_reads_of_a_wide_object_are_linear() {
    let text = wide(N);
    let opts = Options::default();
    let keys: Vec<String> = (0..N).map(|i| format!("k{i}")).collect();
    // Baseline: every member once, in order.
    let (walk, count) = best(&text, &opts, |d| {
        std::iter::successors(d.first_child(ROOT), |&k| d.next_child(ROOT, k))
            .map(|k| d.raw(k + 1).unwrap().len())
            .sum::<usize>()
    });
    assert!(count > 0);
    let (keyed, nodes) =
        best(&text, &opts, |d| keys.iter().map(|k| d.member(ROOT, k.as_bytes()).unwrap()).collect::<Vec<_>>());
    let d = Document::parse(text.as_bytes(), &opts).unwrap();
    for (i, &node) in nodes.iter().enumerate().step_by(997) {
        assert_eq!(d.raw(node).unwrap(), i.to_string().as_bytes());
    }
    // Lookups in key order reach the table at random: a cache miss each,
    // where the walk streams; quadratic, this took some 10,000 times the walk.
    assert!(within(keyed, walk, 150), "keyed {keyed:?} against a walk {walk:?}");
    keys.iter().for_each(|k| assert!(d.member(ROOT, k.as_bytes()).is_some()));
    assert_eq!(d.member(ROOT, b"nope"), None);
    assert_eq!(d.member(ROOT, b"k"), None);
    // The table: under 16 bytes a member, and under the tape's size.
    let extra = d.lookup_bytes();
    assert!(
        extra > 0 && extra <= 16 * N && extra <= d.tape_bytes(),
        "{extra} bytes for {N} members, tape {}",
        d.tape_bytes()
    );
}

/// Reads each key many times (past the point where the table is built)
/// and checks the value against the expected one.
fn check_keys(d: &Document, expect: &[(&[u8], &str)]) {
    for round in 0..20 {
        for &(key, value) in expect {
            let node = d.member(ROOT, key).unwrap_or_else(|| panic!("{:?} missing", String::from_utf8_lossy(key)));
            assert_eq!(d.raw(node).unwrap(), value.as_bytes(), "{:?} round {round}", String::from_utf8_lossy(key));
        }
    }
}

#[test]
fn the_key_table_keeps_last_wins_and_escapes() {
    // 200 keys, some repeated (the last value wins), some written with
    // escapes, one empty; the table must agree with a scan.
    let mut parts: Vec<String> = (0..200).map(|i| format!(r#""k{i}":{i}"#)).collect();
    parts.push(r#""k5":"last""#.into());
    parts.push(r#""\u006b7":"escaped""#.into()); // "k7"
    parts.push(r#""\u00e9t\u00e9":1"#.into());
    parts.push(r#""a\"b":2"#.into());
    parts.push(r#""":3"#.into());
    parts.push(r#""k9":"x""#.into());
    parts.push(r#""k9":"y""#.into());
    let text = format!("{{{}}}", parts.join(","));
    for opts in [Options::default(), Options::lazy()] {
        let d = Document::parse(text.as_bytes(), &opts).unwrap();
        check_keys(
            &d,
            &[
                (b"k0", "0"),
                (b"k5", "\"last\""),
                (b"k7", "\"escaped\""),
                (b"k9", "\"y\""),
                (b"k199", "199"),
                ("été".as_bytes(), "1"),
                (b"a\"b", "2"),
                (b"", "3"),
            ],
        );
        assert_eq!(d.member(ROOT, b"k200"), None);
        assert_eq!(d.member(ROOT, br"\u006b7"), None, "raw escapes do not match");
        assert!(d.lookup_bytes() > 0, "the table was built");
    }
}

#[test]
fn a_placed_document_builds_no_index() {
    let text = format!("[{}]", vec!["1"; 3000].join(","));
    let need = Document::measure(text.as_bytes(), &Options::default()).unwrap();
    let mut mem = vec![0u32; need.div_ceil(4)];
    let d = Document::place(text.as_bytes(), &Options::default(), &mut mem).unwrap().unwrap();
    for i in (0..3000).rev() {
        assert!(d.element(ROOT, i).is_some());
    }
    assert_eq!(d.lookup_bytes(), 0);
}
