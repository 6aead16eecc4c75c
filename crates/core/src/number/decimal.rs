//! JSON numbers as the decimals they write, compared and hashed exactly:
//! JSON Schema's `enum`, `const`, `uniqueItems` and `type: integer`, and JSON
//! Patch's `test`, decide on the text,
//! never on a binary64 rounding of it (`1e-400` is not `0`, `1e400` is an
//! integer, `18446744073709551617` is not `18446744073709551616`).
//!
//! A number is `±0.d1d2…dk × 10^x` with `d1` and `dk` non-zero (zero has no
//! digits): two numbers are equal exactly when their signs, digits and `x`
//! are. Reading one is linear in its text and allocates nothing, but for an
//! exponent past ±10^18, whose `x` is kept as decimal digits.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// `x` of a number: small, or as decimal digits when `|x| >= 10^18`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Scale {
    Small(i64),
    Huge { negative: bool, digits: Vec<u8> },
}

const HUGE: i128 = 1_000_000_000_000_000_000;

impl Scale {
    /// `±exponent digits` + `adjust` (|adjust| < 2^32, the text's length).
    fn new(negative: bool, exponent: &[u8], adjust: i64) -> Scale {
        let exponent = strip_leading_zeros(exponent);
        if exponent.len() <= 18 {
            let e = exponent.iter().fold(0i128, |v, &d| v * 10 + i128::from(d - b'0'));
            let x = if negative { -e } else { e } + i128::from(adjust);
            if x.abs() < HUGE {
                return Scale::Small(x as i64);
            }
            return Scale::Huge { negative: x < 0, digits: x.unsigned_abs().to_string().into_bytes() };
        }
        // |exponent| >= 10^18 > |adjust|: the sign is the exponent's, and
        // the magnitude moves by `adjust` towards or away from zero.
        let mut digits = exponent.to_vec();
        let mut carry = i128::from(if negative { -adjust } else { adjust });
        let mut i = digits.len();
        while carry != 0 && i > 0 {
            i -= 1;
            let d = i128::from(digits[i] - b'0') + carry;
            digits[i] = b'0' + d.rem_euclid(10) as u8;
            carry = d.div_euclid(10);
        }
        if carry > 0 {
            let mut head = carry.to_string().into_bytes();
            head.extend_from_slice(&digits);
            digits = head;
        }
        let digits = strip_leading_zeros(&digits);
        if digits.len() <= 18 {
            // Pulled back below 10^18: the small form, as any other text of it.
            let x = digits.iter().fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
            return Scale::Small(if negative { -x } else { x });
        }
        Scale::Huge { negative, digits: digits.to_vec() }
    }

    fn cmp(&self, other: &Scale) -> Ordering {
        let key = |s: &Scale| match s {
            Scale::Small(_) => 0,
            Scale::Huge { negative: true, .. } => -1,
            Scale::Huge { negative: false, .. } => 1,
        };
        match (self, other) {
            (Scale::Small(a), Scale::Small(b)) => a.cmp(b),
            (Scale::Huge { negative: na, digits: a }, Scale::Huge { negative: nb, digits: b }) if na == nb => {
                let magnitude = a.len().cmp(&b.len()).then_with(|| a.cmp(b));
                if *na {
                    magnitude.reverse()
                } else {
                    magnitude
                }
            }
            _ => key(self).cmp(&key(other)),
        }
    }
}

fn strip_leading_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n..]
}

/// A JSON number literal read as a decimal (the text must be one: qjson's
/// strict parse and serde_json's `arbitrary_precision` numbers are).
#[derive(Debug, Clone)]
pub(crate) struct Decimal<'a> {
    negative: bool,
    /// The mantissa's text (digits and at most one '.'), from the first
    /// non-zero digit to the last; empty for zero.
    digits: &'a [u8],
    scale: Scale,
}

impl<'a> Decimal<'a> {
    pub(crate) fn parse(text: &'a [u8]) -> Decimal<'a> {
        let negative = text.first() == Some(&b'-');
        let body = &text[usize::from(negative)..];
        let mantissa_end = body.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(body.len());
        let (mantissa, exponent) = body.split_at(mantissa_end);
        let point = mantissa.iter().position(|&c| c == b'.').unwrap_or(mantissa.len());
        let first = mantissa.iter().position(|&c| matches!(c, b'1'..=b'9'));
        let Some(first) = first else {
            return Decimal { negative: false, digits: &[], scale: Scale::Small(0) };
        };
        let last = mantissa.iter().rposition(|&c| matches!(c, b'1'..=b'9')).unwrap_or(first);
        // Digits before the point, counted from the first significant one
        // (negative when it sits after the point).
        let position = point.saturating_sub(first) as i64 - first.saturating_sub(point + 1) as i64;
        let (exp_negative, exp_digits) = match exponent.get(1) {
            None => (false, &[][..]),
            Some(b'-') => (true, &exponent[2..]),
            Some(b'+') => (false, &exponent[2..]),
            Some(_) => (false, &exponent[1..]),
        };
        Decimal { negative, digits: &mantissa[first..=last], scale: Scale::new(exp_negative, exp_digits, position) }
    }

    fn significant(&self) -> impl Iterator<Item = u8> + '_ {
        self.digits.iter().copied().filter(|&c| c != b'.')
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Whether the number is whole: zero, or no digit after the point.
    #[cfg(feature = "schema")]
    pub(crate) fn is_integer(&self) -> bool {
        match &self.scale {
            _ if self.is_zero() => true,
            Scale::Small(x) => *x >= self.significant().count() as i64,
            // Past 10^18 positions: more than any text's digits.
            Scale::Huge { negative, .. } => !negative,
        }
    }
}

/// What `multipleOf` needs (schema/numeric.rs).
#[cfg(feature = "schema")]
impl Decimal<'_> {
    /// The significant digits, as ASCII (empty for zero): the number is
    /// `±digits × 10^(x - digits.len())`.
    pub(crate) fn integer_digits(&self) -> Vec<u8> {
        self.significant().collect()
    }

    /// `x - digits.len()`, when `x` is small: the number is `±digits × 10^it`.
    pub(crate) fn exponent(&self) -> Option<i64> {
        match self.scale {
            Scale::Small(x) => Some(x - self.significant().count() as i64),
            Scale::Huge { .. } => None,
        }
    }

    /// The decimal digits of `x - digits.len() - minus` when it is not
    /// negative (`None` when it is): how many zeros the number's digits
    /// take to be divided by a divisor of exponent `minus`.
    pub(crate) fn shift(&self, minus: i64) -> Option<Vec<u8>> {
        let k = self.significant().count() as i64;
        let (negative, digits) = match &self.scale {
            Scale::Small(x) => {
                let v = i128::from(*x) - i128::from(k) - i128::from(minus);
                return (v >= 0).then(|| v.to_string().into_bytes());
            }
            Scale::Huge { negative, digits } => (*negative, digits),
        };
        match Scale::new(negative, digits, -(k + minus)) {
            Scale::Small(v) => (v >= 0).then(|| v.to_string().into_bytes()),
            Scale::Huge { negative: false, digits } => Some(digits),
            Scale::Huge { negative: true, .. } => None,
        }
    }
}

impl PartialEq for Decimal<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal<'_> {}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Decimal| {
            if d.is_zero() {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        let by_sign = sign(self).cmp(&sign(other));
        if by_sign != Ordering::Equal || self.is_zero() {
            return by_sign;
        }
        // Same sign, both non-zero: the magnitude is ordered by the scale,
        // then by the digits (neither ends in a zero).
        let magnitude = self.scale.cmp(&other.scale).then_with(|| self.significant().cmp(other.significant()));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl Hash for Decimal<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.negative && !self.is_zero()).hash(state);
        self.scale.hash(state);
        for d in self.significant() {
            state.write_u8(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;
    use std::cmp::Ordering;

    fn d(s: &str) -> Decimal<'_> {
        Decimal::parse(s.as_bytes())
    }

    #[test]
    fn equal_values_written_differently() {
        for (a, b) in [
            ("1", "1.0"),
            ("1", "1e0"),
            ("100", "1e2"),
            ("100", "1.00E+2"),
            ("0.001", "1e-3"),
            ("-0", "0"),
            ("0e999", "0.000"),
            ("12.5", "125e-1"),
            ("1e1000000000000000000000", "10e999999999999999999999"),
            ("1e-1000000000000000000000", "0.1e-999999999999999999999"),
            ("123e999999999999999999", "1.23e1000000000000000001"),
            ("0.0", "-0e5"),
            ("0.00123", "1.23e-3"),
            ("123456789012345678901234567890", "1.2345678901234567890123456789e29"),
            ("1e400", "10e399"),
            ("1e99999999999999999999999999999999999999999", "10e99999999999999999999999999999999999999998"),
        ] {
            assert_eq!(d(a), d(b), "{a} = {b}");
        }
    }

    #[test]
    fn order_is_the_values() {
        let ordered = [
            "-1e1000000000000000000001",
            "-1e1000000000000000000000",
            "-1e400",
            "-18446744073709551617",
            "-18446744073709551616",
            "-1",
            "-1e-400",
            "0",
            "1e-1000000000000000000000",
            "1e-400",
            "0.1",
            "1",
            "1.0000000000000000000000000001",
            "18446744073709551616",
            "18446744073709551617",
            "1e400",
            "1.5e400",
            "1e1000000000000000000000",
        ];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                assert_eq!(d(a).cmp(&d(b)), i.cmp(&j), "{a} against {b}");
            }
        }
    }

    #[test]
    fn integers() {
        for s in ["0", "-0.0", "1e400", "1.5e1", "12.0", "1e1000000000000000000000", "18446744073709551617"] {
            assert!(d(s).is_integer(), "{s}");
        }
        for s in ["1e-400", "0.5", "1.25e1", "1e-1000000000000000000000"] {
            assert!(!d(s).is_integer(), "{s}");
        }
        assert_eq!(d("1e-400").cmp(&d("0")), Ordering::Greater);
    }

    #[test]
    fn agrees_with_doubles_where_they_are_exact() {
        let samples = [0.0, 1.0, -1.0, 0.5, 2.5, 1e10, -3.25, 1e-5, 123456.0, 9007199254740991.0];
        for a in samples {
            for b in samples {
                let (ta, tb) = (format!("{a:e}"), format!("{b}"));
                assert_eq!(d(&ta).cmp(&d(&tb)), a.partial_cmp(&b).unwrap(), "{ta} vs {tb}");
            }
        }
    }
}
