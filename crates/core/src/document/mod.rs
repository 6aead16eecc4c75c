//! A parsed document: the input, its tape, and every read a caller makes.
//!
//! This module holds the document itself and its constructors (the parse
//! runs in `parser`); [`navigate`] moves through it (kinds, children,
//! members, elements, paths), [`values`] reads values, [`keys`] decodes
//! keys and checks for repeats, [`lookup`] indexes large containers, and
//! [`file`] reads a document's bytes from a file.

use crate::error::{Error, ErrorKind};
use crate::options::Options;
use crate::parser;
use crate::tape::{self, Node, HEADER, ROOT};
use std::cell::{Cell, RefCell};

pub mod file;
mod lookup;
mod navigate;
mod repeated_keys;
mod values;
use lookup::Lookup;
// (For the schema validator's nodes.)
#[cfg(feature = "schema")]
pub(crate) use repeated_keys::repeated_keys;

enum Source<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

/// Where unescaped strings are decoded; valid until the next read. A
/// document placed in caller memory has a fixed region there, of stage 1's
/// `escape_room` bytes (decoding never lengthens a string).
enum Scratch<'a> {
    Heap(Vec<u8>),
    Fixed(&'a mut [u8]),
}

/// The tape's slots: a buffer the document owns, or one it borrows from
/// the caller's memory (see [`Document::place`]). Reads go through one
/// slice either way, with no per-access test of which (a `Cow` cost reads
/// a few percent).
struct Tape<'a> {
    /// `len` slots: `owned`'s buffer (which stays put when the document
    /// moves), or the borrowed memory.
    slots: std::ptr::NonNull<u32>,
    len: usize,
    owned: Vec<u32>,
    _borrow: std::marker::PhantomData<&'a [u32]>,
}

impl<'a> Tape<'a> {
    fn owned(mut v: Vec<u32>) -> Tape<'a> {
        let slots = std::ptr::NonNull::new(v.as_mut_ptr()).expect("a Vec's pointer is never null");
        Tape { slots, len: v.len(), owned: v, _borrow: std::marker::PhantomData }
    }

    fn borrowed(s: &'a [u32]) -> Tape<'a> {
        let slots = std::ptr::NonNull::from(s).cast::<u32>();
        Tape { slots, len: s.len(), owned: Vec::new(), _borrow: std::marker::PhantomData }
    }

    fn bytes(&self) -> usize {
        self.owned.capacity().max(self.len) * 4
    }
}

impl std::ops::Deref for Tape<'_> {
    type Target = [u32];
    #[inline(always)]
    fn deref(&self) -> &[u32] {
        // SAFETY: `len` initialized slots, in `owned` or borrowed for 'a.
        unsafe { std::slice::from_raw_parts(self.slots.as_ptr(), self.len) }
    }
}

/// A validated JSON document. Reads take a [`Node`] (the root is
/// [`ROOT`]); paths resolve to nodes with [`Document::find`].
pub struct Document<'a> {
    source: Source<'a>,
    tape: Tape<'a>,
    opts: Options,
    scratch: Scratch<'a>,
    /// The last element reached by index: `(array, index, element)`, so a
    /// loop over `a[i]` walks each array once instead of once per `i`.
    last_index: Cell<(Node, usize, Node)>,
    /// Indexes for random access into large containers, built on demand
    /// (see `lookup`). Never for a placed document: its memory is freed
    /// by the caller without telling us.
    lookup: RefCell<Option<Box<Lookup>>>,
    indexable: bool,
}

/// Objects spanning more tape slots than this may have more than
/// `lookup::OBJECT_MIN` members.
const WIDE_SPAN: usize = 2 * lookup::OBJECT_MIN + HEADER;

impl<'a> Document<'a> {
    /// Parses `input`, which the document borrows.
    pub fn parse(input: &'a [u8], opts: &Options) -> Result<Document<'a>, Error> {
        let tape = parser::build_tape(input, opts)?;
        Document::new(Source::Borrowed(input), Tape::owned(tape), *opts)
    }

    /// Parses `input` and runs `read` on the document, whose tape stays in
    /// the thread's scratch buffers instead of being copied out: for one
    /// read of the whole document (`qjson_text_events`). `read` must not parse.
    pub fn parse_then<R>(
        input: &'a [u8],
        opts: &Options,
        read: impl FnOnce(&mut Document<'_>) -> R,
    ) -> Result<R, Error> {
        parser::with_tape(input, opts, false, |tape| {
            // (Borrowed, yet indexable: the document ends with this call.)
            let mut doc = Document::new(Source::Borrowed(input), Tape::borrowed(tape), *opts)?;
            Ok(read(&mut doc))
        })?
    }

    /// Parses `input` into the thread's buffers and returns the bytes that
    /// [`Document::place`] needs for it: its tape, then room to unescape
    /// strings into. For small documents whose memory the caller manages
    /// (the Lua binding puts them in the Lua heap, where the collector
    /// frees them without a finalizer).
    pub fn measure(input: &[u8], opts: &Options) -> Result<usize, Error> {
        parser::measure(input, opts)
    }

    /// The bytes [`Document::measure`] returned for `input`, when it was the
    /// last parse on this thread.
    pub fn measured_size(input: &[u8], opts: &Options) -> Option<usize> {
        parser::measured_size(input, opts)
    }

    /// Like [`Document::parse`], for a document too large to place: takes
    /// the tape [`Document::measure`] built, or builds a fresh one when
    /// another parse ran since.
    pub fn parse_measured(input: &'a [u8], opts: &Options) -> Result<Document<'a>, Error> {
        let tape = parser::measured_tape(input, opts)?;
        Document::new(Source::Borrowed(input), Tape::owned(tape), *opts)
    }

    /// Builds the document of `input` in `mem`, which must hold the bytes
    /// [`Document::measure`] returned (4-byte aligned): the tape measured
    /// last, or, when another parse ran since, a fresh one. `None` when
    /// `mem` is too small.
    pub fn place(input: &'a [u8], opts: &Options, mem: &'a mut [u32]) -> Result<Option<Document<'a>>, Error> {
        let Some((slots, room)) = parser::place(input, opts, mem)? else { return Ok(None) };
        let (tape, rest) = mem.split_at_mut(slots);
        // SAFETY: u8 has no alignment or validity requirement.
        let rest: &'a mut [u8] =
            unsafe { std::slice::from_raw_parts_mut(rest.as_mut_ptr().cast::<u8>(), rest.len() * 4) };
        let mut doc = Document::new(Source::Borrowed(input), Tape::borrowed(tape), *opts)?;
        doc.scratch = Scratch::Fixed(&mut rest[..room]);
        doc.indexable = false;
        Ok(Some(doc))
    }

    fn new(source: Source<'a>, tape: Tape<'a>, opts: Options) -> Result<Document<'a>, Error> {
        let doc = Document {
            source,
            tape,
            opts,
            scratch: Scratch::Heap(Vec::new()),
            last_index: Cell::new((u32::MAX, 0, 0)),
            lookup: RefCell::new(None),
            indexable: true,
        };
        if opts.reject_duplicates() {
            doc.check_duplicates()?;
        }
        Ok(doc)
    }
}

impl Document<'static> {
    /// Parses bytes the document takes ownership of (e.g. a file).
    pub fn parse_owned(input: Vec<u8>, opts: &Options) -> Result<Document<'static>, Error> {
        let tape = parser::build_tape(&input, opts)?;
        Document::new(Source::Owned(input), Tape::owned(tape), *opts)
    }
}

impl Document<'_> {
    #[inline(always)]
    pub fn input(&self) -> &[u8] {
        match &self.source {
            Source::Borrowed(b) => b,
            Source::Owned(v) => v,
        }
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Slots in the tape: every node is below this.
    pub fn tape_len(&self) -> usize {
        self.tape.len()
    }

    /// Bytes held by the tape (the index that outlives the parse).
    pub fn tape_bytes(&self) -> usize {
        self.tape.bytes()
    }

    /// The tape itself, for walks that follow its layout (`events`).
    #[inline(always)]
    pub(crate) fn tape(&self) -> &[u32] {
        &self.tape
    }

    #[inline(always)]
    fn pos(&self, node: Node) -> usize {
        tape::offset(&self.tape, node)
    }

    /// The byte of the input where the value at `node` starts.
    #[inline(always)]
    pub fn offset(&self, node: Node) -> usize {
        self.pos(node)
    }

    #[inline(always)]
    fn first_byte(&self, node: Node) -> u8 {
        self.input()[self.pos(node)]
    }

    fn error(&self, kind: ErrorKind, offset: usize) -> Error {
        Error::at(kind, self.input(), offset)
    }

    /// The root node (always [`ROOT`]).
    pub fn root(&self) -> Node {
        ROOT
    }
}
