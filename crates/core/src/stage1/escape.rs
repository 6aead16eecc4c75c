//! Checks one backslash escape inside a string; shared by every backend so
//! that they report the same error at the same offset.

use crate::arch::strings::hex4;
use crate::error::ErrorKind;

/// `p` is the offset of the escaped character (the byte after `\`).
/// Returns the offset of a low-surrogate `u` that this call has already
/// validated as the second half of a pair (the caller skips it), or an
/// error located at the backslash.
#[cold]
pub(crate) fn check(input: &[u8], p: usize) -> Result<Option<usize>, (usize, ErrorKind)> {
    let bs = p - 1;
    match input.get(p) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(None),
        Some(b'u') => {
            let cp = input.get(p + 1..).and_then(hex4).ok_or((bs, ErrorKind::InvalidUnicodeEscape))?;
            match cp {
                0xD800..=0xDBFF => {
                    let low = if input.get(p + 5) == Some(&b'\\') && input.get(p + 6) == Some(&b'u') {
                        input.get(p + 7..).and_then(hex4)
                    } else {
                        None
                    };
                    match low {
                        Some(0xDC00..=0xDFFF) => Ok(Some(p + 6)),
                        _ => Err((bs, ErrorKind::LoneSurrogate)),
                    }
                }
                0xDC00..=0xDFFF => Err((bs, ErrorKind::LoneSurrogate)),
                _ => Ok(None),
            }
        }
        // A backslash as the last byte: the string is unterminated, which
        // the caller reports on its own.
        None => Ok(None),
        Some(_) => Err((bs, ErrorKind::InvalidEscape)),
    }
}
