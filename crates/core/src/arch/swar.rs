//! The portable instance of the generic stage 1: a 64-byte block as eight
//! u64 words, each compared eight bytes at a time (SWAR). It needs no CPU
//! feature, so it is the production backend on CPUs with neither AVX2 nor
//! NEON; the byte-at-a-time `stage1::scalar` stays the independent oracle.

use super::Block;
use crate::stage1::ScanInfo;

const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

#[inline(always)]
const fn splat(b: u8) -> u64 {
    ONES * b as u64
}

/// The high bit of each byte of `x` that is not zero. Exact (no borrow
/// crosses bytes), unlike the classic `(x - ONES) & !x` test.
#[inline(always)]
fn nonzero(x: u64) -> u64 {
    ((x & LOW7) + LOW7) | x
}

/// The high bit of each byte of `v` (whose bytes are all below 0x80) that
/// differs from `c` (below 0x80): no carry leaves a byte.
#[inline(always)]
fn ne7(v: u64, c: u8) -> u64 {
    (v ^ splat(c)) + LOW7
}

/// Whether some byte of `x` is zero (only the first is exact, which an
/// existence test does not need).
#[inline(always)]
fn has_zero(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// Whether some byte of `x` is below 0x20: the high bits of the result,
/// which callers mask once after folding words (the subtraction borrows
/// only from such a byte: no false alarm, and the first flag is exact,
/// as with `has_zero`).
#[inline(always)]
fn below_space(x: u64) -> u64 {
    x.wrapping_sub(splat(0x20)) & !x
}

#[derive(Clone, Copy)]
pub(crate) struct Swar([u64; 8]);

/// The transpose of `x` as an 8x8 bit matrix (row `i` in byte `i`): bit
/// `8i + j` moves to bit `8j + i` (three rounds of swapping blocks).
#[inline(always)]
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

impl Swar {
    /// One bit per byte for the bytes NOT flagged by `not_in`, which sets
    /// the high bit of each byte of a word outside the class (the compares
    /// give that, so no word is inverted: the mask is, once). The flag of
    /// byte `j` of word `k` goes to bit `k` of byte `j`, and one transpose
    /// puts it at bit `8k + j`: fewer operations than gathering each
    /// word's eight flags into a byte (see docs/design.md).
    #[inline(always)]
    fn mask(self, not_in: impl Fn(u64) -> u64) -> u64 {
        let mut x = 0;
        for (k, &w) in self.0.iter().enumerate() {
            x |= (not_in(w) & HIGH) >> (7 - k);
        }
        !transpose8(x)
    }
}

impl Block for Swar {
    /// Words flagging a control byte and a non-ASCII byte somewhere.
    type Fold = (u64, u64);

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        let mut w = [0u64; 8];
        for (k, x) in w.iter_mut().enumerate() {
            *x = u64::from_le(p.add(8 * k).cast::<u64>().read_unaligned());
        }
        Swar(w)
    }
    #[inline(always)]
    unsafe fn eq(self, byte: u8) -> u64 {
        // Most blocks hold no backslash (quotes, the other byte stage 1
        // looks for, are everywhere): an existence test first, cheaper
        // than the mask it saves.
        if byte == b'\\' && self.0.iter().fold(0, |acc, &w| acc | has_zero(w ^ splat(byte))) == 0 {
            return 0;
        }
        if byte < 0x80 {
            self.mask(|w| ne7(w & LOW7, byte) | w)
        } else {
            self.mask(|w| nonzero(w ^ splat(byte)))
        }
    }
    #[inline(always)]
    unsafe fn classify(self) -> (u64, u64) {
        // The ops of the shared nibble tables are the bytes that, with
        // 0x20 set, are `:` `{` `,` `}`; whitespace is space, tab, LF, CR.
        let op = self.mask(|w| {
            let v = (w & LOW7) | splat(0x20);
            ne7(v, b':') & ne7(v, b'{') & ne7(v, b',') & ne7(v, b'}') | w
        });
        let ws = self.mask(|w| {
            // Tab and CR are the bytes that, with 0x04 set, are CR.
            let v = w & LOW7;
            ne7(v, b' ') & ne7(v | splat(0x04), b'\r') & ne7(v, b'\n') | w
        });
        (op, ws)
    }
    #[inline(always)]
    unsafe fn control(self) -> u64 {
        // (An existence test first: compact JSON has no control byte.)
        if self.0.iter().fold(0, |acc, &w| acc | below_space(w)) & HIGH == 0 {
            return 0;
        }
        self.mask(|w| ((w & splat(0x60)) + LOW7) | w)
    }
    #[inline(always)]
    unsafe fn any_non_ascii(self) -> bool {
        self.0.iter().fold(0, |acc, w| acc | w) & HIGH != 0
    }
    #[inline(always)]
    unsafe fn fold_start() -> Self::Fold {
        (0, 0)
    }
    #[inline(always)]
    unsafe fn fold(self, (mut control, mut high): Self::Fold) -> Self::Fold {
        for w in self.0 {
            control |= below_space(w);
            high |= w;
        }
        (control, high)
    }
    #[inline(always)]
    unsafe fn fold_has_control((control, _): Self::Fold) -> bool {
        control & HIGH != 0
    }
    #[inline(always)]
    unsafe fn fold_has_non_ascii((_, high): Self::Fold) -> bool {
        high & HIGH != 0
    }
    #[inline(always)]
    unsafe fn quote_or_backslash(self) -> u64 {
        self.mask(|w| {
            let v = w & LOW7;
            ne7(v, b'"') & ne7(v, b'\\') | w
        })
    }
    #[inline(always)]
    unsafe fn any_quote_or_backslash(a: Self, b: Self) -> bool {
        let mut any = 0;
        for k in 0..8 {
            for w in [a.0[k], b.0[k]] {
                any |= has_zero(w ^ splat(b'"')) | has_zero(w ^ splat(b'\\'));
            }
        }
        any != 0
    }
    #[inline(always)]
    unsafe fn prefix_xor(x: u64) -> u64 {
        prefix_xor(x)
    }
}

/// Bit `i` is the XOR of bits `0..=i` of `x`, by doubling shifts.
#[inline(always)]
pub(crate) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

pub(crate) fn scan(input: &[u8], strict: bool, measure: bool, out: &mut Vec<u32>) -> ScanInfo {
    // SAFETY: Swar needs no CPU feature; its loads stay inside the blocks
    // the generic code hands it.
    unsafe {
        if strict {
            crate::stage1::generic::scan::<Swar, true>(input, measure, out)
        } else {
            crate::stage1::generic::scan::<Swar, false>(input, measure, out)
        }
    }
}

/// The searches of `arch::strings` a word at a time: the production code
/// on CPUs without vectors. A zero byte of `w ^ splat(c)` is a byte equal
/// to `c`; [`has_zero`]'s lowest flag is exact, and only the lowest is
/// used.
pub(crate) mod strings {
    use super::{below_space, has_zero, splat, HIGH};

    #[inline(always)]
    fn quotes_or_backslashes(w: u64) -> u64 {
        has_zero(w ^ splat(b'"')) | has_zero(w ^ splat(b'\\'))
    }

    #[inline(always)]
    pub(crate) fn quote_or_backslash(s: &[u8]) -> Option<usize> {
        let mut at = 0;
        while at + 8 <= s.len() {
            let hits = quotes_or_backslashes(u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes")));
            if hits != 0 {
                return Some(at + (hits.trailing_zeros() / 8) as usize);
            }
            at += 8;
        }
        // The last bytes padded with zeros, which match neither.
        let mut tail = [0u8; 8];
        tail[..s.len() - at].copy_from_slice(&s[at..]);
        let hits = quotes_or_backslashes(u64::from_le_bytes(tail));
        (hits != 0).then(|| at + (hits.trailing_zeros() / 8) as usize)
    }

    #[inline(always)]
    pub(crate) fn escape_stop<const SLASH: bool, const HIGH_BYTES: bool, const HTML: bool>(src: &[u8; 16]) -> usize {
        for half in 0..2 {
            let x = u64::from_le_bytes(src[8 * half..8 * half + 8].try_into().expect("8 bytes"));
            let mut m = below_space(x);
            m |= has_zero(x ^ splat(b'"')) | has_zero(x ^ splat(b'\\')) | has_zero(x ^ splat(0x7f));
            if SLASH {
                m |= has_zero(x ^ splat(b'/'));
            }
            if HTML {
                m |= has_zero(x ^ splat(b'<')) | has_zero(x ^ splat(b'>')) | has_zero(x ^ splat(b'&'));
            }
            if HIGH_BYTES {
                m |= x;
            }
            m &= HIGH;
            if m != 0 {
                return 8 * half + (m.trailing_zeros() / 8) as usize;
            }
        }
        16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_helpers_match_bytewise_definitions() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Bytes from a small alphabet so that zeros and matches are common.
            let bytes: [u8; 8] = std::array::from_fn(|k| {
                [0, 1, 0x1f, 0x20, 0x22, 0x5c, 0x7f, 0x80, 0xff][(seed >> (5 * k)) as usize % 9]
            });
            let w = u64::from_le_bytes(bytes);
            let want_zero: u64 = (0..8).filter(|&k| bytes[k] == 0).map(|k| 0x80 << (8 * k)).sum();
            assert_eq!(!nonzero(w) & HIGH, want_zero, "{bytes:?}");
            assert_eq!(has_zero(w) != 0, want_zero != 0, "{bytes:?}");
            let x = seed;
            let want_xor = (0..64).fold((0u64, 0u64), |(acc, run), i| {
                let run = run ^ (x >> i & 1);
                (acc | run << i, run)
            });
            assert_eq!(prefix_xor(x), want_xor.0);
        }
    }

    #[test]
    fn masks_match_bytewise_definitions() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            let mut bytes = [0u8; 64];
            for b in bytes.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = [b' ', b'"', b'\\', b':', b'{', b'[', b'\n', 0x1f, 0x80, 0xa2, 0xff, b'a', 0][seed as usize % 13];
            }
            // SAFETY: 64 bytes; Swar needs no CPU feature.
            let (quote, high, control, (op, ws)) = unsafe {
                let b = Swar::load(bytes.as_ptr());
                (b.eq(b'"'), b.eq(0xff), b.control(), b.classify())
            };
            let want = |f: &dyn Fn(u8) -> bool| -> u64 { (0..64).filter(|&i| f(bytes[i])).map(|i| 1u64 << i).sum() };
            assert_eq!(quote, want(&|b| b == b'"'), "{bytes:?}");
            assert_eq!(high, want(&|b| b == 0xff), "{bytes:?}");
            assert_eq!(control, want(&|b| b < 0x20), "{bytes:?}");
            assert_eq!(op, want(&|b| b":{[,]}".contains(&b)), "{bytes:?}");
            assert_eq!(ws, want(&|b| b" \t\n\r".contains(&b)), "{bytes:?}");
        }
    }
}
