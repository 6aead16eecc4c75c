//! Reading values: a value's raw text, strings (unescaped, checked on read
//! in lazy mode), numbers and booleans.

use super::{Document, Scratch, Source};
use crate::error::{Error, ErrorKind};
use crate::number;
use crate::stream::is_space;
use crate::string;
use crate::tape::{Node, ROOT};

impl Document<'_> {
    /// Byte range of a scalar's text (numbers and literals end at the
    /// first delimiter; strings include both quotes).
    fn scalar_end(&self, node: Node) -> Result<usize, Error> {
        let input = self.input();
        let pos = self.pos(node);
        match input[pos] {
            b'"' => match string::body_len(&input[pos + 1..]) {
                Some((len, _)) => Ok(pos + len + 2),
                None => Err(self.error(ErrorKind::UnterminatedString, pos)),
            },
            _ => {
                let len = input[pos..].iter().position(|&c| number::is_delimiter(c)).unwrap_or(input.len() - pos);
                Ok(pos + len)
            }
        }
    }

    /// The exact JSON text of a value.
    pub fn raw(&self, node: Node) -> Result<&[u8], Error> {
        let pos = self.pos(node);
        let end = if self.is_container(node) { self.close_end(node)? } else { self.scalar_end(node)? };
        Ok(&self.input()[pos..end])
    }

    /// The offset just past a container's closing bracket, found from the
    /// end of its last member (the tape does not store closing offsets):
    /// descend through last members that are containers, then step over
    /// whitespace and one closing bracket per level. The root of a strict
    /// document ends where its input does, but for whitespace: found from
    /// there, without reading a last string to its end.
    fn close_end(&self, node: Node) -> Result<usize, Error> {
        let input = self.input();
        if node == ROOT && self.opts.strict() {
            return Ok(input.len() - input.iter().rev().take_while(|c| is_space(**c)).count());
        }
        let mut levels = 0;
        let mut n = node;
        let mut end = loop {
            levels += 1;
            let last = std::iter::successors(self.first_child(n), |&c| self.next_child(n, c)).last();
            let last = if self.first_byte(n) == b'{' { last.map(|k| k + 1) } else { last };
            match last {
                None => break self.pos(n) + 1,
                Some(c) if self.is_container(c) => n = c,
                Some(c) => break self.scalar_end(c)?,
            }
        };
        for _ in 0..levels {
            end += input[end..].iter().position(|c| !is_space(*c)).unwrap_or(0) + 1;
        }
        Ok(end)
    }

    /// A string value, unescaped. Borrowed from the input when it has no
    /// escapes, else decoded into the document's scratch buffer.
    pub fn str(&mut self, node: Node) -> Result<&[u8], Error> {
        let pos = self.pos(node);
        let strict = self.opts.strict();
        let input: &[u8] = match &self.source {
            Source::Borrowed(b) => b,
            Source::Owned(v) => v,
        };
        match &mut self.scratch {
            Scratch::Heap(v) => Ok(string_at(input, pos, strict, v)?.unwrap_or(v)),
            Scratch::Fixed(buf) => {
                let mut sink = string::FixedSink { buf, len: 0 };
                let s = string_at(input, pos, strict, &mut sink)?;
                let len = sink.len;
                Ok(s.unwrap_or(&buf[..len]))
            }
        }
    }

    /// A string value: `Some` when it has no escapes (borrowed from the
    /// input), else `None` with its bytes decoded into `sink`. For readers
    /// whose output is their own (`crate::select`).
    pub(crate) fn str_into(&self, node: Node, sink: &mut impl string::Sink) -> Result<Option<&[u8]>, Error> {
        string_at(self.input(), self.pos(node), self.opts.strict(), sink)
    }

    fn number_text(&self, node: Node) -> Result<(&[u8], bool), Error> {
        let pos = self.pos(node);
        let s = &self.input()[pos..];
        let scan = if self.opts.lenient_numbers() { number::scan_lenient } else { number::scan };
        let (len, integer) = scan(s).map_err(|(p, k)| self.error(k, pos + p))?;
        Ok((&s[..len], integer))
    }

    pub fn f64(&self, node: Node) -> Result<f64, Error> {
        Ok(number::to_f64(self.number_text(node)?.0))
    }

    /// The nearest double, and whether the text is an integer that a
    /// double may not hold exactly (beyond ±(2^53 − 1)).
    pub fn number(&self, node: Node) -> Result<(f64, bool), Error> {
        let (text, integer) = self.number_text(node)?;
        let v = number::to_f64(text);
        Ok((v, integer && v.abs() > number::MAX_SAFE_INTEGER))
    }

    /// As [`Document::number`], for a node whose kind was just read (in
    /// lazy mode that checked its text): one pass, with Clinger's fast
    /// path, instead of a check and Rust's parser.
    pub fn number_checked(&self, node: Node) -> Result<(f64, bool), Error> {
        let v = number::to_f64_valid(&self.input()[self.pos(node)..], self.opts.lenient_numbers());
        if v.abs() > number::MAX_SAFE_INTEGER {
            return self.number(node);
        }
        Ok((v, false))
    }

    /// `Ok(None)` when the number is not an integer or is out of range.
    pub fn i64(&self, node: Node) -> Result<Option<i64>, Error> {
        Ok(number::to_i64(self.number_text(node)?.0))
    }

    pub fn u64(&self, node: Node) -> Result<Option<u64>, Error> {
        Ok(number::to_u64(self.number_text(node)?.0))
    }

    pub fn bool(&self, node: Node) -> Result<bool, Error> {
        self.kind(node)?;
        Ok(self.first_byte(node) == b't')
    }
}

/// The string whose opening quote is at `pos`: `Some` when it has no
/// escapes, else `None` and its bytes decoded into `sink`. A strict
/// document's first quote or backslash decides, and from a backslash one
/// pass decodes to the closing quote; a lazy one's body is checked first.
#[inline(always)]
fn string_at<'i>(
    input: &'i [u8],
    pos: usize,
    strict: bool,
    sink: &mut impl string::Sink,
) -> Result<Option<&'i [u8]>, Error> {
    let body = &input[pos + 1..];
    let unterminated = || Error::at(ErrorKind::UnterminatedString, input, pos);
    let at = |(p, k)| Error::at(k, input, pos + 1 + p);
    if strict {
        return match string::read_to_quote(body, sink).map_err(at)? {
            string::Read::Raw(raw) => Ok(Some(raw)),
            string::Read::Decoded(_) => Ok(None),
            string::Read::Unterminated => Err(unterminated()),
        };
    }
    let Some((len, escaped)) = string::body_len(body) else {
        return Err(unterminated());
    };
    let body = &body[..len];
    check_string_lazily(input, pos + 1, body)?;
    if !escaped {
        return Ok(Some(body));
    }
    string::unescape(body, sink).map_err(at)?;
    Ok(None)
}

/// Lazy mode checks a string's body when it is read: control bytes,
/// escapes (checked by decoding) and UTF-8.
fn check_string_lazily(input: &[u8], start: usize, body: &[u8]) -> Result<(), Error> {
    if let Some(p) = body.iter().position(|&c| c < 0x20) {
        return Err(Error::at(ErrorKind::ControlInString, input, start + p));
    }
    if let Err(e) = simdutf8::compat::from_utf8(body) {
        return Err(Error::at(ErrorKind::InvalidUtf8, input, start + e.valid_up_to()));
    }
    if memchr::memchr(b'\\', body).is_some() {
        string::unescape(body, &mut Vec::new()).map_err(|(p, k)| Error::at(k, input, start + p))?;
    }
    Ok(())
}
