//! qjson's tape as an instance representation for the `jsonschema` crate
//! (its `Json`/`Node`/`Object`/`Array`/`JsonNumber` traits): the validator
//! reads the document in place, without building a `serde_json::Value`.
//!
//! A node is the input, the tape and a slot, so it is `Copy` and borrows
//! nothing else. The document must come from a strict parse (strings,
//! numbers and literals already checked), which `schema::validate` ensures.

use std::borrow::Cow;
use std::ops::ControlFlow;

use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use jsonschema::JsonType;
use serde_json::Value;

use crate::number;
use crate::string;
use crate::tape::{self, Next};

/// The representation marker.
pub struct TapeJson;

/// One value of a parsed document.
#[derive(Clone, Copy)]
pub struct TapeNode<'a> {
    input: &'a [u8],
    tape: &'a [u32],
    at: u32,
}

/// The tape of a document made of one scalar starting at byte 0.
static SCALAR_TAPE: [u32; 1] = [0];

impl<'a> TapeNode<'a> {
    pub(crate) fn new(input: &'a [u8], tape: &'a [u32], at: u32) -> TapeNode<'a> {
        TapeNode { input, tape, at }
    }

    pub(crate) fn input(&self) -> &'a [u8] {
        self.input
    }

    /// Byte offset where the value starts.
    pub(crate) fn offset(&self) -> usize {
        tape::offset(self.tape, self.at)
    }

    #[inline(always)]
    fn first(&self) -> u8 {
        self.input[self.offset()]
    }

    /// A container's header.
    #[inline(always)]
    fn next(&self) -> Next {
        tape::next(self.tape, self.at)
    }

    /// The slot after this value and everything inside it.
    #[inline(always)]
    fn skip(&self) -> u32 {
        tape::skip(self.tape, self.at, self.first())
    }

    fn members_end(&self) -> u32 {
        self.next().members_end()
    }

    fn first_member(&self) -> u32 {
        tape::first_member(self.at)
    }

    fn count(&self) -> usize {
        tape::count(self.tape, self.at, self.first() == b'{')
    }

    /// For an object whose keys repeat, each key once with its last value
    /// (see `document::repeated_keys`).
    fn repeated_keys(&self) -> Option<Vec<(u32, u32)>> {
        crate::document::repeated_keys(self.input, self.tape, self.at)
    }

    fn at(&self, slot: u32) -> TapeNode<'a> {
        TapeNode { at: slot, ..*self }
    }

    /// A string's bytes: borrowed from the input when it has no escape,
    /// else decoded in the same pass that finds its closing quote.
    fn bytes(&self) -> Cow<'a, [u8]> {
        let body = &self.input[self.offset() + 1..];
        let mut out = Vec::new();
        match string::read_to_quote(body, &mut out).expect("strict parse: escapes are valid") {
            string::Read::Raw(raw) => Cow::Borrowed(raw),
            string::Read::Decoded(_) => Cow::Owned(out),
            string::Read::Unterminated => unreachable!("strict parse: strings are terminated"),
        }
    }

    fn text(&self) -> Cow<'a, str> {
        match self.bytes() {
            // SAFETY: a strict parse checked the input's UTF-8.
            Cow::Borrowed(b) => Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) }),
            Cow::Owned(v) => Cow::Owned(String::from_utf8(v).expect("strict parse: escapes decode to UTF-8")),
        }
    }

    fn number_text(&self) -> &'a [u8] {
        let s = &self.input[self.offset()..];
        let len = s.iter().position(|&c| number::is_delimiter(c)).unwrap_or(s.len());
        &s[..len]
    }

    /// Tape slots this value spans (about one per key and value in it).
    pub(crate) fn slots(&self) -> usize {
        (self.skip() - self.at) as usize
    }

    /// Depth of nesting below this value (0 for a scalar), walking only
    /// containers that hold containers.
    pub(crate) fn depth(&self) -> usize {
        if !tape::opens(self.first()) {
            return 0;
        }
        // (container, slot of its next member) pairs; bounded by the parse's max_depth.
        let mut stack = vec![(*self, self.first_member())];
        let mut deepest = 1;
        while let Some(&mut (c, ref mut slot)) = stack.last_mut() {
            if c.next().scalars_only() || *slot >= c.members_end() {
                stack.pop();
                continue;
            }
            let member = if c.first() == b'{' { c.at(*slot + 1) } else { c.at(*slot) };
            *slot = member.skip();
            if tape::opens(member.first()) {
                stack.push((member, member.first_member()));
                deepest = deepest.max(stack.len());
            }
        }
        deepest
    }

    /// A `serde_json::Value` of this value (cold paths: `uniqueItems` on
    /// containers, error instances). Parsed from the value's text.
    fn value(&self) -> Value {
        first_value(&self.input[self.offset()..], 0)
    }
}

/// The first JSON value in `bytes` as a `serde_json::Value` (`Null` if
/// serde_json refuses it, e.g. nesting beyond its recursion limit).
fn first_value(bytes: &[u8], _: u32) -> Value {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    values.next().and_then(Result::ok).unwrap_or(Value::Null)
}

/// Code points in UTF-8 bytes: the bytes that do not continue one.
fn code_points(s: &[u8]) -> u64 {
    s.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64
}

impl Json for TapeJson {
    type Node<'a> = TapeNode<'a>;
    /// The key's bytes, compared with raw keys (decoded only when escaped).
    type PreparedKey = Box<[u8]>;
    /// Lookups scan the members, so a members pass is worth it early.
    const KEYS_PER_LOOKUP: usize = 4;
    const ACYCLIC: bool = true;
    type StringBuffer = Vec<u8>;

    fn prepare_key(key: &str) -> Box<[u8]> {
        key.as_bytes().into()
    }

    fn with_string_node<T>(buffer: &mut Vec<u8>, string: &str, f: impl FnOnce(TapeNode<'_>) -> T) -> T {
        buffer.clear();
        serde_json::to_writer(&mut *buffer, string).expect("writing to a Vec cannot fail");
        f(TapeNode { input: buffer, tape: &SCALAR_TAPE, at: 0 })
    }
}

/// A number's text.
pub struct TapeNumber<'a>(&'a [u8]);

impl JsonNumber for TapeNumber<'_> {
    fn as_u64(&self) -> Option<u64> {
        number::to_u64(self.0)
    }
    fn as_i64(&self) -> Option<i64> {
        number::to_i64(self.0)
    }
    fn as_f64(&self) -> Option<f64> {
        Some(number::to_f64(self.0))
    }
    fn as_str(&self) -> Cow<'_, str> {
        // SAFETY: number text is ASCII.
        Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(self.0) })
    }
    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        let n = self
            .as_u64()
            .map(serde_json::Number::from)
            .or_else(|| self.as_i64().map(serde_json::Number::from))
            .or_else(|| serde_json::Number::from_f64(number::to_f64(self.0)))
            .unwrap_or_else(|| serde_json::Number::from(0));
        Cow::Owned(n)
    }
    fn is_integer(&self) -> bool {
        let integer_text = !self.0.iter().any(|c| matches!(c, b'.' | b'e' | b'E'));
        if integer_text {
            return true;
        }
        let v = number::to_f64(self.0);
        v.is_finite() && v.fract() == 0.0
    }
}

impl<'a> Node<'a, TapeJson> for TapeNode<'a> {
    type Object = TapeObject<'a>;
    type Array = TapeArray<'a>;
    type Number = TapeNumber<'a>;

    fn as_object(&self) -> Option<TapeObject<'a>> {
        (self.first() == b'{').then_some(TapeObject(*self))
    }
    fn as_array(&self) -> Option<TapeArray<'a>> {
        (self.first() == b'[').then_some(TapeArray(*self))
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        (self.first() == b'"').then(|| self.text())
    }
    fn as_number(&self) -> Option<TapeNumber<'a>> {
        self.is_number().then(|| TapeNumber(self.number_text()))
    }
    fn as_boolean(&self) -> Option<bool> {
        match self.first() {
            b't' => Some(true),
            b'f' => Some(false),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        self.first() == b'n'
    }
    fn is_number(&self) -> bool {
        matches!(self.first(), b'-' | b'0'..=b'9')
    }
    fn is_string(&self) -> bool {
        self.first() == b'"'
    }
    fn json_type(&self) -> JsonType {
        match self.first() {
            b'{' => JsonType::Object,
            b'[' => JsonType::Array,
            b'"' => JsonType::String,
            b't' | b'f' => JsonType::Boolean,
            b'n' => JsonType::Null,
            _ => JsonType::Number,
        }
    }
    fn string_length(&self) -> Option<u64> {
        if self.first() != b'"' {
            return None;
        }
        Some(code_points(&self.bytes()))
    }
    fn string_length_within(&self, min: u64, max: u64) -> Option<bool> {
        if self.first() != b'"' {
            return None;
        }
        // Without escapes, a body of n bytes holds between n/4 and n code
        // points: most bounds are decided without counting (base64 images).
        let s = self.bytes();
        let n = s.len() as u64;
        if matches!(s, Cow::Borrowed(_)) {
            if n <= max && n.div_ceil(4) >= min {
                return Some(true);
            }
            if n.div_ceil(4) > max || n < min {
                return Some(false);
            }
        }
        Some((min..=max).contains(&code_points(&s)))
    }
    fn equals_value(&self, expected: &Value) -> bool {
        match (self.first(), expected) {
            (b'"', Value::String(s)) => *self.bytes() == *s.as_bytes(),
            (b'"', _) | (_, Value::String(_)) => false,
            (b't' | b'f', Value::Bool(b)) => self.as_boolean() == Some(*b),
            (b'n', Value::Null) => true,
            (b't' | b'f' | b'n', _) => false,
            _ => jsonschema::json::cmp::equal(&self.to_value(), expected),
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(self.value())
    }
    fn lazy_value(&self) -> jsonschema_value::LazyInstance<'a> {
        // Built only if someone reads the error's instance (qjson does not).
        jsonschema_value::LazyInstance::Deferred {
            bytes: &self.input[self.offset()..],
            tag: 0,
            make: first_value,
            cell: std::sync::OnceLock::new(),
        }
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(self.tape.as_ptr() as usize, self.at))
    }
}

/// An object node.
pub struct TapeObject<'a>(TapeNode<'a>);

impl<'a> Object<'a, TapeJson> for TapeObject<'a> {
    type Node = TapeNode<'a>;
    type MemberName = Cow<'a, str>;
    type MembersIter = Members<'a>;

    /// Distinct keys: a repeated key is one property (see `Members`).
    fn len(&self) -> usize {
        self.0.repeated_keys().map_or_else(|| self.0.count(), |m| m.len())
    }

    /// The last value of `key`, as every qjson read (the first when stage
    /// 2 proved the keys unique).
    fn get(&self, key: &Box<[u8]>) -> Option<TapeNode<'a>> {
        let o = &self.0;
        let end = o.members_end();
        let unique = o.next().unique_keys();
        let first = key.first().copied().unwrap_or(b'"');
        let mut k = o.first_member();
        let mut found = None;
        while k < end {
            let body = &o.input[tape::offset(o.tape, k) + 1..];
            if (body[0] == first || body[0] == b'\\') && string::key_eq(body, key) {
                if unique {
                    return Some(o.at(k + 1));
                }
                found = Some(o.at(k + 1));
            }
            k = o.at(k + 1).skip();
        }
        found
    }

    fn members(&self) -> Members<'a> {
        Members {
            obj: self.0,
            slot: self.0.first_member(),
            end: self.0.members_end(),
            repeated: self.0.repeated_keys().map(Vec::into_iter),
        }
    }

    fn try_for_each_name_node<B>(
        &self,
        _buffer: &mut Vec<u8>,
        mut f: impl FnMut(TapeNode<'_>) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        // Keys are string nodes of the tape already.
        let (o, end) = (self.0, self.0.members_end());
        let mut k = o.first_member();
        while k < end {
            f(o.at(k))?;
            k = o.at(k + 1).skip();
        }
        ControlFlow::Continue(())
    }
}

/// An object's members in source order; when a key repeats, each key
/// once with its last value (`document::repeated_keys`), as for every
/// qjson read and for the upstream parsers that keep the last value:
/// validation sees the object they see, so repeats can neither meet
/// `minProperties` nor hide a value from `unevaluatedProperties`.
pub struct Members<'a> {
    obj: TapeNode<'a>,
    slot: u32,
    end: u32,
    /// The (key, value) slots when a key repeats.
    repeated: Option<std::vec::IntoIter<(u32, u32)>>,
}

impl<'a> Iterator for Members<'a> {
    type Item = (Cow<'a, str>, TapeNode<'a>);
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(pairs) = &mut self.repeated {
            return pairs.next().map(|(k, v)| (self.obj.at(k).text(), self.obj.at(v)));
        }
        if self.slot >= self.end {
            return None;
        }
        let key = self.obj.at(self.slot);
        let value = self.obj.at(self.slot + 1);
        self.slot = value.skip();
        Some((key.text(), value))
    }
}

/// An array node.
pub struct TapeArray<'a>(TapeNode<'a>);

impl<'a> Array<'a, TapeJson> for TapeArray<'a> {
    type Node = TapeNode<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        self.0.count()
    }
    fn elements(&self) -> Elements<'a> {
        Elements { arr: self.0, slot: self.0.first_member(), end: self.0.members_end() }
    }
}

/// An array's elements in order.
pub struct Elements<'a> {
    arr: TapeNode<'a>,
    slot: u32,
    end: u32,
}

impl<'a> Iterator for Elements<'a> {
    type Item = TapeNode<'a>;
    fn next(&mut self) -> Option<TapeNode<'a>> {
        if self.slot >= self.end {
            return None;
        }
        let e = self.arr.at(self.slot);
        self.slot = e.skip();
        Some(e)
    }
}
