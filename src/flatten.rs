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
//! tight loop. Strings point into the input when they hold no escape, else
//! into the stream's own buffer.

use std::ffi::c_char;

use crate::error::ErrorKind;
use crate::tape::SCALARS_ONLY;
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
    /// `n` key, value pairs follow.
    Object = 6,
    /// `n` elements follow, none of them an array or object.
    ScalarArray = 7,
    /// `n` key, value pairs follow, no value an array or object.
    ScalarObject = 8,
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
}

/// Buffers grown past this many events (or bytes of strings) are released
/// before the next use, so one huge document does not pin its memory.
const KEEP: usize = 1 << 20;

impl Stream {
    /// The events of the value at `node`. Strings point into `doc`'s input
    /// or into this stream, so they stay valid while both do and this
    /// stream is not used again.
    pub fn flatten(&mut self, doc: &mut Document<'_>, node: Node) -> Result<&[Event], Error> {
        self.reset();
        if doc.options().strict() {
            self.walk_valid(doc, node);
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
    }

    /// A string with escapes: its unescaped bytes join `strings`, and the
    /// event records their offset until `flatten` sets the pointers.
    fn escaped(&mut self, body: &[u8]) -> Result<Event, (usize, ErrorKind)> {
        string::unescape(body, &mut self.unescaped)?;
        let offset = self.strings.len();
        self.strings.extend_from_slice(&self.unescaped);
        self.offsets.push(self.events.len() as u32);
        Ok(Event::string(self.unescaped.len(), offset as *const u8))
    }

    /// The walk for a document validated at parse time (strict mode): one
    /// pass along the tape in slot order, which is document order. See
    /// `tape` for the layout.
    fn walk_valid(&mut self, doc: &Document<'_>, node: Node) {
        let tape = doc.tape();
        let input = doc.input();
        let lenient = doc.options().lenient_numbers();
        self.events.reserve((doc.skip(node) - node) as usize);
        let mut i = node as usize;
        loop {
            let pos = tape[i] as usize;
            let event = match input[pos] {
                b'"' => {
                    let (len, escaped) = string_body(input, pos + 1);
                    let body = &input[pos + 1..pos + 1 + len];
                    if escaped {
                        // Escapes were checked by stage 1: decoding cannot fail.
                        self.escaped(body).unwrap_or(Event::string(0, body.as_ptr()))
                    } else {
                        Event::string(len, body.as_ptr())
                    }
                }
                c @ (b'{' | b'[') => {
                    let next = tape[i + 1];
                    let after = (next & !SCALARS_ONLY) as usize;
                    let object = c == b'{';
                    let (tag, n, members_end) = if next & SCALARS_ONLY != 0 {
                        let tag = if object { EventTag::ScalarObject } else { EventTag::ScalarArray };
                        (tag, (after - i - 2) as u32 >> object as u32, after)
                    } else {
                        let tag = if object { EventTag::Object } else { EventTag::Array };
                        (tag, tape[after - 1], after - 1)
                    };
                    self.events.push(Event::new(tag, n, 0.0));
                    if i + 2 < members_end {
                        self.stack.push(Open { a: members_end as Node, b: after as Node, object, at_value: false });
                        i += 2;
                        continue;
                    }
                    i = after;
                    self.close_valid(&mut i);
                    if self.stack.is_empty() {
                        return;
                    }
                    continue;
                }
                b't' => Event::new(EventTag::True, 0, 0.0),
                b'f' => Event::new(EventTag::False, 0, 0.0),
                b'n' if !lenient || input.get(pos + 1) == Some(&b'u') => Event::new(EventTag::Null, 0, 0.0),
                _ => Event::new(EventTag::Number, 0, number::to_f64_valid(&input[pos..], lenient)),
            };
            self.events.push(event);
            i += 1;
            self.close_valid(&mut i);
            if self.stack.is_empty() {
                return;
            }
        }
    }

    /// Steps past every container whose members end at slot `i`.
    #[inline(always)]
    fn close_valid(&mut self, i: &mut usize) {
        while let Some(top) = self.stack.last() {
            if *i < top.a as usize {
                return;
            }
            *i = top.b as usize;
            self.stack.pop();
        }
    }

    /// The walk for a lazy-mode document, whose values are checked as they
    /// are read: through the document's own reads, child by child.
    fn walk_checked(&mut self, doc: &mut Document<'_>, node: Node) -> Result<(), Error> {
        self.emit_checked(doc, node)?;
        while let Some(top) = self.stack.last_mut() {
            let Open { a: parent, b: child, object, at_value } = *top;
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
                    self.stack.push(Open { a: node, b: child, object, at_value: false });
                }
                Event::new(if object { EventTag::Object } else { EventTag::Array }, n, 0.0)
            }
        };
        self.events.push(event);
        Ok(())
    }
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
