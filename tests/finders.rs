//! The searches of `qjson::arch::strings` (vector and portable) agree with
//! a byte-at-a-time definition on random input and with every hit placed
//! on every offset around the 8, 16, 32 and 64-byte edges their loops step
//! by. Run on x86-64 (SSE2 and SWAR) and, by `make test-aarch64`, on
//! aarch64 under emulation (NEON and SWAR).
//!
//! `PROPTEST_CASES=N` raises the number of random cases.

use proptest::prelude::*;
use qjson::arch::strings::{hex4, Finder};

fn oracle_quote_or_backslash(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b'"' || b == b'\\')
}

fn stops(b: u8, slash: bool, high: bool, html: bool) -> bool {
    b < 0x20
        || matches!(b, b'"' | b'\\' | 0x7f)
        || (slash && b == b'/')
        || (high && b >= 0x80)
        || (html && matches!(b, b'<' | b'>' | b'&'))
}

fn escape_stop(f: Finder, src: &[u8], i: usize, slash: bool, high: bool, html: bool) -> usize {
    match (slash, high, html) {
        (false, false, false) => f.escape_stop::<false, false, false>(src, i),
        (true, false, false) => f.escape_stop::<true, false, false>(src, i),
        (false, true, false) => f.escape_stop::<false, true, false>(src, i),
        (true, true, false) => f.escape_stop::<true, true, false>(src, i),
        (false, true, true) => f.escape_stop::<false, true, true>(src, i),
        (true, true, true) => f.escape_stop::<true, true, true>(src, i),
        (false, false, true) => f.escape_stop::<false, false, true>(src, i),
        (true, false, true) => f.escape_stop::<true, false, true>(src, i),
    }
}

const MODES: [(bool, bool, bool); 8] = [
    (false, false, false),
    (true, false, false),
    (false, true, false),
    (true, true, false),
    (false, false, true),
    (true, false, true),
    (false, true, true),
    (true, true, true),
];

/// Every finder's quote_or_backslash on `s`.
fn agree_find(s: &[u8]) {
    for f in Finder::all() {
        assert_eq!(f.quote_or_backslash(s), oracle_quote_or_backslash(s), "{} quote_or_backslash on {s:?}", f.name());
    }
}

/// Every finder's escape_stop, in every mode, on every 16-byte window of `s`.
fn agree_escape(s: &[u8]) {
    for f in Finder::all() {
        for i in 0..s.len().saturating_sub(15) {
            for (slash, high, html) in MODES {
                let want = s[i..i + 16].iter().position(|&b| stops(b, slash, high, html)).unwrap_or(16);
                assert_eq!(
                    escape_stop(f, s, i, slash, high, html),
                    want,
                    "{} escape_stop slash={slash} high={high} html={html} on {:?}",
                    f.name(),
                    &s[i..i + 16]
                );
            }
        }
    }
}

/// Both on `s`, and quote_or_backslash on every suffix (every alignment).
fn agree(s: &[u8]) {
    for from in 0..=s.len() {
        agree_find(&s[from..]);
    }
    agree_escape(s);
}

#[test]
fn the_finders_are_listed() {
    let names: Vec<_> = Finder::all().iter().map(|f| f.name()).collect();
    eprintln!("finders: {names:?}; current {}", Finder::current().name());
    assert_eq!(Finder::all().last(), Some(&Finder::Swar));
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    assert_eq!(Finder::all().len(), 2, "a vector finder on x86-64 and aarch64");
    assert!(Finder::all().contains(&Finder::current()));
}

/// Bytes that matter to some search, and bytes one bit away from them.
const HITS: [u8; 16] = [b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'/', b'<', b'>', b'&', b'!', b']', 0xa2, 0xdc];
const BACKGROUNDS: [u8; 5] = [b'a', 0xe3, 0x01, b'"' ^ 0x80, b'\\' ^ 1];

/// One hit (of each kind of byte that matters, and a byte that looks
/// like one in a single bit) at every offset of buffers whose lengths cross
/// the edges, over a background of plain, high and NUL bytes: the false
/// flags of word tricks (borrows, high bits) show up next to a hit.
#[test]
fn one_hit_at_every_offset_around_the_edges() {
    for background in BACKGROUNDS {
        for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 80, 97, 130] {
            let mut s = vec![background; len];
            agree_find(&s);
            for at in 0..len {
                for h in HITS {
                    s[at] = h;
                    agree_find(&s);
                    // A second hit after the first changes nothing.
                    if at + 1 < len {
                        s[at + 1] = b'"';
                        agree_find(&s);
                        s[at + 1] = background;
                    }
                    s[at] = background;
                }
            }
        }
        // The escape scan reads 16 bytes: a hit on each, with a second
        // after it.
        let mut s = [background; 16];
        agree_escape(&s);
        for at in 0..16 {
            for h in HITS {
                s[at] = h;
                agree_escape(&s);
                for h2 in HITS {
                    if at + 1 < 16 {
                        s[at + 1] = h2;
                        agree_escape(&s);
                        s[at + 1] = background;
                    }
                }
                s[at] = background;
            }
        }
    }
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    // Mostly plain text, with the bytes that matter common enough that
    // hits land anywhere.
    let byte = prop_oneof![
        8 => Just(b'a'),
        1 => Just(b'"'),
        1 => Just(b'\\'),
        1 => prop::sample::select(vec![0u8, 0x1f, 0x7f, 0x80, 0xff, b'/', b'<', b'>', b'&', 0x20, 0x21]),
        2 => any::<u8>(),
    ];
    prop::collection::vec(byte, 0..200)
}

fn sparse() -> impl Strategy<Value = Vec<u8>> {
    // Long runs without a hit: the paths past the short loop (memchr).
    (0usize..300, any::<u8>(), 0usize..300).prop_map(|(n, b, tail)| {
        let mut s = vec![b'x'; n];
        s.push(b);
        s.extend(std::iter::repeat_n(b'y', tail));
        s
    })
}

proptest! {
    #[test]
    fn random_bytes(s in bytes()) {
        agree(&s);
    }

    #[test]
    fn one_byte_far_in(s in sparse()) {
        agree(&s);
    }

    #[test]
    fn hex4_is_four_hex_digits(s in prop::collection::vec(prop::sample::select(b"09afAFgG/:@`x\x00\xff".to_vec()), 0..6)) {
        let want = s.get(..4).and_then(|d| d.iter().try_fold(0u32, |v, &c| Some(v << 4 | (c as char).to_digit(16)?)));
        prop_assert_eq!(hex4(&s), want);
    }
}
