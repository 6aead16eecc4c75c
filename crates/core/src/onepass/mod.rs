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
    // (Without an early exit, the loop vectorises.)
    let (mut control, mut high) = (false, false);
    for &b in body {
        control |= b < 0x20;
        high |= b >= 0x80;
    }
    !control && (!high || simdutf8::basic::from_utf8(body).is_ok())
}
