//! Stage 1: every SIMD backend produces exactly the scalar oracle's index
//! and `ScanInfo`, in strict and in lazy mode, on random and adversarial
//! input. The adversarial cases put the hard parts (backslash runs, quotes,
//! `\u` surrogate pairs, control and non-ASCII bytes) on every side of the
//! 64-byte block edges, and inside strings long enough for the fast skip
//! of quote-free blocks.
//!
//! `PROPTEST_CASES=N` raises the number of random cases.

mod common;

use proptest::prelude::*;
use qjson_core::stage1::{Backend, ScanInfo};

/// Asserts that every backend agrees with the scalar one on `input`.
fn agree(input: &[u8]) {
    let (mut want, mut got) = (Vec::new(), Vec::new());
    for strict in [true, false] {
        let want_info: ScanInfo = Backend::Scalar.scan(input, strict, true, &mut want);
        for b in Backend::available() {
            if b == Backend::Scalar {
                continue;
            }
            let info = b.scan(input, strict, true, &mut got);
            if info != want_info || got != want {
                let first = got.iter().zip(&want).position(|(g, w)| g != w);
                panic!(
                    "{} disagrees with scalar (strict={strict}) on {}:\n  info {info:?}\n  want {want_info:?}\n  \
                     index lengths {} vs {}, first difference at entry {first:?}",
                    b.name(),
                    common::show(input),
                    got.len(),
                    want.len(),
                );
            }
        }
    }
}

#[test]
fn backends_are_detected() {
    let all = Backend::available();
    assert_eq!(all.last(), Some(&Backend::Scalar), "the scalar backend is always available, last");
    assert!(all.contains(&Backend::detect()));
    let names: Vec<_> = all.iter().map(|b| b.name()).collect();
    if all.len() == 1 {
        eprintln!("note: only the scalar backend runs on this CPU; agreement tests compare it with itself");
    } else {
        eprintln!("comparing backends {names:?} with scalar");
    }
}

#[test]
fn scalar_index_on_a_small_document() {
    // The oracle itself, checked by hand once: ops, string-opening quotes
    // and the first byte of every other token; nothing inside strings.
    let input = br#"{"a\"]": [1, -2.5e3, true], "b": "x,{}"} x"#;
    let mut out = Vec::new();
    let info = Backend::Scalar.scan(input, true, true, &mut out);
    let found: Vec<u8> = out.iter().map(|&p| input[p as usize]).collect();
    assert_eq!(found, br#"{":[1,-,t],":"}x"#.to_vec());
    assert_eq!(out[..3], [0, 1, 7]);
    // The one escaped string opens at 1; the next structural is ':' at 7.
    assert_eq!(info, ScanInfo { escape_room: 6, ..ScanInfo::default() });
    agree(input);
}

#[test]
fn empty_and_tiny_inputs() {
    agree(b"");
    for b in 0..=255u8 {
        agree(&[b]);
        agree(&[b'"', b]);
        agree(&[b'"', b'\\', b]);
        agree(&[b, b'"']);
    }
}

/// A run of `r` backslashes then a quote, after `s` bytes of string body:
/// the run's parity decides whether the quote closes the string, and the
/// run crosses a block edge for many (s, r).
#[test]
fn backslash_runs_across_block_edges() {
    for s in 0..=135 {
        for r in 0..=135 {
            let mut v = b"[\"".to_vec();
            v.resize(v.len() + s, b'a');
            v.resize(v.len() + r, b'\\');
            v.extend_from_slice(b"\", \"x\\\\\", 1]");
            agree(&v);
            // The same run outside any string.
            let mut w = vec![b' '; s];
            w.resize(s + r, b'\\');
            w.extend_from_slice(b"\"{}\"");
            agree(&w);
        }
    }
}

#[test]
fn quote_runs_across_block_edges() {
    for s in 0..=130 {
        for r in 1..=70 {
            let mut v = vec![b'x'; s];
            v.resize(s + r, b'"');
            v.extend_from_slice(b"[1]\"a\"");
            agree(&v);
        }
    }
}

/// `\u` escapes with each split point across a block edge: a valid pair,
/// lone halves, a pair broken by an escaped backslash, bad hex digits.
#[test]
fn unicode_escapes_across_block_edges() {
    let escapes: [&[u8]; 10] = [
        br"\uD83D\uDE00",
        br"\uDBFF\uDFFF",
        br"\uD83D",
        br"\uDE00",
        br"\uD83D\u0041",
        br"\uD83D\\uDE00",
        br"\uD83D\uDEZ0",
        br"\u00e9\u20AC",
        br"\u12",
        br"\uD83D\uD83D\uDE00",
    ];
    for esc in escapes {
        for s in 0..=140 {
            let mut v = b"{\"k\":\"".to_vec();
            v.resize(v.len() + s, b'b');
            v.extend_from_slice(esc);
            v.extend_from_slice(b"\"}");
            agree(&v);
            // Unterminated: the escape is the last thing in the input.
            agree(&v[..v.len() - 2]);
        }
    }
}

/// Long strings (the fast skip of quote-free blocks) with one special byte
/// at many positions: a control byte, non-ASCII (valid or not, and bytes
/// whose low seven bits are a control, a quote or a backslash: ¢, ß, ܜ), an
/// escape, an early quote.
#[test]
fn long_strings_with_one_special_byte() {
    let specials: [&[u8]; 12] = [
        b"\x00",
        b"\x1f",
        b"\x80",
        b"\xc3\xa9",
        b"\xff",
        "¢".as_bytes(),
        "ß".as_bytes(),
        "\u{71c}".as_bytes(),
        b"\\n",
        b"\\u0000",
        b"\"",
        b"\\",
    ];
    for len in [63usize, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 700, 4099] {
        for lead in [0usize, 1, 62, 63, 64, 65] {
            let step = if len > 300 { 37 } else { 1 };
            for at in (0..len).step_by(step) {
                for sp in specials {
                    let mut v = vec![b' '; lead];
                    v.push(b'"');
                    let body = v.len();
                    v.resize(body + len, b'Q');
                    v.splice(body + at..body + at, sp.iter().copied());
                    v.extend_from_slice(b"\" ");
                    agree(&v);
                }
            }
        }
    }
}

#[test]
fn deep_nesting() {
    for n in [1, 63, 64, 65, 1000, 100_000] {
        let mut v = vec![b'['; n];
        v.resize(2 * n, b']');
        agree(&v);
        let mut o = b"{\"a\":".repeat(n);
        o.extend_from_slice(b"null");
        o.resize(o.len() + n, b'}');
        agree(&o);
    }
}

#[test]
fn real_documents() {
    for name in ["twitter.json", "citm_catalog.json", "canada.json"] {
        let Some(doc) = common::data_file(&format!("corpus/{name}")) else { return };
        agree(&doc);
        // And shifted by each offset within a block, so every string edge
        // falls at every block position.
        for k in 1..64 {
            let mut v = vec![b' '; k];
            v.extend_from_slice(&doc[..doc.len().min(20_000)]);
            agree(&v);
        }
    }
}

// ---- random inputs ----

/// Fragments that matter to stage 1, glued at random.
const FRAGMENTS: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"\\\"",
    b"\\\\",
    b"\\u",
    b"\\u00e9",
    b"\\uD83D",
    b"\\uDE00",
    b"\\uD83D\\uDE00",
    b"\\ud800",
    b"\\uzz",
    b"\\x",
    b"\\/",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b" ",
    b"\n",
    b"\r\n",
    b"\t",
    b"1",
    b"-12.5e3",
    b"true",
    b"nul",
    b"a",
    b"/",
    "é".as_bytes(),
    "€".as_bytes(),
    "😀".as_bytes(),
    b"\x80",
    b"\xff",
    b"\xfe",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\x00",
    b"\x01",
    b"\x1f",
    b"\x7f",
    b"\x0c",
    b"\x1a",
];

const SPRINKLES: &[&[u8]] = &[
    b"\x00",
    b"\x1f",
    b"\x80",
    b"\xff",
    "é".as_bytes(),
    "¢".as_bytes(),
    "ß".as_bytes(),
    "\u{71c}".as_bytes(),
    b"\\n",
    b"\\\\",
    b"\\u0041",
    b"\"",
];

/// A string of `len` base64-like bytes with a few special bytes in it.
fn long_string() -> impl Strategy<Value = Vec<u8>> {
    let body = (64usize..6000, any::<u64>());
    let sprinkles = prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(SPRINKLES)), 0..3);
    (body, sprinkles, any::<bool>()).prop_map(|((len, seed), sprinkles, closed)| {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut x = seed | 1;
        let mut v = vec![b'"'];
        v.extend((0..len).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % 64) as usize]
        }));
        for (at, sp) in sprinkles {
            let at = 1 + at.index(len);
            v.splice(at..at, sp.iter().copied());
        }
        if closed {
            v.push(b'"');
        }
        v
    })
}

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::sample::select(FRAGMENTS).prop_map(<[u8]>::to_vec),
        2 => (1usize..70).prop_map(|n| vec![b'\\'; n]),
        1 => (1usize..5).prop_map(|n| vec![b'"'; n]),
        2 => (0usize..140).prop_map(|n| vec![b'x'; n]),
        1 => long_string(),
        1 => prop::collection::vec(any::<u8>(), 0..16),
        1 => "\\PC{0,8}".prop_map(String::into_bytes),
    ]
}

fn soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..40).prop_map(|v| v.concat())
}

/// JSON text (then cut or spliced by the tests) from serde_json.
fn json_text() -> impl Strategy<Value = Vec<u8>> {
    (common::arb_value(), any::<bool>()).prop_map(|(v, pretty)| {
        if pretty {
            serde_json::to_vec_pretty(&v).unwrap()
        } else {
            serde_json::to_vec(&v).unwrap()
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::cases(1024)))]

    #[test]
    fn random_bytes(input in prop::collection::vec(any::<u8>(), 0..400)) {
        agree(&input);
    }

    #[test]
    fn random_fragments(input in soup()) {
        agree(&input);
    }

    #[test]
    fn fragments_at_every_block_offset(pad in 0usize..130, open in any::<bool>(), input in soup()) {
        // `pad` shifts everything after it across the block edges; `open`
        // starts inside a string.
        let mut v = vec![b' '; pad];
        if open {
            v.insert(0, b'"');
        }
        v.extend_from_slice(&input);
        agree(&v);
    }

    #[test]
    fn long_strings(parts in prop::collection::vec(prop_oneof![long_string(), piece()], 1..6)) {
        agree(&parts.concat());
    }

    #[test]
    fn json_documents_and_splices(
        doc in json_text(),
        cut in any::<prop::sample::Index>(),
        insert in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..4),
    ) {
        agree(&doc);
        let at = cut.index(doc.len() + 1);
        agree(&doc[..at]);
        let mut v = doc[..at].to_vec();
        v.extend(insert.concat());
        v.extend_from_slice(&doc[at..]);
        agree(&v);
    }
}
