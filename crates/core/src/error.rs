//! Errors and where they happened: byte offset, line and column.

use std::fmt;

/// What went wrong. The `Display` text is the start of the message Lua sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Empty,
    ByteOrderMark,
    TooLarge,
    /// The tape would pass `tape::MAX_SLOTS`.
    TooManyValues,
    UnexpectedEnd,
    UnexpectedChar(u8),
    ExpectedValue(u8),
    ExpectedColon,
    ExpectedCommaOrObjectEnd,
    ExpectedCommaOrArrayEnd,
    ExpectedKey,
    TrailingContent,
    InvalidNumber,
    InvalidLiteral,
    ControlInString,
    InvalidEscape,
    InvalidUnicodeEscape,
    LoneSurrogate,
    InvalidUtf8,
    UnterminatedString,
    TooDeep(u32),
    DuplicateKey,
    NumberOutOfRange,
    /// A read asked for an integer type the number does not fit exactly.
    NotInteger(&'static str),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match *self {
            Empty => f.write_str("empty input"),
            ByteOrderMark => f.write_str("byte-order mark is not allowed"),
            TooLarge => f.write_str("input larger than 4 GiB"),
            TooManyValues => f.write_str("more than 2^30 keys, values and containers"),
            UnexpectedEnd => f.write_str("unexpected end of input"),
            UnexpectedChar(c) => write!(f, "unexpected character {}", show(c)),
            ExpectedValue(c) => write!(f, "expected a value, found {}", show(c)),
            ExpectedColon => f.write_str("expected ':' after object key"),
            ExpectedCommaOrObjectEnd => f.write_str("expected ',' or '}' after object member"),
            ExpectedCommaOrArrayEnd => f.write_str("expected ',' or ']' after array element"),
            ExpectedKey => f.write_str("expected a string key"),
            TrailingContent => f.write_str("trailing content after the JSON value"),
            InvalidNumber => f.write_str("invalid number"),
            InvalidLiteral => f.write_str("invalid literal"),
            ControlInString => f.write_str("unescaped control character in string"),
            InvalidEscape => f.write_str("invalid escape in string"),
            InvalidUnicodeEscape => f.write_str("invalid \\u escape in string"),
            LoneSurrogate => f.write_str("lone surrogate in \\u escape"),
            InvalidUtf8 => f.write_str("invalid UTF-8"),
            UnterminatedString => f.write_str("unterminated string"),
            TooDeep(max) => write!(f, "nesting deeper than max_depth ({max})"),
            DuplicateKey => f.write_str("duplicate key"),
            NumberOutOfRange => f.write_str("number out of range"),
            NotInteger(ty) => write!(f, "number is not an integer within {ty} range"),
        }
    }
}

fn show(c: u8) -> String {
    match c {
        0x21..=0x7E => format!("'{}'", c as char),
        _ => format!("byte 0x{c:02X}"),
    }
}

/// An error with its position. `line` and `column` count from 1; the column
/// counts characters (UTF-8 sequences), not bytes; `offset` is the 0-based
/// byte offset of the offending byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

impl Error {
    /// Locates `offset` in `input` (cold path: one pass up to the offset).
    #[cold]
    pub fn at(kind: ErrorKind, input: &[u8], offset: usize) -> Error {
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
        let line_before = &before[line_start..];
        // Characters: bytes that do not continue a UTF-8 sequence (an ASCII
        // line, the usual one, is its length, found without the byte loop).
        let chars = match line_before.is_ascii() {
            true => line_before.len(),
            false => line_before.iter().filter(|&&b| (b & 0xC0) != 0x80).count(),
        };
        let column = chars + 1;
        Error { kind, offset, line, column }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {}, column {} (byte {})", self.kind, self.line, self.column, self.offset)
    }
}

impl std::error::Error for Error {}
