//! Numbers: the RFC 8259 grammar ([`grammar`]), the wider one of C's
//! `strtod` for lua-cjson's `decode_invalid_numbers` ([`lenient`]), and
//! exact conversions on read ([`convert`]), over the word-at-a-time digit
//! reading of [`digits`].

mod convert;
pub(crate) mod decimal;
mod digits;
mod grammar;
mod lemire;
mod lenient;
#[cfg(test)]
mod tests;

pub(crate) use convert::{
    fits_ijson, integer_prefix, strtoll_f64, to_f64, to_f64_checked, to_f64_valid, to_i64, to_number_checked, to_u64,
    MAX_SAFE_INTEGER,
};
pub(crate) use grammar::{is_plain_atom, scan};
pub(crate) use lenient::scan_lenient;

/// Bytes that may end a number or literal.
#[inline(always)]
pub(crate) fn is_delimiter(c: u8) -> bool {
    // A table: as a `match`, the eleven bytes compiled to a jump table
    // whose indirect branch mispredicted on every number.
    DELIMITERS[c as usize]
}

static DELIMITERS: [bool; 256] = {
    let mut t = [false; 256];
    let list = *b" \t\n\r,]}:\"[{";
    let mut i = 0;
    while i < list.len() {
        t[list[i] as usize] = true;
        i += 1;
    }
    t
};

/// Whether a number or literal may start with byte `c`: also `+`, `i`,
/// `I` and `N` (infinity, NaN) when numbers are `lenient`.
#[inline(always)]
pub(crate) fn starts_atom(c: u8, lenient: bool) -> bool {
    matches!(c, b't' | b'f' | b'n' | b'-' | b'0'..=b'9') || (lenient && matches!(c, b'+' | b'i' | b'I' | b'N'))
}
