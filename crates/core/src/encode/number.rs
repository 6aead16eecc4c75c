//! Number text for the encoder: C's `%.{p}g` (what lua-cjson prints, with
//! `p` from `encode_number_precision`), and the shortest text that reads
//! back to the same double. Callers deal with NaN and infinities first.

use std::fmt::Write;

/// Longest output: `-` + 17 digits + `.` + `e-308` fits easily; `%.17g` of
/// a tiny subnormal is `-4.9406564584124654e-324` (24 bytes).
pub const MAX_LEN: usize = 32;

/// A fixed buffer `fmt::Write` can fill without allocating.
struct Stack {
    buf: [u8; 40],
    len: usize,
}

impl Write for Stack {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Significant digits (no leading or trailing zeros, at least one digit)
/// and the decimal exponent of the first one: value = 0.d1d2... × 10^(exp+1).
struct Decimal<'a> {
    negative: bool,
    digits: &'a [u8],
    exp: i32,
}

/// Parses `[-]d[.ddd][e[-]x]` as Rust's `{:e}` and ryu write it.
fn parse<'a>(text: &[u8], digits: &'a mut [u8; 40]) -> Decimal<'a> {
    let negative = text.first() == Some(&b'-');
    let mut n = 0usize;
    let mut point: Option<usize> = None;
    let mut i = negative as usize;
    while i < text.len() && text[i] != b'e' && text[i] != b'E' {
        match text[i] {
            b'.' => point = Some(n),
            d => {
                digits[n] = d;
                n += 1;
            }
        }
        i += 1;
    }
    let mut e: i32 = 0;
    if i < text.len() {
        i += 1;
        let minus = text.get(i) == Some(&b'-');
        if minus || text.get(i) == Some(&b'+') {
            i += 1;
        }
        while i < text.len() {
            e = e * 10 + (text[i] - b'0') as i32;
            i += 1;
        }
        if minus {
            e = -e;
        }
    }
    // Exponent of the first digit as written.
    let mut exp = e + point.unwrap_or(n) as i32 - 1;
    let mut start = 0;
    while start < n - 1 && digits[start] == b'0' {
        start += 1;
        exp -= 1;
    }
    let mut end = n;
    while end > start + 1 && digits[end - 1] == b'0' {
        end -= 1;
    }
    if digits[start] == b'0' {
        exp = 0;
    }
    Decimal { negative, digits: &digits[start..end], exp }
}

/// Writes `d` in the style of `%g` with precision `p`: plain notation when
/// -4 <= exp < p, otherwise `d.ddde±XX`; no trailing zeros.
fn style(d: &Decimal<'_>, p: i32, out: &mut [u8]) -> usize {
    let mut w = 0;
    let mut put = |b: u8| {
        out[w] = b;
        w += 1;
    };
    if d.negative {
        put(b'-');
    }
    let digits = d.digits;
    let x = d.exp;
    if (-4..p).contains(&x) {
        if x < 0 {
            put(b'0');
            put(b'.');
            for _ in 0..(-x - 1) {
                put(b'0');
            }
            digits.iter().for_each(|&c| put(c));
        } else {
            let int_len = x as usize + 1;
            for k in 0..int_len {
                put(*digits.get(k).unwrap_or(&b'0'));
            }
            if digits.len() > int_len {
                put(b'.');
                digits[int_len..].iter().for_each(|&c| put(c));
            }
        }
    } else {
        put(digits[0]);
        if digits.len() > 1 {
            put(b'.');
            digits[1..].iter().for_each(|&c| put(c));
        }
        put(b'e');
        put(if x < 0 { b'-' } else { b'+' });
        let a = x.unsigned_abs();
        if a >= 100 {
            put(b'0' + (a / 100) as u8);
        }
        put(b'0' + (a / 10 % 10) as u8);
        put(b'0' + (a % 10) as u8);
    }
    w
}

/// `%.{precision}g` of a finite `v`, exactly as C prints it (correctly
/// rounded, ties to even on the exact binary value). `precision` is
/// clamped to 1..=17. Returns the bytes written to `out` (<= MAX_LEN).
pub fn format_g(v: f64, precision: u32, out: &mut [u8]) -> usize {
    let p = precision.clamp(1, 17) as usize;
    if let Some(n) = integral(v, POW10[p], out) {
        return n;
    }
    let mut digits = [0u8; 40];
    if p <= 15 && (v == 0.0 || v.abs() >= f64::MIN_POSITIVE) {
        // Fast path from the shortest digits S (closest to v among the
        // shortest that round-trip). When S has at most p digits, v rounded
        // to p digits is S: v is within half an ulp of S, and half an ulp is
        // less than half a unit in the 15th digit. Otherwise rounding S to p
        // digits rounds v the same way unless S's tail is exactly a half: a
        // (p+1)-digit boundary strictly between S and v would itself read
        // back as v, so S would not be the shortest-closest text. Normal
        // numbers only: a subnormal's ulp can exceed a 15-digit unit.
        let mut b = zmij::Buffer::new();
        let text = b.format_finite(v);
        let mut d = parse(text.as_bytes(), &mut digits);
        if d.digits.len() <= p {
            return style(&d, p as i32, out);
        }
        let tail = &d.digits[p..];
        if !(tail[0] == b'5' && tail.len() == 1) {
            let mut kept = [0u8; 17];
            kept[..p].copy_from_slice(&d.digits[..p]);
            let mut exp = d.exp;
            if tail[0] >= b'5' {
                let mut k = p;
                loop {
                    if k == 0 {
                        // 99..9 rounded up: 1 followed by zeros, one order higher.
                        kept[0] = b'1';
                        kept[1..p].fill(b'0');
                        exp += 1;
                        break;
                    }
                    k -= 1;
                    if kept[k] == b'9' {
                        kept[k] = b'0';
                    } else {
                        kept[k] += 1;
                        break;
                    }
                }
            }
            let mut n = p;
            while n > 1 && kept[n - 1] == b'0' {
                n -= 1;
            }
            d = Decimal { negative: d.negative, digits: &kept[..n], exp };
            return style(&d, p as i32, out);
        }
    }
    format_g_exact(v, p, out)
}

/// Powers of ten up to 10^17, as doubles (exact).
const POW10: [f64; 18] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17];

/// An integral nonzero `v` below `limit` in magnitude, written as its
/// integer: what `%.{p}g` prints when the integer has at most p digits
/// (`limit` 10^p), with no float formatting. Numbers decoded by lua-cjson
/// on Lua 5.1 (and by its 2.1.0 everywhere) are doubles, mostly integral.
#[inline]
fn integral(v: f64, limit: f64, out: &mut [u8]) -> Option<usize> {
    // (Below 10^17 the cast is exact; `trunc` would be a libm call. NaN
    // fails the comparison below.)
    if v.abs() >= limit || v == 0.0 {
        return None;
    }
    let i = v as i64;
    if i as f64 != v {
        return None;
    }
    Some(integer(i, out))
}

/// The decimal text of `i`; returns the bytes written to `out` (<= 20).
#[inline]
pub fn integer(i: i64, out: &mut [u8]) -> usize {
    let mut b = itoa::Buffer::new();
    let s = b.format(i).as_bytes();
    out[..s.len()].copy_from_slice(s);
    s.len()
}

/// `%.{p}g` through Rust's exact formatting: `{:.N e}` prints N digits
/// after the point, correctly rounded with ties to even.
fn format_g_exact(v: f64, p: usize, out: &mut [u8]) -> usize {
    let mut s = Stack { buf: [0; 40], len: 0 };
    let _ = write!(s, "{:.*e}", p - 1, v);
    let mut digits = [0u8; 40];
    let d = parse(&s.buf[..s.len], &mut digits);
    style(&d, p as i32, out)
}

/// The shortest text that reads back as `v` (finite), in `%.17g` style:
/// plain notation for exponents -4..16, otherwise `d.ddde±XX`.
pub fn format_shortest(v: f64, out: &mut [u8]) -> usize {
    // Below 2^53 an integral double's shortest digits are its integer's.
    if let Some(n) = integral(v, 9_007_199_254_740_992.0, out) {
        return n;
    }
    shortest_digits(v, out)
}

/// `format_shortest` from zmij's digits.
fn shortest_digits(v: f64, out: &mut [u8]) -> usize {
    let mut b = zmij::Buffer::new();
    let text = b.format_finite(v);
    let mut digits = [0u8; 40];
    let d = parse(text.as_bytes(), &mut digits);
    style(&d, 17, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: f64, p: u32) -> String {
        let mut out = [0u8; MAX_LEN];
        let n = format_g(v, p, &mut out);
        String::from_utf8(out[..n].to_vec()).unwrap()
    }

    fn shortest(v: f64) -> String {
        let mut out = [0u8; MAX_LEN];
        let n = format_shortest(v, &mut out);
        String::from_utf8(out[..n].to_vec()).unwrap()
    }

    #[test]
    fn like_printf() {
        assert_eq!(g(0.0, 14), "0");
        assert_eq!(g(-0.0, 14), "-0");
        assert_eq!(g(1.0, 14), "1");
        assert_eq!(g(0.1, 14), "0.1");
        assert_eq!(g(0.1, 17), "0.10000000000000001");
        assert_eq!(g(100.0, 1), "1e+02");
        assert_eq!(g(123456.0, 6), "123456");
        assert_eq!(g(1234567.0, 6), "1.23457e+06");
        assert_eq!(g(0.0001, 14), "0.0001");
        assert_eq!(g(0.00001, 14), "1e-05");
        assert_eq!(g(1e300, 14), "1e+300");
        assert_eq!(g(2f64.powi(53), 14), "9.007199254741e+15");
        assert_eq!(g(5e-324, 17), "4.9406564584124654e-324");
        assert_eq!(g(-1.7976931348623157e308, 17), "-1.7976931348623157e+308");
        // Ties on the exact binary value round to even, as glibc does.
        assert_eq!(g(0.125, 2), "0.12");
        assert_eq!(g(0.375, 2), "0.38");
        assert_eq!(g(2.5, 1), "2");
        assert_eq!(g(9.5, 1), "1e+01");
    }

    #[test]
    fn fast_path_agrees_with_exact_formatting() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut a = [0u8; MAX_LEN];
        let mut b = [0u8; MAX_LEN];
        let mut check = |v: f64| {
            for p in 1..=17 {
                let n = format_g(v, p, &mut a);
                let m = format_g_exact(v, p as usize, &mut b);
                assert_eq!(a[..n], b[..m], "{v:e} p={p}");
            }
        };
        for _ in 0..300_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if v.is_finite() {
                check(v);
            }
            // Short decimals and integers, where ties and carries happen.
            check((x % 1_000_000) as f64 / 1000.0);
            check((x % 100_000_000_000_000_000) as f64);
            check((x % 2000) as f64 / 16.0);
        }
        for v in [0.5, 1.5, 2.5, 9.5, 99.5, 999999.5, 0.125, 1e23, 1e15, 1.2345678901234568e17] {
            check(v);
        }
    }

    #[test]
    fn integers_as_printf_prints_them() {
        let (mut a, mut b) = ([0u8; MAX_LEN], [0u8; MAX_LEN]);
        let mut x: u64 = 0x1234_5678_9abc_def1;
        let mut check = |v: f64| {
            for p in 1..=17 {
                let n = format_g(v, p, &mut a);
                let m = format_g_exact(v, p as usize, &mut b);
                assert_eq!(a[..n], b[..m], "{v:e} p={p}");
            }
            let n = format_shortest(v, &mut a);
            let m = shortest_digits(v, &mut b);
            assert_eq!(a[..n], b[..m], "{v:e} shortest");
        };
        for k in 0..=18 {
            let t = 10f64.powi(k);
            for v in [t - 1.0, t, t + 1.0, 2.0 * t, 9.0 * t] {
                check(v);
                check(-v);
            }
        }
        for v in [9_007_199_254_740_991.0, 9_007_199_254_740_992.0, 9_007_199_254_740_994.0, 1767225600.0] {
            check(v);
            check(-v);
        }
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check((x >> (x % 64)) as f64);
            check(-((x % 1_000_000_000) as f64));
        }
    }

    #[test]
    fn shortest_round_trips() {
        assert_eq!(shortest(0.0), "0");
        assert_eq!(shortest(-0.0), "-0");
        assert_eq!(shortest(0.1), "0.1");
        assert_eq!(shortest(1e16), "10000000000000000");
        assert_eq!(shortest(1e17), "1e+17");
        assert_eq!(shortest(123.456), "123.456");
        assert_eq!(shortest(5e-324), "5e-324");
        assert_eq!(shortest(1e-5), "1e-05");
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if v.is_finite() {
                let s = shortest(v);
                assert_eq!(s.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{s}");
                assert!(s.len() <= MAX_LEN);
            }
        }
    }
}
