//! The one-pass walks: a strict text read straight into events
//! ([`events`], for `qjson_text_events`) or into a selector's items
//! ([`select`]), with no stage 1, tape or stage 2, each checking the text
//! as it goes and giving up on anything it cannot give exactly as the
//! tape would. For small texts one pass costs less than building a tape
//! and walking it (docs/design.md has the table). This module holds what
//! both check as they read: whitespace, and string bodies as they stand in
//! the input.

pub(crate) mod events;
pub(crate) mod select;

/// JSON's whitespace from `p` on: where it ends. After a whitespace byte,
/// spaces are skipped eight at a time: indentation is most of the bytes
/// of a pretty-printed text.
#[inline(always)]
pub(crate) fn skip_ws(input: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = input.get(p) {
        p += 1;
        while let Some(w) = input.get(p..p + 8) {
            // (Read little-endian: the first byte is the lowest.)
            let others = u64::from_le_bytes(w.try_into().expect("8 bytes")) ^ u64::from_le_bytes([b' '; 8]);
            if others != 0 {
                p += (others.trailing_zeros() / 8) as usize;
                break;
            }
            p += 8;
        }
    }
    p
}

/// Whether a string body's bytes (as they stand in the input, escapes
/// undecoded) are valid string text: no control byte, and UTF-8.
#[inline(always)]
pub(crate) fn is_text(body: &[u8]) -> bool {
    let (control, high) = match short_words(body) {
        // Most strings and keys: two words cover every byte, no loop.
        Some((a, b)) => {
            // A byte below 0x20 sets its top bit here (an exact test
            // when no byte is 0x80 or above, and those fail anyway).
            let below_space = |w: u64| w.wrapping_sub(SPACES) & !w & HIGH_BITS;
            (below_space(a) | below_space(b) != 0, (a | b) & HIGH_BITS != 0)
        }
        None => {
            // (Without an early exit, the loop vectorises.)
            let (mut control, mut high) = (false, false);
            for &b in body {
                control |= b < 0x20;
                high |= b >= 0x80;
            }
            (control, high)
        }
    };
    !control && (!high || simdutf8::basic::from_utf8(body).is_ok())
}

const SPACES: u64 = 0x2020_2020_2020_2020;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// For up to 16 bytes, two words holding every byte of `s` (overlapping
/// when it is short), any bytes beyond `s` spaces, which `is_text`
/// passes; `None` past 16 bytes.
#[inline(always)]
fn short_words(s: &[u8]) -> Option<(u64, u64)> {
    let n = s.len();
    let p = s.as_ptr();
    // SAFETY: every read is within the `n` bytes of `s`.
    unsafe {
        Some(match n {
            0 => (SPACES, SPACES),
            1..=3 => (*p as u64 | (*p.add(n / 2) as u64) << 8 | (*p.add(n - 1) as u64) << 16 | SPACES << 24, SPACES),
            4..=7 => {
                let (a, b) = (p.cast::<u32>().read_unaligned(), p.add(n - 4).cast::<u32>().read_unaligned());
                (a as u64 | (b as u64) << 32, SPACES)
            }
            8..=16 => (p.cast::<u64>().read_unaligned(), p.add(n - 8).cast::<u64>().read_unaligned()),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_text;

    fn reference(b: &[u8]) -> bool {
        !b.iter().any(|&c| c < 0x20) && std::str::from_utf8(b).is_ok()
    }

    /// Every byte value at every position of plain text of every length
    /// up to past the two-word cut, and two-byte characters whole and
    /// cut at every position: the byte-by-byte definition's answer.
    #[test]
    fn is_text_matches_the_bytewise_definition() {
        for n in 0..=24 {
            assert!(is_text(&vec![b'a'; n]));
            for at in 0..n {
                for c in 0..=255u8 {
                    let mut body = vec![b'a'; n];
                    body[at] = c;
                    assert_eq!(is_text(&body), reference(&body), "{body:?}");
                }
                let mut body = vec![b'x'; n];
                if at + 2 <= n {
                    body[at..at + 2].copy_from_slice("é".as_bytes());
                    assert!(is_text(&body), "{body:?}");
                }
                body[at] = 0xC3;
                assert_eq!(is_text(&body), reference(&body), "{body:?}");
            }
        }
    }
}
