//! The tape: the validated, linked form of the structural index.
//!
//! One `u32` per slot. A scalar (string, number, literal) is one slot, the
//! byte offset where it starts. A container is a two-slot header
//! `[open offset, next]` followed by its members, where `next` is the slot
//! just after the container, so skipping it is O(1). Object members are a
//! key slot followed by the value's slots; `:` and `,` are not kept.
//!
//! The member count (for O(1) `len`) costs no slot when every member is a
//! scalar: `next` then carries [`SCALARS_ONLY`] and the count follows from
//! the slots between header and `next`. Otherwise the container ends with
//! one more slot holding the count. An object whose keys are proven
//! unique carries [`UNIQUE_KEYS`] there too. Closing offsets are not stored; `raw`
//! finds them from the last member's end, in time proportional to the text
//! it returns anyway. This keeps the tape near 4 bytes per structural
//! character even for number-dense documents.

/// Index of a value in the tape.
pub type Node = u32;

/// The root value is always the first slot.
pub const ROOT: Node = 0;

/// Slots that an open container adds before its first member.
pub(crate) const HEADER: usize = 2;

/// Flag in a header's `next` slot: every member is a scalar, no count slot.
const SCALARS_ONLY: u32 = 1 << 31;

/// Flag in an object header's `next` slot: stage 2 proved that no two of
/// its keys are equal (by their first bytes, see `stage2::keys`),
/// so a lookup may stop at the first match instead of going on to find
/// the last.
const UNIQUE_KEYS: u32 = 1 << 30;

/// The flags a `next` slot may carry.
const NEXT_FLAGS: u32 = SCALARS_ONLY | UNIQUE_KEYS;

/// Largest tape, so that a slot index never collides with the flags.
pub(crate) const MAX_SLOTS: usize = UNIQUE_KEYS as usize - 1;

// Every slot is read and written through what follows: no other module
// knows where a header's flags sit or when a count slot exists.

/// A container header's `next` slot, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Next(u32);

impl Next {
    /// The `next` slot of a container whose members end at `after` (the
    /// slot after it, count slot included).
    #[inline(always)]
    pub(crate) fn new(after: usize, scalars_only: bool, unique_keys: bool) -> Next {
        let flags = if scalars_only { SCALARS_ONLY } else { 0 } | if unique_keys { UNIQUE_KEYS } else { 0 };
        Next(after as u32 | flags)
    }

    /// The slot just after the container and everything inside it.
    #[inline(always)]
    pub(crate) fn after(self) -> Node {
        self.0 & !NEXT_FLAGS
    }

    /// Every member is a scalar (and there is no count slot).
    #[inline(always)]
    pub(crate) fn scalars_only(self) -> bool {
        self.0 & SCALARS_ONLY != 0
    }

    /// Stage 2 proved the object's keys unique (see [`UNIQUE_KEYS`]).
    #[inline(always)]
    pub(crate) fn unique_keys(self) -> bool {
        self.0 & UNIQUE_KEYS != 0
    }

    /// Where the members end: `after`, or the count slot just before it.
    #[inline(always)]
    pub(crate) fn members_end(self) -> Node {
        self.after() - !self.scalars_only() as u32
    }
}

/// The byte offset where the value at `node` starts (a slot's payload).
#[inline(always)]
pub(crate) fn offset(tape: &[u32], node: Node) -> usize {
    tape[node as usize] as usize
}

/// The header of the container at `node`.
#[inline(always)]
pub(crate) fn next(tape: &[u32], node: Node) -> Next {
    Next(tape[node as usize + 1])
}

/// Sets the header of the container at `node` (stage 2, once it closes).
#[inline(always)]
pub(crate) fn set_next(tape: &mut [u32], node: Node, next: Next) {
    tape[node as usize + 1] = next.0;
}

/// Whether a value starting with byte `c` is a container (has a header).
#[inline(always)]
pub(crate) fn opens(c: u8) -> bool {
    matches!(c, b'{' | b'[')
}

/// The first member slot of the container at `node`.
#[inline(always)]
pub(crate) fn first_member(node: Node) -> Node {
    node + HEADER as u32
}

/// The slot after the value at `node`, whose first byte is `first`.
#[inline(always)]
pub(crate) fn skip(tape: &[u32], node: Node, first: u8) -> Node {
    if opens(first) {
        next(tape, node).after()
    } else {
        node + 1
    }
}

/// The members of a scalars-only container, one slot each (an object's
/// keys and values in turn), each slot a value's offset.
#[inline(always)]
pub(crate) fn scalar_members(tape: &[u32], node: Node) -> &[u32] {
    let next = next(tape, node);
    debug_assert!(next.scalars_only());
    &tape[first_member(node) as usize..next.after() as usize]
}

/// The member count of the container at `node` (`object`: its members
/// are key and value pairs).
#[inline(always)]
pub(crate) fn count(tape: &[u32], node: Node, object: bool) -> usize {
    let next = next(tape, node);
    if next.scalars_only() {
        let slots = next.after() - first_member(node);
        (slots / if object { 2 } else { 1 }) as usize
    } else {
        tape[next.after() as usize - 1] as usize
    }
}

/// The kind of a value, as the C ABI reports it.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null = 1,
    Boolean = 2,
    Number = 3,
    String = 4,
    Array = 5,
    Object = 6,
}

impl Kind {
    /// By the first byte of the value (already validated by stage 2, or,
    /// in lazy mode, checked when read).
    #[inline(always)]
    pub(crate) fn of_byte(c: u8) -> Kind {
        match c {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b't' | b'f' => Kind::Boolean,
            b'n' => Kind::Null,
            _ => Kind::Number,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Document, Options};

    #[test]
    fn next_round_trips_its_fields() {
        for (after, scalars_only, unique) in
            [(2, true, false), (7, false, true), (MAX_SLOTS, true, true), (9, false, false)]
        {
            let n = Next::new(after, scalars_only, unique);
            assert_eq!(n.after() as usize, after);
            assert_eq!(n.scalars_only(), scalars_only);
            assert_eq!(n.unique_keys(), unique);
            // A container with a nested one ends with its count slot.
            assert_eq!(n.members_end() as usize, if scalars_only { after } else { after - 1 });
        }
    }

    #[test]
    fn accessors_follow_the_layout() {
        let text = br#"{"a":[1,2,3],"b":{"c":[]},"d":"x"}"#;
        let doc = Document::parse(text, &Options::default()).unwrap();
        let t = doc.tape();
        // Root: header, "a", [header, 1, 2, 3], "b", {header, "c", [header]}, count, "d", "x", count.
        let root = next(t, ROOT);
        assert!(!root.scalars_only() && root.unique_keys());
        assert_eq!(root.after() as usize, t.len());
        assert_eq!(count(t, ROOT, true), 3);
        let a = first_member(ROOT) + 1;
        assert_eq!(text[offset(t, a)], b'[');
        assert_eq!(scalar_members(t, a).iter().map(|&p| text[p as usize]).collect::<Vec<_>>(), b"123");
        assert_eq!(count(t, a, false), 3);
        let b_key = skip(t, a, b'[');
        assert_eq!(&text[offset(t, b_key)..offset(t, b_key) + 3], br#""b""#);
        let b = b_key + 1;
        assert_eq!(count(t, b, true), 1);
        let empty = first_member(b) + 1;
        assert_eq!(next(t, empty), Next::new(first_member(empty) as usize, true, false));
        assert_eq!(skip(t, b, b'{'), next(t, b).after());
    }

    /// docs/design.md's worked example, slot for slot.
    #[test]
    fn the_design_docs_worked_example() {
        let text = br#"{"id":7,"tags":["a","b"],"ok":true}"#;
        let doc = Document::parse(text, &Options::default()).unwrap();
        let expected: [u32; 12] = [0, 12 | UNIQUE_KEYS, 1, 6, 8, 15, 9 | SCALARS_ONLY, 16, 20, 25, 30, 3];
        assert_eq!(doc.tape(), &expected[..]);
    }
}
