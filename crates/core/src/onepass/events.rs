//! The walk straight from the bytes of a strict text to its events, with
//! no tape: one pass that checks the text as it reads it. Building a tape
//! and then walking it costs more than reading the bytes once, at every
//! size measured, so `qjson_text_events` tries this walk first (docs/performance-log.md,
//! under `tables.lua`). The tape walk stays for documents already parsed
//! (`qjson_doc_events`) and for the errors.
//!
//! The walk never reports an error: a text it does not take (anything
//! invalid, or nested deeper than allowed) gives `None`, and the caller
//! parses it the usual way, which finds the error and its position. What
//! it takes, it gives as the tape walk does, event for event
//! (crates/luajit/tests/events.rs holds the two walks to that).

use super::{is_text, skip_ws};
use crate::events::Walker;
use crate::events::{Event, EventTag, KeyCache};
use crate::{string, Options};

/// An open container of the walk.
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    object: bool,
    /// No member so far is a container with members: the container gets
    /// the scalars-only tag.
    flat: bool,
    /// Its event, and its members so far.
    event: u32,
    count: u32,
    /// For an object, the id of its last key from the cache (see `Open`),
    /// at first `KeyCache::first_under` the key it stands under; for an
    /// array, the key it stands under (its objects' context).
    last_key: u32,
    /// Where its key ids start in `key_ids`.
    ids_from: u32,
}

impl Walker {
    /// The events of the whole of `input`, read straight from its bytes,
    /// when it is valid JSON under `opts` (see [`Options::one_pass`]); else
    /// `None`.
    /// Strings and keys are as [`Walker::events`] gives them.
    pub fn events_direct(&mut self, input: &[u8], opts: &Options, keys: &mut KeyCache) -> Option<&[Event]> {
        // (Past 4 GiB the parser refuses a text, and so does this walk.)
        if !opts.one_pass() || input.len() > u32::MAX as usize {
            return None;
        }
        self.reset();
        self.cjson_integers = opts.cjson_integers != 0;
        self.walk_direct(input, opts.max_depth as usize, keys)?;
        Some(self.finish())
    }

    // (The grammar loop is `select::direct`'s too: see there.)
    fn walk_direct(&mut self, input: &[u8], max_depth: usize, keys: &mut KeyCache) -> Option<()> {
        let mut p = skip_ws(input, 0);
        'value: loop {
            // A value starts at `p`.
            let c = *input.get(p)?;
            match c {
                b'{' | b'[' => {
                    if self.frames.len() >= max_depth {
                        return None;
                    }
                    let object = c == b'{';
                    let event = self.events.len() as u32;
                    p = skip_ws(input, p + 1);
                    if input.get(p) == Some(if object { &b'}' } else { &b']' }) {
                        // Empty: one scalars-only event (shape 0: no keys).
                        let tag = if object { EventTag::ScalarObject } else { EventTag::ScalarArray };
                        self.events.push(Event::new(tag, 0, 0.0));
                        p += 1;
                    } else {
                        let tag = if object { EventTag::Object } else { EventTag::Array };
                        self.events.push(Event::new(tag, 0, 0.0));
                        let ids_from = self.key_ids.len() as u32;
                        // The key this container stands under: its
                        // parent object's current key, or what its parent
                        // array stands under.
                        let under = self.frames.last().map_or(0, |f| f.last_key);
                        let last_key = if object { KeyCache::first_under(under) } else { under };
                        self.frames.push(Frame { object, flat: true, event, count: 0, last_key, ids_from });
                        if object {
                            p = self.member_key(input, p, keys)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    let (e, end, _) = self.string_direct(input, p + 1)?;
                    self.events.push(e);
                    p = end;
                }
                b't' | b'f' | b'n' => {
                    let (word, tag): (&[u8], _) = match c {
                        b't' => (b"true", EventTag::True),
                        b'f' => (b"false", EventTag::False),
                        _ => (b"null", EventTag::Null),
                    };
                    if !input[p..].starts_with(word) {
                        return None;
                    }
                    self.events.push(Event::new(tag, 0, 0.0));
                    p += word.len();
                }
                _ => {
                    let s = &input[p..];
                    let (v, len, integer) = crate::number::to_number_checked(s)?;
                    let e = match integer {
                        Some(Some(i)) if self.integers => Event::int(i),
                        Some(_) => self.number_event(s, self.as_cjson_reads(s, v)),
                        // A fraction or an exponent: a double.
                        None => Event::new(EventTag::Number, 0, self.as_cjson_reads(s, v)),
                    };
                    self.events.push(e);
                    p += len;
                }
            }
            // A value is complete: a member of the innermost container,
            // which goes on or ends; or the whole text.
            loop {
                p = skip_ws(input, p);
                let Some(top) = self.frames.last_mut() else { return (p == input.len()).then_some(()) };
                top.count += 1;
                let object = top.object;
                match input.get(p) {
                    Some(b',') => {
                        p = skip_ws(input, p + 1);
                        if object {
                            p = self.member_key(input, p, keys)?;
                        }
                        continue 'value;
                    }
                    Some(&c) if c == if object { b'}' } else { b']' } => {
                        let f = *top;
                        self.frames.pop();
                        let e = &mut self.events[f.event as usize];
                        e.n = f.count;
                        e.tag = match (object, f.flat) {
                            (false, true) => EventTag::ScalarArray,
                            (false, false) => EventTag::Array,
                            (true, true) => EventTag::ScalarObject,
                            (true, false) => EventTag::Object,
                        };
                        if object {
                            self.set_shape(&mut Some(&mut *keys), f.event as usize, f.ids_from as usize);
                        }
                        if let Some(parent) = self.frames.last_mut() {
                            parent.flat = false;
                        }
                        p += 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// Reads the key of an object member at `p` and the colon after it
    /// into the innermost frame's events; returns where its value starts.
    /// Keys come from the cache as the tape walk's `key` takes them.
    #[inline(always)]
    fn member_key(&mut self, input: &[u8], p: usize, keys: &mut KeyCache) -> Option<usize> {
        if input.get(p) != Some(&b'"') {
            return None;
        }
        let start = p + 1;
        let mut last = self.frames.last().map_or(0, |f| f.last_key);
        let (e, end) = if let Some((id, bytes)) = keys.next(last, input, start) {
            last = id;
            (Event::key(id, bytes), start + keys.len_of(id) + 1)
        } else {
            let (e, end, raw) = self.string_direct(input, start)?;
            match if raw { keys.id(&input[start..end - 1]) } else { None } {
                Some((id, bytes)) => {
                    keys.follows(last, id);
                    last = id;
                    (Event::key(id, bytes), end)
                }
                None => {
                    last = 0;
                    (e, end)
                }
            }
        };
        if let Some(f) = self.frames.last_mut() {
            f.last_key = last;
        }
        if !self.no_shapes {
            self.key_ids.push(last);
        }
        self.events.push(e);
        let p = skip_ws(input, end);
        if input.get(p) != Some(&b':') {
            return None;
        }
        Some(skip_ws(input, p + 1))
    }

    /// The event of the string whose body starts at `start`, where the
    /// input goes on after its closing quote, and whether the event
    /// borrows the body (no escape); `None` when the string is not valid.
    /// The event must be the next one pushed (a decoded string records
    /// its index, see `Walker::string`).
    #[inline(always)]
    fn string_direct(&mut self, input: &[u8], start: usize) -> Option<(Event, usize, bool)> {
        let body = &input[start..];
        let offset = self.strings.len();
        match string::read_to_quote(body, &mut string::Append { buf: &mut self.strings, from: offset }) {
            Ok(string::Read::Raw(raw)) if is_text(raw) => {
                Some((Event::string(raw.len(), raw.as_ptr()), start + raw.len() + 1, true))
            }
            Ok(string::Read::Decoded(len)) if is_text(&body[..len]) => {
                self.offsets.push(self.events.len() as u32);
                Some((Event::string(self.strings.len() - offset, offset as *const u8), start + len + 1, false))
            }
            _ => None,
        }
    }
}
