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
//! The algorithm is written once in [`generic`] over the `arch::Block`
//! trait and instantiated in `arch` for AVX-512, AVX2, NEON and portable
//! u64 words (SWAR); [`scalar`] is an independent byte-at-a-time version,
//! the test oracle. [`Backend::detect`] picks one per process.

mod escape;
pub(crate) mod generic;
pub mod scalar;

pub use crate::arch::Backend;
use crate::error::ErrorKind;

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
