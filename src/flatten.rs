//! A value as a flat stream of events, in document order, so that Lua can
//! build plain tables from a whole document after one call across the FFI
//! (`qjson.cjson.decode`, `qjson.materialize`).
//!
//! Each event is 16 bytes. A scalar is one event. An array is an event
//! whose `n` is its element count, followed by the elements; an object is
//! an event whose `n` is its member count, followed by key, value pairs
//! (keys are string events; a repeated key appears each time, and the last
//! one wins when Lua stores them in order). Strings point into the input
//! when they hold no escape, else into the stream's own buffer.

use std::ffi::c_char;

use crate::{Document, Error, Kind, Node};

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
    fn new(tag: EventTag, n: u32, num: f64) -> Event {
        Event { tag, n, v: EventValue { num } }
    }
}

/// An open container being walked: its node, the child to emit next
/// (for an object, its key), and for an object whether that key was
/// already emitted and its value is next.
#[derive(Clone, Copy)]
struct Open {
    parent: Node,
    child: Node,
    object: bool,
    at_value: bool,
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
    stack: Vec<Open>,
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
        let input = doc.input().as_ptr_range();
        self.emit(doc, node, &input)?;
        while let Some(top) = self.stack.last_mut() {
            let Open { parent, child, object, at_value } = *top;
            if object && !at_value {
                top.at_value = true;
                self.emit(doc, child, &input)?;
                continue;
            }
            top.at_value = false;
            match doc.next_child(parent, child) {
                Some(next) => top.child = next,
                None => drop(self.stack.pop()),
            }
            // An object member's value is the node after its key.
            self.emit(doc, child + object as u32, &input)?;
        }
        for &i in &self.offsets {
            let e = &mut self.events[i as usize];
            // SAFETY: `ptr` of the string events listed here holds an
            // offset into `strings`, which no longer changes.
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

    /// Appends the event for the value at `node`; opens it when it is a
    /// container with members.
    fn emit(&mut self, doc: &mut Document<'_>, node: Node, input: &std::ops::Range<*const u8>) -> Result<(), Error> {
        let event = match doc.kind(node)? {
            Kind::Null => Event::new(EventTag::Null, 0, 0.0),
            Kind::Boolean => {
                let tag = if doc.bool(node)? { EventTag::True } else { EventTag::False };
                Event::new(tag, 0, 0.0)
            }
            Kind::Number => Event::new(EventTag::Number, 0, doc.f64(node)?),
            Kind::String => {
                let s = doc.str(node)?;
                let n = s.len() as u32;
                if input.contains(&s.as_ptr()) || s.is_empty() {
                    Event { tag: EventTag::String, n, v: EventValue { ptr: s.as_ptr().cast() } }
                } else {
                    // Unescaped into the document's scratch, which the next
                    // string reuses: keep a copy.
                    let offset = self.strings.len();
                    self.strings.extend_from_slice(s);
                    self.offsets.push(self.events.len() as u32);
                    Event { tag: EventTag::String, n, v: EventValue { ptr: offset as *const c_char } }
                }
            }
            kind @ (Kind::Array | Kind::Object) => {
                let n = doc.len(node).unwrap_or(0) as u32;
                let object = kind == Kind::Object;
                if let Some(child) = doc.first_child(node) {
                    self.stack.push(Open { parent: node, child, object, at_value: false });
                }
                let tag = if object { EventTag::Object } else { EventTag::Array };
                Event::new(tag, n, 0.0)
            }
        };
        self.events.push(event);
        Ok(())
    }
}
