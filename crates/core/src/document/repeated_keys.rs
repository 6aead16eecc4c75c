//! Object keys decoded, and what depends on them: the members of an
//! object whose keys repeat, and the duplicate check of `reject_duplicates`.

use std::borrow::Cow;
use std::collections::HashMap;

use super::Document;
use crate::error::{Error, ErrorKind};
use crate::string;
use crate::tape::{self, Node, ROOT};

impl Document<'_> {
    /// Decoded object keys and their nodes, in source order.
    fn keys(&self, obj: Node) -> impl Iterator<Item = (Node, Cow<'_, [u8]>)> + '_ {
        let input = self.input();
        std::iter::successors(self.first_child(obj), move |&k| self.next_child(obj, k))
            .map(move |k| (k, decoded_key(&input[self.pos(k) + 1..])))
    }

    /// For an object whose keys repeat: each key once, in order of first
    /// appearance, with the node of its last value. `None` when no key
    /// repeats, or `obj` is not an object (see [`repeated_keys`]).
    pub fn unique_members(&self, obj: Node) -> Option<Vec<(Node, Node)>> {
        // An array's elements are not keys (and `k + 1` may be past its end).
        if self.first_byte(obj) != b'{' {
            return None;
        }
        repeated_keys(self.input(), &self.tape, obj)
    }

    pub(super) fn check_duplicates(&self) -> Result<(), Error> {
        // Depth-first over containers, with an explicit stack: nesting may
        // be as deep as `max_depth` allows.
        // The visiting order is not the input order, so a repeat found
        // does not end the walk: the one reported is the first in the input.
        let mut first: Option<usize> = None;
        let mut pending = vec![ROOT];
        while let Some(node) = pending.pop() {
            if !self.is_container(node) {
                continue;
            }
            let object = self.first_byte(node) == b'{';
            if object {
                let mut seen = std::collections::HashSet::new();
                for (k, key) in self.keys(node) {
                    if !seen.insert(key) {
                        let p = self.pos(k);
                        first = Some(first.map_or(p, |q| q.min(p)));
                        break;
                    }
                }
            }
            let children = std::iter::successors(self.first_child(node), |&c| self.next_child(node, c));
            pending.extend(children.map(|c| if object { c + 1 } else { c }));
        }
        match first {
            Some(p) => Err(self.error(ErrorKind::DuplicateKey, p)),
            None => Ok(()),
        }
    }
}

/// The key whose body (after its opening quote) starts `body`, decoded; an
/// invalid escape (lazy mode) keeps its raw bytes.
fn decoded_key(body: &[u8]) -> Cow<'_, [u8]> {
    match string::body_len(body) {
        Some((len, false)) => Cow::Borrowed(&body[..len]),
        Some((len, true)) => {
            let mut buf = Vec::new();
            match string::unescape(&body[..len], &mut buf) {
                Ok(()) => Cow::Owned(buf),
                Err(_) => Cow::Borrowed(&body[..len]),
            }
        }
        None => Cow::Borrowed(body),
    }
}

/// For object `obj` of a tape whose keys repeat: each key once, in order
/// of first appearance, with the node of its last value (a repeated key is
/// one member with its last value, as for every qjson read). `None` when
/// no key repeats: the common case, decided without allocating when stage
/// 2 proved the keys unique or the object is small and no two raw keys are
/// equal. Shared by `Document::unique_members` (Lua's `pairs`) and the
/// schema validator's objects.
pub(crate) fn repeated_keys(input: &[u8], slots: &[u32], obj: Node) -> Option<Vec<(Node, Node)>> {
    let next = tape::next(slots, obj);
    let n = tape::count(slots, obj, true);
    if n < 2 || next.unique_keys() || keys_surely_distinct(input, slots, obj, n) {
        return None;
    }
    let end = next.members_end();
    let key_nodes = std::iter::successors(Some(tape::first_member(obj)).filter(|&k| k < end), |&k| {
        Some(tape::skip(slots, k + 1, input[tape::offset(slots, k + 1)])).filter(|&k| k < end)
    });
    let mut seen: HashMap<Cow<'_, [u8]>, usize> = HashMap::with_capacity(n);
    let mut out: Vec<(Node, Node)> = Vec::with_capacity(n);
    let mut repeated = false;
    for k in key_nodes {
        match seen.entry(decoded_key(&input[tape::offset(slots, k) + 1..])) {
            std::collections::hash_map::Entry::Occupied(i) => {
                out[*i.get()].1 = k + 1;
                repeated = true;
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(out.len());
                out.push((k, k + 1));
            }
        }
    }
    repeated.then_some(out)
}

/// True when an object's keys are certainly distinct, decided for a small
/// object by comparing raw keys pairwise until an escape (raw bytes before
/// one are decoded bytes; an escape leaves it undecided).
fn keys_surely_distinct(input: &[u8], slots: &[u32], obj: Node, n: usize) -> bool {
    const SMALL: usize = 16;
    if n > SMALL {
        return false;
    }
    let mut starts = [0usize; SMALL];
    // Each key's first byte: two keys that differ there (neither an
    // escape) are distinct without reading further, which spares most
    // pairs the comparison of their bodies.
    let mut firsts = [0u8; SMALL];
    let mut k = tape::first_member(obj);
    for (start, first) in starts.iter_mut().zip(firsts.iter_mut()).take(n) {
        *start = tape::offset(slots, k) + 1;
        // (A backslash, for a key at the end of the text: compared in full.)
        *first = input.get(*start).copied().unwrap_or(b'\\');
        k = tape::skip(slots, k + 1, input[tape::offset(slots, k + 1)]);
    }
    (1..n).all(|i| {
        (0..i).all(|j| {
            (firsts[i] != firsts[j] && firsts[i] != b'\\' && firsts[j] != b'\\')
                || raw_keys_equal(&input[starts[j]..], &input[starts[i]..]) == Some(false)
        })
    })
}

/// Whether two keys' raw bodies (from after their opening quotes) are the
/// same key: `None` when an escape comes first (decoding decides).
fn raw_keys_equal(a: &[u8], b: &[u8]) -> Option<bool> {
    for (&x, &y) in a.iter().zip(b) {
        if x == b'\\' || y == b'\\' {
            return None;
        }
        if x != y {
            return Some(false);
        }
        if x == b'"' {
            return Some(true);
        }
    }
    Some(false)
}
