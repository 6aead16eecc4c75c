//! JSON equality on the tape, for `enum`, `const` and `uniqueItems`: the
//! values as written, at any depth (numbers by their decimal value, `1`
//! equal to `1.0`; objects as sets of members, a repeated key as its last
//! value), never through a conversion that could lose or change a value.
//!
//! `uniqueItems` hashes each element (SipHash with a per-call random key,
//! so that colliding elements cannot be crafted) and compares only those
//! whose hashes meet: linear in the array's text. The crate's `enum` and
//! `const` compare through `Node::equals_value` (this `to_value`), but for
//! a `const` that is a number, which it compares as doubles: `const` is a
//! custom keyword here.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};

use jsonschema::json::{Json, Object};
use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};

use super::bounds::custom_error;
use super::node::TapeNode;
use crate::number::decimal::Decimal;

/// Whether `node` equals `expected`, a value of the schema. Recursion
/// follows `expected`, which serde_json parsed 128 levels deep at most.
pub(crate) fn to_value(node: TapeNode<'_>, expected: &Value) -> bool {
    match (node.first(), expected) {
        (b'"', Value::String(s)) => *node.bytes() == *s.as_bytes(),
        (b't', Value::Bool(b)) => *b,
        (b'f', Value::Bool(b)) => !*b,
        (b'n', Value::Null) => true,
        (b'-' | b'0'..=b'9', Value::Number(n)) => {
            Decimal::parse(node.number_text()) == Decimal::parse(n.as_str().as_bytes())
        }
        (b'[', Value::Array(items)) => {
            let mut elements = node.elements_of();
            items.iter().all(|e| elements.next().is_some_and(|n| to_value(n, e))) && elements.next().is_none()
        }
        (b'{', Value::Object(map)) => {
            let members = node.members_of();
            members.len() == map.len()
                && map
                    .iter()
                    .all(|(k, v)| members.get(&super::node::TapeJson::prepare_key(k)).is_some_and(|n| to_value(n, v)))
        }
        _ => false,
    }
}

/// `const`.
struct Const(Value);

pub(crate) fn const_keyword(
    _: &Map<String, Value>,
    value: &Value,
    _: Location,
) -> Result<Box<dyn for<'i> Keyword<'i, super::node::TapeJson>>, ValidationError<'static>> {
    Ok(Box::new(Const(value.clone())))
}

impl<'i> Keyword<'i, super::node::TapeJson> for Const {
    fn validate(&self, instance: TapeNode<'i>) -> Result<(), ValidationError<'i>> {
        if to_value(instance, &self.0) {
            return Ok(());
        }
        Err(custom_error(&instance, format!("{} was expected", self.0)))
    }
    fn is_valid(&self, instance: TapeNode<'i>) -> bool {
        to_value(instance, &self.0)
    }
}

/// Whether the elements of the array `node` are pairwise unequal.
pub(crate) fn all_distinct(node: TapeNode<'_>) -> bool {
    let keys = RandomState::new();
    let mut seen: HashMap<u64, Vec<TapeNode<'_>>> = HashMap::new();
    for e in node.elements_of() {
        let bucket = seen.entry(hash(e, &keys)).or_default();
        if bucket.iter().any(|&other| nodes_equal(e, other)) {
            return false;
        }
        bucket.push(e);
    }
    true
}

/// Whether two values of the same document are equal. Iterative: the
/// document may nest deeper than any stack allows.
pub(crate) fn nodes_equal<'a>(a: TapeNode<'a>, b: TapeNode<'a>) -> bool {
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        match (a.first(), b.first()) {
            (b'"', b'"') => {
                if a.bytes() != b.bytes() {
                    return false;
                }
            }
            (b'-' | b'0'..=b'9', b'-' | b'0'..=b'9') => {
                if Decimal::parse(a.number_text()) != Decimal::parse(b.number_text()) {
                    return false;
                }
            }
            (b'[', b'[') => {
                let (ea, eb) = (a.elements_of(), b.elements_of());
                if a.count_of() != b.count_of() {
                    return false;
                }
                pending.extend(ea.zip(eb));
            }
            (b'{', b'{') => {
                // Members sorted by key on both sides: one pass, whatever
                // their order in the text.
                let sorted = |o: TapeNode<'a>| {
                    let mut m: Vec<_> = o.members_of().members().collect();
                    m.sort_by(|x, y| x.0.cmp(&y.0));
                    m
                };
                let (ma, mb) = (sorted(a), sorted(b));
                if ma.len() != mb.len() {
                    return false;
                }
                for ((ka, va), (kb, vb)) in ma.into_iter().zip(mb) {
                    if ka != kb {
                        return false;
                    }
                    pending.push((va, vb));
                }
            }
            (x, y) => {
                // Literals: equal when they are the same literal.
                if x != y || !matches!(x, b't' | b'f' | b'n') {
                    return false;
                }
            }
        }
    }
    true
}

/// A hash of `node`'s value, equal for equal values: numbers by their
/// decimal, objects by the sum of their members' hashes (any order).
/// Post-order on an explicit stack.
fn hash(node: TapeNode<'_>, keys: &RandomState) -> u64 {
    enum Step<'a> {
        Visit(TapeNode<'a>),
        /// Combine the `n` hashes on top of `done` as an array's elements.
        Array(usize),
        /// Combine the `n` (key hash, value hash) pairs as an object's members.
        Object(usize),
    }
    let leaf = |write: &dyn Fn(&mut dyn Hasher)| {
        let mut h = keys.build_hasher();
        write(&mut h);
        h.finish()
    };
    let mut steps = vec![Step::Visit(node)];
    let mut done: Vec<u64> = Vec::new();
    while let Some(step) = steps.pop() {
        match step {
            Step::Visit(n) => match n.first() {
                b'"' => done.push(leaf(&|h| {
                    h.write_u8(b'"');
                    h.write(&n.bytes());
                })),
                b'-' | b'0'..=b'9' => done.push(leaf(&|h| {
                    h.write_u8(b'0');
                    Decimal::parse(n.number_text()).hash(&mut HasherRef(h));
                })),
                b'[' => {
                    let elements: Vec<_> = n.elements_of().collect();
                    steps.push(Step::Array(elements.len()));
                    steps.extend(elements.into_iter().rev().map(Step::Visit));
                }
                b'{' => {
                    let members: Vec<_> = n.members_of().members().collect();
                    steps.push(Step::Object(members.len()));
                    for (k, v) in members.into_iter().rev() {
                        steps.push(Step::Visit(v));
                        done.push(leaf(&|h| {
                            h.write_u8(b'k');
                            h.write(k.as_bytes());
                        }));
                    }
                }
                c => done.push(leaf(&|h| h.write_u8(c))),
            },
            Step::Array(n) => {
                let parts = done.split_off(done.len() - n);
                done.push(leaf(&|h| {
                    h.write_u8(b'[');
                    parts.iter().for_each(|&p| h.write_u64(p));
                }));
            }
            Step::Object(n) => {
                // Key hashes were pushed before all the values (in reverse
                // member order); values after, in member order.
                let values = done.split_off(done.len() - n);
                let keys_rev = done.split_off(done.len() - n);
                let sum = keys_rev.iter().rev().zip(&values).fold(0u64, |acc, (&k, &v)| {
                    acc.wrapping_add(leaf(&|h| {
                        h.write_u64(k);
                        h.write_u64(v);
                    }))
                });
                done.push(leaf(&|h| {
                    h.write_u8(b'{');
                    h.write_u64(sum);
                }));
            }
        }
    }
    done.pop().unwrap_or(0)
}

/// `&mut dyn Hasher` as a `Hasher` (for `Hash::hash`).
struct HasherRef<'h>(&'h mut dyn Hasher);

impl Hasher for HasherRef<'_> {
    fn finish(&self) -> u64 {
        self.0.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
}
