//! Numbers: the RFC 8259 grammar, and exact conversions on read.

use crate::error::ErrorKind;

/// Bytes that may end a number or literal.
#[inline(always)]
pub(crate) fn is_delimiter(c: u8) -> bool {
    // A table: as a `match`, the eleven bytes compiled to a jump table
    // whose indirect branch mispredicted on every number.
    DELIMITERS[c as usize]
}

static DELIMITERS: [bool; 256] = {
    let mut t = [false; 256];
    let list = *b" \t\n\r,]}:\"[{";
    let mut i = 0;
    while i < list.len() {
        t[list[i] as usize] = true;
        i += 1;
    }
    t
};

/// Whether a number or literal may start with byte `c`: also `+`, `i`,
/// `I` and `N` (infinity, NaN) when numbers are `lenient`.
#[inline(always)]
pub(crate) fn starts_atom(c: u8, lenient: bool) -> bool {
    matches!(c, b't' | b'f' | b'n' | b'-' | b'0'..=b'9') || (lenient && matches!(c, b'+' | b'i' | b'I' | b'N'))
}

/// The eight bytes at `s[i..]` as a little-endian word, when there are
/// eight.
#[inline(always)]
fn word_at(s: &[u8], i: usize) -> Option<u64> {
    s.get(i..i + 8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
}

/// The value of eight ASCII digits (the first in the lowest byte).
#[inline(always)]
fn eight_digits_value(w: u64) -> u64 {
    let w = w.wrapping_sub(0x3030_3030_3030_3030);
    let w = w.wrapping_mul(10).wrapping_add(w >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    ((w & pairs).wrapping_mul(100 + (1_000_000 << 32)) + ((w >> 16) & pairs).wrapping_mul(1 + (10_000 << 32))) >> 32
}

/// How many of the eight bytes of `w` (the first in the lowest byte) are
/// ASCII digits before the first that is not (SWAR: no loop over bytes).
#[inline(always)]
fn leading_digit_count(w: u64) -> usize {
    // A digit becomes 0..=9; adding 0x76 sets bit 7 of any byte above 9
    // (masked to 7 bits first, so that no byte carries into the next).
    let x = w ^ 0x3030_3030_3030_3030;
    let not_digit = (((x & 0x7F7F_7F7F_7F7F_7F7F) + 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The leading digits of `w` (see [`leading_digit_count`]): their value
/// and how many there are.
#[inline(always)]
fn leading_digits(w: u64) -> (u64, usize) {
    let n = leading_digit_count(w);
    if n == 0 {
        return (0, 0);
    }
    // The digits moved to the top bytes, ASCII zeros below: the same
    // value as eight digits.
    let shift = 64 - 8 * n as u32;
    let zeros = 0x3030_3030_3030_3030u64.checked_shr(64 - shift).unwrap_or(0);
    (eight_digits_value(w.checked_shl(shift).unwrap_or(0) | zeros), n)
}

const POW10_U64: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// Where the run of ASCII digits starting at `s[i]` ends: eight bytes at a
/// time while they last.
#[inline(always)]
fn digits_end(s: &[u8], mut i: usize) -> usize {
    while let Some(w) = word_at(s, i) {
        let n = leading_digit_count(w);
        i += n;
        if n < 8 {
            return i;
        }
    }
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// Reads the run of ASCII digits at `s[i..]` into `mantissa` (wrapping:
/// past 19 digits the count tells it is not exact). Returns where the run
/// ends and how many digits it had.
#[inline(always)]
fn read_digits(s: &[u8], mut i: usize, mantissa: &mut u64) -> (usize, usize) {
    let start = i;
    while let Some(w) = word_at(s, i) {
        let (v, n) = leading_digits(w);
        *mantissa = mantissa.wrapping_mul(POW10_U64[n]).wrapping_add(v);
        i += n;
        if n < 8 {
            return (i, i - start);
        }
    }
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        *mantissa = mantissa.wrapping_mul(10).wrapping_add((d - b'0') as u64);
        i += 1;
    }
    (i, i - start)
}

/// True when `s` starts with a token [`scan`] (or, for a literal, stage
/// 2's check) accepts, found without a loop or a call: a literal, or a
/// number without exponent whose integer and fraction parts have at most
/// 15 digits each (two words read per part). False means "not proven
/// here": the caller takes the full check, which finds any error. Inline
/// in stage 2's loop, which meets one of these at most values.
#[inline(always)]
pub(crate) fn is_plain_atom(s: &[u8]) -> bool {
    // Room for every word read below, so that none needs a bounds check.
    const ROOM: usize = 40;
    if s.len() < ROOM {
        return false;
    }
    let word = |i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let literal = |w: &[u8]| s[..w.len()] == *w && is_delimiter(s[w.len()]);
    match s[0] {
        b't' => return literal(b"true"),
        b'f' => return literal(b"false"),
        b'n' => return literal(b"null"),
        _ => {}
    }
    // At most 15 digits at `s[i..]`: how many (16 means "more").
    let run = |i: usize| {
        let n = leading_digit_count(word(i));
        if n < 8 {
            n
        } else {
            8 + leading_digit_count(word(i + 8))
        }
    };
    let neg = (s[0] == b'-') as usize;
    let n = run(neg);
    if n == 0 || n == 16 || (n > 1 && s[neg] == b'0') {
        return false;
    }
    let mut i = neg + n;
    if s[i] == b'.' {
        let m = run(i + 1);
        if m == 0 || m == 16 {
            return false;
        }
        i += 1 + m;
    }
    is_delimiter(s[i])
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
        Some(b'1'..=b'9') => i = digits_end(s, i + 1),
        _ => return bad(i),
    }
    let mut integer = true;
    if s.get(i) == Some(&b'.') {
        integer = false;
        i += 1;
        if !digit(i) {
            return bad(i);
        }
        i = digits_end(s, i);
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
        i = digits_end(s, i);
    }
    match s.get(i) {
        None => Ok((i, integer)),
        Some(&c) if is_delimiter(c) => Ok((i, integer)),
        Some(_) => bad(i),
    }
}

/// The double nearest to a number already checked by [`scan`] or
/// [`scan_lenient`] (correctly rounded: Rust's `f64::from_str` is
/// Eisel-Lemire with an exact fallback). Rust reads every form either scan
/// admits except hexadecimal and `nan(...)`, which take the slow path.
pub(crate) fn to_f64(text: &[u8]) -> f64 {
    std::str::from_utf8(text).ok().and_then(|t| t.parse().ok()).unwrap_or_else(|| lenient_to_f64(text))
}

/// The nearest double to the number at the start of `s`, which stage 2
/// has already checked (by [`scan`], or [`scan_lenient`] when `lenient`).
/// One pass collects up to 19 digits and the exponent; when the digits fit
/// a double exactly and the power of ten is within 10^22, one correctly
/// rounded multiplication or division is the exact answer (Clinger's fast
/// path); other numbers of up to 19 digits go to Eisel-Lemire with those
/// digits (`compute_float`). Everything else goes to Rust's parser; with
/// `lenient`, so do numbers outside JSON's grammar (hex, NaN, a leading
/// zero...).
#[inline]
pub(crate) fn to_f64_valid(s: &[u8], lenient: bool) -> f64 {
    let negative = s[0] == b'-';
    let mut i = negative as usize;
    let mut mantissa: u64 = 0;
    let mut digits = 0;
    let mut exp10: i64 = 0;
    let (end, n) = read_digits(s, i, &mut mantissa);
    i = end;
    digits += n;
    // JSON's shape, which a lenient number may lack: digits, no leading zero.
    let mut plain = digits > 0 && !(digits > 1 && s[negative as usize] == b'0');
    if s.get(i) == Some(&b'.') {
        i += 1;
        let (end, n) = read_digits(s, i, &mut mantissa);
        i = end;
        digits += n;
        exp10 -= n as i64;
        plain &= n > 0;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative_exp = s.get(i) == Some(&b'-');
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let mut e: i64 = 0;
        let start = i;
        while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
            e = (e * 10 + (d - b'0') as i64).min(1 << 20);
            i += 1;
        }
        plain &= i > start;
        exp10 += if negative_exp { -e } else { e };
    }
    if lenient && !(plain && s.get(i).is_none_or(|&c| is_delimiter(c))) {
        let len = scan_lenient(s).map_or(s.len(), |(len, _)| len);
        return to_f64(&s[..len]);
    }
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    if digits <= 19 {
        if mantissa <= 1 << 53 && (-22..=22).contains(&exp10) {
            let m = mantissa as f64;
            let v = if exp10 < 0 { m / POW10[-exp10 as usize] } else { m * POW10[exp10 as usize] };
            return if negative { -v } else { v };
        }
        // The digits are exact: Eisel-Lemire from them, without parsing
        // the text again (None only near a halfway point). Past ±400 every
        // 19-digit mantissa gives 0 or infinity, so the clamp keeps the
        // result and makes the cast to i32 safe for any exponent.
        if let Some(v) = compute_float::compute_float::<f64>(negative, mantissa, exp10.clamp(-400, 400) as i32) {
            return v;
        }
    }
    // SAFETY: stage 2 admitted only ASCII digits, signs, '.' and 'e'/'E'.
    unsafe { std::str::from_utf8_unchecked(&s[..i]) }.parse().unwrap_or(f64::NAN)
}

/// An integer literal (a sign, digits, and nothing of a fraction or an
/// exponent after them) as lua-cjson reads one: C's `strtoll`, which stops
/// at ±2^63 (saturating), converted to a double, so `-0` is 0. None when
/// the literal has a fraction or an exponent.
pub(crate) fn strtoll_f64(s: &[u8]) -> Option<f64> {
    let negative = s.first() == Some(&b'-');
    let mut i = negative as usize;
    let mut v: i128 = 0;
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        v = (v * 10 + (d - b'0') as i128).min(1 << 64);
        i += 1;
    }
    if matches!(s.get(i), Some(b'.' | b'e' | b'E' | b'x')) {
        return None;
    }
    let v = if negative { (-v).max(i64::MIN as i128) } else { v.min(i64::MAX as i128) };
    Some(v as i64 as f64)
}

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
fn lenient_to_f64(text: &[u8]) -> f64 {
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

    /// The full check `is_plain_atom` stands in for.
    fn full_check(s: &[u8]) -> bool {
        match s[0] {
            b't' | b'f' | b'n' => {
                let w: &[u8] = [&b"true"[..], b"false", b"null"].into_iter().find(|w| w[0] == s[0]).unwrap();
                s.starts_with(w) && s.get(w.len()).is_none_or(|&c| is_delimiter(c))
            }
            _ => scan(s).is_ok(),
        }
    }

    #[test]
    fn plain_atoms_are_valid_atoms() {
        // Random tokens over the bytes that matter, padded past the fast
        // path's room: whatever it accepts, the full check accepts.
        let alphabet = b"0123456789-.eE+ ,]}tfrunlsaex\"";
        let mut x = 0x9e37_79b9_u32;
        let mut accepted = 0;
        for _ in 0..300_000 {
            let mut s = Vec::new();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let len = 1 + x as usize % 36;
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // Digits most of the time, so that long runs occur.
                let c = if !x.is_multiple_of(3) {
                    b'0' + (x >> 8) as u8 % 10
                } else {
                    alphabet[(x >> 8) as usize % alphabet.len()]
                };
                s.push(c);
            }
            s.extend_from_slice(&[b' '; 40]);
            if is_plain_atom(&s) {
                accepted += 1;
                assert!(full_check(&s), "{:?}", String::from_utf8_lossy(&s));
            }
        }
        assert!(accepted > 1000, "the fast path accepted only {accepted}");
        // And it does take the common forms.
        for ok in
            ["0,", "-0}", "12345678]", "123456789012345 ", "-65.613616999999977,", "0.5]", "true,", "false}", "null "]
        {
            let mut s = ok.as_bytes().to_vec();
            s.extend_from_slice(&[b' '; 40]);
            assert!(is_plain_atom(&s), "{ok}");
        }
        for slow in ["1e5,", "1234567890123456,", "0.1234567890123456 ", "01,", "1.,", "-,", "truex", "nul,"] {
            let mut s = slow.as_bytes().to_vec();
            s.extend_from_slice(&[b' '; 40]);
            assert!(!is_plain_atom(&s), "{slow}");
        }
    }

    #[test]
    fn strtoll_f64_reads_integers_as_lua_cjson() {
        assert_eq!(strtoll_f64(b"-0").map(f64::to_bits), Some(0f64.to_bits()));
        assert_eq!(strtoll_f64(b"123,"), Some(123.0));
        assert_eq!(strtoll_f64(b"99999999999999999999]"), Some(9223372036854775807i64 as f64));
        assert_eq!(strtoll_f64(b"-99999999999999999999"), Some(-9223372036854775808.0));
        assert_eq!(strtoll_f64(b"-0.0"), None);
        assert_eq!(strtoll_f64(b"1e400"), None);
        assert_eq!(strtoll_f64(b"1E5"), None);
    }

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
    fn eight_digits_at_once() {
        let w = |t: &[u8; 8]| u64::from_le_bytes(*t);
        assert_eq!(leading_digit_count(w(b"01234567")), 8);
        assert_eq!(leading_digit_count(w(b"99999999")), 8);
        // Every byte value after a run of each length: only digits count.
        for n in 0..8 {
            for c in 0..=255u8 {
                let mut t = *b"55555555";
                t[n] = c;
                let expect = if c.is_ascii_digit() { 8 } else { n };
                assert_eq!(leading_digit_count(w(&t)), expect, "{t:?}");
            }
        }
        assert_eq!(leading_digits(w(b"1234567,")), (1_234_567, 7));
        assert_eq!(leading_digits(w(b"371}    ")), (371, 3));
        assert_eq!(leading_digits(w(b"x1234567")), (0, 0));
        assert_eq!(leading_digits(w(b"98765432")), (98_765_432, 8));
        assert_eq!(eight_digits_value(w(b"01234567")), 1_234_567);
        assert_eq!(eight_digits_value(w(b"99999999")), 99_999_999);
        assert_eq!(digits_end(b"123456789012345678x", 0), 18);
        assert_eq!(digits_end(b"12", 0), 2);
        let mut m = 0;
        assert_eq!(read_digits(b"1234567890123,", 0, &mut m), (13, 13));
        assert_eq!(m, 1_234_567_890_123);
    }

    #[test]
    fn lenient_grammar() {
        // What lua-cjson (C's strtod) reads with decode_invalid_numbers on.
        let ok = [
            ("NaN", false),
            ("-nan", false),
            ("nan(12_ab)", false),
            ("Infinity", false),
            ("-INF", false),
            ("+inf", false),
            ("0x10", false),
            ("-0X1f", false),
            ("0x1.8p1", false),
            ("0x.8", false),
            ("+1", true),
            ("01", true),
            ("-01", true),
            ("1.", false),
            ("-.5", false),
            ("1.e5", false),
            ("00", true),
            ("1e400", false),
            ("7", true),
        ];
        for (text, integer) in ok {
            assert_eq!(scan_lenient(text.as_bytes()), Ok((text.len(), integer)), "{text}");
        }
        for bad in ["infinit", "nan(", "0x", "0x1p", "1e", "1E+", "-", "+", ".5", "0x1g", "1_0", "nul", "- 1"] {
            assert!(scan_lenient(bad.as_bytes()).is_err(), "{bad}");
        }
        assert_eq!(scan_lenient(b"nan,"), Ok((3, false)));
    }

    #[test]
    fn lenient_values() {
        let v = |t: &str| to_f64(t.as_bytes());
        assert!(v("NaN").is_nan() && v("-nan").is_nan() && v("nan(1)").is_nan());
        assert_eq!(v("-Infinity"), f64::NEG_INFINITY);
        assert_eq!(v("+inf"), f64::INFINITY);
        assert_eq!(v("0x10"), 16.0);
        assert_eq!(v("-0x10"), -16.0);
        assert_eq!(v("0x1.8p1"), 3.0);
        assert_eq!(v("0x.8"), 0.5);
        assert_eq!(v("0x7fffffffffffffffff"), 2.3611832414348226e21);
        assert_eq!(v("0x1p-1074"), f64::from_bits(1));
        assert_eq!(v("0x1p-1075"), 0.0); // a tie, to even
        assert_eq!(v("0x1.8p-1075"), f64::from_bits(1));
        assert_eq!(v("0x1p1024"), f64::INFINITY);
        assert_eq!(v("0x1.fffffffffffff8p1023"), f64::INFINITY); // rounds up past the largest
        assert_eq!(v("01"), 1.0);
        assert_eq!(v("-.5"), -0.5);
    }

    /// The one-pass conversion agrees with Rust's parser everywhere,
    /// around the fast path's limits especially.
    #[test]
    fn valid_numbers_convert_exactly() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let fixed = [
            "0",
            "-0",
            "9007199254740992",
            "9007199254740993",
            "-9007199254740993",
            "1e22",
            "1e23",
            "123456789e-22",
            "0.1",
            "3.14159",
            "1.7976931348623157e308",
            "5e-324",
            "12345678901234567890",
            "1234567890123456789",
            "0.000001234",
            "1E+2",
            "-65.613616999999977",
            "2.2250738585072014E-308",
            "2.2250738585072011e-308",
            "4503599627370497.5",
            "9007199254740994.9999",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "1e-400",
            "123e400",
            "0e999999",
            "-0.0e-5",
            "18446744073709551615e-10",
        ];
        for text in fixed {
            let want: f64 = text.parse().unwrap();
            assert_eq!(to_f64_valid(text.as_bytes(), false).to_bits(), want.to_bits(), "{text}");
            assert_eq!(to_f64_valid(text.as_bytes(), true).to_bits(), want.to_bits(), "{text}");
        }
        // Lenient forms take the slow path and get strtod's value.
        for (text, want) in [("0x10,", 16.0), ("01]", 1.0), ("1.}", 1.0), ("-.5 ", -0.5), ("+2", 2.0), ("1e5]", 1e5)] {
            assert_eq!(to_f64_valid(text.as_bytes(), true), want, "{text}");
        }
        assert!(to_f64_valid(b"NaN", true).is_nan());
        for _ in 0..300_000 {
            let r = next();
            let mut text = String::new();
            if r & 1 == 1 {
                text.push('-');
            }
            let int_digits = 1 + (r >> 1) % 20;
            text.push_str(&format!("{}", 1 + next() % 9));
            for _ in 1..int_digits {
                text.push(char::from(b'0' + (next() % 10) as u8));
            }
            if r & 2 == 2 {
                text.push('.');
                for _ in 0..1 + (r >> 8) % 12 {
                    text.push(char::from(b'0' + (next() % 10) as u8));
                }
            }
            if r & 4 == 4 {
                // Mostly near 1, some to the ends of the doubles and past.
                let span = if r & 8 == 8 { 700 } else { 80 };
                text.push_str(&format!("e{}", (next() % span) as i64 - span as i64 / 2));
            }
            let want: f64 = text.parse().unwrap();
            // Followed by a delimiter, as in a document.
            let doc = format!("{text},");
            assert_eq!(to_f64_valid(doc.as_bytes(), false).to_bits(), want.to_bits(), "{text}");
        }
    }

    extern "C" {
        fn strtod(s: *const std::ffi::c_char, end: *mut *mut std::ffi::c_char) -> f64;
    }

    /// Hexadecimal numbers round exactly as the C library's `strtod`.
    #[test]
    fn hex_matches_strtod() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..50_000 {
            let r = next();
            let digits = 1 + (r % 24) as usize;
            let mut text = String::from("0x");
            for k in 0..digits {
                if k == (r >> 8) as usize % (digits + 1) {
                    text.push('.');
                }
                // Mostly zeros and f's, to reach ties and carries often.
                let d = match next() % 4 {
                    0 => 0,
                    1 => 15,
                    _ => next() % 16,
                };
                text.push(char::from_digit(d as u32, 16).unwrap());
            }
            let exp = (next() % 2400) as i64 - 1200;
            text.push_str(&format!("p{exp}"));
            let c = std::ffi::CString::new(text.clone()).unwrap();
            // SAFETY: a NUL-terminated string; the end pointer is not needed.
            let want = unsafe { strtod(c.as_ptr(), std::ptr::null_mut()) };
            assert_eq!(to_f64(text.as_bytes()).to_bits(), want.to_bits(), "{text}");
        }
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
