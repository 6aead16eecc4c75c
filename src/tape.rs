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
pub(crate) const SCALARS_ONLY: u32 = 1 << 31;

/// Flag in an object header's `next` slot: stage 2 proved that no two of
/// its keys are equal (by their first bytes, see `validate::FirstBytes`),
/// so a lookup may stop at the first match instead of going on to find
/// the last.
pub(crate) const UNIQUE_KEYS: u32 = 1 << 30;

/// The flags a `next` slot may carry.
pub(crate) const NEXT_FLAGS: u32 = SCALARS_ONLY | UNIQUE_KEYS;

/// Largest tape, so that a slot index never collides with the flags.
pub(crate) const MAX_SLOTS: usize = UNIQUE_KEYS as usize - 1;

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
