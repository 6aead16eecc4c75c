//! Stage 1: one pass over the input that finds every structural position.
//!
//! The index lists, in order, the byte offset of every `{ } [ ] : ,` outside
//! strings, every string-opening quote, and the first byte of every other
//! token (numbers, literals and stray bytes, which stage 2 then rejects).
//! In strict mode the same pass also checks string bodies: control bytes,
//! escapes (`\u` hex digits and surrogate pairs) and UTF-8 (validated only
//! over the blocks that hold non-ASCII bytes), so stage 2 never rereads a
//! long string.
//!
//! The algorithm is written once in [`generic`] over the [`vector::Block`]
//! trait and instantiated for AVX-512 and AVX2; [`scalar`] is an independent
//! byte-at-a-time version, used on other CPUs and as the test oracle.
//! [`Backend::detect`] is the one place that looks at CPU features.

mod escape;
mod generic;
pub mod scalar;
mod vector;
#[cfg(target_arch = "x86_64")]
mod x86_64;

use crate::error::ErrorKind;

use std::sync::OnceLock;

/// What stage 1 learned besides the index itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanInfo {
    /// The input ends inside a string.
    pub unterminated: bool,
    /// First error inside a string body (strict mode only): offset and kind.
    pub string_error: Option<(usize, ErrorKind)>,
    /// Offset of the first byte where the input stops being valid UTF-8
    /// (strict mode only).
    pub utf8_error: Option<usize>,
    /// Bytes enough to unescape any string into: over the strings that
    /// hold an escape, the most from a string's opening quote to the next
    /// structural position (or the end of the input), which holds the
    /// whole body. 0 when no string holds an escape, or when the scan was
    /// not asked to measure it.
    pub escape_room: usize,
}

/// Tracks the strings that hold an escape, for [`ScanInfo::escape_room`]:
/// each is named by the position in the index of its opening quote.
#[derive(Default)]
pub(crate) struct EscapedStrings {
    pub(crate) last: Option<usize>,
    room: usize,
}

impl EscapedStrings {
    /// The string whose opening quote is `index[k]` holds an escape.
    #[inline]
    pub(crate) fn note(&mut self, k: usize, index: &[u32], len: usize) {
        if self.last != Some(k) {
            self.finish(index, len);
            self.last = Some(k);
        }
    }

    /// Counts the last string noted; its end is known once the next
    /// structural position is (or at the end of the input).
    pub(crate) fn finish(&mut self, index: &[u32], len: usize) -> usize {
        if let Some(k) = self.last.take() {
            let end = index.get(k + 1).map_or(len, |&e| e as usize);
            self.room = self.room.max(end - index[k] as usize);
        }
        self.room
    }
}

/// The stage 1 implementations; all produce identical output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Backend {
    /// The fastest backend this CPU supports (checked once per process).
    pub fn detect() -> Backend {
        static CHOSEN: OnceLock<Backend> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            if let Ok(forced) = std::env::var("QJSON_BACKEND") {
                if let Some(b) = Backend::available().into_iter().find(|b| b.name() == forced) {
                    return b;
                }
            }
            Backend::available()[0]
        })
    }

    /// Every backend usable on this CPU, fastest first.
    pub fn available() -> Vec<Backend> {
        #[allow(unused_mut)]
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if x86_64::avx512_supported() {
                v.push(Backend::Avx512);
            }
            if x86_64::avx2_supported() {
                v.push(Backend::Avx2);
            }
        }
        v.push(Backend::Scalar);
        v
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => "avx512",
        }
    }

    /// Appends the structural index of `input` to `out` (which is cleared);
    /// with `measure`, also measures [`ScanInfo::escape_room`] (a few
    /// percent of a scan of escape-heavy text, so only when asked).
    pub fn scan(self, input: &[u8], strict: bool, measure: bool, out: &mut Vec<u32>) -> ScanInfo {
        out.clear();
        match self {
            Backend::Scalar => scalar::scan(input, strict, measure, out),
            // SAFETY: these variants are only handed out by `available`,
            // after the CPU feature check.
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => unsafe { x86_64::scan_avx2(input, strict, measure, out) },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => unsafe { x86_64::scan_avx512(input, strict, measure, out) },
        }
    }
}

/// Stage 1 with the backend chosen for this CPU.
pub fn scan(input: &[u8], strict: bool, measure: bool, out: &mut Vec<u32>) -> ScanInfo {
    Backend::detect().scan(input, strict, measure, out)
}

/// The op/whitespace classification every backend shares, byte by byte.
/// It is defined by simdjson's nibble tables, so that the scalar oracle
/// agrees with the vector code even on bytes such as 0x0C and 0x1A, which
/// the tables also flag as ops (stage 2 rejects them by their real value).
pub(crate) const WS_TABLE: [u8; 16] =
    [b' ', 100, 100, 100, 17, 100, 113, 2, 100, b'\t', b'\n', 112, 100, b'\r', 100, 100];
pub(crate) const OP_TABLE: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b':', b'{', b',', b'}', 0, 0];

#[inline(always)]
pub(crate) fn is_ws_class(c: u8) -> bool {
    c < 0x80 && WS_TABLE[(c & 15) as usize] == c
}

#[inline(always)]
pub(crate) fn is_op_class(c: u8) -> bool {
    c < 0x80 && OP_TABLE[(c & 15) as usize] == (c | 0x20)
}
