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
    ("minimum", |parent, value, _| keyword(Numeric::new("minimum", parent, value))),
    ("maximum", |parent, value, _| keyword(Numeric::new("maximum", parent, value))),
    ("exclusiveMinimum", |parent, value, _| keyword(Numeric::new("exclusiveMinimum", parent, value))),
    ("exclusiveMaximum", |parent, value, _| keyword(Numeric::new("exclusiveMaximum", parent, value))),
    ("multipleOf", |parent, value, _| keyword(Numeric::new("multipleOf", parent, value))),
];

/// A keyword compiled by one of qjson's factories.
pub(crate) type Compiled = Result<Box<dyn for<'i> Keyword<'i, TapeJson>>, ValidationError<'static>>;

fn keyword(n: Result<Numeric, ValidationError<'static>>) -> Compiled {
    Ok(Box::new(n?))
}

/// One of the five keywords, compiled: the crate runs it as a custom
/// keyword, `accept` asks it directly.
pub(crate) enum Numeric {
    Bound(Bound),
    MultipleOf(MultipleOf),
    /// A draft 4 `exclusiveMinimum`/`exclusiveMaximum` flag on its own.
    Nothing,
}

impl Numeric {
    /// The keyword `name` (one of `KEYWORDS`) with `value`, in the schema
    /// object `parent`.
    pub(crate) fn new(
        name: &str,
        parent: &Map<String, Value>,
        value: &Value,
    ) -> Result<Numeric, ValidationError<'static>> {
        let flag = |sibling: &str| parent.get(sibling) == Some(&Value::Bool(true));
        Ok(match name {
            // `minimum`/`maximum`: excluding the limit itself when draft 4's
            // `exclusive...: true` is beside.
            "minimum" => Numeric::Bound(Bound::new(value, flag("exclusiveMinimum"), Ordering::Less)?),
            "maximum" => Numeric::Bound(Bound::new(value, flag("exclusiveMaximum"), Ordering::Greater)?),
            // A number (drafts 6 and later), or draft 4's flag, which
            // asserts nothing by itself.
            "exclusiveMinimum" | "exclusiveMaximum" if value.is_boolean() => Numeric::Nothing,
            "exclusiveMinimum" => Numeric::Bound(Bound::new(value, true, Ordering::Less)?),
            "exclusiveMaximum" => Numeric::Bound(Bound::new(value, true, Ordering::Greater)?),
            _ => Numeric::MultipleOf(MultipleOf::new(value)?),
        })
    }

    /// Whether a number written `text` passes.
    pub(crate) fn admits(&self, text: &[u8]) -> bool {
        match self {
            Numeric::Bound(b) => b.admits(text),
            Numeric::MultipleOf(m) => m.admits(text),
            Numeric::Nothing => true,
        }
    }

    fn message(&self) -> String {
        match self {
            Numeric::Bound(b) => {
                let (side, word) =
                    if b.beyond == Ordering::Greater { ("greater", "maximum") } else { ("less", "minimum") };
                let equal = if b.exclusive { " or equal to" } else { "" };
                format!("value is {side} than{equal} the {word} of {}", b.limit)
            }
            Numeric::MultipleOf(m) => format!("value is not a multiple of {}", m.text),
            Numeric::Nothing => unreachable!("asserts nothing"),
        }
    }
}

impl<'i> Keyword<'i, TapeJson> for Numeric {
    fn validate(&self, instance: TapeNode<'i>) -> Result<(), ValidationError<'i>> {
        if Keyword::is_valid(self, instance) {
            return Ok(());
        }
        Err(custom_error(&instance, self.message()))
    }
    fn is_valid(&self, instance: TapeNode<'i>) -> bool {
        !instance.is_number() || self.admits(instance.number_text())
    }
}

fn number(value: &Value) -> Result<String, ValidationError<'static>> {
    match value {
        Value::Number(n) => Ok(n.as_str().to_owned()),
        other => Err(ValidationError::custom(format!("a number is expected, got {other}"))),
    }
}

pub(crate) struct Bound {
    limit: String,
    /// `limit` when a plain integer.
    limit_i64: Option<i64>,
    /// The side of the limit the instance must not be on.
    beyond: Ordering,
    /// Whether the limit itself is excluded.
    exclusive: bool,
}

impl Bound {
    fn new(value: &Value, exclusive: bool, beyond: Ordering) -> Result<Bound, ValidationError<'static>> {
        let limit = number(value)?;
        Ok(Bound { limit_i64: plain_i64(limit.as_bytes()), limit, beyond, exclusive })
    }

    fn admits(&self, text: &[u8]) -> bool {
        let ordering = match (fixed_i64(text), self.limit_i64) {
            (Some((a, fraction)), Some(b)) => a.cmp(&b).then(fraction),
            _ => Decimal::parse(text).cmp(&Decimal::parse(self.limit.as_bytes())),
        };
        ordering != self.beyond && !(self.exclusive && ordering == Ordering::Equal)
    }
}

pub(crate) struct MultipleOf {
    text: String,
    /// The divisor is `digits × 10^exponent`.
    digits: BigUint,
    exponent: i64,
    native: Option<u64>,
}

impl MultipleOf {
    fn new(value: &Value) -> Result<MultipleOf, ValidationError<'static>> {
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
        Ok(MultipleOf { text, digits, exponent, native })
    }

    fn admits(&self, text: &[u8]) -> bool {
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

/// A number written without exponent whose integer part fits an `i64`:
/// that part, and how the fraction moves the value from it (`Greater`
/// for `2.5`, `Less` for `-2.5`, `Equal` for none or zeros).
fn fixed_i64(text: &[u8]) -> Option<(i64, Ordering)> {
    let Some(dot) = text.iter().position(|&c| c == b'.') else {
        return plain_i64(text).map(|n| (n, Ordering::Equal));
    };
    let fraction = &text[dot + 1..];
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let whole = plain_i64(&text[..dot])?;
    let moved = match (fraction.iter().all(|&c| c == b'0'), text[0] == b'-') {
        (true, _) => Ordering::Equal,
        (false, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    };
    Some((whole, moved))
}

/// A plain integer text that fits an `i64` (the common case, decided
/// without the decimal form); the text is JSON's (a strict parse's or
/// the schema's).
fn plain_i64(text: &[u8]) -> Option<i64> {
    crate::number::integer_prefix(text, false)
}
