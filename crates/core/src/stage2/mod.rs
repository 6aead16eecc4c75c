//! Stage 2: checks the grammar over the structural index and builds the
//! linked tape (see `tape`). Strings were checked by stage 1; numbers and
//! literals are checked here in strict mode ([`atom`]), and objects' keys
//! proven unique on the way ([`keys`]).

mod atom;
mod unique_keys;

pub(crate) use atom::check_atom;
use unique_keys::FirstBytes;

use crate::error::{Error, ErrorKind};
use crate::number;
use crate::options::Options;
use crate::stage1::ScanInfo;
use crate::tape::{self, Next, HEADER, MAX_SLOTS};

enum State {
    Value,
    Key,
    AfterValue,
}

/// An open container: its header slot, whether it is an object, whether
/// any member is itself a container, and its member count so far; for an
/// object, while one of its members is an open container, the first
/// bytes of its keys so far (see `FirstBytes`; `link` keeps the innermost
/// object's own in a local).
#[derive(Clone, Copy)]
pub(crate) struct Open {
    slot: u32,
    count: u32,
    object: bool,
    nested: bool,
    keys: FirstBytes,
}

/// Builds the tape for `input` from its structural `index` into `tape`.
/// `tape` and `stack` are scratch space reused across parses.
/// The first byte of the Lua views' private keys: never in UTF-8 text, and
/// refused at the start of a key in lazy mode too (spec/view_answers_spec.lua
/// checks the two agree).
pub(crate) const RESERVED_KEY_BYTE: u8 = 0xFF;

pub(crate) fn build(
    input: &[u8],
    index: &[u32],
    info: &ScanInfo,
    opts: &Options,
    tape: &mut Vec<u32>,
    stack: &mut Vec<Open>,
) -> Result<(), Error> {
    let grammar = link(input, index, opts, tape, stack);
    // Stage 1's findings inside strings compete with stage 2's by offset:
    // the error reported is the first one in the input.
    let mut first: Option<(usize, ErrorKind)> = grammar.as_ref().err().copied();
    let mut consider = |p: usize, k: ErrorKind| {
        if first.is_none_or(|(q, _)| p < q) {
            first = Some((p, k));
        }
    };
    if info.unterminated {
        let open = index.iter().rev().map(|&p| p as usize).find(|&p| input[p] == b'"').unwrap_or(0);
        consider(open, ErrorKind::UnterminatedString);
    }
    if let Some((p, k)) = info.string_error {
        consider(p, k);
    }
    if let Some(p) = info.utf8_error {
        consider(p, ErrorKind::InvalidUtf8);
    }
    // `first` holds any grammar error, so `grammar` is Ok when it is None.
    match first {
        Some((p, k)) => Err(Error::at(k, input, p)),
        None => Ok(()),
    }
}

fn link(
    input: &[u8],
    index: &[u32],
    opts: &Options,
    tape: &mut Vec<u32>,
    stack: &mut Vec<Open>,
) -> Result<(), (usize, ErrorKind)> {
    stack.clear();
    tape.clear();
    let n = index.len();
    if n == 0 {
        return Err((input.len(), ErrorKind::Empty));
    }
    let strict = opts.strict();
    let ijson = opts.ijson != 0;
    let lenient = opts.lenient_numbers();
    let max_depth = opts.max_depth as usize;
    let end = || (input.len(), ErrorKind::UnexpectedEnd);
    tape.reserve(n + 2 * HEADER);
    let mut i = 0usize;
    let mut state = State::Value;
    // The keys of the innermost open object (kept here, not in `stack`, so
    // that adding one is register work).
    let mut keys = FirstBytes::default();
    loop {
        match state {
            State::Value => {
                let Some(&p) = index.get(i) else { return Err(end()) };
                let pos = p as usize;
                let c = input[pos];
                i += 1;
                match c {
                    b'{' | b'[' => {
                        if stack.len() >= max_depth {
                            return Err((pos, ErrorKind::TooDeep(opts.max_depth)));
                        }
                        let object = c == b'{';
                        if let Some(parent) = stack.last_mut() {
                            parent.nested = true;
                            parent.keys = keys;
                        }
                        keys = FirstBytes::default();
                        let slot = tape.len() as u32;
                        stack.push(Open { slot, count: 0, object, nested: false, keys });
                        tape.extend_from_slice(&[p, 0]);
                        let close = if object { b'}' } else { b']' };
                        let Some(&q) = index.get(i) else { return Err(end()) };
                        if input[q as usize] == close {
                            i += 1;
                            close_container(tape, stack, &mut keys, q)?;
                            state = State::AfterValue;
                        } else if object {
                            state = State::Key;
                        } else {
                            stack.last_mut().expect("just pushed").count = 1;
                            state = State::Value;
                        }
                    }
                    b'"' => {
                        tape.push(p);
                        state = State::AfterValue;
                    }
                    c if number::starts_atom(c, lenient) => {
                        // I-JSON's number limits hold in lazy mode too: they
                        // are about what may be forwarded, not when to check.
                        // (I-JSON's range check needs the full scan; a
                        // plain atom needs no other check.)
                        if ijson || (strict && !number::is_plain_atom(&input[pos..])) {
                            check_atom(input, pos, ijson, lenient)?;
                        }
                        tape.push(p);
                        state = State::AfterValue;
                    }
                    b':' | b',' | b']' | b'}' => return Err((pos, ErrorKind::ExpectedValue(c))),
                    _ => return Err((pos, ErrorKind::UnexpectedChar(c))),
                }
            }
            State::Key => {
                let Some(&p) = index.get(i) else { return Err(end()) };
                if input[p as usize] != b'"' {
                    return Err((p as usize, ErrorKind::ExpectedKey));
                }
                // Lazy mode defers checking a string's UTF-8 to its read,
                // but not for a key's first byte 0xFF: the Lua views keep
                // their private fields under keys that start with it
                // (lua/qjson/view.lua), which no key of a body may name.
                if !strict && input.get(p as usize + 1) == Some(&RESERVED_KEY_BYTE) {
                    return Err((p as usize + 1, ErrorKind::InvalidUtf8));
                }
                tape.push(p);
                let Some(&q) = index.get(i + 1) else { return Err(end()) };
                if input[q as usize] != b':' {
                    return Err((q as usize, ErrorKind::ExpectedColon));
                }
                i += 2;
                stack.last_mut().expect("a key is always inside an object").count += 1;
                keys.add(input, p as usize);
                state = State::Value;
            }
            State::AfterValue => {
                let Some(&top) = stack.last() else {
                    return match index.get(i) {
                        None => Ok(()),
                        Some(&p) => Err((p as usize, ErrorKind::TrailingContent)),
                    };
                };
                let Some(&p) = index.get(i) else { return Err(end()) };
                let c = input[p as usize];
                i += 1;
                match (c, top.object) {
                    (b',', true) => state = State::Key,
                    (b',', false) => {
                        stack.last_mut().expect("inside an array").count += 1;
                        state = State::Value;
                    }
                    (b'}', true) | (b']', false) => close_container(tape, stack, &mut keys, p)?,
                    (_, true) => return Err((p as usize, ErrorKind::ExpectedCommaOrObjectEnd)),
                    (_, false) => return Err((p as usize, ErrorKind::ExpectedCommaOrArrayEnd)),
                }
            }
        }
    }
}

/// Completes the header of the innermost open container (see `tape`).
#[inline(always)]
fn close_container(
    tape: &mut Vec<u32>,
    stack: &mut Vec<Open>,
    keys: &mut FirstBytes,
    close_pos: u32,
) -> Result<(), (usize, ErrorKind)> {
    let open = stack.pop().expect("close matches an open container");
    if open.nested {
        tape.push(open.count);
    }
    // (Not on an empty or one-key object: nothing to gain, and an empty
    // container keeps the one form the event stream looks for.)
    let unique = open.object && open.count > 1 && !keys.maybe_repeated;
    let next = Next::new(tape.len(), !open.nested, unique);
    // Back to the parent's keys, saved when this container opened.
    *keys = stack.last().map_or_else(FirstBytes::default, |parent| parent.keys);
    if tape.len() > MAX_SLOTS {
        return Err((close_pos as usize, ErrorKind::TooManyValues));
    }
    tape::set_next(tape, open.slot, next);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::document::Document;
    use crate::options::Options;
    use crate::tape::{self, ROOT};

    /// Whether the root object of `text` carries `UNIQUE_KEYS`.
    fn proven_unique(text: &str) -> bool {
        let doc = Document::parse(text.as_bytes(), &Options::default()).unwrap();
        tape::next(doc.tape(), ROOT).unique_keys()
    }

    #[test]
    fn keys_are_proven_unique_by_their_first_bytes() {
        for yes in [
            r#"{"id":1,"user":"a","scope":["r"],"quota":{"limit":1,"used":2}}"#,
            r#"{"":1,"a":2}"#,
            // A nested object's keys are its own.
            r#"{"a":{"x":1,"x":2},"b":2}"#,
            r#"{"a":[{"a":1},{"b":2}],"b":{"a":{}}}"#,
        ] {
            assert!(proven_unique(yes), "{yes}");
        }
        for no in [
            // Nothing to gain: no flag.
            "{}",
            r#"{"a":1}"#,
            // Distinct keys with a first byte in common: no proof.
            r#"{"ab":1,"ac":2}"#,
            // Repeats, also behind whitespace, escapes or a nested container.
            r#"{"":1,"" :2}"#,
            r#"{"\u0061":1,"b":2}"#,
            r#"{"b":1,"\\":2}"#,
            r#"{"a":{"x":1},"a":2}"#,
            r#"{"a":[{"b":1}],"a":2}"#,
            r#"{"a":{"b":{"c":[]}},"b":1,"a":3}"#,
        ] {
            assert!(!proven_unique(no), "{no}");
        }
    }
}
