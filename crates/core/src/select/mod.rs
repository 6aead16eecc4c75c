//! Batched reads: a [`Selector`] is a list of paths, each with the type
//! the caller wants, compiled once and read in one pass over a document
//! (one FFI call per document instead of one per field).
//!
//! A selector path is a dotted path (`messages[0].content`) in which `[*]`
//! stands for every element of an array: `messages[*].role` reads the role
//! of each message as a list. A path may carry a type after its last `:`
//! (`temperature:number`); see [`Want`]. The values are written as
//! [`Item`]s (`read.rs`).

pub(crate) mod read;

pub use read::{Failure, Item, ItemTag, ItemValue, Output};

use crate::path::{Path, PathError, Segment};

/// The type a selector path asks for. A value of another type is an error
/// naming both; a missing value or a null is never one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Any value (containers as their node, for the caller to open).
    Any,
    String,
    Number,
    /// A number that is an integer (exactly, within `i64`).
    Integer,
    Boolean,
    Array,
    Object,
    /// The value's JSON text, whatever its type.
    Raw,
}

impl Want {
    fn parse(name: &[u8]) -> Option<Want> {
        Some(match name {
            b"any" => Want::Any,
            b"string" | b"str" => Want::String,
            b"number" | b"num" => Want::Number,
            b"integer" | b"int" => Want::Integer,
            b"boolean" | b"bool" => Want::Boolean,
            b"array" => Want::Array,
            b"object" => Want::Object,
            b"raw" => Want::Raw,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Want::Any => "any value",
            Want::String => "string",
            Want::Number => "number",
            Want::Integer => "integer",
            Want::Boolean => "boolean",
            Want::Array => "array",
            Want::Object => "object",
            Want::Raw => "raw",
        }
    }
}

/// One selector path: plain paths between `[*]` wildcards.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The text as given (for messages).
    pub(crate) text: String,
    /// `pieces[0]`, then for each wildcard the path after it.
    pub(crate) pieces: Vec<Path>,
    pub(crate) want: Want,
    /// How many leading segments `pieces[0]` shares with the entry
    /// before it (`quota.used` after `quota.limit`: one), which a read
    /// does not resolve again.
    pub(crate) shared: usize,
}

/// One step of the selector's plan, the form the tape-less read follows
/// (`direct.rs`): every entry's path as its steps, then its `Target`.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// A key, and its first bytes as [`key_head`] reads them.
    Key(Box<[u8]>, u64),
    Index(usize),
    /// `[*]`: every element of an array.
    Each,
    /// The end of entry `.0`'s path: its value.
    Target(u32),
}

/// A key's first eight bytes (zeros past its end): with the length, all
/// there is to compare of most keys.
#[inline(always)]
pub(crate) fn key_head(key: &[u8]) -> u64 {
    match key.get(..8) {
        Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
        None => key.iter().rev().fold(0, |h, &b| h << 8 | b as u64),
    }
}

/// A compiled list of selector paths.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    pub(crate) entries: Vec<Entry>,
    pub(crate) plan: Vec<Step>,
    /// Where each entry's steps start in `plan`.
    pub(crate) starts: Vec<u32>,
    /// A path asks for a container or raw text, or one led to a container
    /// in an earlier read: the one pass (`direct.rs`) would give up on
    /// most texts, after reading part of them, so it is not tried.
    pub(crate) not_one_pass: std::cell::Cell<bool>,
    /// Integer numbers as [`ItemTag::Integer`] items (for a Lua with
    /// integers), not as doubles.
    pub(crate) integers: bool,
}

/// Why a selector path does not compile: which one (0-based) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    pub index: usize,
    pub message: String,
}

impl std::fmt::Display for SelectorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "selector #{}: {}", self.index + 1, self.message)
    }
}

const WILDCARD: &[u8] = b"[*]";

impl Selector {
    pub fn new() -> Selector {
        Selector::default()
    }

    /// Adds a path: `spec` is `path` or `path:type` when `ty` is `None`
    /// (the text after the last `:` must then name a type), else `path`
    /// alone and `ty` the type's name (for keys that hold a `:`).
    pub fn push(&mut self, spec: &[u8], ty: Option<&[u8]>) -> Result<(), SelectorError> {
        let index = self.entries.len();
        let err = |message: String| SelectorError { index, message };
        let (path, want) = match ty {
            Some(t) => (spec, t),
            None => match memchr::memrchr(b':', spec) {
                Some(k) => (&spec[..k], &spec[k + 1..]),
                None => (spec, &b"any"[..]),
            },
        };
        let text = String::from_utf8_lossy(path).into_owned();
        let want = Want::parse(want).ok_or_else(|| {
            err(format!(
                "unknown type '{}' in '{}' (string, number, integer, boolean, array, object, raw or any)",
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(spec)
            ))
        })?;
        if path.first() == Some(&b'/') {
            return Err(err(format!("'{text}': selectors take dotted paths, not JSON Pointers")));
        }
        let mut pieces = Vec::new();
        let mut rest = path;
        let mut at = 0;
        loop {
            let (piece, more) = match memchr::memmem::find(rest, WILDCARD) {
                Some(k) => (&rest[..k], Some(k)),
                None => (rest, None),
            };
            // After a wildcard comes the end, '[' or '.key'.
            let piece =
                if !pieces.is_empty() && piece.first() == Some(&b'.') && piece.len() > 1 { &piece[1..] } else { piece };
            if !pieces.is_empty() && !piece.is_empty() && rest.first() != Some(&b'.') && rest.first() != Some(&b'[') {
                return Err(err(format!("'{text}': expected '.' or '[' after '[*]' at byte {at}")));
            }
            // (Dotted, whatever the first byte: after `[*].` a key may
            // start with '/'; a whole path that does was refused above.)
            let compiled = Path::compile_dotted(piece)
                .map_err(|e: PathError| err(format!("'{text}': invalid path: {} at byte {}", e.what, at + e.offset)))?;
            pieces.push(compiled);
            match more {
                Some(k) => {
                    at += k + WILDCARD.len();
                    rest = &rest[k + WILDCARD.len()..];
                }
                None => break,
            }
        }
        let shared = self.entries.last().map_or(0, |prev| {
            let (a, b) = (prev.pieces[0].segments(), pieces[0].segments());
            a.iter().zip(b).take_while(|(x, y)| x == y).count()
        });
        self.starts.push(u32::try_from(self.plan.len()).map_err(|_| err("too many paths".into()))?);
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 {
                self.plan.push(Step::Each);
            }
            self.plan.extend(piece.segments().iter().map(|seg| match seg {
                Segment::Key(k) => Step::Key(k.to_vec().into_boxed_slice(), key_head(k)),
                Segment::Index(i) => Step::Index(*i),
                Segment::Token(..) => unreachable!("selector paths are compiled dotted"),
            }));
        }
        self.plan.push(Step::Target(index as u32));
        if matches!(want, Want::Raw | Want::Array | Want::Object) {
            self.not_one_pass.set(true);
        }
        self.entries.push(Entry { text, pieces, want, shared });
        Ok(())
    }

    /// Reads integer numbers (those `Document::i64` reads) as
    /// [`ItemTag::Integer`] items from now on.
    pub fn read_integers(&mut self) {
        self.integers = true;
    }

    /// How many paths the selector holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_paths_types_and_wildcards() {
        let mut s = Selector::new();
        s.push(b"model", None).unwrap();
        s.push(b"temperature:number", None).unwrap();
        s.push(b"messages[*].role:str", None).unwrap();
        s.push(b"a[*][*]", None).unwrap();
        s.push(b"[*].id", None).unwrap();
        s.push(b"k:with:colon", Some(b"any")).unwrap();
        assert_eq!(s.entries[1].want, Want::Number);
        assert_eq!(s.entries[2].pieces.len(), 2);
        assert_eq!(s.entries[2].want, Want::String);
        assert_eq!(s.entries[3].pieces.len(), 3);
        assert_eq!(s.entries[4].pieces[0].segments().len(), 0);
        assert_eq!(s.entries[5].text, "k:with:colon");
        // After `[*].` a key may start with '/': still a dotted key.
        s.push(b"a[*]./b.c", None).unwrap();
        assert!(matches!(&s.entries[6].pieces[1].segments()[0], Segment::Key(k) if &k[..] == b"/b"));
        for bad in ["a:float", "a[*]x", "a..b", "/a/b", "a[x]"] {
            let mut s = Selector::new();
            assert!(s.push(bad.as_bytes(), None).is_err(), "{bad}");
        }
    }
}
