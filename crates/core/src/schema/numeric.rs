//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and
//! `multipleOf`, decided on the decimals the schema and the instance write
//! (`decimal.rs`), never on binary64 roundings of them: `1e-400` is above
//! `0`, `1e400` is a multiple of 2, a schema may hold `1e400`. They replace
//! the crate's own (which, without its `arbitrary-precision` feature,
//! compares doubles) as custom keywords, with the crate's messages.

use std::cmp::Ordering;

use jsonschema::json::Node;
use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError};
use num_bigint::BigUint;
use serde_json::{Map, Value};

use super::bounds::custom_error;
use super::node::{TapeJson, TapeNode};
use crate::number::decimal::Decimal;

/// A keyword factory, as `ValidationOptions::with_keyword` takes it.
pub(crate) type Factory = fn(&Map<String, Value>, &Value, Location) -> Compiled;

/// The five keywords and their factories.
pub(crate) const KEYWORDS: [(&str, Factory); 5] = [
    ("minimum", |parent, value, _| {
        bound(value, parent.get("exclusiveMinimum") == Some(&Value::Bool(true)), Ordering::Less)
    }),
    ("maximum", |parent, value, _| {
        bound(value, parent.get("exclusiveMaximum") == Some(&Value::Bool(true)), Ordering::Greater)
    }),
    ("exclusiveMinimum", |_, value, _| exclusive(value, Ordering::Less)),
    ("exclusiveMaximum", |_, value, _| exclusive(value, Ordering::Greater)),
    ("multipleOf", |_, value, _| multiple_of(value)),
];

/// A keyword compiled by one of qjson's factories.
pub(crate) type Compiled = Result<Box<dyn for<'i> Keyword<'i, TapeJson>>, ValidationError<'static>>;

/// `minimum`/`maximum`: the instance must not be on the `beyond` side of
/// the limit (nor on it, when draft 4's `exclusive...: true` is beside).
fn bound(value: &Value, exclusive: bool, beyond: Ordering) -> Compiled {
    Ok(Box::new(Bound { limit: number(value)?, beyond, exclusive }))
}

/// `exclusiveMinimum`/`exclusiveMaximum`: a number (drafts 6 and later),
/// or draft 4's flag, which asserts nothing by itself.
fn exclusive(value: &Value, beyond: Ordering) -> Compiled {
    if let Value::Bool(_) = value {
        return Ok(Box::new(Nothing));
    }
    Ok(Box::new(Bound { limit: number(value)?, beyond, exclusive: true }))
}

fn multiple_of(value: &Value) -> Compiled {
    let text = number(value)?;
    let d = Decimal::parse(text.as_bytes());
    let positive = d > Decimal::parse(b"0");
    let Some(exponent) = d.exponent().filter(|_| positive) else {
        return Err(ValidationError::custom(format!(
            "multipleOf must be a positive number with an exponent within ±10^18, got {text}"
        )));
    };
    let digits = BigUint::parse_bytes(&d.integer_digits(), 10).expect("decimal digits");
    // The divisor as an integer, when it is one that fits: plain integer
    // instances then take a native remainder.
    let native = u64::try_from(exponent).ok().and_then(|e| {
        let scale = 10u64.checked_pow(u32::try_from(e).ok()?)?;
        u64::try_from(&digits).ok()?.checked_mul(scale)
    });
    Ok(Box::new(MultipleOf { text, digits, exponent, native }))
}

fn number(value: &Value) -> Result<String, ValidationError<'static>> {
    match value {
        Value::Number(n) => Ok(n.as_str().to_owned()),
        other => Err(ValidationError::custom(format!("a number is expected, got {other}"))),
    }
}

/// A draft 4 `exclusiveMinimum`/`exclusiveMaximum` flag on its own.
struct Nothing;

impl<'i> Keyword<'i, TapeJson> for Nothing {
    fn validate(&self, _: TapeNode<'i>) -> Result<(), ValidationError<'i>> {
        Ok(())
    }
    fn is_valid(&self, _: TapeNode<'i>) -> bool {
        true
    }
}

struct Bound {
    limit: String,
    /// The side of the limit the instance must not be on.
    beyond: Ordering,
    /// Whether the limit itself is excluded.
    exclusive: bool,
}

impl<'i> Keyword<'i, TapeJson> for Bound {
    fn validate(&self, instance: TapeNode<'i>) -> Result<(), ValidationError<'i>> {
        if Keyword::is_valid(self, instance) {
            return Ok(());
        }
        let (side, word) = if self.beyond == Ordering::Greater { ("greater", "maximum") } else { ("less", "minimum") };
        let equal = if self.exclusive { " or equal to" } else { "" };
        Err(custom_error(&instance, format!("value is {side} than{equal} the {word} of {}", self.limit)))
    }
    fn is_valid(&self, instance: TapeNode<'i>) -> bool {
        if !instance.is_number() {
            return true;
        }
        let text = instance.number_text();
        let ordering = match (plain_i64(text), plain_i64(self.limit.as_bytes())) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => Decimal::parse(text).cmp(&Decimal::parse(self.limit.as_bytes())),
        };
        ordering != self.beyond && !(self.exclusive && ordering == Ordering::Equal)
    }
}

struct MultipleOf {
    text: String,
    /// The divisor is `digits × 10^exponent`.
    digits: BigUint,
    exponent: i64,
    native: Option<u64>,
}

impl<'i> Keyword<'i, TapeJson> for MultipleOf {
    fn validate(&self, instance: TapeNode<'i>) -> Result<(), ValidationError<'i>> {
        if Keyword::is_valid(self, instance) {
            return Ok(());
        }
        Err(custom_error(&instance, format!("value is not a multiple of {}", self.text)))
    }
    fn is_valid(&self, instance: TapeNode<'i>) -> bool {
        if !instance.is_number() {
            return true;
        }
        let text = instance.number_text();
        if let (Some(v), Some(m)) = (plain_i64(text), self.native) {
            return v.unsigned_abs() % m == 0;
        }
        let d = Decimal::parse(text);
        // value / divisor = (digits / divisor.digits) × 10^shift: whole
        // exactly when divisor.digits divides digits × 10^shift; never for
        // a negative shift (`digits` ends in a non-zero digit), but for 0.
        let digits = d.integer_digits();
        if digits.is_empty() {
            return true;
        }
        d.shift(self.exponent).is_some_and(|shift| self.divides_shifted(&digits, &shift))
    }
}

impl MultipleOf {
    /// Whether `self.digits` divides `digits × 10^shift` (`shift` in
    /// decimal digits): streamed, linear in both texts.
    fn divides_shifted(&self, digits: &[u8], shift: &[u8]) -> bool {
        let m = &self.digits;
        let ten = BigUint::from(10u8);
        let mut rest = BigUint::from(0u8);
        for chunk in digits.chunks(19) {
            let v: u64 = chunk.iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0'));
            rest = (rest * BigUint::from(10u64.pow(chunk.len() as u32)) + v) % m;
        }
        // 10^shift mod m, one decimal digit of `shift` at a time.
        let mut power = BigUint::from(1u8) % m;
        for &d in shift {
            power = power.modpow(&ten, m) * ten.modpow(&BigUint::from(d - b'0'), m) % m;
        }
        rest * power % m == BigUint::from(0u8)
    }
}

/// A plain integer text that fits an `i64` (the common case, decided
/// without the decimal form).
fn plain_i64(text: &[u8]) -> Option<i64> {
    if text.len() > 18 || text.iter().any(|c| matches!(c, b'.' | b'e' | b'E')) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}
