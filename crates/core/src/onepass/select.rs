//! A selector read straight from the bytes of a strict text, with no tape
//! (as `onepass::events` reads events): one pass that checks the
//! text and gives each value, as it goes by, to the paths that lead to it.
//! For a small body, parsing into a tape and then resolving each path
//! costs more than this pass (docs/design.md, under batched reads).
//!
//! The pass takes only what it can give exactly as [`Selector::read`]
//! would, item for item: a valid text whose paths lead to scalars of the
//! types asked for, through keys that do not repeat. Anything else (an
//! error, a path that leads to a container, whose item carries its node
//! in a document, a `raw` path, a type mismatch, a repeated key) gives
//! `None`, and the caller reads the text through a document, which gives
//! the error or the nodes; after a path led to a container, the selector
//! no longer tries this pass (`Selector::not_one_pass`).
//! crates/core/tests/select_direct.rs holds the two reads to the same items.

use std::cell::RefCell;

use super::{is_text, skip_ws};
use crate::select::read::{AreaSink, Item, ItemTag, Output};
use crate::select::{key_head, Selector, Step, Want};
use crate::{number, string, Options};

/// A path waiting, in an open container, for the member that leads on.
#[derive(Clone, Copy)]
struct Wait {
    /// For a `Key` step: the key's head (see `key_head`) and length, to
    /// compare without going to the plan.
    head: u64,
    len: usize,
    entry: u32,
    /// Its next step in the plan (a `Key`, `Index` or `Each`).
    at: u32,
    /// A `Key` or `Index` step met its member.
    found: bool,
    /// For `Each`: the entry's `List` item, which gets the array's length.
    list: u32,
}

/// An open container.
#[derive(Clone, Copy)]
struct Frame {
    object: bool,
    /// Its waits are `waits[waits_from..]` while it is the innermost.
    waits_from: u32,
    /// Its members so far.
    members: u32,
}

/// The pass's buffers, kept between calls (one set per thread).
#[derive(Default)]
struct Scratch {
    frames: Vec<Frame>,
    waits: Vec<Wait>,
    /// The paths that lead to the value about to be read: (entry, step).
    here: Vec<(u32, u32)>,
    /// The items, in the order of the text, each with its entry.
    items: Vec<(u32, Item)>,
    /// A key with escapes, decoded to be compared.
    key: Vec<u8>,
    /// A string nothing selects, decoded only to check its escapes.
    junk: Vec<u8>,
    /// Per entry, where its next item goes in the output.
    next: Vec<u32>,
}

/// The buffers' length past which they are released after a call.
const KEEP: usize = 1 << 12;

impl Scratch {
    fn release(&mut self) {
        self.frames.shrink_to(KEEP);
        self.waits.shrink_to(KEEP);
        self.here.shrink_to(KEEP);
        self.items.shrink_to(KEEP);
        self.key.shrink_to(KEEP);
        self.junk.shrink_to(KEEP);
        self.next.shrink_to(KEEP);
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Selector {
    /// Reads every path from the whole of `input` into `out` when the pass
    /// takes the text (see the module's comment); else `None`, and `out`
    /// holds nothing the caller may use.
    pub fn read_direct(&self, input: &[u8], opts: &Options, out: &mut Output<'_>) -> Option<()> {
        // (Past 4 GiB the parser refuses a text, and so does this pass.)
        if !opts.one_pass() || self.not_one_pass.get() || input.len() > u32::MAX as usize {
            return None;
        }
        let depth = opts.max_depth as usize;
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut s) => {
                let taken = self.walk(&mut s, input, depth, out);
                s.release();
                taken
            }
            Err(_) => self.walk(&mut Scratch::default(), input, depth, out),
        })
    }

    // (The grammar loop is `onepass::events`'s too: one generic
    // walk over a reader for both measured slower here; docs/design.md.)
    fn walk(&self, s: &mut Scratch, input: &[u8], max_depth: usize, out: &mut Output<'_>) -> Option<()> {
        s.frames.clear();
        s.waits.clear();
        s.items.clear();
        s.here.clear();
        s.here.extend(self.starts.iter().enumerate().map(|(e, &at)| (e as u32, at)));
        let mut p = skip_ws(input, 0);
        'value: loop {
            // A value starts at `p`; `s.here` holds the paths that lead to it.
            let c = *input.get(p)?;
            match c {
                b'{' | b'[' => {
                    if s.frames.len() >= max_depth {
                        return None;
                    }
                    let object = c == b'{';
                    let waits_from = s.waits.len() as u32;
                    self.open(s, object)?;
                    p = skip_ws(input, p + 1);
                    if input.get(p) == Some(if object { &b'}' } else { &b']' }) {
                        self.close(s, waits_from, 0);
                        p += 1;
                    } else {
                        s.frames.push(Frame { object, waits_from, members: 0 });
                        p = self.member(s, input, p, object, waits_from, 0)?;
                        continue 'value;
                    }
                }
                b'"' => p = self.string(s, input, p + 1, out)?,
                b't' | b'f' | b'n' => {
                    let (word, tag): (&[u8], _) = match c {
                        b't' => (b"true", ItemTag::True),
                        b'f' => (b"false", ItemTag::False),
                        _ => (b"null", ItemTag::Null),
                    };
                    if !input[p..].starts_with(word) {
                        return None;
                    }
                    let want = if tag == ItemTag::Null { None } else { Some(Want::Boolean) };
                    self.scalar(s, want, Item::simple(tag))?;
                    p += word.len();
                }
                _ => {
                    let text = &input[p..];
                    let (v, len) = number::to_f64_checked(text)?;
                    self.number(s, &text[..len], v)?;
                    p += len;
                }
            }
            // A value is complete: a member of the innermost container,
            // which goes on or ends; or the whole text.
            loop {
                p = skip_ws(input, p);
                let Some(top) = s.frames.last_mut() else {
                    if p != input.len() {
                        return None;
                    }
                    self.emit(s, out);
                    return Some(());
                };
                top.members += 1;
                let Frame { object, waits_from, members } = *top;
                match input.get(p) {
                    Some(b',') => {
                        p = skip_ws(input, p + 1);
                        p = self.member(s, input, p, object, waits_from, members)?;
                        continue 'value;
                    }
                    Some(&c) if c == if object { b'}' } else { b']' } => {
                        s.frames.pop();
                        self.close(s, waits_from, members);
                        p += 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// A container opens: the paths that lead to it wait in it for their
    /// next member, or (a step it cannot take) find nothing.
    #[inline(always)]
    fn open(&self, s: &mut Scratch, object: bool) -> Option<()> {
        for &(entry, at) in &s.here {
            let wait = |list| Wait { head: 0, len: 0, entry, at, found: false, list };
            match &self.plan[at as usize] {
                Step::Key(k, head) if object => s.waits.push(Wait { head: *head, len: k.len(), ..wait(0) }),
                Step::Index(_) if !object => s.waits.push(wait(0)),
                Step::Each if !object => {
                    s.waits.push(wait(s.items.len() as u32));
                    s.items.push((entry, Item::simple(ItemTag::List)));
                }
                // A container's own item carries its node in a document
                // (and the next text's likely will too);
                Step::Target(_) => {
                    self.not_one_pass.set(true);
                    return None;
                }
                // `[*]` on an object is a type error.
                Step::Each => return None,
                Step::Key(..) | Step::Index(_) => s.items.push((entry, Item::MISSING)),
            }
        }
        Some(())
    }

    /// A container of `members` members closes: a list gets its length,
    /// a path whose member never came finds nothing.
    #[inline(always)]
    fn close(&self, s: &mut Scratch, waits_from: u32, members: u32) {
        for w in s.waits.drain(waits_from as usize..) {
            match self.plan[w.at as usize] {
                Step::Each => s.items[w.list as usize].1.len = members,
                _ if !w.found => s.items.push((w.entry, Item::MISSING)),
                _ => {}
            }
        }
    }

    /// Member `index` of the innermost container starts at `p` (for an
    /// object, its key): sets the paths that lead to its value, and
    /// returns where the value starts.
    #[inline(always)]
    fn member(&self, s: &mut Scratch, input: &[u8], p: usize, object: bool, from: u32, index: u32) -> Option<usize> {
        s.here.clear();
        let waits = &mut s.waits[from as usize..];
        if !object {
            for w in waits {
                match self.plan[w.at as usize] {
                    Step::Index(i) if i == index as usize => w.found = true,
                    Step::Each => {}
                    _ => continue,
                }
                s.here.push((w.entry, w.at + 1));
            }
            return Some(p);
        }
        if input.get(p) != Some(&b'"') {
            return None;
        }
        let start = p + 1;
        let (key, end): (&[u8], _) = match string::read_to_quote(&input[start..], &mut s.key) {
            Ok(string::Read::Raw(raw)) if is_text(raw) => (raw, start + raw.len() + 1),
            Ok(string::Read::Decoded(len)) if is_text(&input[start..start + len]) => (&s.key, start + len + 1),
            _ => return None,
        };
        let head = key_head(key);
        for w in waits {
            if w.head == head
                && w.len == key.len()
                && (key.len() <= 8 || matches!(&self.plan[w.at as usize], Step::Key(k, _) if **k == *key))
            {
                // A repeated key: the last one's value is the path's.
                if w.found {
                    return None;
                }
                w.found = true;
                s.here.push((w.entry, w.at + 1));
            }
        }
        let p = skip_ws(input, end);
        if input.get(p) != Some(&b':') {
            return None;
        }
        Some(skip_ws(input, p + 1))
    }

    /// A scalar other than a string or a number (`want`: the type a path
    /// must ask for to take it; null is taken by any).
    #[inline(always)]
    fn scalar(&self, s: &mut Scratch, want: Option<Want>, item: Item) -> Option<()> {
        for &(entry, at) in &s.here {
            let item = match self.plan[at as usize] {
                Step::Target(e) => match self.entries[e as usize].want {
                    Want::Raw => return None,
                    Want::Any => item,
                    w if want.is_none_or(|t| t == w) => item,
                    _ => return None,
                },
                Step::Each if want.is_none() => item,
                Step::Each => return None,
                Step::Key(..) | Step::Index(_) => Item::MISSING,
            };
            s.items.push((entry, item));
        }
        Some(())
    }

    /// A number, `text`, whose nearest double is `v`.
    #[inline(always)]
    fn number(&self, s: &mut Scratch, text: &[u8], v: f64) -> Option<()> {
        for &(entry, at) in &s.here {
            let item = match self.plan[at as usize] {
                Step::Target(e) => match self.entries[e as usize].want {
                    // As `read.rs` reads it.
                    Want::Any | Want::Number if self.integers && number::to_i64(text).is_some() => {
                        Item::integer(number::to_i64(text)?)
                    }
                    Want::Any | Want::Number if v.abs() > number::MAX_SAFE_INTEGER => {
                        Item::number(number::to_f64(text))
                    }
                    Want::Any | Want::Number => Item::number(v),
                    Want::Integer if self.integers => Item::integer(number::to_i64(text)?),
                    Want::Integer => Item::number(number::to_i64(text)? as f64),
                    _ => return None,
                },
                Step::Each => return None,
                Step::Key(..) | Step::Index(_) => Item::MISSING,
            };
            s.items.push((entry, item));
        }
        Some(())
    }

    /// A string whose body starts at `start`: decoded into the output's
    /// byte area when a path takes it and it has escapes. Returns where
    /// the input goes on after it.
    #[inline(always)]
    fn string(&self, s: &mut Scratch, input: &[u8], start: usize, out: &mut Output<'_>) -> Option<usize> {
        let body = &input[start..];
        let taken = s.here.iter().any(|&(_, at)| matches!(self.plan[at as usize], Step::Target(_)));
        // (Untaken, the item is never used: no path ends here.)
        let (item, len) = if taken {
            let from = out.used;
            match string::read_to_quote(body, &mut AreaSink { out: &mut *out, start: from }) {
                Ok(string::Read::Raw(raw)) => (Item::bytes(ItemTag::String, raw.as_ptr(), raw.len()).ok()?, raw.len()),
                Ok(string::Read::Decoded(len)) => (out.decoded_item(from).ok()?, len),
                _ => return None,
            }
        } else {
            match string::read_to_quote(body, &mut s.junk) {
                Ok(string::Read::Raw(raw)) => (Item::MISSING, raw.len()),
                Ok(string::Read::Decoded(len)) => (Item::MISSING, len),
                _ => return None,
            }
        };
        if !is_text(&body[..len]) {
            return None;
        }
        for &(entry, at) in &s.here {
            let item = match self.plan[at as usize] {
                Step::Target(e) => match self.entries[e as usize].want {
                    Want::Any | Want::String => item,
                    _ => return None,
                },
                Step::Each => return None,
                Step::Key(..) | Step::Index(_) => Item::MISSING,
            };
            s.items.push((entry, item));
        }
        Some(start + len + 1)
    }

    /// Writes the items into `out` in the order of the entries (each
    /// entry's in the order of the text, as [`Selector::read`] gives them).
    fn emit(&self, s: &mut Scratch, out: &mut Output<'_>) {
        let n = self.entries.len();
        s.next.clear();
        s.next.resize(n + 1, 0);
        for &(e, _) in &s.items {
            s.next[e as usize + 1] += 1;
        }
        for e in 1..=n {
            s.next[e] += s.next[e - 1];
        }
        let base = out.count;
        for &(e, item) in &s.items {
            let at = &mut s.next[e as usize];
            if let Some(slot) = out.items.get_mut(base + *at as usize) {
                *slot = item;
            }
            *at += 1;
        }
        out.count = base + s.items.len();
    }
}
