//! AVX2 and AVX-512 instances of the generic stage 1.

use super::block::fold_skip_run;
use super::{backend_entry, Block};
use crate::stage1::{OP_TABLE, WS_TABLE};
use core::arch::x86_64::*;

// popcnt, bmi1 and bmi2 serve the bit loops of the generic code
// (`count_ones`, `trailing_zeros`, clearing the lowest set bit).
backend_entry!(
    is_x86_feature_detected,
    avx2_supported,
    scan_avx2,
    Avx2,
    ["avx2", "pclmulqdq", "popcnt", "bmi1", "bmi2"]
);
backend_entry!(
    is_x86_feature_detected,
    avx512_supported,
    scan_avx512,
    Avx512<false>,
    ["avx512f", "avx512bw", "pclmulqdq", "popcnt", "bmi1", "bmi2"]
);
// VBMI's byte permute over a 128-byte table makes the strict skip over a
// string body one lookup per 64 bytes (`skip_run_vbmi`).
backend_entry!(
    is_x86_feature_detected,
    avx512vbmi_supported,
    scan_avx512vbmi,
    Avx512<true>,
    ["avx512f", "avx512bw", "avx512vbmi", "pclmulqdq", "popcnt", "bmi1", "bmi2"]
);

#[inline(always)]
unsafe fn clmul_prefix_xor(x: u64) -> u64 {
    let all_ones = _mm_set1_epi8(-1);
    let r = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), all_ones, 0);
    _mm_cvtsi128_si64(r) as u64
}

/// Indexed by a byte's low nibble: the only ASCII byte with that nibble
/// that equals its entry is `"` (nibble 2) or `\` (nibble 12). Bytes with
/// the high bit set look up 0, which only a NUL byte equals.
const QUOTE_BACKSLASH_TABLE: [u8; 16] =
    [0xFF, 0xFF, b'"', 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, b'\\', 0xFF, 0xFF, 0xFF];

#[inline(always)]
unsafe fn repeat16(t: &[u8; 16]) -> __m128i {
    _mm_loadu_si128(t.as_ptr() as *const __m128i)
}

/// Two 32-byte halves.
#[derive(Clone, Copy)]
pub(super) struct Avx2([__m256i; 2]);

impl Avx2 {
    #[inline(always)]
    unsafe fn mask(lo: __m256i, hi: __m256i) -> u64 {
        (_mm256_movemask_epi8(lo) as u32 as u64) | ((_mm256_movemask_epi8(hi) as u32 as u64) << 32)
    }
}

impl Block for Avx2 {
    /// Running bytewise minimum and OR.
    type Fold = (Self, Self);

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        Avx2([_mm256_loadu_si256(p as *const __m256i), _mm256_loadu_si256(p.add(32) as *const __m256i)])
    }
    #[inline(always)]
    unsafe fn eq(self, byte: u8) -> u64 {
        let b = _mm256_set1_epi8(byte as i8);
        Self::mask(_mm256_cmpeq_epi8(self.0[0], b), _mm256_cmpeq_epi8(self.0[1], b))
    }
    #[inline(always)]
    unsafe fn classify(self) -> (u64, u64) {
        let ws_t = _mm256_broadcastsi128_si256(repeat16(&WS_TABLE));
        let op_t = _mm256_broadcastsi128_si256(repeat16(&OP_TABLE));
        let x20 = _mm256_set1_epi8(0x20);
        let [a, b] = self.0;
        let ws = Self::mask(
            _mm256_cmpeq_epi8(a, _mm256_shuffle_epi8(ws_t, a)),
            _mm256_cmpeq_epi8(b, _mm256_shuffle_epi8(ws_t, b)),
        );
        let op = Self::mask(
            _mm256_cmpeq_epi8(_mm256_or_si256(a, x20), _mm256_shuffle_epi8(op_t, a)),
            _mm256_cmpeq_epi8(_mm256_or_si256(b, x20), _mm256_shuffle_epi8(op_t, b)),
        );
        (op, ws)
    }
    #[inline(always)]
    unsafe fn control(self) -> u64 {
        let lim = _mm256_set1_epi8(0x1F);
        let [a, b] = self.0;
        Self::mask(_mm256_cmpeq_epi8(_mm256_min_epu8(a, lim), a), _mm256_cmpeq_epi8(_mm256_min_epu8(b, lim), b))
    }
    #[inline(always)]
    unsafe fn any_non_ascii(self) -> bool {
        Self::mask(self.0[0], self.0[1]) != 0
    }
    #[inline(always)]
    unsafe fn fold_start() -> Self::Fold {
        (Self::load([0xFF; 64].as_ptr()), Self::load([0; 64].as_ptr()))
    }
    #[inline(always)]
    unsafe fn fold(self, (low, high): Self::Fold) -> Self::Fold {
        let [a, b] = self.0;
        (
            Avx2([_mm256_min_epu8(a, low.0[0]), _mm256_min_epu8(b, low.0[1])]),
            Avx2([_mm256_or_si256(a, high.0[0]), _mm256_or_si256(b, high.0[1])]),
        )
    }
    #[inline(always)]
    unsafe fn fold_has_control((low, _): Self::Fold) -> bool {
        low.control() != 0
    }
    #[inline(always)]
    unsafe fn fold_has_non_ascii((_, high): Self::Fold) -> bool {
        high.any_non_ascii()
    }
    #[inline(always)]
    unsafe fn quote_or_backslash(self) -> u64 {
        let t = _mm256_broadcastsi128_si256(repeat16(&QUOTE_BACKSLASH_TABLE));
        let [a, b] = self.0;
        Self::mask(_mm256_cmpeq_epi8(a, _mm256_shuffle_epi8(t, a)), _mm256_cmpeq_epi8(b, _mm256_shuffle_epi8(t, b)))
    }
    #[inline(always)]
    unsafe fn prefix_xor(x: u64) -> u64 {
        clmul_prefix_xor(x)
    }
}

/// Indexed by a byte's low seven bits: 0x80 for the bytes the strict
/// skip stops at (controls, quote, backslash). A byte with its high bit
/// set aliases one of them, so its own high bit masks the entry out.
const SKIP_STOP_TABLE: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut c = 0;
    while c < 0x20 {
        t[c] = 0x80;
        c += 1;
    }
    t[b'"' as usize] = 0x80;
    t[b'\\' as usize] = 0x80;
    t
};

/// The strict skip with VBMI: one permute per block looks up the bytes
/// the skip stops at (so controls stop it too, and only the OR in `high`
/// is folded).
///
/// # Safety
/// `p..p + full` readable; called only from the VBMI backend's scan.
#[inline(always)]
unsafe fn skip_run_vbmi(p: *const u8, mut at: usize, full: usize, high: &mut __m512i) -> usize {
    // Through black_box, which the compiler cannot see into, so that it
    // keeps the table in registers: left as loads of a constant, a
    // profile-guided build reloaded it from memory on every 128 bytes.
    let t0 = core::hint::black_box(_mm512_loadu_si512(SKIP_STOP_TABLE.as_ptr().cast()));
    let t1 = core::hint::black_box(_mm512_loadu_si512(SKIP_STOP_TABLE.as_ptr().add(64).cast()));
    let stop = |x| _mm512_andnot_si512(x, _mm512_permutex2var_epi8(t0, x, t1));
    let mut acc = *high;
    while at + 128 <= full {
        let (a, b) = (_mm512_loadu_si512(p.add(at).cast()), _mm512_loadu_si512(p.add(at + 64).cast()));
        if _mm512_movepi8_mask(_mm512_or_si512(stop(a), stop(b))) != 0 {
            break;
        }
        // (acc | a | b)
        acc = _mm512_ternarylogic_epi32(acc, a, b, 0xFE);
        at += 128;
    }
    *high = acc;
    at
}

/// With `VBMI`, the strict skip over string bodies uses VBMI's permute.
#[derive(Clone, Copy)]
pub(super) struct Avx512<const VBMI: bool>(__m512i);

impl<const VBMI: bool> Block for Avx512<VBMI> {
    /// Running bytewise minimum and OR.
    type Fold = (__m512i, __m512i);

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        Self(_mm512_loadu_si512(p as *const _))
    }
    /// A masked load: no copy through memory (a tiny document is mostly
    /// its tail, and storing then reloading the block stalls).
    #[inline(always)]
    unsafe fn load_tail(p: *const u8, n: usize) -> Self {
        let mask = (1u64 << n) - 1;
        Self(_mm512_mask_loadu_epi8(_mm512_set1_epi8(b' ' as i8), mask, p as *const i8))
    }
    #[inline(always)]
    unsafe fn eq(self, byte: u8) -> u64 {
        _mm512_cmpeq_epi8_mask(self.0, _mm512_set1_epi8(byte as i8))
    }
    #[inline(always)]
    unsafe fn classify(self) -> (u64, u64) {
        let ws_t = _mm512_broadcast_i32x4(repeat16(&WS_TABLE));
        let op_t = _mm512_broadcast_i32x4(repeat16(&OP_TABLE));
        let x = self.0;
        let ws = _mm512_cmpeq_epi8_mask(x, _mm512_shuffle_epi8(ws_t, x));
        let op = _mm512_cmpeq_epi8_mask(_mm512_or_si512(x, _mm512_set1_epi8(0x20)), _mm512_shuffle_epi8(op_t, x));
        (op, ws)
    }
    #[inline(always)]
    unsafe fn control(self) -> u64 {
        _mm512_cmplt_epu8_mask(self.0, _mm512_set1_epi8(0x20))
    }
    #[inline(always)]
    unsafe fn any_non_ascii(self) -> bool {
        _mm512_movepi8_mask(self.0) != 0
    }
    #[inline(always)]
    unsafe fn fold_start() -> Self::Fold {
        (_mm512_set1_epi8(-1), _mm512_setzero_si512())
    }
    #[inline(always)]
    unsafe fn fold(self, (low, high): Self::Fold) -> Self::Fold {
        (_mm512_min_epu8(self.0, low), _mm512_or_si512(self.0, high))
    }
    #[inline(always)]
    unsafe fn fold_has_control((low, _): Self::Fold) -> bool {
        Self(low).control() != 0
    }
    #[inline(always)]
    unsafe fn fold_has_non_ascii((_, high): Self::Fold) -> bool {
        Self(high).any_non_ascii()
    }
    #[inline(always)]
    unsafe fn quote_or_backslash(self) -> u64 {
        let t = _mm512_broadcast_i32x4(repeat16(&QUOTE_BACKSLASH_TABLE));
        _mm512_cmpeq_epi8_mask(self.0, _mm512_shuffle_epi8(t, self.0))
    }
    #[inline(always)]
    unsafe fn skip_run<const STRICT: bool>(p: *const u8, at: usize, full: usize, acc: &mut Self::Fold) -> usize {
        if STRICT && VBMI {
            return skip_run_vbmi(p, at, full, &mut acc.1);
        }
        fold_skip_run::<Self, STRICT>(p, at, full, acc)
    }
    #[inline(always)]
    unsafe fn prefix_xor(x: u64) -> u64 {
        clmul_prefix_xor(x)
    }
    /// Sixteen positions at a time, compressed by their 16 bits of `bits`
    /// (`vpcompressd` into a register, then one store): no chain of
    /// dependent bit clears as in the generic loop.
    #[inline(always)]
    unsafe fn write_positions(bits: u64, base: u32, out: &mut Vec<u32>) {
        if bits == 0 {
            return;
        }
        out.reserve(64);
        let len = out.len();
        let p = out.as_mut_ptr().add(len);
        let mut v = _mm512_add_epi32(
            _mm512_set1_epi32(base as i32),
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        );
        let mut n = 0;
        for j in 0..4 {
            let m = (bits >> (16 * j)) as u16;
            // SAFETY: 64 slots are reserved past `len`; `n` <= 48 before
            // the last store of 16, and only the `n` filled are kept.
            _mm512_storeu_si512(p.add(n).cast(), _mm512_maskz_compress_epi32(m, v));
            n += m.count_ones() as usize;
            v = _mm512_add_epi32(v, _mm512_set1_epi32(16));
        }
        out.set_len(len + n);
    }
}

/// The searches of `arch::strings` with SSE2, which every x86-64 CPU has
/// (the module is compiled only when the target guarantees it).
#[cfg(target_feature = "sse2")]
pub(super) mod strings {
    use core::arch::x86_64::*;

    /// Past this many bytes, memchr's search (AVX2 where the CPU has it)
    /// wins over 16 bytes at a time.
    const SHORT: usize = 256;

    #[inline(always)]
    pub(crate) fn quote_or_backslash(s: &[u8]) -> Option<usize> {
        // One bound for the loop: the end of `s` or of the short part.
        let end = s.len().min(SHORT);
        let mut at = 0;
        while at + 16 <= end {
            // SAFETY: SSE2 is part of the target; 16 bytes from `at` are
            // inside `s`.
            let hits = unsafe {
                let v = _mm_loadu_si128(s.as_ptr().add(at).cast());
                let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let b = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                _mm_movemask_epi8(_mm_or_si128(q, b)) as u32
            };
            if hits != 0 {
                return Some(at + hits.trailing_zeros() as usize);
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
        // SAFETY: SSE2 is part of the target; the load reads `src`.
        let bits = unsafe {
            let x = _mm_loadu_si128(src.as_ptr() as *const __m128i);
            let eq = |b: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(b as i8));
            // x <= 0x1f (unsigned): max(x, 0x1f) == 0x1f.
            let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
            let mut m = _mm_or_si128(_mm_or_si128(ctrl, eq(b'"')), _mm_or_si128(eq(b'\\'), eq(0x7f)));
            if SLASH {
                m = _mm_or_si128(m, eq(b'/'));
            }
            if HTML {
                m = _mm_or_si128(m, _mm_or_si128(eq(b'<'), _mm_or_si128(eq(b'>'), eq(b'&'))));
            }
            let mut bits = _mm_movemask_epi8(m) as u32;
            if HIGH {
                bits |= _mm_movemask_epi8(x) as u32;
            }
            bits
        };
        (bits | 1 << 16).trailing_zeros() as usize
    }
}
