//! Numbers: the RFC 8259 grammar, and exact conversions on read.

use crate::error::ErrorKind;

/// Bytes that may end a number or literal.
#[inline(always)]
pub(crate) fn is_delimiter(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}' | b':' | b'"' | b'[' | b'{')
}

/// Scans a number starting at `s[0]`, strictly by the grammar
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and returns its
/// length and whether it is an integer (no fraction, no exponent). The byte
/// after it must be a delimiter or the end of input.
#[inline]
pub(crate) fn scan(s: &[u8]) -> Result<(usize, bool), (usize, ErrorKind)> {
    let bad = |i: usize| Err((i, ErrorKind::InvalidNumber));
    let digit = |i: usize| s.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    if s.first() == Some(&b'-') {
        i = 1;
    }
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            i += 1;
            while digit(i) {
                i += 1;
            }
        }
        _ => return bad(i),
    }
    let mut integer = true;
    if s.get(i) == Some(&b'.') {
        integer = false;
        i += 1;
        if !digit(i) {
            return bad(i);
        }
        while digit(i) {
            i += 1;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        integer = false;
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digit(i) {
            return bad(i);
        }
        while digit(i) {
            i += 1;
        }
    }
    match s.get(i) {
        None => Ok((i, integer)),
        Some(&c) if is_delimiter(c) => Ok((i, integer)),
        Some(_) => bad(i),
    }
}

/// The double nearest to a number already checked by [`scan`] (correctly
/// rounded: Rust's `f64::from_str` is Eisel-Lemire with an exact fallback).
pub(crate) fn to_f64(text: &[u8]) -> f64 {
    // SAFETY of unwrap: `scan` admitted only ASCII digits, signs, '.', 'e'.
    std::str::from_utf8(text).ok().and_then(|t| t.parse().ok()).unwrap_or(f64::NAN)
}

/// Exact integer conversions: `None` when the text has a fraction or an
/// exponent, or is outside the type's range.
pub(crate) fn to_i64(text: &[u8]) -> Option<i64> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

pub(crate) fn to_u64(text: &[u8]) -> Option<u64> {
    // "-0" is the integer zero; any other sign is out of range.
    let digits = match text {
        [b'-', rest @ ..] if rest.iter().all(|&d| d == b'0') => rest,
        _ => text,
    };
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// I-JSON (RFC 7493 §2.2): the number must fit binary64 without overflow,
/// and an integer must be exactly representable (|n| <= 2^53).
pub(crate) fn fits_ijson(text: &[u8], integer: bool) -> bool {
    if integer {
        // Exactly, not after rounding: 2^53 + 1 rounds to 2^53.
        let n: Option<i128> = std::str::from_utf8(text).ok().and_then(|t| t.parse().ok());
        return n.is_some_and(|n| n.unsigned_abs() <= 1 << 53);
    }
    to_f64(text).is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        for ok in ["0", "-0", "1", "-12", "1.5", "1e5", "1E+5", "1e-5", "0.0e0", "123456789012345678901234567890"] {
            assert!(scan(ok.as_bytes()).is_ok(), "{ok}");
        }
        for bad in ["-", "01", "1.", ".1", "1e", "1e+", "+1", "-a", "1.e1", "00", "1x", "0x10", "Infinity"] {
            assert!(scan(bad.as_bytes()).is_err(), "{bad}");
        }
        assert_eq!(scan(b"12,"), Ok((2, true)));
        assert_eq!(scan(b"1.5]"), Ok((3, false)));
    }

    #[test]
    fn conversions() {
        assert_eq!(to_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(to_i64(b"9223372036854775808"), None);
        assert_eq!(to_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(to_u64(b"-1"), None);
        assert_eq!(to_u64(b"-0"), Some(0));
        assert_eq!(to_f64(b"0.1"), 0.1);
        assert!(fits_ijson(b"9007199254740992", true));
        assert!(!fits_ijson(b"9007199254740993", true));
        assert!(!fits_ijson(b"1e400", false));
    }
}
