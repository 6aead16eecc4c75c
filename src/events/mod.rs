//! A value as a flat stream of events, in document order, so that Lua can
//! build plain tables from a whole document after one call across the FFI
//! (`qjson.cjson.decode`, `qjson.materialize`).
//!
//! Each event is 16 bytes. A scalar is one event. An array is an event
//! whose `n` is its element count, followed by the elements; an object is
//! an event whose `n` is its member count, followed by key, value pairs
//! (keys are string events; a repeated key appears each time, and the last
//! one wins when Lua stores them in order). Containers whose members are
//! all scalars have tags of their own, so the builder can fill them in a
//! tight loop; their members may also be empty containers, each one event
//! (`ScalarArray` or `ScalarObject` with `n` 0). Strings point into the
//! input when they hold no escape, else into the stream's own buffer.
//!
//! Object keys repeat, within a document and from one document to the next,
//! so short keys get an id from a [`KeyCache`]: the builder keeps the
//! string it made for each id and looks it up instead of making it again.
//! Objects of one shape repeat their keys in the same order, so the cache
//! first tries the key that followed the object's previous key last time.
//! An object whose keys all have ids gets a shape id too (its event's
//! `v.num`): the builder makes an object of a shape it has built before by
//! copying a table with those keys instead of inserting them one by one.

use std::ffi::c_char;

use crate::tape::{self, Next};
use crate::{number, string, Document, Error, Kind, Node};

/// What an event holds.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventTag {
    Null = 0,
    False = 1,
    True = 2,
    /// `v.num` is the number's nearest double.
    Number = 3,
    /// `v.ptr` and `n` are the unescaped bytes and their count.
    String = 4,
    /// `n` elements follow.
    Array = 5,
    /// `n` key, value pairs follow. `v.num` is the object's shape id (0
    /// for none): objects with one shape id have the same keys (see
    /// `KeyCache::shape`).
    Object = 6,
    /// `n` elements follow, none of them an array or object but an empty
    /// one (a `ScalarArray` or `ScalarObject` event with `n` 0).
    ScalarArray = 7,
    /// `n` key, value pairs follow, no value an array or object but an
    /// empty one. `v.num` as for `Object`.
    ScalarObject = 8,
    /// An object key from the key cache: `n` is its id (from 1) and
    /// `v.ptr` its bytes, NUL-terminated, valid until the cache renews.
    Key = 9,
}

/// What a stream holds besides its events (`qjson_stream_info`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StreamInfo {
    /// How many events there are.
    pub count: u32,
    /// The key cache's generation: ids seen under another generation
    /// no longer mean the same keys.
    pub key_generation: u32,
}

/// An event's payload: `num` for a number, `ptr` for a string.
#[repr(C)]
#[derive(Clone, Copy)]
pub union EventValue {
    pub num: f64,
    pub ptr: *const c_char,
}

/// One value of the stream, or the start of a container (`qjson_event`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Event {
    pub tag: EventTag,
    /// A string's length in bytes; a container's element or member count.
    pub n: u32,
    pub v: EventValue,
}

impl Event {
    #[inline(always)]
    fn new(tag: EventTag, n: u32, num: f64) -> Event {
        Event { tag, n, v: EventValue { num } }
    }

    #[inline(always)]
    fn string(n: usize, ptr: *const u8) -> Event {
        Event { tag: EventTag::String, n: n as u32, v: EventValue { ptr: ptr.cast() } }
    }
}

/// Buffers for one stream of events, reused from call to call.
#[derive(Default)]
pub struct Stream {
    events: Vec<Event>,
    /// Unescaped strings, back to back.
    strings: Vec<u8>,
    /// Events whose `ptr` still holds an offset into `strings` (final
    /// pointers are set once `strings` stops growing).
    offsets: Vec<u32>,
    /// Where a string is unescaped before it joins `strings`.
    unescaped: Vec<u8>,
    /// Open containers of the walk.
    stack: Vec<Open>,
    /// The key ids of the open objects' members so far (0 for a key not
    /// in the cache), the innermost object's last: what gives its shape.
    key_ids: Vec<u32>,
    /// The document's `cjson_integers` option, for the strict walk.
    cjson_integers: bool,
}

/// An open container: in the strict walk, the slot where its members end
/// and the slot after it; in the checked walk, its node, the child to emit
/// next, and for an object whether that child's key was emitted already.
#[derive(Clone, Copy)]
struct Open {
    a: Node,
    b: Node,
    object: bool,
    at_value: bool,
    /// The id of the object's last key from the cache (0 before the
    /// first): what predicts the next one (see `KeyCache::next`).
    last_key: u32,
    /// In the strict walk, for an object: its event, and where its key ids
    /// start in `key_ids`.
    event: u32,
    ids_from: u32,
}

/// Buffers grown past this many events (or bytes of strings) are released
/// before the next use, so one huge document does not pin its memory.
const KEEP: usize = 1 << 20;

impl Stream {
    /// The events of the value at `node`. Strings point into `doc`'s input
    /// or into this stream, so they stay valid while both do and this
    /// stream is not used again. With `keys`, object keys of a strict
    /// document come from (and join) that cache.
    pub fn events(
        &mut self,
        doc: &mut Document<'_>,
        node: Node,
        keys: Option<&mut KeyCache>,
    ) -> Result<&[Event], Error> {
        self.reset();
        if doc.options().strict() {
            self.walk_valid(doc, node, keys);
        } else {
            self.walk_checked(doc, node)?;
        }
        for &i in &self.offsets {
            let e = &mut self.events[i as usize];
            // SAFETY: the string events listed here hold an offset into
            // `strings` in `ptr`; `strings` no longer changes.
            e.v.ptr = unsafe { self.strings.as_ptr().add(e.v.ptr as usize) }.cast();
        }
        Ok(&self.events)
    }

    fn reset(&mut self) {
        if self.events.capacity() > KEEP {
            self.events = Vec::new();
        }
        if self.strings.capacity() > KEEP {
            self.strings = Vec::new();
        }
        if self.offsets.capacity() > KEEP {
            self.offsets = Vec::new();
        }
        self.events.clear();
        self.strings.clear();
        self.offsets.clear();
        self.stack.clear();
        self.key_ids.clear();
    }

    /// Sets the shape of the object whose event is `event` and whose key
    /// ids start at `key_ids[from]`, and forgets those ids.
    #[inline(always)]
    fn set_shape(&mut self, keys: &mut Option<&mut KeyCache>, event: usize, from: usize) {
        if let Some(cache) = keys {
            self.events[event].v.num = cache.shape(&self.key_ids[from..]) as f64;
        }
        self.key_ids.truncate(from);
    }

    /// The event of a string whose body starts at `start` (valid: checked
    /// by stage 1). Escaped strings are unescaped into `strings`, and the
    /// event records their offset until `events` sets the pointers.
    #[inline(always)]
    fn string(&mut self, input: &[u8], start: usize) -> Event {
        let (len, escaped) = string_body(input, start);
        let body = &input[start..start + len];
        if !escaped {
            return Event::string(len, body.as_ptr());
        }
        if string::unescape(body, &mut self.unescaped).is_err() {
            // Not reached: escapes of a strict document were checked.
            return Event::string(len, body.as_ptr());
        }
        let offset = self.strings.len();
        self.strings.extend_from_slice(&self.unescaped);
        self.offsets.push(self.events.len() as u32);
        Event::string(self.unescaped.len(), offset as *const u8)
    }

    /// The event of a key whose body starts at `start`: from the cache
    /// when it is short and has no escape. `last` is the id of the
    /// object's previous key (0 for none), which predicts this one; it
    /// becomes this key's id (0 when not cached).
    #[inline(always)]
    fn key(&mut self, input: &[u8], start: usize, keys: &mut Option<&mut KeyCache>, last: &mut u32) -> Event {
        if let Some(cache) = keys {
            if let Some((id, bytes)) = cache.next(*last, input, start) {
                *last = id;
                return Event { tag: EventTag::Key, n: id, v: EventValue { ptr: bytes.cast() } };
            }
            let (len, escaped) = string_body(input, start);
            if !escaped {
                if let Some((id, bytes)) = cache.id(&input[start..start + len]) {
                    cache.follows(*last, id);
                    *last = id;
                    return Event { tag: EventTag::Key, n: id, v: EventValue { ptr: bytes.cast() } };
                }
            }
            *last = 0;
        }
        self.string(input, start)
    }

    /// The event of the scalar at `pos` of a valid document.
    #[inline(always)]
    fn scalar(&mut self, input: &[u8], pos: usize, lenient: bool) -> Event {
        match input[pos] {
            b'"' => self.string(input, pos + 1),
            b't' => Event::new(EventTag::True, 0, 0.0),
            b'f' => Event::new(EventTag::False, 0, 0.0),
            b'n' if !lenient || input.get(pos + 1) == Some(&b'u') => Event::new(EventTag::Null, 0, 0.0),
            _ => {
                let v = number::to_f64_valid(&input[pos..], lenient);
                // Only -0 and integers past ±2^63 read otherwise as lua-cjson's.
                let v =
                    if self.cjson_integers && ((v == 0.0 && v.is_sign_negative()) || v.abs() >= 9.223372036854775e18) {
                        number::strtoll_f64(&input[pos..]).unwrap_or(v)
                    } else {
                        v
                    };
                Event::new(EventTag::Number, 0, v)
            }
        }
    }

    /// The walk for a document validated at parse time (strict mode): one
    /// pass along the tape in slot order, which is document order. See
    /// `tape` for the layout.
    fn walk_valid(&mut self, doc: &Document<'_>, node: Node, mut keys: Option<&mut KeyCache>) {
        let tape = doc.tape();
        let input = doc.input();
        let lenient = doc.options().lenient_numbers();
        self.cjson_integers = doc.options().cjson_integers != 0;
        self.events.reserve((doc.skip(node) - node) as usize);
        let mut i = node as usize;
        loop {
            // An object's member starts with its key.
            if let Some(top) = self.stack.last_mut() {
                if top.object && !top.at_value {
                    top.at_value = true;
                    let mut last = top.last_key;
                    let e = self.key(input, tape::offset(tape, i as Node) + 1, &mut keys, &mut last);
                    if let Some(top) = self.stack.last_mut() {
                        top.last_key = last;
                    }
                    self.key_ids.push(last);
                    self.events.push(e);
                    i += 1;
                }
            }
            let pos = tape::offset(tape, i as Node);
            match input[pos] {
                c @ (b'{' | b'[') => {
                    let next = tape::next(tape, i as Node);
                    let after = next.after() as usize;
                    let object = c == b'{';
                    let scalars_only = next.scalars_only();
                    if !scalars_only && !flat_members(tape, input, i as Node, object) {
                        // Members follow, some of them containers.
                        let tag = if object { EventTag::Object } else { EventTag::Array };
                        let event = self.events.len() as u32;
                        self.events.push(Event::new(tag, tape::count(tape, i as Node, object) as u32, 0.0));
                        let members_end = next.members_end();
                        self.stack.push(Open {
                            a: members_end,
                            b: after as Node,
                            object,
                            at_value: false,
                            last_key: 0,
                            event,
                            ids_from: self.key_ids.len() as u32,
                        });
                        i = tape::first_member(i as Node) as usize;
                        continue;
                    }
                    // Scalars only: emitted here, in one loop.
                    let tag = if object { EventTag::ScalarObject } else { EventTag::ScalarArray };
                    if !scalars_only {
                        // Scalars and empty containers, each of those as
                        // one event (an empty scalars-only container).
                        let members_end = next.members_end() as usize;
                        let (event, from) = (self.events.len(), self.key_ids.len());
                        self.events.push(Event::new(tag, tape::count(tape, i as Node, object) as u32, 0.0));
                        let mut j = tape::first_member(i as Node) as usize;
                        let mut last = 0;
                        while j < members_end {
                            if object {
                                let k = self.key(input, tape::offset(tape, j as Node) + 1, &mut keys, &mut last);
                                self.key_ids.push(last);
                                self.events.push(k);
                                j += 1;
                            }
                            let p = tape::offset(tape, j as Node);
                            let v = match input[p] {
                                b'[' => Event::new(EventTag::ScalarArray, 0, 0.0),
                                b'{' => Event::new(EventTag::ScalarObject, 0, 0.0),
                                _ => self.scalar(input, p, lenient),
                            };
                            self.events.push(v);
                            j = tape::skip(tape, j as Node, input[p]) as usize;
                        }
                        if object {
                            self.set_shape(&mut keys, event, from);
                        }
                        i = after;
                    } else if object {
                        let members = tape::scalar_members(tape, i as Node);
                        let (event, from) = (self.events.len(), self.key_ids.len());
                        self.events.push(Event::new(tag, (members.len() / 2) as u32, 0.0));
                        let mut last = 0;
                        for pair in members.chunks_exact(2) {
                            let k = self.key(input, pair[0] as usize + 1, &mut keys, &mut last);
                            self.key_ids.push(last);
                            self.events.push(k);
                            let v = self.scalar(input, pair[1] as usize, lenient);
                            self.events.push(v);
                        }
                        self.set_shape(&mut keys, event, from);
                        i = after;
                    } else {
                        self.events.push(Event::new(tag, tape::count(tape, i as Node, false) as u32, 0.0));
                        for &p in tape::scalar_members(tape, i as Node) {
                            let v = self.scalar(input, p as usize, lenient);
                            self.events.push(v);
                        }
                        i = after;
                    }
                }
                _ => {
                    let e = self.scalar(input, pos, lenient);
                    self.events.push(e);
                    i += 1;
                }
            }
            // A value is complete: close the containers it completed, and
            // let the innermost open one expect its next member.
            loop {
                let Some(top) = self.stack.last_mut() else { return };
                if i < top.a as usize {
                    top.at_value = false;
                    break;
                }
                i = top.b as usize;
                let Open { object, event, ids_from, .. } = *top;
                self.stack.pop();
                if object {
                    self.set_shape(&mut keys, event as usize, ids_from as usize);
                }
            }
        }
    }

    /// The walk for a lazy-mode document, whose values are checked as they
    /// are read: through the document's own reads, child by child.
    fn walk_checked(&mut self, doc: &mut Document<'_>, node: Node) -> Result<(), Error> {
        self.emit_checked(doc, node)?;
        while let Some(top) = self.stack.last_mut() {
            let Open { a: parent, b: child, object, at_value, .. } = *top;
            if object && !at_value {
                top.at_value = true;
                self.emit_checked(doc, child)?;
                continue;
            }
            top.at_value = false;
            match doc.next_child(parent, child) {
                Some(next) => top.b = next,
                None => drop(self.stack.pop()),
            }
            // An object member's value is the node after its key.
            self.emit_checked(doc, child + object as u32)?;
        }
        Ok(())
    }

    fn emit_checked(&mut self, doc: &mut Document<'_>, node: Node) -> Result<(), Error> {
        let event = match doc.kind(node)? {
            Kind::Null => Event::new(EventTag::Null, 0, 0.0),
            Kind::Boolean => {
                let tag = if doc.bool(node)? { EventTag::True } else { EventTag::False };
                Event::new(tag, 0, 0.0)
            }
            Kind::Number => Event::new(EventTag::Number, 0, doc.f64(node)?),
            Kind::String => {
                let input = doc.input().as_ptr_range();
                let s = doc.str(node)?;
                if input.contains(&s.as_ptr()) || s.is_empty() {
                    Event::string(s.len(), s.as_ptr())
                } else {
                    // Unescaped into the document's scratch buffer, which
                    // the next string reuses: keep a copy.
                    let offset = self.strings.len();
                    self.strings.extend_from_slice(s);
                    self.offsets.push(self.events.len() as u32);
                    Event::string(s.len(), offset as *const u8)
                }
            }
            kind @ (Kind::Array | Kind::Object) => {
                let n = doc.len(node).unwrap_or(0) as u32;
                let object = kind == Kind::Object;
                if let Some(child) = doc.first_child(node) {
                    self.stack.push(Open {
                        a: node,
                        b: child,
                        object,
                        at_value: false,
                        last_key: 0,
                        event: 0,
                        ids_from: 0,
                    });
                }
                Event::new(if object { EventTag::Object } else { EventTag::Array }, n, 0.0)
            }
        };
        self.events.push(event);
        Ok(())
    }
}

/// Short object keys seen before, each with an id (from 1). Ids stay
/// valid until the cache is full and renews itself, which bumps its
/// generation; the caller renews it only between decodes.
pub struct KeyCache {
    /// Open addressing, `2 * MAX_KEYS` slots; `id` 0 marks a free one.
    slots: Box<[Slot]>,
    /// The keys' bytes, each NUL-terminated, at fixed addresses: the
    /// capacity is reserved once and never exceeded.
    bytes: Vec<u8>,
    /// Keys held (ids run from 1 to `count`).
    count: u32,
    /// `known[id]`: the key of that id, as its slot (index 0 unused).
    known: Box<[Slot]>,
    /// `after[id]`: the id of the key that last followed key `id` in an
    /// object (`after[0]`: the last first key), 0 for none. Objects of one
    /// shape repeat their keys in order, so this is usually the next key,
    /// found without hashing or even measuring it.
    after: Box<[u32]>,
    /// Lookups that found the cache full since it last renewed.
    misses: u32,
    generation: u32,
    shapes: Shapes,
}

/// Object shapes seen since the key cache last renewed: each sequence of
/// key ids an object had, with an id (from 1). Shape ids name key ids, so
/// they renew with them.
struct Shapes {
    /// Open addressing, `2 * MAX_SHAPES` slots: a shape's hash and id; id
    /// 0 marks a free slot.
    slots: Box<[(u64, u32)]>,
    /// The key ids of every shape, back to back.
    ids: Vec<u32>,
    /// `spans[id]`: where shape `id`'s key ids are in `ids` (index 0
    /// unused).
    spans: Vec<(u32, u32)>,
}

/// Shapes held at most, and the most keys a shape may have.
const MAX_SHAPES: usize = 4096;
const MAX_SHAPE_KEYS: usize = 256;
/// Key ids held at most, for all shapes.
const MAX_SHAPE_IDS: usize = 1 << 16;

impl Default for Shapes {
    fn default() -> Self {
        Shapes { slots: vec![(0, 0); 2 * MAX_SHAPES].into_boxed_slice(), ids: Vec::new(), spans: vec![(0, 0)] }
    }
}

impl Shapes {
    fn clear(&mut self) {
        self.slots.fill((0, 0));
        self.ids.clear();
        self.spans.truncate(1);
    }

    /// The id of the shape with key ids `keys`, adding it when new; 0 when
    /// a key has no id (0), or there are none or too many, or no room.
    fn id(&mut self, keys: &[u32]) -> u32 {
        if keys.is_empty() || keys.len() > MAX_SHAPE_KEYS {
            return 0;
        }
        let mut h = keys.len() as u64;
        let mut any_unknown = false;
        for &k in keys {
            any_unknown |= k == 0;
            h = (h ^ k as u64).wrapping_mul(MULTIPLIER);
        }
        if any_unknown {
            return 0;
        }
        let mask = self.slots.len() - 1;
        let mut at = (h >> 40) as usize & mask;
        loop {
            let (hash, id) = self.slots[at];
            if id == 0 {
                break;
            }
            if hash == h {
                let (from, to) = self.spans[id as usize];
                if &self.ids[from as usize..to as usize] == keys {
                    return id;
                }
            }
            at = (at + 1) & mask;
        }
        if self.spans.len() > MAX_SHAPES || self.ids.len() + keys.len() > MAX_SHAPE_IDS {
            return 0;
        }
        let id = self.spans.len() as u32;
        let from = self.ids.len() as u32;
        self.ids.extend_from_slice(keys);
        self.spans.push((from, self.ids.len() as u32));
        self.slots[at] = (h, id);
        id
    }
}

/// A key as two words that cover all its bytes (see `words`), its length,
/// id and stored bytes: keys of up to 16 bytes compare without reading
/// their bytes.
#[derive(Clone, Copy)]
struct Slot {
    a: u64,
    b: u64,
    len: u32,
    id: u32,
    stored: *const u8,
}

impl Default for Slot {
    fn default() -> Self {
        Slot { a: 0, b: 0, len: 0, id: 0, stored: std::ptr::null() }
    }
}

/// Keys cached at most, and the longest cached.
const MAX_KEYS: usize = 1024;
const MAX_KEY_LEN: usize = 64;
/// Misses (the cache being full) before it renews: a document with keys
/// that never repeat (ids as keys) must not make every decode renew it.
const RENEW_AFTER_MISSES: u32 = 64 * MAX_KEYS as u32;

impl Default for KeyCache {
    fn default() -> Self {
        KeyCache {
            slots: vec![Slot::default(); 2 * MAX_KEYS].into_boxed_slice(),
            bytes: Vec::with_capacity(MAX_KEYS * (MAX_KEY_LEN + 1)),
            count: 0,
            known: vec![Slot::default(); MAX_KEYS + 1].into_boxed_slice(),
            after: vec![0; MAX_KEYS + 1].into_boxed_slice(),
            misses: 0,
            generation: 0,
            shapes: Shapes::default(),
        }
    }
}

/// Two words holding every byte of `key` (overlapping when it is short),
/// read without going past its end.
#[inline(always)]
fn words(key: &[u8]) -> (u64, u64) {
    let n = key.len();
    let p = key.as_ptr();
    // SAFETY: every read is within the `n` bytes of `key`.
    unsafe {
        match n {
            0 => (0, 0),
            1..=3 => (*p as u64 | (*p.add(n / 2) as u64) << 8 | (*p.add(n - 1) as u64) << 16, 0),
            4..=7 => (p.cast::<u32>().read_unaligned() as u64, p.add(n - 4).cast::<u32>().read_unaligned() as u64),
            _ => (p.cast::<u64>().read_unaligned(), p.add(n - 8).cast::<u64>().read_unaligned()),
        }
    }
}

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

impl KeyCache {
    /// The id of `key` and its stored bytes, adding it when new; `None`
    /// when it is too long or the cache is full. `key` must hold no NUL
    /// (keys of a strict document without escapes hold none).
    #[inline]
    pub fn id(&mut self, key: &[u8]) -> Option<(u32, *const u8)> {
        let n = key.len();
        if n > MAX_KEY_LEN {
            return None;
        }
        let (a, b) = words(key);
        // Multiplicative hashing: the top bits of the product are the mixed ones.
        let mut h = (a ^ b.rotate_left(29) ^ n as u64).wrapping_mul(MULTIPLIER);
        if n > 16 {
            for w in key[8..n - 8].chunks(8) {
                h = (h ^ words(w).0).wrapping_mul(MULTIPLIER);
            }
        }
        let mask = self.slots.len() - 1;
        let mut at = (h >> 40) as usize & mask;
        loop {
            let slot = &self.slots[at];
            if slot.id == 0 {
                return self.add(key, at, a, b);
            }
            if slot.a == a && slot.b == b && slot.len == n as u32 {
                // SAFETY: `stored` points at the slot's key, `len` bytes
                // (plus its NUL) inside `bytes`, which never moves.
                if n <= 16 || unsafe { std::slice::from_raw_parts(slot.stored, n) } == key {
                    return Some((slot.id, slot.stored));
                }
            }
            at = (at + 1) & mask;
        }
    }

    #[cold]
    fn add(&mut self, key: &[u8], at: usize, a: u64, b: u64) -> Option<(u32, *const u8)> {
        if self.count >= MAX_KEYS as u32 {
            self.misses = self.misses.saturating_add(1);
            return None;
        }
        let start = self.bytes.len();
        // Within the capacity reserved at creation: stored keys never move.
        self.bytes.extend_from_slice(key);
        self.bytes.push(0);
        self.count += 1;
        let stored = self.bytes[start..].as_ptr();
        self.slots[at] = Slot { a, b, len: key.len() as u32, id: self.count, stored };
        self.known[self.count as usize] = self.slots[at];
        Some((self.count, stored))
    }

    /// Forgets every key once the cache has been full for a while, so that
    /// keys of later documents get ids too. Only between decodes: events of
    /// a decode still being read point at the keys.
    pub fn renew_if_full(&mut self) {
        if self.misses >= RENEW_AFTER_MISSES {
            self.slots.fill(Slot::default());
            self.known.fill(Slot::default());
            self.after.fill(0);
            self.bytes.clear();
            self.count = 0;
            self.misses = 0;
            self.shapes.clear();
            self.generation = self.generation.wrapping_add(1);
        }
    }

    /// The key predicted to follow key `last` (0: an object's first key)
    /// when the string body starting at `input[start]` is that key: its
    /// bytes then a closing quote (a cached key holds no backslash, so
    /// that quote ends the body). Its id and stored bytes, as `id` gives.
    #[inline(always)]
    pub fn next(&self, last: u32, input: &[u8], start: usize) -> Option<(u32, *const u8)> {
        let id = *self.after.get(last as usize)?;
        let slot = &self.known[id as usize];
        let n = slot.len as usize;
        // (`id` 0 is the empty slot 0, whose `stored` is null.)
        if id == 0 || input.get(start + n) != Some(&b'"') {
            return None;
        }
        let key = &input[start..start + n];
        if words(key) != (slot.a, slot.b) {
            return None;
        }
        if n > 16 {
            // The bytes between the first and the last eight (which the
            // words compared), eight at a time, the last eight of them
            // overlapping the ones before when need be.
            // SAFETY: `stored` holds the slot's `n` bytes.
            let stored = unsafe { std::slice::from_raw_parts(slot.stored, n) };
            let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
            let mut at = 8;
            while at < n - 8 {
                let x = at.min(n - 16);
                if word(key, x) != word(stored, x) {
                    return None;
                }
                at += 8;
            }
        }
        Some((id, slot.stored))
    }

    /// Records that key `id` followed key `last` (see `next`).
    #[inline(always)]
    pub fn follows(&mut self, last: u32, id: u32) {
        if let Some(a) = self.after.get_mut(last as usize) {
            *a = id;
        }
    }

    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The shape id of an object whose keys have ids `keys`, in order (0
    /// for a key without one): objects with the same id have the same
    /// keys. 0 when there is none to give.
    #[inline]
    pub fn shape(&mut self, keys: &[u32]) -> u32 {
        self.shapes.id(keys)
    }
}

/// Whether the members of container `node`, which is not scalars-only,
/// are all scalars or empty containers. The first nested container that
/// is not empty decides.
#[inline(always)]
fn flat_members(tape: &[u32], input: &[u8], node: Node, object: bool) -> bool {
    let end = tape::next(tape, node).members_end();
    let mut j = tape::first_member(node);
    while j < end {
        j += object as Node;
        let first = input[tape::offset(tape, j)];
        // Empty: scalars-only, and its end just past its header.
        if tape::opens(first) && tape::next(tape, j) != Next::new(tape::first_member(j) as usize, true, false) {
            return false;
        }
        j = tape::skip(tape, j, first);
    }
    true
}

/// The length of a (valid) string body starting at `start`, and whether it
/// holds an escape. Most strings are short: 16 bytes are tested at a time
/// for a quote or backslash, and the first one found decides.
#[inline(always)]
fn string_body(input: &[u8], start: usize) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut at = start;
        while at + 16 <= input.len() {
            // SAFETY: 16 bytes from `at` are inside `input`; SSE2 is part
            // of x86-64.
            let (quotes, backslashes) = unsafe {
                let v = _mm_loadu_si128(input.as_ptr().add(at).cast());
                (
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) as u32,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))) as u32,
                )
            };
            let either = quotes | backslashes;
            if either != 0 {
                let first = either.trailing_zeros();
                if quotes & (1 << first) != 0 {
                    return (at + first as usize - start, false);
                }
                break;
            }
            at += 16;
        }
    }
    string::body_len(&input[start..]).unwrap_or((input.len() - start, false))
}
