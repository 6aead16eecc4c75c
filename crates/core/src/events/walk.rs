//! The walk from a document to its events: along the tape in one pass for
//! a document validated at parse time, through the document's checked
//! reads for a lazy one; and for a strict text not parsed yet, straight
//! from its bytes with no tape ([`direct`]).

use super::{string_body, Event, EventTag, KeyCache};
use crate::tape::{self, Next};
use crate::{number, string, Document, Error, Kind, Node};

/// Buffers for one stream of events, reused from call to call.
#[derive(Default)]
pub struct Walker {
    pub(crate) events: Vec<Event>,
    /// Unescaped strings, back to back.
    pub(crate) strings: Vec<u8>,
    /// Events whose `ptr` still holds an offset into `strings` (final
    /// pointers are set once `strings` stops growing).
    pub(crate) offsets: Vec<u32>,
    /// Open containers of the walk.
    stack: Vec<Open>,
    /// The key ids of the open objects' members so far (0 for a key not
    /// in the cache), the innermost object's last: what gives its shape.
    pub(crate) key_ids: Vec<u32>,
    /// The document's `cjson_integers` option, for the strict walks.
    pub(crate) cjson_integers: bool,
    /// Integer literals as exact integers (`set_integers`).
    pub(crate) integers: bool,
    /// No object shape ids (`set_shapes`), so no key ids kept for them.
    pub(crate) no_shapes: bool,
    /// Open containers of the direct walk.
    pub(crate) frames: Vec<crate::onepass::events::Frame>,
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

/// Buffers grown past this many entries (events, bytes of strings, open
/// containers...) are released before the next use, so that one huge or
/// deep document does not pin its memory.
const KEEP: usize = 1 << 20;

impl Walker {
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
        Ok(self.finish())
    }

    /// Whether integer literals within the int64 range become exact
    /// integer events ([`super::INTEGER`]) instead of doubles: for a Lua
    /// with integers (5.3, 5.4). With the document's `cjson_integers`,
    /// an integer literal past the range saturates at ±2^63 as C's
    /// `strtoll` does (lua-cjson's reading on those Luas).
    pub fn set_integers(&mut self, on: bool) {
        self.integers = on;
    }

    /// Whether objects get shape ids (on unless turned off): a builder
    /// that makes no use of them (PUC Lua's) saves computing them.
    pub fn set_shapes(&mut self, on: bool) {
        self.no_shapes = !on;
    }

    /// The events of a finished walk, their strings' final pointers set.
    pub(crate) fn finish(&mut self) -> &[Event] {
        for &i in &self.offsets {
            let e = &mut self.events[i as usize];
            // SAFETY: the string events listed here hold an offset into
            // `strings` in `ptr`; `strings` no longer changes.
            e.v.ptr = unsafe { self.strings.as_ptr().add(e.v.ptr as usize) }.cast();
        }
        &self.events
    }

    pub(crate) fn reset(&mut self) {
        fn empty<T>(v: &mut Vec<T>) {
            if v.capacity() > KEEP {
                *v = Vec::new();
            }
            v.clear();
        }
        empty(&mut self.events);
        empty(&mut self.strings);
        empty(&mut self.offsets);
        empty(&mut self.stack);
        empty(&mut self.frames);
        empty(&mut self.key_ids);
    }

    /// Sets the shape of the object whose event is `event` and whose key
    /// ids start at `key_ids[from]`, and forgets those ids.
    #[inline(always)]
    pub(crate) fn set_shape(&mut self, keys: &mut Option<&mut KeyCache>, event: usize, from: usize) {
        if let Some(cache) = keys.as_mut().filter(|_| !self.no_shapes) {
            self.events[event].v.num = cache.shape(&self.key_ids[from..]) as f64;
        }
        self.key_ids.truncate(from);
    }

    /// The event of a string whose body starts at `start` (valid: checked
    /// by stage 1). Escaped strings are unescaped into `strings`, and the
    /// event records their offset until `events` sets the pointers.
    #[inline(always)]
    pub(crate) fn string(&mut self, input: &[u8], start: usize) -> Event {
        let body = &input[start..];
        let offset = self.strings.len();
        match string::read_to_quote(body, &mut string::Append { buf: &mut self.strings, from: offset }) {
            Ok(string::Read::Raw(raw)) => Event::string(raw.len(), raw.as_ptr()),
            Ok(string::Read::Decoded(_)) => {
                self.offsets.push(self.events.len() as u32);
                Event::string(self.strings.len() - offset, offset as *const u8)
            }
            // Not reached: the strings of a valid document end, and their
            // escapes were checked.
            _ => {
                self.strings.truncate(offset);
                Event::string(string_body(input, start).0, body.as_ptr())
            }
        }
    }

    /// The event of a key whose body starts at `start`: from the cache
    /// when it is short and has no escape. `last` is the id of the
    /// object's previous key (0 for none), which predicts this one; it
    /// becomes this key's id (0 when not cached).
    #[inline(always)]
    pub(crate) fn key(
        &mut self,
        input: &[u8],
        start: usize,
        keys: &mut Option<&mut KeyCache>,
        last: &mut u32,
    ) -> Event {
        if let Some(cache) = keys {
            if let Some((id, bytes)) = cache.next(*last, input, start) {
                *last = id;
                return Event::key(id, bytes);
            }
            let (len, escaped) = string_body(input, start);
            if !escaped {
                if let Some((id, bytes)) = cache.id(&input[start..start + len]) {
                    cache.follows(*last, id);
                    *last = id;
                    return Event::key(id, bytes);
                }
            }
            *last = 0;
        }
        self.string(input, start)
    }

    /// The event of the scalar at `pos` of a valid document.
    #[inline(always)]
    pub(crate) fn scalar(&mut self, input: &[u8], pos: usize, lenient: bool) -> Event {
        match input[pos] {
            b'"' => self.string(input, pos + 1),
            b't' => Event::new(EventTag::True, 0, 0.0),
            b'f' => Event::new(EventTag::False, 0, 0.0),
            b'n' if !lenient || input.get(pos + 1) == Some(&b'u') => Event::new(EventTag::Null, 0, 0.0),
            _ => self.number_event(&input[pos..], self.number(&input[pos..], lenient)),
        }
    }

    /// The event of the (valid) number at the start of `s`, whose value
    /// as a double is `v`: an exact integer when asked (`set_integers`).
    #[inline(always)]
    pub(crate) fn number_event(&self, s: &[u8], v: f64) -> Event {
        if self.integers {
            if let Some(i) = number::integer_prefix(s, self.cjson_integers) {
                return Event::int(i);
            }
        }
        Event::new(EventTag::Number, 0, v)
    }

    /// The value of the (valid) number at the start of `s`.
    #[inline(always)]
    pub(crate) fn number(&self, s: &[u8], lenient: bool) -> f64 {
        self.as_cjson_reads(s, number::to_f64_valid(s, lenient))
    }

    /// `v`, the value of the number at the start of `s`, as lua-cjson
    /// reads it when the stream has the `cjson_integers` option.
    #[inline(always)]
    pub(crate) fn as_cjson_reads(&self, s: &[u8], v: f64) -> f64 {
        // Only -0 and integers past ±2^63 read otherwise as lua-cjson's.
        if self.cjson_integers && ((v == 0.0 && v.is_sign_negative()) || v.abs() >= 9.223372036854775e18) {
            number::strtoll_f64(s).unwrap_or(v)
        } else {
            v
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
            Kind::Number => match doc.i64(node)? {
                Some(i) if self.integers => Event::int(i),
                _ => Event::new(EventTag::Number, 0, doc.f64(node)?),
            },
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
