//! Concatenated JSON: values one after another, with or without
//! whitespace between them. A value's end is found by counting brackets
//! outside strings; its grammar is checked when it is parsed.

use super::{is_space, Splitter, StreamError};

/// Bytes that end a number or literal.
fn ends_scalar(c: u8) -> bool {
    is_space(c) || matches!(c, b'{' | b'}' | b'[' | b']' | b'"' | b',' | b':')
}

pub(crate) fn split(sp: &mut Splitter, data: &[u8], base: u64, end: bool) -> Result<(), StreamError> {
    let mut st = std::mem::take(&mut sp.state);
    let r = scan(sp, &mut st, data, base, end);
    sp.state = st;
    r
}

fn scan(sp: &mut Splitter, st: &mut super::State, data: &[u8], base: u64, end: bool) -> Result<(), StreamError> {
    let n = data.len();
    let mut i = (st.scan - base) as usize;
    let mut start = (st.start.max(base) - base) as usize;
    while i < n {
        if !st.in_value {
            while i < n && is_space(data[i]) {
                i += 1;
            }
            if i == n {
                break;
            }
            start = i;
            st.in_value = true;
            match data[i] {
                b'{' | b'[' => st.depth = 1,
                b'"' => st.in_string = true,
                c @ (b'}' | b']' | b',' | b':') => {
                    st.in_value = false;
                    st.scan = base + i as u64;
                    st.start = st.scan;
                    return Err(StreamError {
                        message: format!("unexpected '{}' between values", c as char),
                        at: base + i as u64,
                    });
                }
                _ => st.scalar = true,
            }
            i += 1;
            continue;
        }
        if st.in_string {
            if st.escaped {
                st.escaped = false;
                i += 1;
                continue;
            }
            match memchr::memchr2(b'"', b'\\', &data[i..]) {
                None => i = n,
                Some(k) => {
                    i += k;
                    if data[i] == b'\\' {
                        st.escaped = true;
                    } else {
                        st.in_string = false;
                        if st.depth == 0 {
                            st.in_value = false;
                            sp.emit(base, base + start as u64, i + 1 - start)?;
                        }
                    }
                    i += 1;
                }
            }
            continue;
        }
        if st.scalar {
            match data[i..].iter().position(|&c| ends_scalar(c)) {
                None => i = n,
                Some(k) => {
                    i += k;
                    st.scalar = false;
                    st.in_value = false;
                    sp.emit(base, base + start as u64, i - start)?;
                }
            }
            continue;
        }
        // Inside a container: only quotes and brackets matter.
        match data[i] {
            b'"' => st.in_string = true,
            b'{' | b'[' => st.depth += 1,
            b'}' | b']' => {
                st.depth -= 1;
                if st.depth == 0 {
                    st.in_value = false;
                    sp.emit(base, base + start as u64, i + 1 - start)?;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if end && st.in_value {
        if st.scalar && !st.in_string {
            st.scalar = false;
            st.in_value = false;
            sp.emit(base, base + start as u64, n - start)?;
        } else {
            return Err(StreamError { message: "unterminated value".into(), at: base + start as u64 });
        }
    }
    st.scan = base + i as u64;
    st.start = if st.in_value { base + start as u64 } else { st.scan };
    Ok(())
}
