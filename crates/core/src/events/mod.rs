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
//! first tries the key that followed the object's previous key last time
//! (for its first key, in the direct walk, the first key of the last object
//! under the same key). An object whose keys all have ids gets a shape id
//! too (its event's `v.num`), unless the walker is told not to: the
//! builder makes an object of a shape it has built before by copying a
//! table with those keys instead of inserting them one by one.
//!
//! [`stream`] walks a document into events, [`keys`] holds the key cache
//! and object shapes.

use std::ffi::c_char;

use crate::string;

mod key_cache;
mod walk;

pub use key_cache::KeyCache;
pub use walk::Walker;

/// What an event holds.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventTag {
    Null = 0,
    False = 1,
    True = 2,
    /// `v.num` is the number's nearest double; or, when `n` is
    /// [`INTEGER`] (a walker with `Walker::set_integers`), an integer
    /// literal within the int64 range, `Event::integer` its value.
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

/// A number event's `n` when it holds an exact integer: its payload is
/// the `i64`'s bits, not a double (`Event::integer`). Only walkers with
/// `Walker::set_integers` on write it (Lua 5.3 and 5.4 have integers;
/// LuaJIT's FFI binding never asks).
pub const INTEGER: u32 = 1;

/// What a stream holds besides its events (`qjson_events_info`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EventsInfo {
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
    pub(crate) fn new(tag: EventTag, n: u32, num: f64) -> Event {
        Event { tag, n, v: EventValue { num } }
    }

    #[inline(always)]
    pub(crate) fn string(n: usize, ptr: *const u8) -> Event {
        Event { tag: EventTag::String, n: n as u32, v: EventValue { ptr: ptr.cast() } }
    }

    #[inline(always)]
    pub(crate) fn int(i: i64) -> Event {
        Event { tag: EventTag::Number, n: INTEGER, v: EventValue { num: f64::from_bits(i as u64) } }
    }

    /// The exact integer a number event holds (see [`INTEGER`]), if any.
    #[inline(always)]
    pub fn integer(&self) -> Option<i64> {
        // SAFETY: a number event's payload is `num`, a plain 64-bit value.
        (self.tag == EventTag::Number && self.n == INTEGER).then(|| unsafe { self.v.num }.to_bits() as i64)
    }

    /// Key `id` of the key cache, whose stored bytes are at `bytes`.
    #[inline(always)]
    pub(crate) fn key(id: u32, bytes: *const u8) -> Event {
        Event { tag: EventTag::Key, n: id, v: EventValue { ptr: bytes.cast() } }
    }
}

/// The length of a (valid) string body starting at `start`, and whether it
/// holds an escape.
#[inline(always)]
fn string_body(input: &[u8], start: usize) -> (usize, bool) {
    string::body_len(&input[start..]).unwrap_or((input.len() - start, false))
}
