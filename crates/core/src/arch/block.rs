//! The few operations stage 1 needs from a 64-byte block of input.

/// 64 bytes of input held in vector registers. Every method returns one bit
/// per byte, bit `i` for byte `i`.
pub(crate) trait Block: Copy {
    /// # Safety
    /// `p` must be valid for 64 bytes of reads and the CPU must support the
    /// implementation's target features.
    unsafe fn load(p: *const u8) -> Self;
    /// The `n` bytes at `p` (`n < 64`), padded with spaces (whitespace
    /// changes nothing): the input's last, partial block.
    ///
    /// # Safety
    /// As `load`, for `n` bytes.
    #[inline(always)]
    unsafe fn load_tail(p: *const u8, n: usize) -> Self {
        let mut buf = [b' '; 64];
        std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), n);
        Self::load(buf.as_ptr())
    }
    unsafe fn eq(self, byte: u8) -> u64;
    /// `(ops, whitespace)` by the shared nibble tables (see `stage1::OP_TABLE`).
    unsafe fn classify(self) -> (u64, u64);
    /// Bytes below 0x20.
    unsafe fn control(self) -> u64;
    /// Whether any byte is at or above 0x80.
    unsafe fn any_non_ascii(self) -> bool;
    /// What the fast skip over string bodies keeps of the blocks it
    /// passes (strict mode): enough to tell whether any held a control or
    /// a non-ASCII byte, folded without a mask per block.
    type Fold: Copy;
    unsafe fn fold_start() -> Self::Fold;
    unsafe fn fold(self, acc: Self::Fold) -> Self::Fold;
    unsafe fn fold_has_control(acc: Self::Fold) -> bool;
    unsafe fn fold_has_non_ascii(acc: Self::Fold) -> bool;
    /// Quotes and backslashes (and, harmlessly, NUL bytes).
    unsafe fn quote_or_backslash(self) -> u64;
    /// Whether `a` or `b` holds a quote or a backslash (the skip's test).
    #[inline(always)]
    unsafe fn any_quote_or_backslash(a: Self, b: Self) -> bool {
        (a.quote_or_backslash() | b.quote_or_backslash()) != 0
    }
    /// The fast skip over a string body
    /// (`stage1::generic::skip_string_body`): from `at`, passes 128 bytes
    /// at a time, up to `full`, while they hold no quote and no backslash
    /// (an instance may also stop at a control byte in strict mode),
    /// folding them into `acc` in strict mode; returns where it stopped.
    ///
    /// # Safety
    /// `p..p + full` readable.
    #[inline(always)]
    unsafe fn skip_run<const STRICT: bool>(p: *const u8, at: usize, full: usize, acc: &mut Self::Fold) -> usize {
        fold_skip_run::<Self, STRICT>(p, at, full, acc)
    }
    /// Bit `i` is the XOR of bits `0..=i` of `x`.
    unsafe fn prefix_xor(x: u64) -> u64;
    /// Appends `base + i` to `out` for every set bit `i` of `bits`, in
    /// order (stage 1 writing the index).
    #[inline(always)]
    unsafe fn write_positions(bits: u64, base: u32, out: &mut Vec<u32>) {
        crate::stage1::generic::write_positions(bits, base, out);
    }
}

/// [`Block::skip_run`] by the quote test and `fold`.
///
/// # Safety
/// As [`Block::skip_run`].
#[inline(always)]
pub(crate) unsafe fn fold_skip_run<B: Block, const STRICT: bool>(
    p: *const u8,
    mut at: usize,
    full: usize,
    acc: &mut B::Fold,
) -> usize {
    while at + 128 <= full {
        let (a, b) = (B::load(p.add(at)), B::load(p.add(at + 64)));
        if B::any_quote_or_backslash(a, b) {
            break;
        }
        if STRICT {
            *acc = b.fold(a.fold(*acc));
        }
        at += 128;
    }
    at
}
