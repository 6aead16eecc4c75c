//! The searches of `qjson_core::arch::strings` (vector and portable) agree with
//! a byte-at-a-time definition on random input and with every hit placed
//! on every offset around the 8, 16, 32 and 64-byte edges their loops step
//! by. Run on x86-64 (SSE2 and SWAR) and, by `make test-aarch64`, on
//! aarch64 under emulation (NEON and SWAR).
//!
//! `PROPTEST_CASES=N` raises the number of random cases.

use proptest::prelude::*;
use qjson_core::arch::strings::{hex4, Finder};

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
const HITS: [u8; 16] =
    [b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'/', b'<', b'>', b'&', b'!', b']', 0xa2, 0xdc];
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

/// The searches against the code they replaced, side by side in one run
/// (`cargo test --release --test finders -- --ignored --nocapture`): the
/// string bodies of twitter.json and citm_catalog.json (from the scalar
/// stage 1's index), each searched from its first byte; and the encoder's
/// fast scan over the same text. Figures go to docs/benchmarks.md.
#[test]
#[ignore]
fn speed_against_the_replaced_code() {
    use std::hint::black_box;
    use std::time::Instant;
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/corpus");
    for name in ["twitter.json", "citm_catalog.json"] {
        let Ok(input) = std::fs::read(dir.join(name)) else {
            eprintln!("skipped: {name} not found");
            continue;
        };
        let mut index = Vec::new();
        qjson_core::stage1::Backend::Scalar.scan(&input, true, false, &mut index);
        let starts: Vec<usize> =
            index.iter().map(|&p| p as usize).filter(|&p| input[p] == b'"').map(|p| p + 1).collect();
        let best = |f: &dyn Fn() -> usize| {
            (0..7)
                .map(|_| {
                    let t = Instant::now();
                    black_box(f());
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::MAX, f64::min)
        };
        let find = |g: &dyn Fn(&[u8]) -> Option<usize>| {
            starts.iter().map(|&s| g(black_box(&input[s..])).unwrap_or(0)).sum::<usize>()
        };
        let per = |t: f64| t * 1e9 / starts.len() as f64;
        // Interleaved, so load spikes hit each alike.
        let (mut t_old_string, mut t_old_flatten, mut t_new) = (f64::MAX, f64::MAX, vec![f64::MAX; 2]);
        let mut t_current = f64::MAX;
        for _ in 0..5 {
            t_current = t_current.min(best(&|| find(&qjson_core::arch::strings::quote_or_backslash)));
            t_old_string = t_old_string.min(best(&|| find(&old::string_quote_or_backslash)));
            t_old_flatten = t_old_flatten.min(best(&|| find(&old::flatten_quote_or_backslash)));
            for (k, f) in Finder::all().into_iter().enumerate() {
                t_new[k] = t_new[k].min(best(&|| find(&|s| f.quote_or_backslash(s))));
            }
        }
        assert_eq!(find(&old::string_quote_or_backslash), find(&|s| Finder::Swar.quote_or_backslash(s)));
        eprintln!(
            "{name}: {} strings; quote_or_backslash ns/string: old string.rs (SWAR 32 B + memchr2) {:.1}, \
             old flatten.rs (SSE2 to the end) {:.1}",
            starts.len(),
            per(t_old_string),
            per(t_old_flatten)
        );
        eprintln!(
            "  new, as callers call it (Finder::current(), {}): {:.1} ns ({:.2}x old flatten.rs)",
            Finder::current().name(),
            per(t_current),
            t_old_flatten / t_current
        );
        for (k, f) in Finder::all().into_iter().enumerate() {
            eprintln!(
                "  new {}: {:.1} ns ({:.2}x old string.rs, {:.2}x old flatten.rs)",
                f.name(),
                per(t_new[k]),
                t_old_string / t_new[k],
                t_old_flatten / t_new[k]
            );
        }
        // The encoder's fast scan over every string body: step 16 bytes
        // while nothing stops it, else past the stop.
        let bodies: Vec<&[u8]> = starts
            .iter()
            .map(|&s| {
                let n = input[s..].iter().position(|&b| b == b'"').unwrap_or(0);
                &input[s..s + n]
            })
            .filter(|b| b.len() >= 16)
            .collect();
        let scan = |g: &dyn Fn(&[u8], usize) -> usize| {
            let mut stops = 0;
            for b in &bodies {
                let mut i = 0;
                while i + 16 <= b.len() {
                    let k = g(black_box(b), i);
                    if k == 16 {
                        i += 16;
                    } else {
                        stops += 1;
                        i += k + 1;
                    }
                }
            }
            stops
        };
        let (mut t_old, mut t_new) = (f64::MAX, vec![f64::MAX; 2]);
        for _ in 0..5 {
            t_old = t_old.min(best(&|| (0..20).map(|_| scan(&old::stop_mask_offset)).sum()));
            for (k, f) in Finder::all().into_iter().enumerate() {
                t_new[k] = t_new[k]
                    .min(best(&|| (0..20).map(|_| scan(&|s, i| f.escape_stop::<true, false, false>(s, i))).sum()));
            }
        }
        assert_eq!(scan(&old::stop_mask_offset), scan(&|s, i| Finder::Swar.escape_stop::<true, false, false>(s, i)));
        let bytes: usize = bodies.iter().map(|b| b.len()).sum();
        eprintln!(
            "  escape scan (slash mode) x20, {} bodies of 16+ bytes, {bytes} bytes: old SSE2 {:.2} ms",
            bodies.len(),
            t_old * 1e3
        );
        for (k, f) in Finder::all().into_iter().enumerate() {
            eprintln!("  new {}: {:.2} ms ({:.2}x old)", f.name(), t_new[k] * 1e3, t_old / t_new[k]);
        }
    }
}

/// The code `arch::strings` replaced, as it was, for the comparison above.
#[allow(clippy::all)]
mod old {
    pub fn string_quote_or_backslash(s: &[u8]) -> Option<usize> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        const SHORT: usize = 32;
        let mut i = 0;
        while i + 8 <= s.len() && i < SHORT {
            let w = u64::from_le_bytes(s[i..i + 8].try_into().expect("eight bytes"));
            let q = w ^ (ONES * b'"' as u64);
            let b = w ^ (ONES * b'\\' as u64);
            let hit = ((q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b)) & HIGHS;
            if hit != 0 {
                return Some(i + (hit.trailing_zeros() / 8) as usize);
            }
            i += 8;
        }
        memchr::memchr2(b'"', b'\\', &s[i..]).map(|k| i + k)
    }

    /// flatten.rs's 16-byte loop, then string.rs's search for the rest.
    #[cfg(target_arch = "x86_64")]
    pub fn flatten_quote_or_backslash(input: &[u8]) -> Option<usize> {
        use std::arch::x86_64::*;
        let mut at = 0;
        while at + 16 <= input.len() {
            // SAFETY: 16 bytes from `at` are inside `input`; SSE2 is part
            // of x86-64.
            let (quotes, backslashes) = unsafe {
                let v = _mm_loadu_si128(input.as_ptr().add(at).cast());
                (
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) as u32,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))) as u32,
                )
            };
            let either = quotes | backslashes;
            if either != 0 {
                return Some(at + either.trailing_zeros() as usize);
            }
            at += 16;
        }
        string_quote_or_backslash(&input[at..]).map(|k| at + k)
    }
    #[cfg(not(target_arch = "x86_64"))]
    pub fn flatten_quote_or_backslash(input: &[u8]) -> Option<usize> {
        string_quote_or_backslash(input)
    }

    /// encode/escape.rs's stop_mask in slash mode, as an offset.
    #[cfg(target_arch = "x86_64")]
    pub fn stop_mask_offset(src: &[u8], i: usize) -> usize {
        use std::arch::x86_64::*;
        // SAFETY: the caller passes `i` with 16 bytes of `src` from it; SSE2
        // is part of x86-64.
        let m = unsafe {
            let x = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            let eq = |b: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(b as i8));
            let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
            let m = _mm_or_si128(_mm_or_si128(ctrl, eq(b'"')), _mm_or_si128(eq(b'\\'), eq(0x7f)));
            _mm_movemask_epi8(_mm_or_si128(m, eq(b'/'))) as u32
        };
        (m.trailing_zeros() as usize).min(16)
    }
    #[cfg(not(target_arch = "x86_64"))]
    pub fn stop_mask_offset(src: &[u8], i: usize) -> usize {
        qjson_core::arch::strings::Finder::Swar.escape_stop::<true, false, false>(src, i)
    }
}
