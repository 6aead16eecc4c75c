//! Writing the edit tree out as JSON text: references are copied as their
//! original bytes, and so is every run of members (or elements) an
//! opened container kept in their original order, with the whitespace
//! and commas between them; only what changed is written anew.

use super::tree::{At, Key, Sources, Val};
use crate::encode::escape;

/// Appends the text of `val` to `out`.
pub(crate) fn value(val: &Val, s: &Sources<'_>, out: &mut Vec<u8>) {
    match val {
        Val::At(at) => out.extend_from_slice(s.raw(*at)),
        Val::Obj(obj) => {
            let items: Vec<Item<'_>> =
                obj.members.iter().map(|m| Item { kept: m.untouched(), key: Some(&m.key), val: &m.val }).collect();
            container(b'{', b'}', obj.from, &items, s, out);
        }
        Val::Arr(arr) => {
            let items: Vec<Item<'_>> =
                arr.elems.iter().map(|e| Item { kept: e.untouched(), key: None, val: &e.val }).collect();
            container(b'[', b']', arr.from, &items, s, out);
        }
    }
}

/// A member or element to write: `kept`, its ordinal in the container it
/// was opened from when it is unchanged there.
struct Item<'t> {
    kept: Option<u32>,
    key: Option<&'t Key>,
    val: &'t Val,
}

impl Item<'_> {
    /// Where the item's text starts in its source: its key, or its value.
    fn start(&self, s: &Sources<'_>) -> usize {
        match (self.key, self.val) {
            (Some(Key::At(k)), _) => s.pos(*k),
            (_, Val::At(v)) => s.pos(*v),
            _ => unreachable!("a kept item is a reference"),
        }
    }

    fn end(&self, s: &Sources<'_>) -> usize {
        match self.val {
            Val::At(v) => s.end(*v),
            _ => unreachable!("a kept item is a reference"),
        }
    }
}

fn container(open: u8, close: u8, from: Option<At>, items: &[Item<'_>], s: &Sources<'_>, out: &mut Vec<u8>) {
    let original_len = from.map_or(0, |f| s.len(f));
    // Nothing changed: the original text, as it is.
    if let Some(f) = from {
        if items.len() == original_len && items.iter().enumerate().all(|(i, it)| it.kept == Some(i as u32)) {
            out.extend_from_slice(s.raw(f));
            return;
        }
    }
    // The whitespace inside the brackets belongs to the container: kept
    // around whatever members it now has.
    let (lead, trail) = match from {
        Some(f) if original_len > 0 && !items.is_empty() => {
            let text = &s.input(f)[s.pos(f) + 1..s.end(f) - 1];
            let lead = text.iter().take_while(|c| is_space(**c)).count();
            let trail = text.iter().rev().take_while(|c| is_space(**c)).count();
            (&text[..lead], &text[text.len() - trail..])
        }
        _ => (&[][..], &[][..]),
    };
    out.push(open);
    out.extend_from_slice(lead);
    let mut i = 0;
    while i < items.len() {
        if i > 0 {
            out.push(b',');
        }
        let Some(first) = items[i].kept else {
            item(&items[i], s, out);
            i += 1;
            continue;
        };
        // A run of members kept in their original order: one copy, commas
        // and whitespace between them included.
        let mut last = i;
        let mut ordinal = first;
        while last + 1 < items.len() && items[last + 1].kept == Some(ordinal + 1) {
            last += 1;
            ordinal += 1;
        }
        let input = s.input(from.expect("kept items come from an original"));
        out.extend_from_slice(&input[items[i].start(s)..items[last].end(s)]);
        i = last + 1;
    }
    out.extend_from_slice(trail);
    out.push(close);
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn item(it: &Item<'_>, s: &Sources<'_>, out: &mut Vec<u8>) {
    match it.key {
        Some(Key::At(k)) => {
            let key = *k;
            out.extend_from_slice(&s.input(key)[s.pos(key)..s.end(key)]);
            out.push(b':');
        }
        Some(Key::Text(t)) => {
            string(t, out);
            out.push(b':');
        }
        None => {}
    }
    value(it.val, s, out);
}

/// A JSON string of `bytes` (UTF-8, from a checked JSON text), escaped as
/// qjson.encode escapes by default.
pub(crate) fn string(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let at = out.len();
    out.resize(at + bytes.len() * escape::MAX_EXPANSION + escape::SLACK, 0);
    match escape::escape(bytes, &mut out[at..], escape::ESCAPE_SLASH, true) {
        escape::Escaped::Done { written, .. } => out.truncate(at + written),
        escape::Escaped::InvalidUtf8(_) => unreachable!("the escaper checks no UTF-8 in this mode"),
    }
    out.push(b'"');
}
