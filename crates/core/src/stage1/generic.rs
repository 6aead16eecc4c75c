//! The stage 1 algorithm, written once over [`Block`] (after simdjson's
//! `generic/stage1`). Each instance is inlined into a `#[target_feature]`
//! wrapper in the architecture module.

use super::{escape, EscapedStrings, ScanInfo};
use crate::arch::Block;
use crate::error::ErrorKind;

const EVEN_BITS: u64 = 0x5555_5555_5555_5555;

/// Carries between consecutive blocks.
#[derive(Default)]
struct Carry {
    /// The first byte of the next block is escaped by a trailing backslash.
    escaped: u64,
    /// All ones when the previous block ended inside a string.
    in_string: u64,
    /// 1 when the previous block ended on a token byte (number, literal).
    atom: u64,
    /// A low-surrogate `\u` already checked as part of a pair.
    skip_escape_at: usize,
    /// Start of the current run of blocks holding non-ASCII bytes.
    utf8_run: Option<usize>,
    escaped_strings: EscapedStrings,
}

impl Carry {
    /// UTF-8 is validated only where non-ASCII bytes are: over each run of
    /// consecutive blocks that hold any. An all-ASCII block cannot hold
    /// part of a multi-byte character, so the runs it bounds are checked
    /// independently, and the first error found is the first in the input.
    #[inline(always)]
    fn non_ascii_block(&mut self, at: usize) {
        if self.utf8_run.is_none() {
            self.utf8_run = Some(at);
        }
    }

    #[inline(always)]
    fn ascii_block(&mut self, at: usize, input: &[u8], info: &mut ScanInfo) {
        if let Some(start) = self.utf8_run.take() {
            validate_utf8_run(input, start, at, info);
        }
    }
}

#[cold]
#[inline(never)]
fn validate_utf8_run(input: &[u8], start: usize, end: usize, info: &mut ScanInfo) {
    let run = &input[start..end.min(input.len())];
    if info.utf8_error.is_none() && simdutf8::basic::from_utf8(run).is_err() {
        let valid = simdutf8::compat::from_utf8(run).err().map_or(0, |e| e.valid_up_to());
        info.utf8_error = Some(start + valid);
    }
}

/// Bytes escaped by an odd-length run of backslashes (simdjson's
/// branchless `find_escaped`).
#[inline(always)]
fn find_escaped(backslash: u64, carry: &mut u64) -> u64 {
    let backslash = backslash & !*carry;
    let follows_escape = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN_BITS & !follows_escape;
    let (seq_on_even, overflow) = odd_starts.overflowing_add(backslash);
    *carry = overflow as u64;
    let invert = seq_on_even << 1;
    (EVEN_BITS ^ invert) & follows_escape
}

/// Appends `base + i` for every set bit `i` of `bits`.
#[inline(always)]
pub(crate) fn write_positions(mut bits: u64, base: u32, out: &mut Vec<u32>) {
    let n = bits.count_ones() as usize;
    if n == 0 {
        return;
    }
    out.reserve(64);
    let len = out.len();
    // SAFETY: 64 slots are reserved; we write at most 64 and then set the
    // length to the `n` we actually filled (n <= 64). Writing in groups of
    // four past `n` keeps the loop branch-light, as simdjson does.
    unsafe {
        let p = out.as_mut_ptr().add(len);
        let mut i = 0;
        while i < n {
            for k in 0..4 {
                *p.add(i + k) = base + bits.trailing_zeros();
                bits &= bits.wrapping_sub(1);
            }
            i += 4;
        }
        out.set_len(len + n);
    }
}

#[inline(always)]
pub(crate) unsafe fn scan<B: Block, const STRICT: bool>(input: &[u8], measure: bool, out: &mut Vec<u32>) -> ScanInfo {
    let mut carry = Carry::default();
    let mut info = ScanInfo::default();
    let n = input.len();
    let full = n - n % 64;
    let mut at = 0;
    while at < full {
        if carry.in_string != 0 && carry.escaped == 0 {
            at = skip_string_body::<B, STRICT>(input, at, full, &mut carry, &mut info);
            if at >= full {
                break;
            }
        }
        let block = B::load(input.as_ptr().add(at));
        step::<B, STRICT>(block, at, input, measure, &mut carry, &mut info, out);
        at += 64;
    }
    if at < n {
        let block = B::load_tail(input.as_ptr().add(at), n - at);
        step::<B, STRICT>(block, at, input, measure, &mut carry, &mut info, out);
    }
    if STRICT {
        carry.ascii_block(n, input, &mut info);
    }
    info.unterminated = carry.in_string != 0;
    info.escape_room = carry.escaped_strings.finish(out, n);
    info
}

/// Inside a long string (a base64 image, say), skips runs of blocks
/// (`Block::skip_run`) that hold no quote and no backslash. This tight
/// loop is what keeps large bodies close to memchr speed: the strict
/// checks (control bytes, non-ASCII) only fold the bytes into a running
/// minimum and OR here; a control byte is located exactly, on the rare
/// failure, by `locate_control` (or the step stops at it, and the block
/// scan finds it), and a stretch with non-ASCII bytes joins the UTF-8 run
/// as a whole. Returns where ordinary scanning resumes.
#[inline(always)]
unsafe fn skip_string_body<B: Block, const STRICT: bool>(
    input: &[u8],
    start: usize,
    full: usize,
    carry: &mut Carry,
    info: &mut ScanInfo,
) -> usize {
    let mut acc = B::fold_start();
    let at = B::skip_run::<STRICT>(input.as_ptr(), start, full, &mut acc);
    if STRICT && at > start {
        if B::fold_has_control(acc) {
            locate_control(&input[..at], start, info);
        }
        if B::fold_has_non_ascii(acc) {
            carry.non_ascii_block(start);
        } else {
            carry.ascii_block(start, input, info);
        }
    }
    at
}

/// Finds the first control byte in `input[start..]`, a stretch of string
/// body the fast skip passed over.
#[cold]
#[inline(never)]
fn locate_control(input: &[u8], start: usize, info: &mut ScanInfo) {
    if let Some(k) = input[start..].iter().position(|&c| c < 0x20) {
        note(info, start + k, ErrorKind::ControlInString);
    }
}

#[inline(always)]
unsafe fn step<B: Block, const STRICT: bool>(
    block: B,
    at: usize,
    input: &[u8],
    measure: bool,
    carry: &mut Carry,
    info: &mut ScanInfo,
    out: &mut Vec<u32>,
) {
    let backslash = block.eq(b'\\');
    let quote = block.eq(b'"');
    if carry.in_string != 0 && carry.escaped == 0 && (backslash | quote) == 0 {
        // The middle of a long string (say a base64 image): no structure
        // can start here, only the string checks apply.
        if STRICT {
            check_string_bytes::<B>(block, !0, at, input, carry, info);
        }
        return;
    }
    let escaped = find_escaped(backslash, &mut carry.escaped);
    let quote = quote & !escaped;
    let in_string = B::prefix_xor(quote) ^ carry.in_string;
    carry.in_string = ((in_string as i64) >> 63) as u64;

    let outside = !in_string;
    let (op, ws) = block.classify();
    let atom = !(op | ws | quote) & outside;
    let atom_start = atom & !((atom << 1) | carry.atom);
    carry.atom = atom >> 63;
    let structural = (op & outside) | (quote & in_string) | atom_start;
    B::write_positions(structural, at as u32, out);

    let escaped_in_string = escaped & in_string;
    if measure && escaped_in_string != 0 {
        note_escaped_strings(escaped_in_string, at, input.len(), out, &mut carry.escaped_strings);
    }
    if STRICT {
        check_string_bytes::<B>(block, in_string, at, input, carry, info);
        // An error found earlier in this same block may still be preceded
        // by a bad escape; `note` keeps the first.
        if escaped_in_string != 0 && info.string_error.is_none_or(|(p, _)| p >= at) {
            check_escapes(escaped_in_string, at, input, carry, info);
        }
    }
}

#[inline(always)]
unsafe fn check_string_bytes<B: Block>(
    block: B,
    in_string: u64,
    at: usize,
    input: &[u8],
    carry: &mut Carry,
    info: &mut ScanInfo,
) {
    let control = block.control() & in_string;
    if control != 0 {
        note(info, at + control.trailing_zeros() as usize, ErrorKind::ControlInString);
    }
    if block.any_non_ascii() {
        carry.non_ascii_block(at);
    } else {
        carry.ascii_block(at, input, info);
    }
}

/// Notes the strings that the escaped bytes `bits` of the block at `at`
/// are in. A string's opening quote is the last structural position
/// before any byte of its body (nothing inside a string is structural).
#[cold]
#[inline(never)]
fn note_escaped_strings(mut bits: u64, at: usize, len: usize, out: &[u32], strings: &mut EscapedStrings) {
    while bits != 0 {
        let p = (at + bits.trailing_zeros() as usize) as u32;
        bits &= bits - 1;
        if p as usize >= len {
            // A space of the tail's padding, after a final backslash.
            break;
        }
        if let Some(k) = strings.last {
            // Most escapes are in the string noted last.
            if out[k] < p && out.get(k + 1).is_none_or(|&next| next > p) {
                continue;
            }
        }
        // Searched from the end: the positions at or after `p` are all in
        // this block, so the quote is at most 64 entries back.
        if let Some(k) = out.iter().rposition(|&s| s < p) {
            strings.note(k, out, len);
        }
    }
}

#[cold]
#[inline(never)]
fn check_escapes(mut bits: u64, at: usize, input: &[u8], carry: &mut Carry, info: &mut ScanInfo) {
    while bits != 0 {
        let p = at + bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if p == carry.skip_escape_at && p != 0 {
            continue;
        }
        match escape::check(input, p) {
            Ok(Some(low)) => carry.skip_escape_at = low,
            Ok(None) => {}
            Err((p, kind)) => {
                note(info, p, kind);
                return;
            }
        }
    }
}

/// Keeps the first string error by offset.
#[inline(always)]
fn note(info: &mut ScanInfo, p: usize, kind: ErrorKind) {
    if info.string_error.is_none_or(|(q, _)| p < q) {
        info.string_error = Some((p, kind));
    }
}
