//! Numbers and literals, checked where they stand in the input: by stage 2
//! in strict mode, and by a document's reads in lazy mode.

use crate::error::ErrorKind;
use crate::number;

/// Checks a number or literal starting at `pos` (strict mode). `lenient`
/// admits the numbers `strtod` reads (see `Options::invalid_numbers`).
#[inline]
pub(crate) fn check_atom(input: &[u8], pos: usize, ijson: bool, lenient: bool) -> Result<(), (usize, ErrorKind)> {
    let s = &input[pos..];
    let word: &[u8] = match s[0] {
        b't' => b"true",
        b'f' => b"false",
        b'n' if !lenient || s.starts_with(b"nu") => b"null",
        _ => {
            // Plain JSON numbers take the strict scan, lenient or not.
            let scanned = match number::scan(s) {
                Err(_) if lenient => number::scan_lenient(s),
                r => r,
            };
            let (len, integer) = scanned.map_err(|(i, k)| (pos + i, k))?;
            if ijson && !number::fits_ijson(&s[..len], integer) {
                return Err((pos, ErrorKind::NumberOutOfRange));
            }
            return Ok(());
        }
    };
    if s.starts_with(word) && s.get(word.len()).is_none_or(|&c| number::is_delimiter(c)) {
        Ok(())
    } else {
        Err((pos, ErrorKind::InvalidLiteral))
    }
}
