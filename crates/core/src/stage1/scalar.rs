//! Byte-at-a-time stage 1: the portable fallback and the oracle the vector
//! backends are tested against. Written independently of `generic` (a
//! plain state machine), so agreement between the two means something.

use super::{escape, is_op_class, is_ws_class, EscapedStrings, ScanInfo};
use crate::error::ErrorKind;

pub fn scan(input: &[u8], strict: bool, measure: bool, out: &mut Vec<u32>) -> ScanInfo {
    let mut info = ScanInfo::default();
    let mut in_string = false;
    let mut pending_escape = false;
    let mut prev_atom = false;
    let mut skip_escape_at = 0usize;
    let mut escaped_strings = EscapedStrings::default();
    for (i, &c) in input.iter().enumerate() {
        let escaped = pending_escape;
        pending_escape = c == b'\\' && !escaped;
        if c == b'"' && !escaped {
            in_string = !in_string;
            if in_string {
                out.push(i as u32);
            }
            prev_atom = false;
            continue;
        }
        if in_string {
            if measure && escaped {
                // The opening quote was the last position pushed.
                escaped_strings.note(out.len() - 1, out, input.len());
            }
            if strict && info.string_error.is_none() {
                if escaped && i != skip_escape_at {
                    match escape::check(input, i) {
                        Ok(Some(low)) => skip_escape_at = low,
                        Ok(None) => {}
                        Err(e) => info.string_error = Some(e),
                    }
                } else if c < 0x20 {
                    info.string_error = Some((i, ErrorKind::ControlInString));
                }
            }
        } else if is_op_class(c) {
            out.push(i as u32);
            prev_atom = false;
        } else if is_ws_class(c) {
            prev_atom = false;
        } else {
            if !prev_atom {
                out.push(i as u32);
            }
            prev_atom = true;
        }
    }
    if strict && input.iter().any(|&c| c >= 0x80) {
        info.utf8_error = simdutf8::compat::from_utf8(input).err().map(|e| e.valid_up_to());
    }
    info.unterminated = in_string;
    info.escape_room = escaped_strings.finish(out, input.len());
    info
}
