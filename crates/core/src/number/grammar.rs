//! The RFC 8259 number grammar: the full scan, and the quick proof stage
//! 2 tries first.

use super::digits::{digits_end, leading_digit_count};
use super::is_delimiter;
use crate::error::ErrorKind;

/// True when `s` starts with a token [`scan`] (or, for a literal, stage
/// 2's check) accepts, found without a loop or a call: a literal, or a
/// number without exponent whose integer and fraction parts have at most
/// 15 digits each (two words read per part). False means "not proven
/// here": the caller takes the full check, which finds any error. Inline
/// in stage 2's loop, which meets one of these at most values.
#[inline(always)]
pub(crate) fn is_plain_atom(s: &[u8]) -> bool {
    // Room for every word read below, so that none needs a bounds check.
    const ROOM: usize = 40;
    if s.len() < ROOM {
        return false;
    }
    let word = |i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let literal = |w: &[u8]| s[..w.len()] == *w && is_delimiter(s[w.len()]);
    match s[0] {
        b't' => return literal(b"true"),
        b'f' => return literal(b"false"),
        b'n' => return literal(b"null"),
        _ => {}
    }
    // At most 15 digits at `s[i..]`: how many (16 means "more").
    let run = |i: usize| {
        let n = leading_digit_count(word(i));
        if n < 8 {
            n
        } else {
            8 + leading_digit_count(word(i + 8))
        }
    };
    let neg = (s[0] == b'-') as usize;
    let n = run(neg);
    if n == 0 || n == 16 || (n > 1 && s[neg] == b'0') {
        return false;
    }
    let mut i = neg + n;
    if s[i] == b'.' {
        let m = run(i + 1);
        if m == 0 || m == 16 {
            return false;
        }
        i += 1 + m;
    }
    is_delimiter(s[i])
}

/// Scans a number starting at `s[0]`, strictly by the grammar
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and returns its
/// length and whether it is an integer (no fraction, no exponent). The byte
/// after it must be a delimiter or the end of input.
#[inline]
pub(crate) fn scan(s: &[u8]) -> Result<(usize, bool), (usize, ErrorKind)> {
    let bad = |i: usize| Err((i, ErrorKind::InvalidNumber));
    let digit = |i: usize| s.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    if s.first() == Some(&b'-') {
        i = 1;
    }
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits_end(s, i + 1),
        _ => return bad(i),
    }
    let mut integer = true;
    if s.get(i) == Some(&b'.') {
        integer = false;
        i += 1;
        if !digit(i) {
            return bad(i);
        }
        i = digits_end(s, i);
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        integer = false;
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digit(i) {
            return bad(i);
        }
        i = digits_end(s, i);
    }
    match s.get(i) {
        None => Ok((i, integer)),
        Some(&c) if is_delimiter(c) => Ok((i, integer)),
        Some(_) => bad(i),
    }
}
