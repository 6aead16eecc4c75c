//! Writing the edit tree out as JSON text: references are copied as their
//! original bytes, and so is every run of members (or elements) an
//! opened container kept in their original order, with the whitespace
//! and commas between them; only what changed is written anew.
//!
//! Where a copied value ends is found from what follows it in its
//! container (the next member's start, or the container's closing
//! bracket), stepping back over whitespace and a comma: never by reading
//! the value itself, whose last string may be most of the document.

use super::tree::{At, Key, Sources, Val};
use crate::encode::escape;
use crate::stream::is_space;

/// Appends the text of `val` to `out`.
pub(crate) fn value(val: &Val, s: &Sources<'_>, out: &mut Vec<u8>) {
    value_ending(val, None, s, out);
}

/// Appends the text of `val`, whose source text (the reference's, or the
/// original an opened container came from) ends at `end` when known.
fn value_ending(val: &Val, end: Option<usize>, s: &Sources<'_>, out: &mut Vec<u8>) {
    match val {
        Val::At(at) => match end {
            Some(end) => out.extend_from_slice(&s.input(*at)[s.pos(*at)..end]),
            None => out.extend_from_slice(s.raw(*at)),
        },
        Val::Obj(obj) => {
            let items: Vec<Item<'_>> = obj
                .members
                .iter()
                .map(|m| Item { kept: m.untouched(), orig: m.orig, key: Some(&m.key), val: &m.val })
                .collect();
            container(b'{', b'}', obj.from, end, &items, s, out);
        }
        Val::Arr(arr) => {
            let items: Vec<Item<'_>> =
                arr.elems.iter().map(|e| Item { kept: e.untouched(), orig: e.orig, key: None, val: &e.val }).collect();
            container(b'[', b']', arr.from, end, &items, s, out);
        }
    }
}

/// A member or element to write, with its place and value in the
/// container it was opened from (see `Member::orig`).
struct Item<'t> {
    /// Its ordinal there when it is unchanged.
    kept: Option<u32>,
    orig: Option<(u32, At)>,
    key: Option<&'t Key>,
    val: &'t Val,
}

impl Item<'_> {
    /// Its value's ordinal and node in the original when the value still
    /// writes from there: unchanged, or opened from it.
    fn in_original(&self) -> Option<(u32, At)> {
        let (ordinal, was) = self.orig?;
        let from = match self.val {
            Val::At(v) => Some(*v),
            Val::Obj(obj) => obj.from,
            Val::Arr(arr) => arr.from,
        };
        (from == Some(was)).then_some((ordinal, was))
    }

    /// Where the item's text starts in its source: its key, or its value.
    fn start(&self, s: &Sources<'_>) -> usize {
        match (self.key, self.val) {
            (Some(Key::At(k)), _) => s.pos(*k),
            (_, Val::At(v)) => s.pos(*v),
            _ => unreachable!("a kept item is a reference"),
        }
    }
}

/// Where the value at `ordinal` (node `at`) of container `from` (of
/// `count` members, its text ending at `from_end`) ends: back from the
/// next member's start over whitespace, the comma and whitespace, or
/// back from the closing bracket over whitespace.
fn end_in(ordinal: u32, at: At, from_end: usize, count: usize, s: &Sources<'_>) -> usize {
    let input = s.input(at);
    let back = |mut i: usize| {
        while is_space(input[i - 1]) {
            i -= 1;
        }
        i
    };
    if (ordinal as usize) + 1 < count {
        let comma = back(s.pos(s.skip(at)));
        debug_assert_eq!(input[comma - 1], b',');
        back(comma - 1)
    } else {
        back(from_end - 1)
    }
}

fn container(
    open: u8,
    close: u8,
    from: Option<At>,
    end: Option<usize>,
    items: &[Item<'_>],
    s: &Sources<'_>,
    out: &mut Vec<u8>,
) {
    let original_len = from.map_or(0, |f| s.len(f));
    let from_end = from.map(|f| end.unwrap_or_else(|| s.end(f)));
    // Nothing changed: the original text, as it is.
    if let (Some(f), Some(f_end)) = (from, from_end) {
        if items.len() == original_len && items.iter().enumerate().all(|(i, it)| it.kept == Some(i as u32)) {
            out.extend_from_slice(&s.input(f)[s.pos(f)..f_end]);
            return;
        }
    }
    // The whitespace inside the brackets belongs to the container: kept
    // around whatever members it now has.
    let (lead, trail) = match (from, from_end) {
        (Some(f), Some(f_end)) if original_len > 0 && !items.is_empty() => {
            let text = &s.input(f)[s.pos(f) + 1..f_end - 1];
            let lead = text.iter().take_while(|c| is_space(**c)).count();
            let trail = text.iter().rev().take_while(|c| is_space(**c)).count();
            (&text[..lead], &text[text.len() - trail..])
        }
        _ => (&[][..], &[][..]),
    };
    // The end of item `it`'s value in the original, when it writes from there.
    let end_of = |it: &Item<'_>| {
        let (ordinal, at) = it.in_original()?;
        Some(end_in(ordinal, at, from_end?, original_len, s))
    };
    out.push(open);
    out.extend_from_slice(lead);
    let mut i = 0;
    while i < items.len() {
        if i > 0 {
            out.push(b',');
        }
        let Some(first) = items[i].kept else {
            item(&items[i], end_of(&items[i]), s, out);
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
        let run_end = end_of(&items[last]).expect("a kept item writes from its original");
        out.extend_from_slice(&input[items[i].start(s)..run_end]);
        i = last + 1;
    }
    out.extend_from_slice(trail);
    out.push(close);
}

fn item(it: &Item<'_>, end: Option<usize>, s: &Sources<'_>, out: &mut Vec<u8>) {
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
    value_ending(it.val, end, s, out);
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
