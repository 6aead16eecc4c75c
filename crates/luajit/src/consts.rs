//! Constants the Lua binding needs besides kinds and statuses: option
//! values, escape flags and the buffer sizes the native writers rely on.
//! They are enums so that cbindgen writes them into `crates/luajit/include/qjson.h`
//! (LuaJIT reads enum constants through `ffi.C`); each value is checked at
//! compile time against the constant the Rust code itself uses, so the
//! header cannot drift from it.

use qjson_core::encode::{escape, number};
use qjson_core::options;

/// `qjson_options.mode`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every value checked while parsing (the default).
    Strict = 0,
    /// Structure only; a value's errors are raised when it is read.
    Lazy = 1,
}

/// `qjson_options.duplicate_keys`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicates {
    /// The last value of a repeated key wins (the default).
    Last = 0,
    /// A repeated key is an error.
    Reject = 1,
}

/// The `flags` bits of `qjson_escape` (see `encode/escape.rs`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscapeFlag {
    /// Escape `/` as `\/` (lua-cjson's default).
    EscapeSlash = 1,
    /// Every character above U+007F as `\uXXXX`; invalid UTF-8 is an error.
    Ascii = 2,
    /// Escape `<`, `>`, `&`, U+2028 and U+2029.
    HtmlSafe = 4,
    /// Reject invalid UTF-8.
    ValidateUtf8 = 8,
}

/// Sizes and limits the caller must respect.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `qjson_options.max_depth` when the caller passes no options.
    DefaultMaxDepth = 1000,
    /// Bytes `qjson_format_number` may write.
    NumberMaxLen = 32,
    /// `qjson_escape` writes at most `QJSON_LIMIT_ESCAPE_EXPANSION` ×
    /// `len` + `QJSON_LIMIT_ESCAPE_SLACK` bytes.
    EscapeExpansion = 6,
    EscapeSlack = 16,
    /// Longest input one `qjson_escape` call takes.
    EscapeMaxChunk = 256 << 20,
}

const _: () = {
    assert!(Mode::Strict as u32 == options::MODE_STRICT);
    assert!(Mode::Lazy as u32 == options::MODE_LAZY);
    assert!(Duplicates::Last as u32 == options::DUPLICATES_LAST);
    assert!(Duplicates::Reject as u32 == options::DUPLICATES_REJECT);
    assert!(EscapeFlag::EscapeSlash as u32 == escape::ESCAPE_SLASH);
    assert!(EscapeFlag::Ascii as u32 == escape::ASCII);
    assert!(EscapeFlag::HtmlSafe as u32 == escape::HTML_SAFE);
    assert!(EscapeFlag::ValidateUtf8 as u32 == escape::VALIDATE_UTF8);
    assert!(Limit::DefaultMaxDepth as u32 == options::DEFAULT_MAX_DEPTH);
    assert!(Limit::NumberMaxLen as usize == number::MAX_LEN);
    assert!(Limit::EscapeExpansion as usize == escape::MAX_EXPANSION);
    assert!(Limit::EscapeSlack as usize == escape::SLACK);
    assert!(Limit::EscapeMaxChunk as usize == super::encode::MAX_CHUNK);
};
