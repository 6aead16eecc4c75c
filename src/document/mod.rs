//! A parsed document: the input, its tape, and every read a caller makes.

use crate::error::{Error, ErrorKind};
use crate::number;
use crate::options::Options;
use crate::parser;
use crate::path::{self, PathError, Segment};
use crate::stage2;
use crate::string;
use crate::tape::{self, Kind, Node, HEADER, ROOT};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

pub mod file;
mod lookup;
use lookup::Lookup;

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

    /// The owned buffer back (empty when borrowed).
    fn into_vec(self) -> Vec<u32> {
        self.owned
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
    /// read of the whole document (`qjson_decode`). `read` must not parse.
    pub fn parse_then<R>(
        input: &'a [u8],
        opts: &Options,
        read: impl FnOnce(&mut Document<'a>) -> R,
    ) -> Result<R, Error> {
        parser::with_tape(input, opts, false, |tape| {
            let mut doc = Document::new(Source::Borrowed(input), Tape::owned(std::mem::take(tape)), *opts)?;
            let r = read(&mut doc);
            *tape = std::mem::replace(&mut doc.tape, Tape::owned(Vec::new())).into_vec();
            Ok(r)
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

    /// The tape itself, for walks that follow its layout (`flatten`).
    #[inline(always)]
    pub(crate) fn tape(&self) -> &[u32] {
        &self.tape
    }

    #[inline(always)]
    fn pos(&self, node: Node) -> usize {
        tape::offset(&self.tape, node)
    }

    #[inline(always)]
    fn first_byte(&self, node: Node) -> u8 {
        self.input()[self.pos(node)]
    }

    fn error(&self, kind: ErrorKind, offset: usize) -> Error {
        Error::at(kind, self.input(), offset)
    }

    /// The kind of a value. In lazy mode a number or literal is checked
    /// here, on first sight.
    #[inline]
    pub fn kind(&self, node: Node) -> Result<Kind, Error> {
        let c = self.first_byte(node);
        if self.opts.strict() && !self.opts.lenient_numbers() {
            return Ok(Kind::of_byte(c));
        }
        self.kind_checked(node, c)
    }

    #[inline(never)]
    fn kind_checked(&self, node: Node, first: u8) -> Result<Kind, Error> {
        let lenient = self.opts.lenient_numbers();
        let kind = match first {
            // With lenient numbers, `nan` starts like `null`.
            b'n' if lenient && self.input().get(self.pos(node) + 1) != Some(&b'u') => Kind::Number,
            c => Kind::of_byte(c),
        };
        if !self.opts.strict() && matches!(kind, Kind::Number | Kind::Boolean | Kind::Null) {
            stage2::check_atom(self.input(), self.pos(node), false, lenient).map_err(|(p, k)| self.error(k, p))?;
        }
        Ok(kind)
    }

    #[inline(always)]
    fn is_container(&self, node: Node) -> bool {
        tape::opens(self.first_byte(node))
    }

    /// The slot after `node` and everything inside it.
    #[inline(always)]
    pub fn skip(&self, node: Node) -> Node {
        tape::skip(&self.tape, node, self.first_byte(node))
    }

    /// Where a container's members end (see `tape::Next::members_end`).
    #[inline(always)]
    fn members_end(&self, node: Node) -> Node {
        tape::next(&self.tape, node).members_end()
    }

    /// Whether no member of container `node` is itself a container.
    pub fn scalars_only(&self, node: Node) -> bool {
        self.is_container(node) && tape::next(&self.tape, node).scalars_only()
    }

    /// Member or element count of a container.
    pub fn len(&self, node: Node) -> Option<usize> {
        let c = self.first_byte(node);
        tape::opens(c).then(|| tape::count(&self.tape, node, c == b'{'))
    }

    /// The first child of a container (for an object, the first key; its
    /// value is the next node), or `None` when empty or not a container.
    pub fn first_child(&self, node: Node) -> Option<Node> {
        let first = tape::first_member(node);
        (self.is_container(node) && first < self.members_end(node)).then_some(first)
    }

    /// The child after `child` in `parent`, or `None` at the end (or when
    /// `child` is not a member of `parent`: the C ABI takes any numbers).
    pub fn next_child(&self, parent: Node, child: Node) -> Option<Node> {
        if !self.is_container(parent) {
            return None;
        }
        let end = self.members_end(parent);
        if child < tape::first_member(parent) || child >= end {
            return None;
        }
        let next = if self.first_byte(parent) == b'{' { self.skip(child + 1) } else { self.skip(child) };
        // Always forward, even from a node number that is not a value.
        (next > child && next < end).then_some(next)
    }

    /// Whether stage 2 proved that no two keys of object `obj` are equal
    /// (see `tape::UNIQUE_KEYS`).
    #[inline(always)]
    fn keys_proven_unique(&self, obj: Node) -> bool {
        tape::next(&self.tape, obj).unique_keys()
    }

    /// The value of `key` in object `obj`; the last one when the key repeats
    /// (the first match, when the keys are proven unique). Keys are
    /// compared in order; past `OBJECT_MIN` of them, a wide object's key
    /// table answers instead once it has one (see `lookup`).
    #[inline]
    pub fn member(&self, obj: Node, key: &[u8]) -> Option<Node> {
        if self.first_byte(obj) != b'{' {
            return None;
        }
        // A member takes at least two slots: only an object spanning many
        // slots may be wide, and only its scan counts members.
        if self.indexable && self.span(obj) > WIDE_SPAN {
            if let Some(found) = self.member_from_table(obj, key) {
                return found;
            }
            self.scan_members::<true>(obj, key)
        } else {
            self.scan_members::<false>(obj, key)
        }
    }

    #[inline(always)]
    fn scan_members<const COUNTED: bool>(&self, obj: Node, key: &[u8]) -> Option<Node> {
        let input = self.input();
        let slots = &self.tape[..];
        let mut found = None;
        let mut k = self.first_child(obj)?;
        let close = self.members_end(obj);
        let unique = self.keys_proven_unique(obj);
        // Most keys differ from the wanted one in their first byte (for an
        // empty key, its closing quote); a key that starts with an escape
        // is compared in full.
        let first = key.first().copied().unwrap_or(b'"');
        let mut seen = 0;
        loop {
            let body = tape::offset(slots, k) + 1;
            let c = input[body];
            if (c == first || c == b'\\') && string::key_eq(&input[body..], key) {
                if unique {
                    return Some(k + 1);
                }
                found = Some(k + 1);
            }
            // Step over the value: O(1) for a container too. (On the local
            // slice: faster per member than the method call.)
            k = tape::skip(slots, k + 1, input[tape::offset(slots, k + 1)]);
            if k >= close {
                return found;
            }
            if COUNTED {
                seen += 1;
                if seen == lookup::OBJECT_MIN {
                    if let Some(found) = self.member_indexed(obj, key) {
                        return found;
                    }
                }
            }
        }
    }

    /// Slots from a container's header to the slot after it.
    #[inline(always)]
    fn span(&self, node: Node) -> usize {
        tape::next(&self.tape, node).after().wrapping_sub(node) as usize
    }

    /// From the object's key table when it has one.
    fn member_from_table(&self, obj: Node, key: &[u8]) -> Option<Option<Node>> {
        let lookup = self.lookup.borrow();
        lookup.as_ref()?.find(self.input(), &self.tape, obj, key)
    }

    /// From the wide object's key table, built once it has been looked up
    /// often enough; `None` to go on scanning.
    #[inline(never)]
    fn member_indexed(&self, obj: Node, key: &[u8]) -> Option<Option<Node>> {
        let n = self.len(obj)?;
        // (A larger count than the tape could hold is no object's.)
        if n > self.tape.len() / 2 {
            return None;
        }
        let mut lookup = self.lookup.borrow_mut();
        let lookup = lookup.get_or_insert_with(|| Box::new(Lookup::new(self.tape.bytes())));
        let keys = std::iter::successors(self.first_child(obj), move |&k| self.next_child(obj, k));
        let wide = lookup::Wide { node: obj, len: n, unique: self.keys_proven_unique(obj), keys };
        lookup.member(self.input(), &self.tape, wide, key)
    }

    /// Like [`Document::member`], starting at member key slot `from` of
    /// `obj` (or its end) and wrapping around: a caller that reads keys in
    /// the order they appear passes the slot after its last match, and
    /// each lookup then compares one key. Only for keys proven unique
    /// (else the last duplicate must win: it falls back to `member`).
    pub(crate) fn member_from(&self, obj: Node, key: &[u8], from: Node) -> Option<Node> {
        if self.first_byte(obj) != b'{' || !self.keys_proven_unique(obj) {
            return self.member(obj, key);
        }
        let first_key = self.first_child(obj)?;
        let close = self.members_end(obj);
        let start = if from >= first_key && from < close { from } else { first_key };
        let input = self.input();
        let slots = &self.tape[..];
        let first = key.first().copied().unwrap_or(b'"');
        let mut k = start;
        loop {
            let body = tape::offset(slots, k) + 1;
            let c = input[body];
            if (c == first || c == b'\\') && string::key_eq(&input[body..], key) {
                return Some(k + 1);
            }
            k = tape::skip(slots, k + 1, input[tape::offset(slots, k + 1)]);
            if k >= close {
                k = first_key;
            }
            if k == start {
                return None;
            }
        }
    }

    /// Element `index` of array `arr`. A step forward from the last
    /// element reached is walked (a forward loop costs one step per
    /// element); any other access to a large array goes through its
    /// element index, built on the first such access.
    pub fn element(&self, arr: Node, index: usize) -> Option<Node> {
        if self.first_byte(arr) != b'[' {
            return None;
        }
        let len = self.len(arr)?;
        if index >= len {
            return None;
        }
        let (a, i, e) = self.last_index.get();
        let cached = a == arr && i <= index;
        let node = if cached && index - i <= lookup::ARRAY_MIN {
            self.walk(i, e, index)
        } else if !cached && index <= lookup::ARRAY_MIN {
            self.walk(0, tape::first_member(arr), index)
        } else if let Some(node) = self.element_indexed(arr, index, len) {
            node
        } else if cached {
            self.walk(i, e, index)
        } else {
            self.walk(0, tape::first_member(arr), index)
        };
        self.last_index.set((arr, index, node));
        Some(node)
    }

    /// Steps from element `at` (node `node`) to element `index`.
    #[inline(always)]
    fn walk(&self, mut at: usize, mut node: Node, index: usize) -> Node {
        while at < index {
            node = self.skip(node).max(node + 1);
            at += 1;
        }
        node
    }

    /// From the large array's element index; `None` to walk instead.
    #[inline(never)]
    fn element_indexed(&self, arr: Node, index: usize, len: usize) -> Option<Node> {
        // An element takes at least one slot: a larger count is no array's.
        if !self.indexable || len <= lookup::ARRAY_MIN || len > self.tape.len() {
            return None;
        }
        let mut lookup = self.lookup.borrow_mut();
        let lookup = lookup.get_or_insert_with(|| Box::new(Lookup::new(self.tape.bytes())));
        lookup.element(arr, index, len, || {
            let mut node = tape::first_member(arr);
            let mut nodes = Vec::with_capacity(len);
            for _ in 0..len {
                nodes.push(node);
                node = self.skip(node).max(node + 1);
            }
            nodes.into_boxed_slice()
        })
    }

    /// Bytes held by the indexes built for random access (see `lookup`).
    pub fn lookup_bytes(&self) -> usize {
        self.lookup.borrow().as_ref().map_or(0, |l| l.bytes())
    }

    fn step(&self, node: Node, seg: &Segment<'_>) -> Option<Node> {
        match (self.first_byte(node), seg) {
            (b'{', Segment::Key(k) | Segment::Token(k, _)) => self.member(node, k),
            (b'[', Segment::Index(i) | Segment::Token(_, Some(i))) => self.element(node, *i),
            _ => None,
        }
    }

    /// Resolves a path string (dotted or JSON Pointer) from `base`.
    /// `Ok(None)` when the path does not exist in this document.
    pub fn find(&self, base: Node, path: &[u8]) -> Result<Option<Node>, PathError> {
        let mut node = base;
        for seg in path::segments(path) {
            match self.step(node, &seg?) {
                Some(n) => node = n,
                // Keep checking the rest of the path's syntax.
                None => return path::segments(path).try_for_each(|s| s.map(drop)).map(|_| None),
            }
        }
        Ok(Some(node))
    }

    /// Resolves a compiled path from `base`.
    pub fn find_compiled(&self, base: Node, path: &path::Path) -> Option<Node> {
        path.segments().iter().try_fold(base, |node, seg| self.step(node, seg))
    }

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
    /// whitespace and one closing bracket per level.
    fn close_end(&self, node: Node) -> Result<usize, Error> {
        let input = self.input();
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
            end += input[end..].iter().position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(0) + 1;
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
        let body = &input[pos + 1..];
        let Some((len, escaped)) = string::body_len(body) else {
            return Err(Error::at(ErrorKind::UnterminatedString, input, pos));
        };
        let body = &body[..len];
        if !strict {
            check_string_lazily(input, pos + 1, body)?;
        }
        if !escaped {
            return Ok(body);
        }
        let at = |(p, k)| Error::at(k, input, pos + 1 + p);
        match &mut self.scratch {
            Scratch::Heap(v) => {
                string::unescape(body, v).map_err(at)?;
                Ok(v)
            }
            Scratch::Fixed(buf) => {
                let mut sink = string::FixedSink { buf, len: 0 };
                string::unescape(body, &mut sink).map_err(at)?;
                let len = sink.len;
                Ok(&buf[..len])
            }
        }
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
        const SAFE: f64 = 9007199254740991.0;
        let (text, integer) = self.number_text(node)?;
        let v = number::to_f64(text);
        Ok((v, integer && v.abs() > SAFE))
    }

    /// As [`Document::number`], for a node whose kind was just read (in
    /// lazy mode that checked its text): one pass, with Clinger's fast
    /// path, instead of a check and Rust's parser.
    pub(crate) fn number_checked(&self, node: Node) -> Result<(f64, bool), Error> {
        const SAFE: f64 = 9007199254740991.0;
        let v = number::to_f64_valid(&self.input()[self.pos(node)..], self.opts.lenient_numbers());
        if v.abs() > SAFE {
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

    /// Decoded object keys and their nodes, in source order.
    fn keys(&self, obj: Node) -> impl Iterator<Item = (Node, Cow<'_, [u8]>)> + '_ {
        let input = self.input();
        std::iter::successors(self.first_child(obj), move |&k| self.next_child(obj, k)).map(move |k| {
            let body = &input[self.pos(k) + 1..];
            let key = match string::body_len(body) {
                Some((len, false)) => Cow::Borrowed(&body[..len]),
                Some((len, true)) => {
                    let mut buf = Vec::new();
                    // An invalid escape (lazy mode) keeps its raw bytes.
                    match string::unescape(&body[..len], &mut buf) {
                        Ok(()) => Cow::Owned(buf),
                        Err(_) => Cow::Borrowed(&body[..len]),
                    }
                }
                None => Cow::Borrowed(body),
            };
            (k, key)
        })
    }

    /// For an object whose keys repeat: each key once, in order of first
    /// appearance, with the node of its last value. `None` when no key
    /// repeats (the common case; small objects are checked without
    /// allocating).
    pub fn unique_members(&self, obj: Node) -> Option<Vec<(Node, Node)>> {
        let n = self.len(obj)?;
        // An array's elements are not keys (and `k + 1` may be past its end).
        if self.first_byte(obj) != b'{' || self.keys_proven_unique(obj) || self.keys_surely_distinct(obj, n) {
            return None;
        }
        let mut seen: HashMap<Cow<'_, [u8]>, usize> = HashMap::with_capacity(n);
        let mut out: Vec<(Node, Node)> = Vec::with_capacity(n);
        let mut repeated = false;
        for (k, key) in self.keys(obj) {
            match seen.get(&key) {
                Some(&i) => {
                    out[i].1 = k + 1;
                    repeated = true;
                }
                None => {
                    seen.insert(key, out.len());
                    out.push((k, k + 1));
                }
            }
        }
        repeated.then_some(out)
    }

    /// True when an object's keys are certainly distinct, decided by
    /// comparing raw key bytes pairwise: for small objects whose keys have
    /// no escapes (raw bytes then equal decoded bytes).
    fn keys_surely_distinct(&self, obj: Node, n: usize) -> bool {
        const SMALL: usize = 16;
        if n > SMALL {
            return false;
        }
        let input = self.input();
        let mut keys: [&[u8]; SMALL] = [&[]; SMALL];
        let mut k = self.first_child(obj);
        for slot in keys.iter_mut().take(n) {
            let Some(node) = k else { return false };
            let body = &input[self.pos(node) + 1..];
            match string::body_len(body) {
                Some((len, false)) => *slot = &body[..len],
                _ => return false,
            }
            k = self.next_child(obj, node);
        }
        (1..n).all(|i| keys[..i].iter().all(|&earlier| earlier != keys[i]))
    }

    fn check_duplicates(&self) -> Result<(), Error> {
        // Depth-first over containers, with an explicit stack: nesting may
        // be as deep as `max_depth` allows.
        // The visiting order is not the input order, so a repeat found
        // does not end the walk: the one reported is the first in the input.
        let mut first: Option<usize> = None;
        let mut pending = vec![ROOT];
        while let Some(node) = pending.pop() {
            if !self.is_container(node) {
                continue;
            }
            let object = self.first_byte(node) == b'{';
            if object {
                let mut seen = std::collections::HashSet::new();
                for (k, key) in self.keys(node) {
                    if !seen.insert(key) {
                        let p = self.pos(k);
                        first = Some(first.map_or(p, |q| q.min(p)));
                        break;
                    }
                }
            }
            let children = std::iter::successors(self.first_child(node), |&c| self.next_child(node, c));
            pending.extend(children.map(|c| if object { c + 1 } else { c }));
        }
        match first {
            Some(p) => Err(self.error(ErrorKind::DuplicateKey, p)),
            None => Ok(()),
        }
    }

    /// The root node (always [`ROOT`]).
    pub fn root(&self) -> Node {
        ROOT
    }
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
