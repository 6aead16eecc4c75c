//! qjson's tape as an instance representation for the `jsonschema` crate
//! (its `Json`/`Node`/`Object`/`Array`/`JsonNumber` traits): the validator
//! reads the document in place, without building a `serde_json::Value`.
//!
//! A node is a slot and the [`Walk`] it belongs to (the input, the tape and
//! the bounds of the validation that reads them), so it is `Copy`. The
//! document must come from a strict parse (strings, numbers and literals
//! already checked), which `schema::validate` ensures.

use std::borrow::Cow;
use std::cell::Cell;
use std::ops::ControlFlow;

use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use jsonschema::JsonType;
use serde_json::Value;

use super::bounds::Bounds;
use super::equal;
use crate::number;
use crate::number::decimal::Decimal;
use crate::string;
use crate::tape::{self, Next};

/// The representation marker.
pub struct TapeJson;

/// A document as one validation reads it: its text, its tape, and the
/// bounds every node's reads are checked against.
pub(crate) struct Walk<'a> {
    input: &'a [u8],
    tape: &'a [u32],
    pub(crate) bounds: Bounds,
    /// Objects whose keys this walk found distinct, by slot + 1 (0: none),
    /// at `slot % DISTINCT_MEMO`: the crate asks an object's size and
    /// members several times (each keyword, `len` then `members`), and
    /// deciding it again each time was a quarter of a body's validation.
    keys_distinct: [Cell<u32>; DISTINCT_MEMO],
}

/// Entries of `Walk::keys_distinct` (a collision only costs deciding again).
const DISTINCT_MEMO: usize = 8;

impl<'a> Walk<'a> {
    pub(crate) fn new(input: &'a [u8], tape: &'a [u32], bounds: Bounds) -> Walk<'a> {
        Walk { input, tape, bounds, keys_distinct: Default::default() }
    }
}

/// One value of a parsed document.
#[derive(Clone, Copy)]
pub struct TapeNode<'a> {
    walk: &'a Walk<'a>,
    at: u32,
}

/// The tape of a document made of one scalar starting at byte 0.
pub(crate) static SCALAR_TAPE: [u32; 1] = [0];

impl<'a> TapeNode<'a> {
    pub(crate) fn new(walk: &'a Walk<'a>, at: u32) -> TapeNode<'a> {
        TapeNode { walk, at }
    }

    pub(crate) fn walk(&self) -> &'a Walk<'a> {
        self.walk
    }

    pub(crate) fn input(&self) -> &'a [u8] {
        self.walk.input
    }

    fn tape(&self) -> &'a [u32] {
        self.walk.tape
    }

    pub(crate) fn slot(&self) -> u32 {
        self.at
    }

    /// Byte offset where the value starts.
    pub(crate) fn offset(&self) -> usize {
        tape::offset(self.tape(), self.at)
    }

    /// The value's first byte, which tells its kind: every keyword reads
    /// it, so it counts the validation's work (`Bounds::charge_work`).
    #[inline(always)]
    pub(crate) fn first(&self) -> u8 {
        self.walk.bounds.charge_work(self.at);
        self.input()[self.offset()]
    }

    /// A container's header.
    #[inline(always)]
    fn next(&self) -> Next {
        tape::next(self.tape(), self.at)
    }

    /// The slot after this value and everything inside it.
    #[inline(always)]
    pub(crate) fn skip(&self) -> u32 {
        tape::skip(self.tape(), self.at, self.first())
    }

    pub(crate) fn members_end(&self) -> u32 {
        self.next().members_end()
    }

    pub(crate) fn first_member(&self) -> u32 {
        tape::first_member(self.at)
    }

    fn count(&self) -> usize {
        tape::count(self.tape(), self.at, self.first() == b'{')
    }

    /// For an object whose keys repeat, each key once with its last value
    /// (see `document::repeated_keys`).
    fn repeated_keys(&self) -> Option<Vec<(u32, u32)>> {
        let memo = &self.walk.keys_distinct[self.at as usize % DISTINCT_MEMO];
        if memo.get() == self.at + 1 {
            return None;
        }
        let repeated = crate::document::repeated_keys(self.input(), self.tape(), self.at);
        if repeated.is_none() {
            memo.set(self.at + 1);
        }
        repeated
    }

    /// Whether some key of this object repeats.
    pub(crate) fn keys_repeat(&self) -> bool {
        self.repeated_keys().is_some()
    }

    pub(crate) fn at(&self, slot: u32) -> TapeNode<'a> {
        TapeNode { at: slot, ..*self }
    }

    /// A string's bytes: borrowed from the input when it has no escape,
    /// else decoded in the same pass that finds its closing quote.
    pub(crate) fn bytes(&self) -> Cow<'a, [u8]> {
        let body = &self.input()[self.offset() + 1..];
        let mut out = Vec::new();
        match string::read_to_quote(body, &mut out).expect("strict parse: escapes are valid") {
            string::Read::Raw(raw) => Cow::Borrowed(raw),
            string::Read::Decoded(_) => Cow::Owned(out),
            string::Read::Unterminated => unreachable!("strict parse: strings are terminated"),
        }
    }

    pub(crate) fn text(&self) -> Cow<'a, str> {
        match self.bytes() {
            // SAFETY: a strict parse checked the input's UTF-8.
            Cow::Borrowed(b) => Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) }),
            Cow::Owned(v) => Cow::Owned(String::from_utf8(v).expect("strict parse: escapes decode to UTF-8")),
        }
    }

    pub(crate) fn number_text(&self) -> &'a [u8] {
        let s = &self.input()[self.offset()..];
        let len = s.iter().position(|&c| number::is_delimiter(c)).unwrap_or(s.len());
        &s[..len]
    }

    /// This array's elements, this object's members, without the stack
    /// check of `as_array`/`as_object` (qjson's own iterative walks).
    pub(crate) fn elements_of(&self) -> Elements<'a> {
        TapeArray(*self).elements()
    }
    pub(crate) fn members_of(&self) -> TapeObject<'a> {
        TapeObject(*self)
    }
    pub(crate) fn count_of(&self) -> usize {
        self.count()
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
}

impl<'a> TapeNode<'a> {
    /// This value as a `serde_json::Value`, exactly (numbers as written),
    /// built on an explicit stack (the crate gives the errors of qjson's
    /// own keywords one; `max_depth` bounds its nesting).
    fn build_value(&self) -> Value {
        let mut stack: Vec<Building<'a>> = Vec::new();
        let mut value = Building::open(*self, &mut stack);
        loop {
            if let Some(v) = value.take() {
                match stack.last_mut() {
                    None => return v,
                    Some(top) => top.add(v),
                }
            }
            let top = stack.last_mut().expect("a container is open");
            value = match top.members.next() {
                Some((key, n)) => {
                    top.key = key;
                    Building::open(n, &mut stack)
                }
                None => stack.pop().map(Building::close),
            };
        }
    }
}

/// A container of `TapeNode::build_value` being filled.
struct Building<'a> {
    array: Option<Vec<Value>>,
    object: serde_json::Map<String, Value>,
    members: std::vec::IntoIter<(Option<String>, TapeNode<'a>)>,
    key: Option<String>,
}

impl<'a> Building<'a> {
    /// A scalar's value; or, for a container, `None` and its frame pushed.
    fn open(n: TapeNode<'a>, stack: &mut Vec<Building<'a>>) -> Option<Value> {
        Some(match n.first() {
            b'[' => {
                let members: Vec<_> = n.elements_of().map(|e| (None, e)).collect();
                let array = Some(Vec::with_capacity(members.len()));
                stack.push(Building { array, object: serde_json::Map::new(), members: members.into_iter(), key: None });
                return None;
            }
            b'{' => {
                let members: Vec<_> = n.members_of().members().map(|(k, v)| (Some(k.into_owned()), v)).collect();
                stack.push(Building {
                    array: None,
                    object: serde_json::Map::new(),
                    members: members.into_iter(),
                    key: None,
                });
                return None;
            }
            b'"' => Value::String(n.text().into_owned()),
            b't' => Value::Bool(true),
            b'f' => Value::Bool(false),
            b'n' => Value::Null,
            // (Number text is ASCII.)
            _ => Value::Number(serde_json::Number::from_string_unchecked(
                String::from_utf8_lossy(n.number_text()).into_owned(),
            )),
        })
    }

    fn add(&mut self, v: Value) {
        match &mut self.array {
            Some(items) => items.push(v),
            None => {
                self.object.insert(self.key.take().expect("a member's key"), v);
            }
        }
    }

    fn close(self) -> Value {
        match self.array {
            Some(items) => Value::Array(items),
            None => Value::Object(self.object),
        }
    }
}

/// The first JSON value in `bytes` as a `serde_json::Value`, numbers kept
/// as written (serde_json's `arbitrary_precision`). A value serde_json
/// cannot hold (nested beyond its 128 levels) has no such form: building
/// one is a bug of the caller, not a `null`.
fn first_value(bytes: &[u8], _: u32) -> Value {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => v,
        _ => panic!("qjson: this instance has no serde_json::Value form (nested deeper than 128)"),
    }
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
        // (Unused: property names are the tape's own key nodes, see
        // `try_for_each_name_node`.)
        buffer.clear();
        serde_json::to_writer(&mut *buffer, string).expect("writing to a Vec cannot fail");
        let walk = Walk::new(buffer, &SCALAR_TAPE, Bounds::unbounded());
        f(TapeNode { walk: &walk, at: 0 })
    }
}

/// A number's text.
pub struct TapeNumber<'a>(&'a [u8]);

impl JsonNumber for TapeNumber<'_> {
    // The text passed a strict parse (JSON's grammar), so the readers for
    // checked numbers apply: no UTF-8 check and no generic `str::parse`
    // on every comparison of a `minimum` or `maximum`.
    fn as_u64(&self) -> Option<u64> {
        match number::integer_prefix(self.0, false) {
            Some(n) => u64::try_from(n).ok(),
            // A fraction, an exponent, or past int64 (where u64 goes on).
            None => number::to_u64(self.0),
        }
    }
    fn as_i64(&self) -> Option<i64> {
        number::integer_prefix(self.0, false)
    }
    fn as_f64(&self) -> Option<f64> {
        Some(number::to_f64_valid(self.0, false))
    }
    fn as_str(&self) -> Cow<'_, str> {
        // SAFETY: number text is ASCII.
        Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(self.0) })
    }
    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        // The literal itself: exact at any size (`arbitrary_precision`).
        Cow::Owned(serde_json::Number::from_string_unchecked(self.as_str().into_owned()))
    }
    fn is_integer(&self) -> bool {
        Decimal::parse(self.0).is_integer()
    }
}

impl<'a> Node<'a, TapeJson> for TapeNode<'a> {
    type Object = TapeObject<'a>;
    type Array = TapeArray<'a>;
    type Number = TapeNumber<'a>;

    // Every descent into the instance goes through these two: the check
    // of the validation's stack (`Bounds::check_stack`) sits here.
    fn as_object(&self) -> Option<TapeObject<'a>> {
        if self.first() != b'{' {
            return None;
        }
        self.walk.bounds.check_stack(self.at);
        Some(TapeObject(*self))
    }
    fn as_array(&self) -> Option<TapeArray<'a>> {
        if self.first() != b'[' {
            return None;
        }
        self.walk.bounds.check_stack(self.at);
        Some(TapeArray(*self))
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
        equal::to_value(*self, expected)
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(self.build_value())
    }
    fn lazy_value(&self) -> jsonschema_value::LazyInstance<'a> {
        // Every error the crate builds asks for its instance here: the
        // count of `validate`'s error memory (`Bounds::charge_error`).
        // Built only if someone reads it (qjson does not).
        self.walk.bounds.charge_error(self);
        jsonschema_value::LazyInstance::Deferred {
            bytes: &self.input()[self.offset()..],
            tag: 0,
            make: first_value,
            cell: std::sync::OnceLock::new(),
        }
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(self.tape().as_ptr() as usize, self.at))
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
            let body = &o.input()[tape::offset(o.tape(), k) + 1..];
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
        Some((key_text(key, value), value))
    }
}

/// The text of `key`, its closing quote found back from its value's first
/// byte (only blanks and the colon lie between): a key without escapes is
/// borrowed with no scan for its end.
fn key_text<'a>(key: TapeNode<'a>, value: TapeNode<'a>) -> Cow<'a, str> {
    let input = key.input();
    let mut quote = value.offset() - 1;
    while input[quote] != b'"' {
        quote -= 1;
    }
    let raw = &input[key.offset() + 1..quote];
    if raw.contains(&b'\\') {
        return key.text();
    }
    // SAFETY: a strict parse checked the input's UTF-8, and a key without
    // escapes is its raw bytes.
    Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(raw) })
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
    fn is_unique(&self) -> bool {
        equal::all_distinct(self.0)
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
