//! The proof that an object's keys are unique, kept while stage 2 links
//! the object (see `tape::UNIQUE_KEYS`).

/// What proves an object's keys unique (`tape::UNIQUE_KEYS`): two equal
/// keys start with the same byte, unless one of them starts with an
/// escape. So when no key starts with a backslash and no two keys' first
/// bytes fall on the same bit of a 64-bit set (a byte's low six bits;
/// an empty key "starts" with its closing quote), no two keys are equal.
/// Keys that share a first letter (or bit) leave the object unproven,
/// which only costs the early exit. Kept cheap because every parse pays
/// it: one byte of each key, already in cache, and a register (a proof by
/// the first two bytes held for more objects but cost more per key than
/// it saved; docs/design.md).
#[derive(Clone, Copy, Default)]
pub(super) struct FirstBytes {
    bits: u64,
    pub(super) maybe_repeated: bool,
}

impl FirstBytes {
    /// Adds the key whose opening quote is at `p`.
    #[inline(always)]
    pub(super) fn add(&mut self, input: &[u8], p: usize) {
        let b0 = input.get(p + 1).copied().unwrap_or(0);
        let bit = 1u64 << (b0 & 63);
        self.maybe_repeated |= (self.bits & bit != 0) | (b0 == b'\\');
        self.bits |= bit;
    }
}
