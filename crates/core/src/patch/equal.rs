//! JSON equality of two values of the edit tree, for the `test`
//! operation: numbers by their exact decimal values (`1` equals `1.0`),
//! strings after unescaping, objects as sets of keys (a repeated key is
//! its last value), arrays element by element, at any depth.

use std::borrow::Cow;
use std::collections::HashMap;

use super::tree::{At, Key, Ref, Sources, Val};
use crate::number::decimal::Decimal;

/// The parts of a value equality looks at.
enum Shape<'t> {
    Null,
    Bool(bool),
    Number(&'t [u8]),
    String(Cow<'t, [u8]>),
    Array(Vec<Ref<'t>>),
    Object(Vec<(Cow<'t, [u8]>, Ref<'t>)>),
}

fn shape<'t>(r: Ref<'t>, s: &'t Sources<'_>) -> Shape<'t> {
    match r {
        Ref::Tree(&Val::At(at)) | Ref::At(at) => at_shape(at, s),
        Ref::Tree(Val::Obj(obj)) => Shape::Object(
            obj.members
                .iter()
                .map(|m| {
                    let key = match &m.key {
                        Key::At(k) => s.key(*k),
                        Key::Text(t) => Cow::Borrowed(&t[..]),
                    };
                    (key, Ref::Tree(&m.val))
                })
                .collect(),
        ),
        Ref::Tree(Val::Arr(arr)) => Shape::Array(arr.elems.iter().map(|e| Ref::Tree(&e.val)).collect()),
    }
}

fn at_shape<'t>(at: At, s: &'t Sources<'_>) -> Shape<'t> {
    match s.first(at) {
        b'n' => Shape::Null,
        b't' => Shape::Bool(true),
        b'f' => Shape::Bool(false),
        b'"' => Shape::String(s.key(at)),
        b'[' => Shape::Array(s.elements(at).into_iter().map(Ref::At).collect()),
        b'{' => Shape::Object(s.members(at).0.into_iter().map(|(k, v)| (s.key(k), Ref::At(v))).collect()),
        _ => Shape::Number(s.raw(at)),
    }
}

/// Whether `a` and `b` are equal JSON values.
pub(crate) fn equal(a: Ref<'_>, b: Ref<'_>, s: &Sources<'_>) -> bool {
    // Depth-first with an explicit stack: values may nest as deep as the
    // parse allowed.
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        match (shape(a, s), shape(b, s)) {
            (Shape::Null, Shape::Null) => {}
            (Shape::Bool(x), Shape::Bool(y)) if x == y => {}
            (Shape::Number(x), Shape::Number(y)) if Decimal::parse(x) == Decimal::parse(y) => {}
            (Shape::String(x), Shape::String(y)) if x == y => {}
            (Shape::Array(x), Shape::Array(y)) if x.len() == y.len() => pending.extend(x.into_iter().zip(y)),
            (Shape::Object(x), Shape::Object(y)) if x.len() == y.len() => {
                let by_key: HashMap<&[u8], Ref<'_>> = y.iter().map(|(k, v)| (&k[..], *v)).collect();
                for (k, v) in &x {
                    let Some(other) = by_key.get(&k[..]) else { return false };
                    pending.push((*v, *other));
                }
            }
            _ => return false,
        }
    }
    true
}
