//! The port of OpenResty's lua-cjson 2.1.0.17 decoder (lua_cjson.c's
//! `json_decode` and what it calls): reads a whole text into items, as
//! lua-cjson would decode it, or gives lua-cjson's message. It calls no
//! Lua function; `super` builds the tables from the items.

use std::ffi::c_char;

use crate::lua::{msg, sys, Msg};

/// Lua stack slots lua-cjson may use (`lua_checkstack`: LUAI_MAXCSTACK on
/// 5.1, LUAI_MAXSTACK from 5.2); an object takes 3 (see `FAST_MAX_DEPTH`).
const STACK_SLOTS: i64 = if cfg!(feature = "lua51") { 8000 } else { 1_000_000 };

/// What the port read: values in document order; strings' bytes in
/// `strings`.
#[derive(Default)]
pub struct Port {
    pub(super) items: Vec<Item>,
    pub(super) strings: Vec<u8>,
    /// The build's open containers: whether an object, elements so far.
    pub(super) frames: Vec<(bool, sys::lua_Integer)>,
}

#[derive(Clone, Copy)]
pub(super) enum Item {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(usize, usize),
    Array,
    Object,
    /// The innermost open container ends.
    End,
}

/// The bytes of the text from `p`, with a NUL past the end (as C sees a
/// Lua string).
struct Text<'a> {
    s: &'a [u8],
}

impl Text<'_> {
    #[inline(always)]
    fn at(&self, p: usize) -> u8 {
        self.s.get(p).copied().unwrap_or(0)
    }
}

// Token types, in lua-cjson's order (json_token_type_name).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    ObjBegin,
    ObjEnd,
    ArrBegin,
    ArrEnd,
    String,
    Number,
    Integer,
    Boolean,
    Null,
    Colon,
    Comma,
    End,
    Whitespace,
    Error,
    Unknown,
}

fn token_name(t: T) -> &'static str {
    match t {
        T::ObjBegin => "T_OBJ_BEGIN",
        T::ObjEnd => "T_OBJ_END",
        T::ArrBegin => "T_ARR_BEGIN",
        T::ArrEnd => "T_ARR_END",
        T::String => "T_STRING",
        T::Number => "T_NUMBER",
        T::Integer => "T_INTEGER",
        T::Boolean => "T_BOOLEAN",
        T::Null => "T_NULL",
        T::Colon => "T_COLON",
        T::Comma => "T_COMMA",
        T::End => "T_END",
        T::Whitespace => "T_WHITESPACE",
        T::Error => "T_ERROR",
        T::Unknown => "T_UNKNOWN",
    }
}

fn ch2token(c: u8) -> T {
    match c {
        b'{' => T::ObjBegin,
        b'}' => T::ObjEnd,
        b'[' => T::ArrBegin,
        b']' => T::ArrEnd,
        b',' => T::Comma,
        b':' => T::Colon,
        0 => T::End,
        b' ' | b'\t' | b'\n' | b'\r' => T::Whitespace,
        b'f' | b'i' | b'I' | b'n' | b'N' | b't' | b'"' | b'+' | b'-' | b'0'..=b'9' => T::Unknown,
        _ => T::Error,
    }
}

fn escape2char(c: u8) -> Option<u8> {
    Some(match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 8,
        b't' => b'\t',
        b'n' => b'\n',
        b'f' => 12,
        b'r' => b'\r',
        b'u' => b'u',
        _ => return None,
    })
}

/// A token: its type, where it starts, and its value.
struct Token {
    t: T,
    at: usize,
    value: Value,
}

enum Value {
    None,
    Bool(bool),
    Int(i64),
    Num(f64),
    /// A string's bytes in `Port::strings`.
    Str(usize, usize),
    Error(&'static str),
}

struct Reader<'a> {
    text: Text<'a>,
    pos: usize,
    invalid_numbers: bool,
    allow_comment: bool,
}

fn hexdigit(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

impl Reader<'_> {
    fn hex4(&self, p: usize) -> Option<u32> {
        let mut v = 0;
        for k in 0..4 {
            v = v * 16 + hexdigit(self.text.at(p + k))?;
        }
        Some(v)
    }

    /// json_append_unicode_escape at `pos` (a backslash): the code point
    /// and the escape's length.
    fn unicode_escape(&self) -> Option<(u32, usize)> {
        let mut cp = self.hex4(self.pos + 2)?;
        let mut len = 6;
        if cp & 0xF800 == 0xD800 {
            if cp & 0x400 != 0 {
                return None;
            }
            if self.text.at(self.pos + 6) != b'\\' || self.text.at(self.pos + 7) != b'u' {
                return None;
            }
            let low = self.hex4(self.pos + 8)?;
            if low & 0xFC00 != 0xDC00 {
                return None;
            }
            cp = (((cp & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
            len = 12;
        }
        Some((cp, len))
    }

    /// json_next_string_token, `pos` at the opening quote.
    fn string_token(&mut self, out: &mut Vec<u8>) -> Result<(usize, usize), (usize, &'static str)> {
        self.pos += 1;
        let start = out.len();
        loop {
            let c = self.text.at(self.pos);
            match c {
                b'"' => break,
                0 => return Err((self.pos, "unexpected end of string")),
                b'\\' => {
                    let Some(e) = escape2char(self.text.at(self.pos + 1)) else {
                        return Err((self.pos, "invalid escape code"));
                    };
                    if e == b'u' {
                        let Some((cp, len)) = self.unicode_escape() else {
                            return Err((self.pos, "invalid unicode escape code"));
                        };
                        let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                        let mut b = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                        self.pos += len;
                    } else {
                        out.push(e);
                        self.pos += 2;
                    }
                }
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        self.pos += 1;
        Ok((start, out.len() - start))
    }

    /// json_is_invalid_number at `pos`.
    fn is_invalid_number(&self) -> bool {
        let mut i = self.pos;
        let mut c = self.text.at(i);
        if c == b'+' {
            return true;
        }
        if c == b'-' {
            i += 1;
            c = self.text.at(i);
        }
        if c == b'0' {
            let c2 = self.text.at(i + 1);
            return c2 | 0x20 == b'x' || c2.is_ascii_digit();
        } else if c <= b'9' || c >= 128 {
            return false;
        }
        let word: Vec<u8> = (0..3).map(|k| self.text.at(i + k).to_ascii_lowercase()).collect();
        word == b"inf" || word == b"nan"
    }

    /// json_next_number_token: strtoll, and strtod when the text goes on
    /// with a point, an exponent or an x (or strtoll read nothing).
    fn number_token(&mut self) -> Result<Value, (usize, &'static str)> {
        let at = self.pos;
        let (v, stop) = strtoll(&self.text, at);
        let c = self.text.at(stop);
        if stop == at || matches!(c, b'.' | b'e' | b'E' | b'x') {
            let (d, stop) = strtod(&self.text, at);
            if stop == at {
                return Err((at, "invalid number"));
            }
            self.pos = stop;
            return Ok(Value::Num(d));
        }
        self.pos = stop;
        Ok(Value::Int(v))
    }

    /// json_next_token.
    fn next_token(&mut self, out: &mut Vec<u8>) -> Token {
        let mut t;
        loop {
            t = ch2token(self.text.at(self.pos));
            if t == T::Whitespace {
                while ch2token(self.text.at(self.pos)) == T::Whitespace {
                    self.pos += 1;
                }
                t = ch2token(self.text.at(self.pos));
            }
            if !self.allow_comment {
                break;
            }
            let (c0, c1) = (self.text.at(self.pos), self.text.at(self.pos + 1));
            if c0 != b'/' || (c1 != b'/' && c1 != b'*') {
                break;
            }
            self.pos += 2;
            if c1 == b'/' {
                while !matches!(self.text.at(self.pos), 0 | b'\n') {
                    self.pos += 1;
                }
            } else {
                loop {
                    if self.text.at(self.pos) == 0 {
                        return Token { t: T::Error, at: self.pos, value: Value::Error("unclosed multi-line comment") };
                    }
                    if self.text.at(self.pos) == b'*' && self.text.at(self.pos + 1) == b'/' {
                        self.pos += 2;
                        break;
                    }
                    self.pos += 1;
                }
            }
        }
        let at = self.pos;
        match t {
            T::Error => return Token { t, at, value: Value::Error("invalid token") },
            T::End => return Token { t, at, value: Value::None },
            T::Unknown => {}
            _ => {
                self.pos += 1;
                return Token { t, at, value: Value::None };
            }
        }
        let c = self.text.at(self.pos);
        let word = |w: &[u8]| w.iter().enumerate().all(|(k, &b)| self.text.at(at + k) == b);
        let r = if c == b'"' {
            self.string_token(out).map(|(s, n)| (T::String, Value::Str(s, n)))
        } else if c == b'-' || c.is_ascii_digit() {
            if !self.invalid_numbers && self.is_invalid_number() {
                return Token { t: T::Error, at, value: Value::Error("invalid number") };
            }
            self.number_token().map(|v| (if matches!(v, Value::Int(_)) { T::Integer } else { T::Number }, v))
        } else if word(b"true") {
            self.pos += 4;
            Ok((T::Boolean, Value::Bool(true)))
        } else if word(b"false") {
            self.pos += 5;
            Ok((T::Boolean, Value::Bool(false)))
        } else if word(b"null") {
            self.pos += 4;
            Ok((T::Null, Value::None))
        } else if self.invalid_numbers && self.is_invalid_number() {
            self.number_token().map(|v| (if matches!(v, Value::Int(_)) { T::Integer } else { T::Number }, v))
        } else {
            Err((at, "invalid token"))
        };
        match r {
            Ok((t, value)) => Token { t, at, value },
            Err((at, m)) => Token { t: T::Error, at, value: Value::Error(m) },
        }
    }
}

/// json_throw_parse_error.
fn parse_error(expected: &str, tok: &Token) -> Msg {
    let found = match tok.value {
        Value::Error(m) if tok.t == T::Error => m,
        _ => token_name(tok.t),
    };
    msg!("Expected {expected} but found {found} at character {}", tok.at + 1)
}

/// Reads the whole text as lua-cjson's decoder does into `port`'s items,
/// or gives lua-cjson's message.
pub(super) fn read(
    port: &mut Port,
    s: &[u8],
    max_depth: i64,
    invalid_numbers: bool,
    allow_comment: bool,
) -> Result<(), Msg> {
    port.items.clear();
    port.strings.clear();
    if s.len() >= 2 && (s[0] == 0 || s[1] == 0) {
        return Err(msg!("JSON parser does not support UTF-16 or UTF-32"));
    }
    // lua-cjson reads the text as a C string: a NUL ends it.
    let s = &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())];
    let mut r = Reader { text: Text { s }, pos: 0, invalid_numbers, allow_comment };
    let Port { items, strings, .. } = port;
    // Per open container: whether it is an object.
    let mut open: Vec<bool> = Vec::new();
    let mut used: i64 = 1;
    let mut tok = r.next_token(strings);
    loop {
        // json_process_value
        match tok.t {
            T::ObjBegin | T::ArrBegin => {
                let object = tok.t == T::ObjBegin;
                let depth = open.len() as i64 + 1;
                if depth > max_depth || used + if object { 3 } else { 2 } > STACK_SLOTS {
                    return Err(msg!("Found too many nested data structures ({depth}) at character {}", r.pos));
                }
                items.push(if object { Item::Object } else { Item::Array });
                tok = r.next_token(strings);
                if tok.t == if object { T::ObjEnd } else { T::ArrEnd } {
                    items.push(Item::End);
                } else {
                    open.push(object);
                    used += if object { 2 } else { 1 };
                    if object {
                        tok = member_key(&mut r, items, strings, tok)?;
                    }
                    continue;
                }
            }
            T::String | T::Number | T::Integer | T::Boolean | T::Null => items.push(match tok.value {
                Value::Bool(b) => Item::Bool(b),
                Value::Int(i) => Item::Int(i),
                Value::Num(f) => Item::Num(f),
                Value::Str(a, n) => Item::Str(a, n),
                _ => Item::Null,
            }),
            _ => return Err(parse_error("value", &tok)),
        }
        // A value is complete: close every container that ends after it.
        while let Some(&object) = open.last() {
            tok = r.next_token(strings);
            let (end, what) =
                if object { (T::ObjEnd, "comma or object end") } else { (T::ArrEnd, "comma or array end") };
            if tok.t == end {
                open.pop();
                used -= if object { 2 } else { 1 };
                items.push(Item::End);
                continue;
            }
            if tok.t != T::Comma {
                return Err(parse_error(what, &tok));
            }
            tok = r.next_token(strings);
            if object {
                tok = member_key(&mut r, items, strings, tok)?;
            }
            break;
        }
        if open.is_empty() {
            break;
        }
    }
    let tok = r.next_token(strings);
    if tok.t != T::End {
        return Err(parse_error("the end", &tok));
    }
    Ok(())
}

/// An object member's key (token `tok`) and its colon; gives the token
/// after the colon.
fn member_key(r: &mut Reader<'_>, items: &mut Vec<Item>, strings: &mut Vec<u8>, tok: Token) -> Result<Token, Msg> {
    let Value::Str(a, n) = tok.value else { return Err(parse_error("object key string", &tok)) };
    if tok.t != T::String {
        return Err(parse_error("object key string", &tok));
    }
    items.push(Item::Str(a, n));
    let colon = r.next_token(strings);
    if colon.t != T::Colon {
        return Err(parse_error("colon", &colon));
    }
    Ok(r.next_token(strings))
}

/// C's `strtoll(p, &end, 10)` on the text from `at` (a token: no
/// leading space): the value, saturated at the int64 bounds, and where
/// it stopped (`at` when it read no digit).
fn strtoll(text: &Text<'_>, at: usize) -> (i64, usize) {
    let s = text.s;
    let mut p = at;
    let negative = s.get(p) == Some(&b'-');
    if matches!(s.get(p), Some(b'-' | b'+')) {
        p += 1;
    }
    let digits = p;
    let mut v: i128 = 0;
    while let Some(&d) = s.get(p).filter(|d| d.is_ascii_digit()) {
        v = (v * 10 + (d - b'0') as i128).min(1 << 64);
        p += 1;
    }
    if p == digits {
        return (0, at);
    }
    let v = if negative { (-v).max(i64::MIN as i128) } else { v.min(i64::MAX as i128) };
    (v as i64, p)
}

/// C's `strtod` in the C locale on the text from `at`: the value and where
/// it stopped.
fn strtod(text: &Text<'_>, at: usize) -> (f64, usize) {
    // strtod reads a number of any length (digits without end): copy
    // enough of the text that it stops where it would in the original.
    let end = (at..text.s.len())
        .find(|&p| !matches!(text.s[p], b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'.' | b'+' | b'-' | b'(' | b')' | b'_'))
        .unwrap_or(text.s.len());
    let mut owned = text.s[at..end].to_vec();
    owned.push(0);
    let mut stop: *mut c_char = std::ptr::null_mut();
    // SAFETY: `owned` is NUL-terminated; the locale is C's.
    let v = unsafe { strtod_l(owned.as_ptr().cast(), &mut stop, c_locale()) };
    (v, at + (stop as usize - owned.as_ptr() as usize))
}

extern "C" {
    // glibc's strtod with an explicit locale (not in the libc crate).
    fn strtod_l(nptr: *const c_char, endptr: *mut *mut c_char, loc: libc::locale_t) -> f64;
}

fn c_locale() -> libc::locale_t {
    use std::sync::OnceLock;
    static LOCALE: OnceLock<usize> = OnceLock::new();
    // SAFETY: newlocale with a valid name; the locale is never freed.
    *LOCALE.get_or_init(|| unsafe { libc::newlocale(libc::LC_ALL_MASK, c"C".as_ptr(), std::ptr::null_mut()) as usize })
        as libc::locale_t
}
