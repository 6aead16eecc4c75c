//! The line formats: NDJSON (a value per line) and server-sent events
//! (the WHATWG rules: lines end with `\n`, `\r\n` or `\r`; a blank line
//! ends an event; `data` fields are joined with `\n`; lines starting with
//! `:` are comments; other fields are ignored; one byte-order mark at the
//! start of the stream is skipped).

use super::{is_space, Span, Splitter, StreamError};

/// `data[s..e]` without JSON whitespace at either end.
fn trim(data: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && is_space(data[s]) {
        s += 1;
    }
    while e > s && is_space(data[e - 1]) {
        e -= 1;
    }
    (s, e)
}

pub(crate) fn ndjson(sp: &mut Splitter, data: &[u8], base: u64, end: bool) -> Result<(), StreamError> {
    let mut start = (sp.state.start - base) as usize;
    let mut pos = (sp.state.scan - base) as usize;
    loop {
        match memchr::memchr(b'\n', &data[pos..]) {
            Some(k) => {
                let nl = pos + k;
                let (s, e) = trim(data, start, nl);
                if s < e {
                    sp.emit(base, base + s as u64, e - s)?;
                }
                start = nl + 1;
                pos = start;
            }
            None => {
                pos = data.len();
                if end {
                    let (s, e) = trim(data, start, data.len());
                    if s < e {
                        sp.emit(base, base + s as u64, e - s)?;
                    }
                    start = data.len();
                }
                break;
            }
        }
    }
    sp.state.start = base + start as u64;
    sp.state.scan = base + pos as u64;
    Ok(())
}

/// U+FEFF in UTF-8.
const BOM: &[u8] = b"\xEF\xBB\xBF";

pub(crate) fn sse(sp: &mut Splitter, data: &[u8], base: u64, end: bool) -> Result<(), StreamError> {
    let mut start = (sp.state.start - base) as usize;
    let mut pos = (sp.state.scan - base) as usize;
    if !sp.state.bom_checked {
        // The WHATWG rules ignore one leading U+FEFF, whose three bytes may
        // come in different chunks: until three bytes (or the end) are
        // there, a prefix of it waits.
        let head = &data[start..data.len().min(start + BOM.len())];
        if head == BOM {
            start += BOM.len();
            pos = pos.max(start);
        } else if head == &BOM[..head.len()] && !end {
            return Ok(());
        }
        sp.state.bom_checked = true;
    }
    while !sp.done {
        match memchr::memchr2(b'\n', b'\r', &data[pos..]) {
            Some(k) => {
                let e = pos + k;
                let next = if data[e] == b'\n' {
                    e + 1
                } else if e + 1 < data.len() {
                    e + 1 + usize::from(data[e + 1] == b'\n')
                } else if end {
                    e + 1
                } else {
                    // A '\r' last: wait to see whether '\n' follows.
                    pos = e;
                    break;
                };
                line(sp, data, base, start, e)?;
                start = next;
                pos = next;
            }
            None => {
                pos = data.len();
                if end {
                    if start < data.len() {
                        line(sp, data, base, start, data.len())?;
                    }
                    // The stream ends the last event.
                    dispatch(sp, data, base)?;
                    start = data.len();
                }
                break;
            }
        }
    }
    if sp.done {
        start = data.len();
        pos = data.len();
        sp.state.data.clear();
    }
    sp.state.start = base + start as u64;
    sp.state.scan = base + pos as u64;
    Ok(())
}

/// One line of an event stream, `data[s..e]` (without its line end).
fn line(sp: &mut Splitter, data: &[u8], base: u64, s: usize, e: usize) -> Result<(), StreamError> {
    let l = &data[s..e];
    if l.is_empty() {
        return dispatch(sp, data, base);
    }
    if l[0] == b':' {
        return Ok(());
    }
    let (name, value) = match memchr::memchr(b':', l) {
        Some(k) => (&l[..k], s + k + 1 + usize::from(l.get(k + 1) == Some(&b' '))),
        None => (l, e),
    };
    if name != b"data" {
        return Ok(());
    }
    let st = &mut sp.state;
    if st.data.is_empty() {
        st.event_at = base + s as u64;
        st.data_len = 0;
    }
    st.data.push((base + value as u64, (e - value) as u32));
    st.data_len += e - value + 1;
    if st.data_len > sp.max + 1 {
        return Err(StreamError { message: format!("event larger than max_size ({} bytes)", sp.max), at: st.event_at });
    }
    Ok(())
}

/// Ends the current event: its data is a value (unless blank, or
/// `[DONE]`, which ends the stream).
fn dispatch(sp: &mut Splitter, data: &[u8], base: u64) -> Result<(), StreamError> {
    let lines = std::mem::take(&mut sp.state.data);
    let r = match lines.as_slice() {
        [] => Ok(()),
        [(at, len)] => {
            let s = (at - base) as usize;
            let (s, e) = trim(data, s, s + *len as usize);
            value(sp, &data[s..e], Span { start: s as u64, at: base + s as u64, len: (e - s) as u32, joined: 0 })
        }
        many => {
            let from = sp.joined.len();
            for (i, (at, len)) in many.iter().enumerate() {
                if i > 0 {
                    sp.joined.push(b'\n');
                }
                let s = (at - base) as usize;
                sp.joined.extend_from_slice(&data[s..s + *len as usize]);
            }
            let joined = std::mem::take(&mut sp.joined);
            let (s, e) = trim(&joined, from, joined.len());
            let span = Span { start: s as u64, at: many[0].0, len: (e - s) as u32, joined: 1 };
            let r = value(sp, &joined[s..e], span);
            sp.joined = joined;
            r
        }
    };
    let mut lines = lines;
    lines.clear();
    sp.state.data = lines;
    r
}

fn value(sp: &mut Splitter, text: &[u8], span: Span) -> Result<(), StreamError> {
    if text.is_empty() {
        return Ok(());
    }
    if text == b"[DONE]" {
        sp.done = true;
        return Ok(());
    }
    if text.len() > sp.max {
        return Err(StreamError { message: format!("value larger than max_size ({} bytes)", sp.max), at: span.at });
    }
    sp.spans.push(span);
    Ok(())
}
