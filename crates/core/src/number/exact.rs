//! Exact comparison of JSON number texts by their decimal values: `1`,
//! `1.0` and `10e-1` are equal, `1e400` is not infinity and `1e-400` is
//! not zero. For the comparisons that must not go through a double
//! (JSON Patch's `test`, JSON Schema's `const`, `enum` and `uniqueItems`).

use std::cmp::Ordering;

/// A number's value as sign, significant digits (no leading or trailing
/// zero) and the decimal exponent of the first digit: the value is
/// `0.d1 d2 ... × 10^point`, negated when `negative`. Zero has no digits.
struct Decimal<'a> {
    negative: bool,
    /// The digits of the integer and fraction parts, in order; leading
    /// zeros and trailing zeros are cut off when compared.
    int: &'a [u8],
    frac: &'a [u8],
    /// The exponent, as written (sign and digits), and where the first
    /// significant digit sits relative to the point.
    exp: Exponent,
}

/// A written exponent plus a small adjustment: exact for exponents of
/// any length (a hostile `1e99999999999999999999999` included). `Small`
/// holds exactly the values below 10^36 in magnitude, `Big` the others.
#[derive(Clone, PartialEq, Eq)]
enum Exponent {
    Small(i128),
    /// The sign and the digits, without leading zeros (37 or more).
    Big(bool, Vec<u8>),
}

const SMALL_DIGITS: usize = 36;

impl Exponent {
    fn parse(text: &[u8]) -> Exponent {
        let (negative, digits) = match text.first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        Exponent::from_digits(negative, digits.to_vec())
    }

    fn from_digits(negative: bool, mut digits: Vec<u8>) -> Exponent {
        let start = digits.iter().position(|&c| c != b'0').unwrap_or(digits.len());
        digits.drain(..start);
        if digits.len() <= SMALL_DIGITS {
            let v = digits.iter().fold(0i128, |v, &c| v * 10 + (c - b'0') as i128);
            Exponent::Small(if negative { -v } else { v })
        } else {
            Exponent::Big(negative, digits)
        }
    }

    /// `self + adj`, where `adj` is at most the text's length.
    fn add(self, adj: i64) -> Exponent {
        match self {
            Exponent::Small(v) => {
                let v = v + adj as i128;
                if v.unsigned_abs() < 10u128.pow(SMALL_DIGITS as u32) {
                    Exponent::Small(v)
                } else {
                    Exponent::from_digits(v < 0, v.unsigned_abs().to_string().into_bytes())
                }
            }
            // A Big exponent is at least 10^36: adding a value below 2^63
            // changes its magnitude, never its sign.
            Exponent::Big(negative, mut digits) => {
                let up = (adj >= 0) != negative;
                let mut carry = adj.unsigned_abs() as u128;
                for d in digits.iter_mut().rev() {
                    if carry == 0 {
                        break;
                    }
                    let step = (carry % 10) as i32;
                    carry /= 10;
                    let mut v = (*d - b'0') as i32 + if up { step } else { -step };
                    if v >= 10 {
                        v -= 10;
                        carry += 1;
                    } else if v < 0 {
                        v += 10;
                        carry += 1;
                    }
                    *d = b'0' + v as u8;
                }
                if up && carry > 0 {
                    let head = carry.to_string().into_bytes();
                    digits.splice(0..0, head);
                }
                Exponent::from_digits(negative, digits)
            }
        }
    }

    fn cmp(&self, other: &Exponent) -> Ordering {
        use Exponent::{Big, Small};
        match (self, other) {
            (Small(a), Small(b)) => a.cmp(b),
            (Small(_), Big(negative, _)) => {
                if *negative {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (Big(negative, _), Small(_)) => {
                if *negative {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (Big(na, a), Big(nb, b)) => {
                if na != nb {
                    return nb.cmp(na);
                }
                let by_size = a.len().cmp(&b.len()).then_with(|| a.cmp(b));
                if *na {
                    by_size.reverse()
                } else {
                    by_size
                }
            }
        }
    }
}

impl<'a> Decimal<'a> {
    /// `text` is a number by JSON's grammar.
    fn parse(text: &'a [u8]) -> Decimal<'a> {
        let negative = text.first() == Some(&b'-');
        let body = &text[negative as usize..];
        let int_end = body.iter().position(|c| !c.is_ascii_digit()).unwrap_or(body.len());
        let int = &body[..int_end];
        let mut rest = &body[int_end..];
        let mut frac: &[u8] = &[];
        if rest.first() == Some(&b'.') {
            let end = rest[1..].iter().position(|c| !c.is_ascii_digit()).map_or(rest.len(), |p| p + 1);
            frac = &rest[1..end];
            rest = &rest[end..];
        }
        let written =
            if matches!(rest.first(), Some(b'e' | b'E')) { Exponent::parse(&rest[1..]) } else { Exponent::Small(0) };
        // Where the first significant digit is: the integer part's length,
        // less its leading zeros, or, for a number below 1, less the
        // fraction's leading zeros too.
        let int_zeros = int.iter().take_while(|&&c| c == b'0').count();
        let point = if int_zeros < int.len() {
            (int.len() - int_zeros) as i64
        } else {
            -(frac.iter().take_while(|&&c| c == b'0').count() as i64)
        };
        Decimal { negative, int, frac, exp: written.add(point) }
    }

    /// The significant digits, leading and trailing zeros cut off.
    fn digits(&self) -> impl Iterator<Item = u8> + Clone + '_ {
        let all = self.int.iter().chain(self.frac.iter()).copied();
        let lead = all.clone().take_while(|&c| c == b'0').count();
        let total = self.int.len() + self.frac.len();
        let trail = self.int.iter().chain(self.frac.iter()).rev().take_while(|&&c| c == b'0').count();
        let keep = total.saturating_sub(lead + trail);
        all.skip(lead).take(keep)
    }

    fn is_zero(&self) -> bool {
        self.digits().next().is_none()
    }

    /// Compares magnitudes.
    fn cmp_abs(&self, other: &Decimal<'_>) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.exp.cmp(&other.exp).then_with(|| self.digits().cmp(other.digits()))
    }
}

/// Orders two JSON number texts by their exact decimal values (`-0`
/// equals `0`).
pub(crate) fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (Decimal::parse(a), Decimal::parse(b));
    let sign = |d: &Decimal<'_>| {
        if d.is_zero() {
            0
        } else if d.negative {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(&a), sign(&b));
    if sa != sb {
        return sa.cmp(&sb);
    }
    let by_abs = a.cmp_abs(&b);
    if sa < 0 {
        by_abs.reverse()
    } else {
        by_abs
    }
}

/// Whether two JSON number texts have the same decimal value.
pub(crate) fn equal(a: &[u8], b: &[u8]) -> bool {
    compare(a, b) == Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_written_differently() {
        for (a, b) in [
            ("1", "1.0"),
            ("1", "10e-1"),
            ("0", "-0"),
            ("0.0", "-0e5"),
            ("100", "1e2"),
            ("100", "1E+2"),
            ("0.00123", "1.23e-3"),
            ("123456789012345678901234567890", "1.2345678901234567890123456789e29"),
            ("1e400", "10e399"),
            ("1e-400", "0.1e-399"),
            ("1e99999999999999999999999999999999999999999", "10e99999999999999999999999999999999999999998"),
        ] {
            assert!(equal(a.as_bytes(), b.as_bytes()), "{a} = {b}");
        }
    }

    #[test]
    fn orders_exactly() {
        let ordered = [
            "-1e400",
            "-18446744073709551617",
            "-18446744073709551616",
            "-1",
            "-1e-400",
            "0",
            "1e-99999999999999999999999999999999999999999",
            "1e-400",
            "0.1",
            "1",
            "1.0000000000000000000000000001",
            "18446744073709551616",
            "18446744073709551617",
            "1e400",
            "1e99999999999999999999999999999999999999998",
            "1e99999999999999999999999999999999999999999",
        ];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                assert_eq!(compare(a.as_bytes(), b.as_bytes()), i.cmp(&j), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn agrees_with_doubles_where_they_are_exact() {
        let samples = [0.0, 1.0, -1.0, 0.5, 2.5, 1e10, -3.25, 1e-5, 123456.0, 9007199254740991.0];
        for a in samples {
            for b in samples {
                let (ta, tb) = (format!("{a:e}"), format!("{b}"));
                assert_eq!(compare(ta.as_bytes(), tb.as_bytes()), a.partial_cmp(&b).unwrap(), "{ta} vs {tb}");
            }
        }
    }
}
