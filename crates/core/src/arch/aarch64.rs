//! NEON instances of the generic stage 1: a 64-byte block as four 16-byte
//! vectors. NEON has no movemask; `mask` ANDs each compare with the bit of
//! its lane and adds neighbours pairwise three times (simdjson's
//! `to_bitmask`). The nibble tables are looked up with `tbl`. Prefix-XOR
//! is one carry-less multiply where the CPU has PMULL (the `aes` feature),
//! by shifts otherwise: two entry points.

use super::{backend_entry, Block};
use crate::stage1::{OP_TABLE, WS_TABLE};
use core::arch::aarch64::*;

backend_entry!(is_aarch64_feature_detected, neon_supported, scan_neon, Neon<true>, ["neon", "aes"]);
backend_entry!(is_aarch64_feature_detected, neon_nopmull_supported, scan_neon_nopmull, Neon<false>, ["neon"]);

/// `PMULL`: prefix-XOR by carry-less multiply (needs the `aes` feature).
#[derive(Clone, Copy)]
pub(super) struct Neon<const PMULL: bool>([uint8x16_t; 4]);

const LANE_BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

impl<const PMULL: bool> Neon<PMULL> {
    /// Bit `i` set for each lane `i` (of the 64) that is all ones.
    #[inline(always)]
    unsafe fn mask(m: [uint8x16_t; 4]) -> u64 {
        let bits = vld1q_u8(LANE_BITS.as_ptr());
        let s0 = vpaddq_u8(vandq_u8(m[0], bits), vandq_u8(m[1], bits));
        let s1 = vpaddq_u8(vandq_u8(m[2], bits), vandq_u8(m[3], bits));
        let s = vpaddq_u8(s0, s1);
        let s = vpaddq_u8(s, s);
        vgetq_lane_u64(vreinterpretq_u64_u8(s), 0)
    }

    #[inline(always)]
    unsafe fn map(self, f: impl Fn(uint8x16_t) -> uint8x16_t) -> [uint8x16_t; 4] {
        [f(self.0[0]), f(self.0[1]), f(self.0[2]), f(self.0[3])]
    }

    /// Whether any lane of any of the vectors is not zero.
    #[inline(always)]
    unsafe fn any(m: [uint8x16_t; 4]) -> bool {
        let m = vorrq_u8(vorrq_u8(m[0], m[1]), vorrq_u8(m[2], m[3]));
        vmaxvq_u8(m) != 0
    }
}

impl<const PMULL: bool> Block for Neon<PMULL> {
    /// Running bytewise minimum and maximum.
    type Fold = (uint8x16_t, uint8x16_t);

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        Neon([vld1q_u8(p), vld1q_u8(p.add(16)), vld1q_u8(p.add(32)), vld1q_u8(p.add(48))])
    }
    #[inline(always)]
    unsafe fn eq(self, byte: u8) -> u64 {
        let b = vdupq_n_u8(byte);
        Self::mask(self.map(|x| vceqq_u8(x, b)))
    }
    #[inline(always)]
    unsafe fn classify(self) -> (u64, u64) {
        // `tbl` reads entry (x & 15); a byte at or above 0x80 never equals
        // an entry (all below 0x80), as with pshufb's zeroing on x86.
        let ws_t = vld1q_u8(WS_TABLE.as_ptr());
        let op_t = vld1q_u8(OP_TABLE.as_ptr());
        let low = vdupq_n_u8(0x0F);
        let x20 = vdupq_n_u8(0x20);
        let ws = Self::mask(self.map(|x| vceqq_u8(x, vqtbl1q_u8(ws_t, vandq_u8(x, low)))));
        let op = Self::mask(self.map(|x| vceqq_u8(vorrq_u8(x, x20), vqtbl1q_u8(op_t, vandq_u8(x, low)))));
        (op, ws)
    }
    #[inline(always)]
    unsafe fn control(self) -> u64 {
        let lim = vdupq_n_u8(0x20);
        Self::mask(self.map(|x| vcltq_u8(x, lim)))
    }
    #[inline(always)]
    unsafe fn any_non_ascii(self) -> bool {
        let [a, b, c, d] = self.0;
        vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) >= 0x80
    }
    #[inline(always)]
    unsafe fn fold_start() -> Self::Fold {
        (vdupq_n_u8(0xFF), vdupq_n_u8(0))
    }
    #[inline(always)]
    unsafe fn fold(self, (low, high): Self::Fold) -> Self::Fold {
        let [a, b, c, d] = self.0;
        let lo = vminq_u8(vminq_u8(a, b), vminq_u8(c, d));
        let hi = vmaxq_u8(vmaxq_u8(a, b), vmaxq_u8(c, d));
        (vminq_u8(low, lo), vmaxq_u8(high, hi))
    }
    #[inline(always)]
    unsafe fn fold_has_control((low, _): Self::Fold) -> bool {
        vminvq_u8(low) < 0x20
    }
    #[inline(always)]
    unsafe fn fold_has_non_ascii((_, high): Self::Fold) -> bool {
        vmaxvq_u8(high) >= 0x80
    }
    #[inline(always)]
    unsafe fn quote_or_backslash(self) -> u64 {
        let (q, b) = (vdupq_n_u8(b'"'), vdupq_n_u8(b'\\'));
        Self::mask(self.map(|x| vorrq_u8(vceqq_u8(x, q), vceqq_u8(x, b))))
    }
    #[inline(always)]
    unsafe fn any_quote_or_backslash(a: Self, b: Self) -> bool {
        let (q, s) = (vdupq_n_u8(b'"'), vdupq_n_u8(b'\\'));
        let hit = |x| vorrq_u8(vceqq_u8(x, q), vceqq_u8(x, s));
        let ma = a.map(hit);
        let mb = b.map(hit);
        Self::any([vorrq_u8(ma[0], mb[0]), vorrq_u8(ma[1], mb[1]), vorrq_u8(ma[2], mb[2]), vorrq_u8(ma[3], mb[3])])
    }
    // `vmull_p64` needs `aes`, which only the PMULL entry point enables;
    // this method is inlined there, and the intrinsic with it.
    #[allow(inline_always_mismatching_target_features)]
    #[inline(always)]
    unsafe fn prefix_xor(x: u64) -> u64 {
        if PMULL {
            vmull_p64(x, !0) as u64
        } else {
            super::swar::prefix_xor(x)
        }
    }
}

/// The searches of `arch::strings` with NEON, which the aarch64 targets
/// this crate builds for include (the module is compiled only when the
/// target guarantees it). Sixteen bytes at a time; the first hit is found
/// by narrowing the compare to four bits a byte (`shrn`), as memchr does.
#[cfg(target_feature = "neon")]
pub(super) mod strings {
    use core::arch::aarch64::*;

    /// Past this many bytes, memchr's NEON search (unrolled) takes over.
    const SHORT: usize = 256;

    /// The offset of the first all-ones lane of `m`, 16 if none.
    #[inline(always)]
    unsafe fn first(m: uint8x16_t) -> usize {
        let nibbles = vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
        (nibbles.trailing_zeros() / 4) as usize
    }

    #[inline(always)]
    pub(crate) fn quote_or_backslash(s: &[u8]) -> Option<usize> {
        // One bound for the loop: the end of `s` or of the short part.
        let end = s.len().min(SHORT);
        let mut at = 0;
        while at + 16 <= end {
            // SAFETY: NEON is part of the target; 16 bytes from `at` are
            // inside `s`.
            let k = unsafe {
                let v = vld1q_u8(s.as_ptr().add(at));
                first(vorrq_u8(vceqq_u8(v, vdupq_n_u8(b'"')), vceqq_u8(v, vdupq_n_u8(b'\\'))))
            };
            if k < 16 {
                return Some(at + k);
            }
            at += 16;
        }
        if at + 16 <= s.len() {
            return memchr::memchr2(b'"', b'\\', &s[at..]).map(|k| at + k);
        }
        super::super::swar::strings::quote_or_backslash(&s[at..]).map(|k| at + k)
    }

    #[inline(always)]
    pub(crate) fn escape_stop<const SLASH: bool, const HIGH: bool, const HTML: bool>(src: &[u8; 16]) -> usize {
        // SAFETY: NEON is part of the target; the load reads `src`.
        unsafe {
            let x = vld1q_u8(src.as_ptr());
            let eq = |b: u8| vceqq_u8(x, vdupq_n_u8(b));
            let ctrl = vcltq_u8(x, vdupq_n_u8(0x20));
            let mut m = vorrq_u8(vorrq_u8(ctrl, eq(b'"')), vorrq_u8(eq(b'\\'), eq(0x7f)));
            if SLASH {
                m = vorrq_u8(m, eq(b'/'));
            }
            if HTML {
                m = vorrq_u8(m, vorrq_u8(eq(b'<'), vorrq_u8(eq(b'>'), eq(b'&'))));
            }
            if HIGH {
                m = vorrq_u8(m, vcgeq_u8(x, vdupq_n_u8(0x80)));
            }
            first(m)
        }
    }
}
