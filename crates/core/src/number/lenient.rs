//! Numbers as C's `strtod` reads them (lua-cjson's
//! `decode_invalid_numbers`): the scan, and the values Rust's parser does
//! not read (hexadecimal, `nan` with a payload).

use super::is_delimiter;
use crate::error::ErrorKind;

/// Scans a number as C's `strtod` reads one, for lua-cjson's
/// `decode_invalid_numbers`: an optional sign, then `inf`, `infinity` or
/// `nan` (any case; `nan` may carry a `(chars)` payload), hexadecimal
/// (`0x1F`, `0x1.8p3`), or decimal with leading zeros, a bare point or a
/// missing fraction allowed (`01`, `1.`, `-.5`). Like [`scan`], the byte
/// after it must end the token. The flag is true for plain decimal
/// integers.
pub(crate) fn scan_lenient(s: &[u8]) -> Result<(usize, bool), (usize, ErrorKind)> {
    let sign = matches!(s.first(), Some(b'+' | b'-')) as usize;
    let body = &s[sign..];
    // `.5` is no token for lua-cjson (a point cannot start a value).
    if sign == 0 && body.first() == Some(&b'.') {
        return Err((0, ErrorKind::InvalidNumber));
    }
    let (len, integer) = match body.first() {
        Some(b'0'..=b'9' | b'.') => hex_len(body).map_or_else(|| decimal_len(body), |len| (len, false)),
        Some(b'i' | b'I') if starts_with_ignore_case(body, b"infinity") => (8, false),
        Some(b'i' | b'I') if starts_with_ignore_case(body, b"inf") => (3, false),
        Some(b'n' | b'N') if starts_with_ignore_case(body, b"nan") => (3 + nan_payload_len(&body[3..]), false),
        _ => (0, false),
    };
    if len == 0 {
        return Err((sign, ErrorKind::InvalidNumber));
    }
    let end = sign + len;
    match s.get(end) {
        None => Ok((end, integer)),
        Some(&c) if is_delimiter(c) => Ok((end, integer)),
        Some(_) => Err((end, ErrorKind::InvalidNumber)),
    }
}

fn starts_with_ignore_case(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// `(n-char-sequence)` after `nan`, as glibc reads it; 0 when absent.
fn nan_payload_len(s: &[u8]) -> usize {
    if s.first() != Some(&b'(') {
        return 0;
    }
    let inner = s[1..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
    if s.get(1 + inner) == Some(&b')') {
        inner + 2
    } else {
        0
    }
}

/// Length of digits (and of a fraction and a complete exponent after
/// them): `strtod`'s decimal form. The flag is true for an integer.
fn decimal_len(s: &[u8]) -> (usize, bool) {
    let digits = |from: usize| s.get(from..).map_or(0, |t| t.iter().take_while(|c| c.is_ascii_digit()).count());
    let int = digits(0);
    let mut i = int;
    let mut frac = 0;
    if s.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        if int + frac > 0 {
            i += 1 + frac;
        }
    }
    if int + frac == 0 {
        return (0, false);
    }
    let integer = i == int;
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let sign = matches!(s.get(i + 1), Some(b'+' | b'-')) as usize;
        let exp = digits(i + 1 + sign);
        if exp > 0 {
            return (i + 1 + sign + exp, false);
        }
    }
    (i, integer)
}

/// Length of a hexadecimal number (`0x`, hex digits with an optional
/// point, an optional complete `p` exponent), or `None` without a digit.
fn hex_len(s: &[u8]) -> Option<usize> {
    if !(s.len() > 2 && s[0] == b'0' && (s[1] | 0x20) == b'x') {
        return None;
    }
    let digits = |from: usize| s.get(from..).map_or(0, |t| t.iter().take_while(|c| c.is_ascii_hexdigit()).count());
    let int = digits(2);
    let mut i = 2 + int;
    let mut frac = 0;
    if s.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        i += 1 + frac;
    }
    if int + frac == 0 {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let sign = matches!(s.get(i + 1), Some(b'+' | b'-')) as usize;
        let exp = s.get(i + 1 + sign..).map_or(0, |t| t.iter().take_while(|c| c.is_ascii_digit()).count());
        if exp > 0 {
            i += 1 + sign + exp;
        }
    }
    Some(i)
}

/// The value of a number only [`scan_lenient`] admits and Rust's parser
/// does not read: hexadecimal, or `nan` with a payload.
#[cold]
pub(super) fn lenient_to_f64(text: &[u8]) -> f64 {
    let (negative, body) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let v = if starts_with_ignore_case(body, b"nan") {
        f64::NAN
    } else if body.len() > 2 && (body[1] | 0x20) == b'x' {
        hex_to_f64(&body[2..])
    } else {
        f64::NAN
    };
    if negative {
        -v
    } else {
        v
    }
}

/// Hex digits with an optional point and `p` exponent, correctly rounded
/// (to nearest, ties to even) as `strtod` does.
fn hex_to_f64(s: &[u8]) -> f64 {
    let mut mantissa: u64 = 0;
    let mut exp: i64 = 0;
    let mut sticky = false;
    let mut after_point = false;
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c == b'.' {
            after_point = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            if mantissa >> 60 == 0 {
                mantissa = mantissa << 4 | d as u64;
                exp -= 4 * after_point as i64;
            } else {
                // Past 64 bits: only whether anything is left matters.
                sticky |= d != 0;
                exp += 4 * !after_point as i64;
            }
        } else {
            break;
        }
        i += 1;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let (negative, digits) = match s.get(i + 1) {
            Some(b'-') => (true, &s[i + 2..]),
            Some(b'+') => (false, &s[i + 2..]),
            _ => (false, &s[i + 1..]),
        };
        // Saturate: anything past ±100000 is zero or infinity anyway.
        let p = digits
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .fold(0i64, |p, &d| (p * 10 + (d - b'0') as i64).min(100_000));
        exp += if negative { -p } else { p };
    }
    compose(mantissa, sticky, exp)
}

/// `mantissa` × 2^`exp` (plus less than one unit when `sticky`), rounded
/// to the nearest double, ties to even, subnormals included.
fn compose(mantissa: u64, sticky: bool, exp: i64) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let shift_in = mantissa.leading_zeros();
    let m = mantissa << shift_in;
    let exp = exp - shift_in as i64;
    // The value is m × 2^exp with m in [2^63, 2^64): its top bit is 2^top.
    let top = exp + 63;
    if top > 1023 {
        return f64::INFINITY;
    }
    // Significant bits a double keeps at this magnitude (fewer when subnormal).
    let keep = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    if keep <= 0 {
        // Below half the smallest subnormal is zero; above it, rounds up to it.
        let above_half = keep == 0 && (m > 1 << 63 || sticky);
        return if above_half { f64::from_bits(1) } else { 0.0 };
    }
    let drop = (64 - keep) as u32;
    let q = m >> drop;
    let rem = m & ((1u64 << drop) - 1);
    let half = 1u64 << (drop - 1);
    let up = rem > half || (rem == half && (sticky || q & 1 == 1));
    // q (at most 2^53) times a power of two: exact, or infinity on overflow.
    (q + up as u64) as f64 * pow2(exp + drop as i64)
}

/// 2^k for k in -1074..=971, exactly.
fn pow2(k: i64) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}
