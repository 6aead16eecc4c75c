//! Object keys decoded, and what depends on them: the members of an
//! object whose keys repeat, and the duplicate check of `reject_duplicates`.

use std::borrow::Cow;
use std::collections::HashMap;

use super::Document;
use crate::error::{Error, ErrorKind};
use crate::string;
use crate::tape::{Node, ROOT};

impl Document<'_> {
    /// Decoded object keys and their nodes, in source order.
    fn keys(&self, obj: Node) -> impl Iterator<Item = (Node, Cow<'_, [u8]>)> + '_ {
        let input = self.input();
        std::iter::successors(self.first_child(obj), move |&k| self.next_child(obj, k)).map(move |k| {
            let body = &input[self.pos(k) + 1..];
            let key = match string::body_len(body) {
                Some((len, false)) => Cow::Borrowed(&body[..len]),
                Some((len, true)) => {
                    let mut buf = Vec::new();
                    // An invalid escape (lazy mode) keeps its raw bytes.
                    match string::unescape(&body[..len], &mut buf) {
                        Ok(()) => Cow::Owned(buf),
                        Err(_) => Cow::Borrowed(&body[..len]),
                    }
                }
                None => Cow::Borrowed(body),
            };
            (k, key)
        })
    }

    /// For an object whose keys repeat: each key once, in order of first
    /// appearance, with the node of its last value. `None` when no key
    /// repeats (the common case; small objects are checked without
    /// allocating).
    pub fn unique_members(&self, obj: Node) -> Option<Vec<(Node, Node)>> {
        let n = self.len(obj)?;
        // An array's elements are not keys (and `k + 1` may be past its end).
        if self.first_byte(obj) != b'{' || self.keys_proven_unique(obj) || self.keys_surely_distinct(obj, n) {
            return None;
        }
        let mut seen: HashMap<Cow<'_, [u8]>, usize> = HashMap::with_capacity(n);
        let mut out: Vec<(Node, Node)> = Vec::with_capacity(n);
        let mut repeated = false;
        for (k, key) in self.keys(obj) {
            match seen.get(&key) {
                Some(&i) => {
                    out[i].1 = k + 1;
                    repeated = true;
                }
                None => {
                    seen.insert(key, out.len());
                    out.push((k, k + 1));
                }
            }
        }
        repeated.then_some(out)
    }

    /// True when an object's keys are certainly distinct, decided by
    /// comparing raw key bytes pairwise: for small objects whose keys have
    /// no escapes (raw bytes then equal decoded bytes).
    fn keys_surely_distinct(&self, obj: Node, n: usize) -> bool {
        const SMALL: usize = 16;
        if n > SMALL {
            return false;
        }
        let input = self.input();
        let mut keys: [&[u8]; SMALL] = [&[]; SMALL];
        let mut k = self.first_child(obj);
        for slot in keys.iter_mut().take(n) {
            let Some(node) = k else { return false };
            let body = &input[self.pos(node) + 1..];
            match string::body_len(body) {
                Some((len, false)) => *slot = &body[..len],
                _ => return false,
            }
            k = self.next_child(obj, node);
        }
        (1..n).all(|i| keys[..i].iter().all(|&earlier| earlier != keys[i]))
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
