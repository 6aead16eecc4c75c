//! From number text to a value: the nearest double (with a fast path for
//! text stage 2 checked), exact integers, lua-cjson's integer reading and
//! I-JSON's range.

use super::digits::read_digits;
use super::is_delimiter;
use super::lenient::{lenient_to_f64, scan_lenient};

/// The largest integer a double holds exactly with every smaller one
/// (2^53 - 1): integers beyond it may have been rounded.
pub(crate) const MAX_SAFE_INTEGER: f64 = 9007199254740991.0;

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
/// digits (`lemire`). Everything else goes to Rust's parser; with
/// `lenient`, so do numbers outside JSON's grammar (hex, NaN, a leading
/// zero...).
#[inline]
pub(crate) fn to_f64_valid(s: &[u8], lenient: bool) -> f64 {
    let (v, end, plain, _) = read(s);
    if lenient && !(plain && s.get(end).is_none_or(|&c| is_delimiter(c))) {
        let len = scan_lenient(s).map_or(s.len(), |(len, _)| len);
        return to_f64(&s[..len]);
    }
    v
}

/// The number at the start of `s`, unchecked: its value and length when
/// it is one by JSON's grammar (`scan`), followed by a delimiter or the
/// end; else `None`. One pass, as [`to_f64_valid`]'s.
#[inline(always)]
pub(crate) fn to_f64_checked(s: &[u8]) -> Option<(f64, usize)> {
    to_number_checked(s).map(|(v, end, _)| (v, end))
}

/// What [`to_f64_checked`] gives, and the same pass's reading as an
/// integer: `Some(Some(i))` for an integer literal of up to 18 digits
/// (exact in an `i64`), `Some(None)` for a longer one, `None` for a
/// number with a fraction or an exponent.
#[inline(always)]
pub(crate) fn to_number_checked(s: &[u8]) -> Option<(f64, usize, Option<Option<i64>>)> {
    let (v, end, plain, integer) = read(s);
    (plain && s.get(end).is_none_or(|&c| is_delimiter(c))).then_some((v, end, integer))
}

/// The one pass of [`to_f64_valid`]: the value read as JSON's grammar has
/// it, where the reading stopped, and whether what it read has JSON's
/// shape (digits where the grammar needs them, no leading zero); and for
/// an integer literal, its value when it has at most 18 digits (see
/// [`to_number_checked`]).
#[inline(always)]
fn read(s: &[u8]) -> (f64, usize, bool, Option<Option<i64>>) {
    let negative = s.first() == Some(&b'-');
    let mut i = negative as usize;
    let mut mantissa: u64 = 0;
    let mut digits = 0;
    let mut exp10: i64 = 0;
    let (end, n) = read_digits(s, i, &mut mantissa);
    i = end;
    digits += n;
    // JSON's shape, which a lenient number may lack: digits, no leading zero.
    let mut plain = digits > 0 && !(digits > 1 && s[negative as usize] == b'0');
    // Up to 18 digits, the mantissa is the literal's exact value.
    let mut integer =
        Some((digits <= 18).then(|| if negative { (mantissa as i64).wrapping_neg() } else { mantissa as i64 }));
    if s.get(i) == Some(&b'.') {
        integer = None;
        i += 1;
        let (end, n) = read_digits(s, i, &mut mantissa);
        i = end;
        digits += n;
        exp10 -= n as i64;
        plain &= n > 0;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        integer = None;
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
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    if digits <= 19 {
        if mantissa <= 1 << 53 && (-22..=22).contains(&exp10) {
            let m = mantissa as f64;
            let v = if exp10 < 0 { m / POW10[-exp10 as usize] } else { m * POW10[exp10 as usize] };
            return (if negative { -v } else { v }, i, plain, integer);
        }
        // The digits are exact: Eisel-Lemire from them, without parsing
        // the text again (None only near a halfway point).
        if let Some(v) = super::lemire::to_f64(negative, mantissa, exp10) {
            return (v, i, plain, integer);
        }
    }
    // SAFETY: the reading above passed only ASCII digits, signs, '.' and
    // 'e'/'E'.
    let v = unsafe { std::str::from_utf8_unchecked(&s[..i]) }.parse().unwrap_or(f64::NAN);
    (v, i, plain, integer)
}

/// An integer literal (a sign, then nothing but digits up to the next
/// delimiter) as lua-cjson reads one: C's `strtoll`, which stops at ±2^63
/// (saturating), converted to a double, so `-0` is 0. None for any other
/// literal, which keeps `strtod`'s reading: no digit after the sign
/// (`Infinity`), a fraction or an exponent (lua-cjson then calls
/// `strtod`), or more after the digits (`0X1p999999`, a hexadecimal
/// float to `strtod`, which lua-cjson rejects and qjson's invalid numbers
/// admit whole).
pub(crate) fn strtoll_f64(s: &[u8]) -> Option<f64> {
    let negative = s.first() == Some(&b'-');
    let start = usize::from(matches!(s.first(), Some(b'-' | b'+')));
    let mut i = start;
    let mut v: i128 = 0;
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        v = (v * 10 + (d - b'0') as i128).min(1 << 64);
        i += 1;
    }
    if i == start || s.get(i).is_some_and(|&c| !is_delimiter(c)) {
        return None;
    }
    let v = if negative { (-v).max(i64::MIN as i128) } else { v.min(i64::MAX as i128) };
    Some(v as i64 as f64)
}

/// The integer literal at the start of `s` (digits, an optional `-`,
/// then a delimiter or the end), exactly, when it is within the int64
/// range; past the range, `None`, or with `saturate` the bound C's
/// `strtoll` stops at. `None` for a fraction, an exponent or any other
/// form.
#[inline(always)]
pub(crate) fn integer_prefix(s: &[u8], saturate: bool) -> Option<i64> {
    let negative = s.first() == Some(&b'-');
    let mut i = negative as usize;
    let start = i;
    let mut v: u64 = 0;
    let mut over = false;
    while let Some(&d) = s.get(i).filter(|d| d.is_ascii_digit()) {
        match v.checked_mul(10).and_then(|v| v.checked_add((d - b'0') as u64)) {
            Some(n) => v = n,
            None => over = true,
        }
        i += 1;
    }
    if i == start || s.get(i).is_some_and(|&c| !is_delimiter(c)) {
        return None;
    }
    let bound = if negative { 1u64 << 63 } else { i64::MAX as u64 };
    if over || v > bound {
        return saturate.then_some(if negative { i64::MIN } else { i64::MAX });
    }
    Some(if negative { (v as i64).wrapping_neg() } else { v as i64 })
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
