//! Reading strings out of the input: finding the end, unescaping, and
//! comparing a key with a path segment without unescaping when possible.

use crate::arch::strings::hex4;
pub(crate) use crate::arch::strings::quote_or_backslash;
use crate::error::ErrorKind;

/// Where a string body ends. `body` starts after the opening quote.
/// Returns the length of the body (up to the closing quote) and whether
/// it holds any escape.
#[inline]
pub(crate) fn body_len(body: &[u8]) -> Option<(usize, bool)> {
    let first = quote_or_backslash(body)?;
    if body[first] == b'"' {
        return Some((first, false));
    }
    let mut i = first;
    loop {
        // `i` is at a backslash: skip it and the escaped byte.
        i += 2;
        let next = i + quote_or_backslash(body.get(i..)?)?;
        if body[next] == b'"' {
            return Some((next, true));
        }
        i = next;
    }
}

/// Where [`unescape`] writes: a growable buffer, or a fixed one (a document
/// placed in caller memory) that is at least as long as any body it gets,
/// since decoding never lengthens a string.
pub(crate) trait Sink {
    fn start(&mut self, body_len: usize);
    fn extend_from_slice(&mut self, s: &[u8]);
    fn push(&mut self, b: u8);
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn start(&mut self, body_len: usize) {
        self.clear();
        self.reserve(body_len);
    }
    #[inline(always)]
    fn extend_from_slice(&mut self, s: &[u8]) {
        Vec::extend_from_slice(self, s)
    }
    #[inline(always)]
    fn push(&mut self, b: u8) {
        Vec::push(self, b)
    }
}

/// The end of a buffer that holds other strings before `from`.
pub(crate) struct Append<'b> {
    pub buf: &'b mut Vec<u8>,
    pub from: usize,
}

impl Sink for Append<'_> {
    #[inline(always)]
    fn start(&mut self, body_len: usize) {
        self.buf.truncate(self.from);
        self.buf.reserve(body_len);
    }
    #[inline(always)]
    fn extend_from_slice(&mut self, s: &[u8]) {
        self.buf.extend_from_slice(s)
    }
    #[inline(always)]
    fn push(&mut self, b: u8) {
        self.buf.push(b)
    }
}

/// A fixed buffer and how much of it is written.
pub(crate) struct FixedSink<'b> {
    pub buf: &'b mut [u8],
    pub len: usize,
}

impl Sink for FixedSink<'_> {
    #[inline(always)]
    fn start(&mut self, _: usize) {
        self.len = 0;
    }
    #[inline(always)]
    fn extend_from_slice(&mut self, s: &[u8]) {
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }
    #[inline(always)]
    fn push(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }
}

/// Decodes an escaped string body into `out` (cleared first). Errors (only
/// possible in lazy mode, where stage 1 did not check escapes) carry the
/// offset within `body` of the offending backslash.
pub(crate) fn unescape(body: &[u8], out: &mut impl Sink) -> Result<(), (usize, ErrorKind)> {
    out.start(body.len());
    let mut i = 0;
    while i < body.len() {
        let Some(off) = memchr::memchr(b'\\', &body[i..]) else {
            out.extend_from_slice(&body[i..]);
            break;
        };
        out.extend_from_slice(&body[i..i + off]);
        i = decode_escape(body, i + off, out)?;
    }
    Ok(())
}

/// What [`read_to_quote`] found.
#[derive(Debug, PartialEq)]
pub(crate) enum Read<'i> {
    /// No escape: the body, borrowed from the input.
    Raw(&'i [u8]),
    /// Escapes: the body, this many bytes of the input, was decoded into
    /// the sink.
    Decoded(usize),
    /// No quote ends the body.
    Unterminated,
}

/// Reads a string body (the bytes after its opening quote) of a strict
/// document, whose escapes stage 1 checked, in one pass: the first quote
/// or backslash decides whether it is borrowed as it is or decoded into
/// `out` (cleared first) on the way to its closing quote. Errors carry the
/// offset of the bad escape's backslash, as [`unescape`]'s do.
#[inline(always)]
pub(crate) fn read_to_quote<'i>(body: &'i [u8], out: &mut impl Sink) -> Result<Read<'i>, (usize, ErrorKind)> {
    let Some(first) = quote_or_backslash(body) else { return Ok(Read::Unterminated) };
    if body[first] == b'"' {
        return Ok(Read::Raw(&body[..first]));
    }
    Ok(match unescape_to_quote(body, first, out)? {
        Some(len) => Read::Decoded(len),
        None => Read::Unterminated,
    })
}

/// Decodes a string body that holds an escape, from its start to its
/// closing quote, into `out` (cleared first): `first` is where its first
/// backslash is. Returns the body's length in the input, or `None` when
/// no quote ends it.
fn unescape_to_quote(body: &[u8], first: usize, out: &mut impl Sink) -> Result<Option<usize>, (usize, ErrorKind)> {
    out.start(first);
    out.extend_from_slice(&body[..first]);
    let mut i = decode_escape(body, first, out)?;
    loop {
        let Some(off) = body.get(i..).and_then(quote_or_backslash) else { return Ok(None) };
        out.extend_from_slice(&body[i..i + off]);
        if body[i + off] == b'"' {
            return Ok(Some(i + off));
        }
        i = decode_escape(body, i + off, out)?;
    }
}

/// Decodes the escape whose backslash is at `bs` into `out`; returns
/// where the body goes on after it.
#[inline(always)]
fn decode_escape(body: &[u8], bs: usize, out: &mut impl Sink) -> Result<usize, (usize, ErrorKind)> {
    let bad = |k| Err((bs, k));
    let Some(&c) = body.get(bs + 1) else { return bad(ErrorKind::InvalidEscape) };
    let mut i = bs + 2;
    let byte = match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => {
            let Some(hi) = hex4(&body[i..]) else { return bad(ErrorKind::InvalidUnicodeEscape) };
            i += 4;
            let cp = match hi {
                0xD800..=0xDBFF => {
                    let lo = match body.get(i..i + 2) {
                        Some(b"\\u") => hex4(&body[i + 2..]),
                        _ => None,
                    };
                    match lo {
                        Some(lo @ 0xDC00..=0xDFFF) => {
                            i += 6;
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        _ => return bad(ErrorKind::LoneSurrogate),
                    }
                }
                0xDC00..=0xDFFF => return bad(ErrorKind::LoneSurrogate),
                cp => cp,
            };
            let ch = char::from_u32(cp).expect("surrogates handled above");
            out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
            return Ok(i);
        }
        _ => return bad(ErrorKind::InvalidEscape),
    };
    out.push(byte);
    Ok(i)
}

/// Does the key whose body starts at `body` equal `want` (already
/// unescaped)? Compares raw bytes until the first backslash, which is all
/// that most keys need; escaped keys are decoded and compared whole.
#[inline]
pub(crate) fn key_eq(body: &[u8], want: &[u8]) -> bool {
    let mut k = 0;
    loop {
        let Some(&r) = body.get(k) else { return false };
        if r == b'\\' {
            return key_eq_escaped(body, want);
        }
        if r == b'"' {
            return k == want.len();
        }
        if k == want.len() || r != want[k] {
            return false;
        }
        k += 1;
    }
}

#[cold]
fn key_eq_escaped(body: &[u8], want: &[u8]) -> bool {
    let Some((len, _)) = body_len(body) else { return false };
    let mut buf = Vec::new();
    unescape(&body[..len], &mut buf).is_ok() && buf == want
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends() {
        for n in 0..80 {
            let mut s = vec![b'x'; n];
            assert_eq!(body_len(&s), None);
            s.push(b'"');
            s.extend_from_slice(b"abc\"");
            assert_eq!(body_len(&s), Some((n, false)), "{n}");
            s[n] = b'\\';
            assert_eq!(body_len(&s), Some((n + 4, true)), "{n}");
        }
        assert_eq!(body_len("é\"".as_bytes()), Some((2, false)));
        assert_eq!(body_len(b"abc\" x"), Some((3, false)));
        assert_eq!(body_len(b"a\\\"b\""), Some((4, true)));
        assert_eq!(body_len(b"a\\\\\""), Some((3, true)));
        assert_eq!(body_len(b"abc"), None);
    }

    #[test]
    fn decodes() {
        let mut out = Vec::new();
        unescape(br#"a\n\u00e9\ud83d\ude00\/"#, &mut out).unwrap();
        assert_eq!(out, "a\né😀/".as_bytes());
        assert_eq!(unescape(br"\ud800", &mut out), Err((0, ErrorKind::LoneSurrogate)));
        assert_eq!(unescape(br"ab\x", &mut out), Err((2, ErrorKind::InvalidEscape)));
    }

    /// The one-pass read finds the same end and the same bytes as
    /// `body_len` then `unescape`, into both kinds of sink, with escapes
    /// at every position (as the first, next to each other, last, before
    /// and across the 16-byte steps of the search).
    #[test]
    fn reads_to_the_quote_as_the_two_passes_do() {
        let pieces: [&[u8]; 10] = [
            b"x",
            b"\xc3\xa9",
            b"\\n",
            b"\\\"",
            b"\\\\",
            b"\\/",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"abcdefghijklmnop",
            b"",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut body = Vec::new();
            for _ in 0..(seed % 9) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                body.extend_from_slice(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let mut closed = body.clone();
            closed.extend_from_slice(b"\",\"tail\"");
            let (len, escaped) = body_len(&closed).unwrap();
            assert_eq!(len, body.len());
            let mut two = Vec::new();
            unescape(&body, &mut two).unwrap();
            let Some(first) = quote_or_backslash(&closed).filter(|&f| closed[f] == b'\\') else {
                assert!(!escaped, "{body:?}");
                assert_eq!(read_to_quote(&closed, &mut Vec::new()), Ok(Read::Raw(&body[..])));
                continue;
            };
            assert!(escaped, "{body:?}");
            let mut heap = vec![b'?'; 3];
            let mut buf = [b'?'; 256];
            let mut fixed = FixedSink { buf: &mut buf, len: 7 };
            assert_eq!(unescape_to_quote(&closed, first, &mut heap), Ok(Some(len)));
            assert_eq!(unescape_to_quote(&closed, first, &mut fixed), Ok(Some(len)));
            assert_eq!(heap, two);
            assert_eq!(&fixed.buf[..fixed.len], &two[..]);
            assert_eq!(unescape_to_quote(&body, first, &mut heap), Ok(None), "{body:?}: no closing quote");
            let mut three = Vec::new();
            assert_eq!(read_to_quote(&closed, &mut three), Ok(Read::Decoded(len)));
            assert_eq!(three, two);
            assert_eq!(read_to_quote(&body, &mut three), Ok(Read::Unterminated), "{body:?}");
        }
        assert_eq!(unescape_to_quote(br#"ab\x""#, 2, &mut Vec::new()), Err((2, ErrorKind::InvalidEscape)));
    }

    #[test]
    fn keys() {
        assert!(key_eq(b"model\":", b"model"));
        assert!(!key_eq(b"models\":", b"model"));
        assert!(!key_eq(b"mode\":", b"model"));
        assert!(key_eq(b"\\u0061\":", b"a"));
        assert!(key_eq(b"a\\\\b\"", b"a\\b"));
        assert!(!key_eq(b"a\\\"\"", b"a\\"));
        assert!(!key_eq(b"a\":", b"a\""));
    }
}
