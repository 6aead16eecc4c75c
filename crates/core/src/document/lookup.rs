//! Indexes built on demand for random access into large containers, so
//! that reading an array backwards or a wide object key by key costs O(1)
//! per read instead of a walk over the container.
//!
//! The tape links containers forwards only: element `i` is found by
//! stepping over the `i` before it, and a key by comparing every key.
//! [`Lookup`] keeps, per large array, the node of every element, and per
//! wide object, an open-addressing table of its key nodes hashed with a
//! per-document random key (SipHash), so input crafted to collide
//! cannot make lookups slow. It lives with the document and is dropped
//! with it; its size is bounded by the tape's (see [`Lookup::admit`]).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

use crate::string;
use crate::tape::Node;

/// Arrays with more elements than this get an element index on the
/// first access that the forward cache does not serve cheaply; shorter
/// ones are walked (that walk is at most this long).
pub(crate) const ARRAY_MIN: usize = 32;

/// Objects with more members than this get a key table once lookups have
/// scanned past this many members [`OBJECT_LOOKUPS`] times; smaller ones
/// are always scanned. Hashing a key costs as much as stepping over some
/// tens of members, so a table pays only when an object is wide and read
/// often (docs/security.md has the measurements).
pub(crate) const OBJECT_MIN: usize = 64;
pub(crate) const OBJECT_LOOKUPS: u32 = 8;

/// A wide object, as [`Lookup::member`] needs it.
pub(crate) struct Wide<I> {
    pub node: Node,
    /// Its member count.
    pub len: usize,
    /// Whether its keys are proven distinct (no key need be compared).
    pub unique: bool,
    /// Its key nodes, in source order.
    pub keys: I,
}

/// Indexes of one document.
pub(crate) struct Lookup {
    arrays: HashMap<Node, Box<[Node]>>,
    objects: HashMap<Node, KeyTable>,
    /// Lookups so far in wide objects that have no table yet.
    seen: HashMap<Node, u32>,
    hasher: RandomState,
    /// Bytes held, approximately (the tables and their map entries).
    bytes: usize,
    /// Most bytes allowed: a multiple of the tape's, which real indexes
    /// never reach (an element takes a tape slot, a member two).
    cap: usize,
}

/// A wide object's key nodes; 0 marks an empty slot (no key is node 0,
/// the root). At most two thirds full, so a probe always ends.
struct KeyTable {
    slots: Box<[Node]>,
}

impl Lookup {
    pub(crate) fn new(tape_bytes: usize) -> Lookup {
        Lookup {
            arrays: HashMap::new(),
            objects: HashMap::new(),
            seen: HashMap::new(),
            hasher: RandomState::new(),
            bytes: 0,
            cap: 4 * tape_bytes,
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Counts `bytes` more against the cap; false (nothing counted) when
    /// over it.
    fn admit(&mut self, bytes: usize) -> bool {
        // A map entry and the allocation's own bookkeeping, roughly.
        const ENTRY: usize = 32;
        let bytes = bytes + ENTRY;
        if self.bytes + bytes > self.cap {
            return false;
        }
        self.bytes += bytes;
        true
    }

    /// Element `index` of the indexed array `arr`, building the index
    /// with `walk` (which yields the `len` element nodes in order) when
    /// there is none yet. `None` when over the cap.
    pub(crate) fn element(
        &mut self,
        arr: Node,
        index: usize,
        len: usize,
        walk: impl FnOnce() -> Box<[Node]>,
    ) -> Option<Node> {
        if let Some(nodes) = self.arrays.get(&arr) {
            return nodes.get(index).copied();
        }
        if !self.admit(len * 4) {
            return None;
        }
        let nodes = walk();
        let found = nodes.get(index).copied();
        self.arrays.insert(arr, nodes);
        found
    }

    /// The value of `key` in the wide object `obj`, from its table.
    /// `None` when the object has no table (yet: lookups are counted,
    /// the table is built by the `OBJECT_LOOKUPS`th) or the cap is
    /// reached; the caller then scans.
    pub(crate) fn member(
        &mut self,
        input: &[u8],
        tape: &[u32],
        obj: Wide<impl Iterator<Item = Node>>,
        key: &[u8],
    ) -> Option<Option<Node>> {
        let Wide { node: obj, len, unique, keys } = obj;
        if !self.objects.contains_key(&obj) {
            let count = self.seen.entry(obj).or_insert(0);
            *count += 1;
            if *count < OBJECT_LOOKUPS {
                return None;
            }
            self.seen.remove(&obj);
            let size = (len + len / 2 + 1).next_power_of_two();
            if !self.admit(size * 4) {
                return None;
            }
            let table = KeyTable::build(input, tape, size, unique, keys, &self.hasher);
            self.objects.insert(obj, table);
        }
        self.find(input, tape, obj, key)
    }

    /// The value of `key` in object `obj` from its table; `None` when it
    /// has none.
    pub(crate) fn find(&self, input: &[u8], tape: &[u32], obj: Node, key: &[u8]) -> Option<Option<Node>> {
        let table = self.objects.get(&obj)?;
        Some(table.find(input, tape, key, self.hasher.hash_one(key)))
    }
}

/// The body of the key at node `k` (after its opening quote).
#[inline(always)]
fn key_body<'i>(input: &'i [u8], tape: &[u32], k: Node) -> &'i [u8] {
    &input[crate::tape::offset(tape, k) + 1..]
}

impl KeyTable {
    /// Inserts every key in order; a repeated key's later node replaces
    /// the earlier (the last value wins, as for a scan). A key whose
    /// escapes do not decode (lazy mode) matches nothing, as for a scan.
    fn build(
        input: &[u8],
        tape: &[u32],
        size: usize,
        unique: bool,
        keys: impl Iterator<Item = Node>,
        hasher: &RandomState,
    ) -> KeyTable {
        let mut slots = vec![0; size].into_boxed_slice();
        let mask = size - 1;
        let mut decoded = Vec::new();
        for k in keys {
            let body = key_body(input, tape, k);
            let key = match string::body_len(body) {
                Some((len, false)) => &body[..len],
                Some((len, true)) => {
                    decoded.clear();
                    if string::unescape(&body[..len], &mut decoded).is_err() {
                        continue;
                    }
                    &decoded[..]
                }
                None => continue,
            };
            let mut i = hasher.hash_one(key) as usize & mask;
            loop {
                let at = slots[i];
                if at == 0 || (!unique && string::key_eq(key_body(input, tape, at), key)) {
                    slots[i] = k;
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        KeyTable { slots }
    }

    /// The value node of `key` (hashed to `hash`).
    fn find(&self, input: &[u8], tape: &[u32], key: &[u8], hash: u64) -> Option<Node> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let k = self.slots[i];
            if k == 0 {
                return None;
            }
            if string::key_eq(key_body(input, tape, k), key) {
                return Some(k + 1);
            }
            i = (i + 1) & mask;
        }
    }
}
