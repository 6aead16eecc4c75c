//! String escaping. The output is the body of a JSON string (no quotes).
//!
//! By default it is lua-cjson's: `"`, `\` and `/` get a backslash,
//! `\b \f \n \r \t` their short forms, every other byte below 0x20 and
//! 0x7f become `\u00XX` (lowercase hex), and every other byte is copied as
//! it is, valid UTF-8 or not.

use crate::arch::strings;

/// Escape `/` as `\/` (lua-cjson's default).
pub const ESCAPE_SLASH: u32 = 1;
/// Write every character above U+007F as `\uXXXX` (a surrogate pair above
/// U+FFFF). Implies decoding, so invalid UTF-8 is an error.
pub const ASCII: u32 = 2;
/// Escape `<`, `>`, `&`, U+2028 and U+2029, so the text is safe inside an
/// HTML `<script>` element and in JavaScript source.
pub const HTML_SAFE: u32 = 4;
/// Reject invalid UTF-8 (overlong forms, surrogates, beyond U+10FFFF,
/// truncated sequences).
pub const VALIDATE_UTF8: u32 = 8;

/// Worst-case output bytes per input byte (a control byte as `\u00XX`).
pub const MAX_EXPANSION: usize = 6;
/// Room the output needs beyond `MAX_EXPANSION * len`: the scan stores
/// 16 bytes at a time.
pub const SLACK: usize = 16;

/// What [`escape`] did with a chunk of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escaped {
    /// `written` output bytes for the first `consumed` input bytes.
    /// `consumed` is short of the input only when `last` was false and
    /// the input ends inside a UTF-8 sequence the mode needs whole.
    Done { written: usize, consumed: usize },
    /// Invalid UTF-8 starting at this input offset.
    InvalidUtf8(usize),
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Per-byte action: 0 copy, 1 short escape (second byte from `short`),
/// 2 `\u00XX`, 3 non-ASCII (decode or check), 4 `<`/`>`/`&` in HTML mode,
/// 5 the lead byte of U+2028/U+2029 in HTML mode.
const fn table(flags: u32) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        let slash = c == b'/' && flags & ESCAPE_SLASH != 0;
        t[b] = if slash || matches!(c, b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t') {
            1
        } else if c <= 0x1f || c == 0x7f {
            2
        } else if matches!(c, b'<' | b'>' | b'&') && flags & HTML_SAFE != 0 {
            4
        } else if c >= 0x80 && flags & (ASCII | VALIDATE_UTF8) != 0 {
            3
        } else if c == 0xe2 && flags & HTML_SAFE != 0 {
            5
        } else {
            0
        };
        b += 1;
    }
    t
}

/// The tables for the 16 flag combinations.
static TABLES: [[u8; 256]; 16] = {
    let mut all = [[0u8; 256]; 16];
    let mut f = 0;
    while f < 16 {
        all[f] = table(f as u32);
        f += 1;
    }
    all
};

fn short(b: u8) -> u8 {
    match b {
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        other => other,
    }
}

/// Writes `\uXXXX` for one UTF-16 code unit.
#[inline]
fn put_u(dst: &mut [u8], w: usize, unit: u32) -> usize {
    dst[w..w + 6].copy_from_slice(&[
        b'\\',
        b'u',
        HEX[(unit >> 12) as usize & 15],
        HEX[(unit >> 8) as usize & 15],
        HEX[(unit >> 4) as usize & 15],
        HEX[unit as usize & 15],
    ]);
    w + 6
}

/// Decodes the UTF-8 sequence at `src[i..]`: `Ok(Some((code point, len)))`,
/// `Ok(None)` when the input ends inside the sequence, `Err(())` when it
/// is invalid (RFC 3629: no overlongs, surrogates or values past U+10FFFF).
#[inline]
fn decode(src: &[u8], i: usize) -> Result<Option<(u32, usize)>, ()> {
    let b0 = src[i];
    let (len, min, init) = match b0 {
        0xc2..=0xdf => (2, 0x80, (b0 & 0x1f) as u32),
        0xe0..=0xef => (3, 0x800, (b0 & 0x0f) as u32),
        0xf0..=0xf4 => (4, 0x10000, (b0 & 0x07) as u32),
        _ => return Err(()),
    };
    let mut cp = init;
    for k in 1..len {
        let Some(&b) = src.get(i + k) else { return Ok(None) };
        if b & 0xc0 != 0x80 {
            return Err(());
        }
        cp = (cp << 6) | (b & 0x3f) as u32;
        // Reject as early as possible so a truncated tail is only ever a
        // prefix of a valid sequence.
        if k == 1 {
            let ok = match b0 {
                0xe0 => b >= 0xa0,
                0xed => b < 0xa0,
                0xf0 => b >= 0x90,
                0xf4 => b < 0x90,
                _ => true,
            };
            if !ok {
                return Err(());
            }
        }
    }
    debug_assert!(cp >= min && cp <= 0x10ffff && !(0xd800..0xe000).contains(&cp));
    Ok(Some((cp, len)))
}

/// Escapes `src` into `dst`, which must hold `MAX_EXPANSION * src.len() +
/// SLACK` bytes. `last` says no input follows (a chunked caller passes
/// false for all but the final chunk). Always inlined: the short path's
/// whole point is to cost no call.
#[inline(always)]
pub fn escape(src: &[u8], dst: &mut [u8], flags: u32, last: bool) -> Escaped {
    assert!(dst.len() >= src.len() * MAX_EXPANSION + SLACK);
    // A short string with nothing to escape (most keys) is copied here,
    // inlined in the caller, in the modes that copy every other byte.
    let n = src.len();
    if n < 16 && flags & !ESCAPE_SLASH == 0 {
        let finder = strings::Finder::current();
        let clean = if flags == ESCAPE_SLASH {
            copy_clean::<true, false, false>(finder, src, 0, dst, 0)
        } else {
            copy_clean::<false, false, false>(finder, src, 0, dst, 0)
        };
        if clean {
            return Escaped::Done { written: n, consumed: n };
        }
    }
    escape_any(src, dst, flags, last)
}

/// Copies `src[i..]`, under 16 bytes, to `dst[w..]` when none of them is a
/// byte the mode stops at. They are checked as one 16-byte block built in
/// registers (a padded copy read back as a vector would stall on store
/// forwarding): from 4 bytes on two overlapping words, under 4 the
/// first, middle and last byte, repeated.
#[inline(always)]
fn copy_clean<const SLASH: bool, const HIGH: bool, const HTML: bool>(
    finder: strings::Finder,
    src: &[u8],
    i: usize,
    dst: &mut [u8],
    w: usize,
) -> bool {
    let n = src.len();
    let r = n - i;
    debug_assert!(r < 16);
    let clean = |a: u64, b: u64| {
        let block = ((b as u128) << 64 | a as u128).to_le_bytes();
        finder.escape_stop::<SLASH, HIGH, HTML>(&block, 0) == 16
    };
    if r >= 8 {
        let a = u64::from_le_bytes(src[i..i + 8].try_into().expect("8 bytes"));
        let b = u64::from_le_bytes(src[n - 8..n].try_into().expect("8 bytes"));
        if !clean(a, b) {
            return false;
        }
        dst[w..w + 8].copy_from_slice(&a.to_le_bytes());
        dst[w + r - 8..w + r].copy_from_slice(&b.to_le_bytes());
    } else if r >= 4 {
        let a = u32::from_le_bytes(src[i..i + 4].try_into().expect("4 bytes"));
        let b = u32::from_le_bytes(src[n - 4..n].try_into().expect("4 bytes"));
        let ab = a as u64 | (b as u64) << 32;
        if !clean(ab, ab) {
            return false;
        }
        dst[w..w + 4].copy_from_slice(&a.to_le_bytes());
        dst[w + r - 4..w + r].copy_from_slice(&b.to_le_bytes());
    } else if r > 0 {
        let (x, y, z) = (src[i], src[i + r / 2], src[n - 1]);
        let xyz = u64::from_le_bytes([x, y, z, x, x, x, x, x]);
        if !clean(xyz, xyz) {
            return false;
        }
        dst[w] = x;
        dst[w + r / 2] = y;
        dst[w + r - 1] = z;
    }
    true
}

/// [`escape`] past its short path: one instance of the escaping loop per
/// set of flags.
fn escape_any(src: &[u8], dst: &mut [u8], flags: u32, last: bool) -> Escaped {
    // One instance of the loop per set of stop bytes, so the scan tests
    // no flags.
    let slash = flags & ESCAPE_SLASH != 0;
    if flags & (ASCII | VALIDATE_UTF8 | HTML_SAFE) == 0 {
        if slash {
            escape_with::<true, false, false>(src, dst, flags, last)
        } else {
            escape_with::<false, false, false>(src, dst, flags, last)
        }
    } else if flags & HTML_SAFE == 0 {
        if slash {
            escape_with::<true, true, false>(src, dst, flags, last)
        } else {
            escape_with::<false, true, false>(src, dst, flags, last)
        }
    } else if slash {
        escape_with::<true, true, true>(src, dst, flags, last)
    } else {
        escape_with::<false, true, true>(src, dst, flags, last)
    }
}

fn escape_with<const SLASH: bool, const HIGH: bool, const HTML: bool>(
    src: &[u8],
    dst: &mut [u8],
    flags: u32,
    last: bool,
) -> Escaped {
    let t = &TABLES[(flags & 15) as usize];
    let finder = strings::Finder::current();
    let (mut i, mut w) = (0usize, 0usize);
    let n = src.len();
    loop {
        // Fast path: 16 bytes at a time up to the first byte that may need
        // work, stored whole (dst has room to spare).
        if i + 16 <= n {
            let k = finder.escape_stop::<SLASH, HIGH, HTML>(src, i);
            dst[w..w + 16].copy_from_slice(&src[i..i + 16]);
            // The next address must not wait for the offset: a clean
            // block advances by a constant, on a predicted branch.
            if k == 16 {
                i += 16;
                w += 16;
                continue;
            }
            i += k;
            w += k;
        } else {
            // The last bytes (under 16), most often all of a key.
            if copy_clean::<SLASH, HIGH, HTML>(finder, src, i, dst, w) {
                (i, w) = (n, w + n - i);
                break;
            }
            // Else one at a time against the table.
            while i < n && t[src[i] as usize] == 0 {
                dst[w] = src[i];
                i += 1;
                w += 1;
            }
            if i == n {
                break;
            }
        }
        // One byte (or one UTF-8 sequence) the slow way.
        let b = src[i];
        match t[b as usize] {
            0 => {
                dst[w] = b;
                w += 1;
                i += 1;
            }
            1 => {
                dst[w] = b'\\';
                dst[w + 1] = short(b);
                w += 2;
                i += 1;
            }
            2 | 4 => {
                w = put_u(dst, w, b as u32);
                i += 1;
            }
            5 => {
                // U+2028 / U+2029 are E2 80 A8 / E2 80 A9.
                if i + 2 >= n && !last && flags & (ASCII | VALIDATE_UTF8) == 0 {
                    return Escaped::Done { written: w, consumed: i };
                }
                if src.get(i + 1) == Some(&0x80) && matches!(src.get(i + 2), Some(0xa8 | 0xa9)) {
                    w = put_u(dst, w, 0x2000 | (src[i + 2] as u32 - 0xa8 + 0x28));
                    i += 3;
                } else if flags & (ASCII | VALIDATE_UTF8) != 0 {
                    match multibyte(src, dst, &mut i, &mut w, flags, last) {
                        Step::Ok => {}
                        Step::Short => return Escaped::Done { written: w, consumed: i },
                        Step::Bad => return Escaped::InvalidUtf8(i),
                    }
                } else {
                    dst[w] = b;
                    w += 1;
                    i += 1;
                }
            }
            _ => match multibyte(src, dst, &mut i, &mut w, flags, last) {
                Step::Ok => {}
                Step::Short => return Escaped::Done { written: w, consumed: i },
                Step::Bad => return Escaped::InvalidUtf8(i),
            },
        }
    }
    Escaped::Done { written: w, consumed: i }
}

enum Step {
    Ok,
    Short,
    Bad,
}

/// A non-ASCII sequence in a mode that decodes (`ascii`) or checks it.
#[inline]
fn multibyte(src: &[u8], dst: &mut [u8], i: &mut usize, w: &mut usize, flags: u32, last: bool) -> Step {
    let (cp, len) = match decode(src, *i) {
        Ok(Some(x)) => x,
        Ok(None) if !last => return Step::Short,
        _ => return Step::Bad,
    };
    if flags & ASCII != 0 {
        if cp >= 0x10000 {
            let v = cp - 0x10000;
            *w = put_u(dst, *w, 0xd800 | (v >> 10));
            *w = put_u(dst, *w, 0xdc00 | (v & 0x3ff));
        } else {
            *w = put_u(dst, *w, cp);
        }
    } else if flags & HTML_SAFE != 0 && (cp == 0x2028 || cp == 0x2029) {
        *w = put_u(dst, *w, cp);
    } else {
        dst[*w..*w + len].copy_from_slice(&src[*i..*i + len]);
        *w += len;
    }
    *i += len;
    Step::Ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &[u8], flags: u32) -> Result<String, usize> {
        let mut out = vec![0u8; s.len() * MAX_EXPANSION + SLACK];
        match escape(s, &mut out, flags, true) {
            Escaped::Done { written, consumed } => {
                assert_eq!(consumed, s.len());
                out.truncate(written);
                Ok(String::from_utf8_lossy(&out).into_owned())
            }
            Escaped::InvalidUtf8(at) => Err(at),
        }
    }

    #[test]
    fn cjson_defaults() {
        assert_eq!(esc(b"a/b\"c\\d", ESCAPE_SLASH).unwrap(), r#"a\/b\"c\\d"#);
        assert_eq!(esc(b"a/b", 0).unwrap(), "a/b");
        assert_eq!(esc(b"\x08\x0c\n\r\t\x00\x1f\x7f", 0).unwrap(), r"\b\f\n\r\t\u0000\u001f\u007f");
        assert_eq!(
            esc("héllo wörld, long enough to use words".as_bytes(), 0).unwrap(),
            "héllo wörld, long enough to use words"
        );
        assert_eq!(esc(b"\xff\xfe raw bytes pass", 0).unwrap(), "\u{fffd}\u{fffd} raw bytes pass");
    }

    #[test]
    fn ascii_and_html() {
        assert_eq!(esc("é😀".as_bytes(), ASCII).unwrap(), r"\u00e9\ud83d\ude00");
        assert_eq!(esc("<a>&\u{2028}\u{2029}".as_bytes(), HTML_SAFE).unwrap(), r"\u003ca\u003e\u0026\u2028\u2029");
        assert_eq!(esc("\u{2027}x".as_bytes(), HTML_SAFE).unwrap(), "\u{2027}x");
    }

    #[test]
    fn validation() {
        assert_eq!(esc(b"abc\xc3", VALIDATE_UTF8), Err(3));
        assert_eq!(esc(b"0123456789\xed\xa0\x80", VALIDATE_UTF8), Err(10));
        assert_eq!(esc(b"\xc0\x80", VALIDATE_UTF8), Err(0));
        assert_eq!(esc(b"\xf4\x90\x80\x80", ASCII), Err(0));
        assert!(esc("ok é 😀".as_bytes(), VALIDATE_UTF8).is_ok());
    }

    #[test]
    fn matches_std_on_every_short_sequence() {
        // Every 1- to 3-byte input over an interesting alphabet: validation
        // agrees with std, and ascii output decodes back to the input.
        let alphabet = [0x00, 0x22, 0x2f, 0x41, 0x7f, 0x80, 0xa8, 0xbf, 0xc2, 0xe2, 0xed, 0xf0, 0xf4, 0xff];
        let mut inputs = vec![vec![]];
        for _ in 0..3 {
            let prev = inputs.clone();
            for p in prev {
                for &b in &alphabet {
                    let mut v = p.clone();
                    v.push(b);
                    inputs.push(v);
                }
            }
        }
        for s in inputs {
            let valid = std::str::from_utf8(&s).is_ok();
            assert_eq!(esc(&s, VALIDATE_UTF8).is_ok(), valid, "{s:?}");
            assert_eq!(esc(&s, ASCII).is_ok(), valid, "{s:?}");
        }
    }

    /// Byte-at-a-time reference over a decoded string.
    fn reference(s: &str, flags: u32) -> String {
        let mut out = String::new();
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '/' if flags & ESCAPE_SLASH != 0 => out.push_str("\\/"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\0'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if flags & HTML_SAFE != 0 => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c if flags & ASCII != 0 && c as u32 > 0x7f => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{:04x}", u));
                    }
                }
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn long_random_strings_match_the_reference() {
        let alphabet: Vec<char> = "ab/\"<>&\u{0}\u{1f}\u{7f}\n\té€😀\u{2028}\u{2029}xyz0123456789".chars().collect();
        let mut x: u64 = 0x1234_5678_9abc_def1;
        for len in 0..300 {
            for _ in 0..8 {
                let mut s = String::new();
                for _ in 0..len {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Mostly plain letters, so the 16-byte scan runs.
                    let c = if !x.is_multiple_of(4) { 'q' } else { alphabet[(x >> 8) as usize % alphabet.len()] };
                    s.push(c);
                }
                for flags in 0..16 {
                    assert_eq!(esc(s.as_bytes(), flags).unwrap(), reference(&s, flags), "{s:?} {flags}");
                }
            }
        }
    }

    #[test]
    fn one_stop_byte_anywhere_in_a_short_string() {
        // The short path and the tail check their bytes as words (two
        // overlapping, or first, middle and last): a stop byte at every
        // position of every length up to past a vector block, each
        // stop-byte class in each mode.
        for len in 1..=40 {
            for at in 0..len {
                for stop in ["/", "\"", "\\", "\n", "\u{1}", "\u{7f}", "<", "é"] {
                    let s: String = (0..len).map(|k| if k == at { stop } else { "a" }).collect();
                    for flags in 0..16 {
                        assert_eq!(esc(s.as_bytes(), flags).unwrap(), reference(&s, flags), "{s:?} {flags}");
                    }
                }
            }
        }
    }

    #[test]
    fn chunked_input_stops_before_a_split_sequence() {
        let s = "ab😀".as_bytes();
        let mut out = vec![0u8; 64];
        assert!(out.len() >= 4 * MAX_EXPANSION + SLACK);
        assert_eq!(escape(&s[..4], &mut out, ASCII, false), Escaped::Done { written: 2, consumed: 2 });
        assert_eq!(escape(&s[..4], &mut out, 0, false), Escaped::Done { written: 4, consumed: 4 });
        assert_eq!(escape(&s[..4], &mut out, ASCII, true), Escaped::InvalidUtf8(2));
    }
}
