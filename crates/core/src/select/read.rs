//! Running a selector over a document: one [`Item`] per path, or for a
//! path with wildcards a `List` item followed by its elements' items
//! (lists nest, one level per `[*]`), written into memory the caller owns.

use super::{Entry, Selector, Want};
use crate::error::ErrorKind;
use crate::path::{Path, Segment};
use crate::string;
use crate::{Document, Error, Kind, Node, Options};

/// What an item holds.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemTag {
    /// Nothing at this path.
    Missing = 0,
    Null = 1,
    False = 2,
    True = 3,
    /// `v.num` is the number's nearest double.
    Number = 4,
    /// `v.ptr` and `len` are the unescaped bytes: in the input, or in the
    /// caller's byte area when the string has escapes.
    String = 5,
    /// `v.ptr` and `len` are the value's JSON text (a `raw` path).
    Raw = 6,
    /// `v.node` is the array's node in the document.
    Array = 7,
    /// `v.node` is the object's node in the document.
    Object = 8,
    /// `len` items follow, one per element of the array a `[*]` met
    /// (`v` is 0).
    List = 9,
    /// `v.integer` is the number, an integer within `i64`: only from a
    /// selector that asks for them ([`Selector::read_integers`]).
    Integer = 10,
}

/// An item's payload.
#[repr(C)]
#[derive(Clone, Copy)]
pub union ItemValue {
    pub num: f64,
    pub ptr: *const std::ffi::c_char,
    pub node: u32,
    pub integer: i64,
}

/// One value read by a selector.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Item {
    pub tag: ItemTag,
    pub len: u32,
    pub v: ItemValue,
}

/// Where the items go: `cap` items at `items`, `bytes_cap` bytes at
/// `bytes` for strings with escapes. Counts past the capacities keep
/// growing so that the caller learns what a retry needs.
pub struct Output<'o> {
    pub items: &'o mut [Item],
    pub bytes: &'o mut [u8],
    pub count: usize,
    pub used: usize,
}

impl Output<'_> {
    /// True when everything fitted.
    pub fn fits(&self) -> bool {
        self.count <= self.items.len() && self.used <= self.bytes.len()
    }

    fn push(&mut self, item: Item) {
        if let Some(slot) = self.items.get_mut(self.count) {
            *slot = item;
        }
        self.count += 1;
    }

    fn simple(&mut self, tag: ItemTag) {
        self.push(Item::simple(tag));
    }

    /// Text in the input, which the caller keeps alive while it reads the
    /// items.
    fn text(&mut self, tag: ItemTag, s: &[u8]) -> Result<(), Error> {
        self.push(Item::bytes(tag, s.as_ptr(), s.len())?);
        Ok(())
    }

    /// The string an [`AreaSink`] decoded into the byte area from `start`.
    fn decoded(&mut self, start: usize) -> Result<(), Error> {
        self.push(self.decoded_item(start)?);
        Ok(())
    }

    pub(crate) fn decoded_item(&self, start: usize) -> Result<Item, Error> {
        let ptr = self.bytes.get(start..self.used).map_or(std::ptr::null(), |s| s.as_ptr());
        Item::bytes(ItemTag::String, ptr, self.used - start)
    }
}

impl Item {
    pub(crate) const MISSING: Item = Item::simple(ItemTag::Missing);

    pub(crate) const fn simple(tag: ItemTag) -> Item {
        Item { tag, len: 0, v: ItemValue { num: 0.0 } }
    }

    pub(crate) fn number(num: f64) -> Item {
        Item { tag: ItemTag::Number, len: 0, v: ItemValue { num } }
    }

    pub(crate) fn integer(integer: i64) -> Item {
        Item { tag: ItemTag::Integer, len: 0, v: ItemValue { integer } }
    }

    /// `len` bytes at `ptr` (null: past the byte area, see [`Output`]).
    pub(crate) fn bytes(tag: ItemTag, ptr: *const u8, len: usize) -> Result<Item, Error> {
        let len = u32::try_from(len).map_err(|_| Error::at(ErrorKind::TooLarge, &[], 0))?;
        Ok(Item { tag, len, v: ItemValue { ptr: ptr.cast() } })
    }
}

/// Decodes a string into the byte area from `start`. Past the area's
/// end only `used` grows, so that the caller learns what a retry needs.
pub(crate) struct AreaSink<'a, 'o> {
    pub(crate) out: &'a mut Output<'o>,
    pub(crate) start: usize,
}

impl string::Sink for AreaSink<'_, '_> {
    #[inline(always)]
    fn start(&mut self, _: usize) {
        self.out.used = self.start;
    }
    #[inline(always)]
    fn extend_from_slice(&mut self, s: &[u8]) {
        let at = self.out.used;
        self.out.used += s.len();
        if let Some(dst) = self.out.bytes.get_mut(at..at + s.len()) {
            dst.copy_from_slice(s);
        }
    }
    #[inline(always)]
    fn push(&mut self, b: u8) {
        if let Some(dst) = self.out.bytes.get_mut(self.out.used) {
            *dst = b;
        }
        self.out.used += 1;
    }
}

/// Why a read failed: the document's bytes (with their position), or a
/// value of another type than the path asked for.
#[derive(Debug)]
pub enum Failure {
    Input(Error),
    Type(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Input(e)
    }
}

/// A type error for `entry`, naming the kind found.
fn mismatch(entry: &Entry, want: &str, got: &str) -> Failure {
    Failure::Type(format!("type mismatch at '{}': expected {}, got {}", entry.text, want, got))
}

/// The longest text [`Selector::read_text`] reads in one pass with no
/// tape (`Selector::read_direct`) before parsing it: past about this
/// size, parsing and then resolving the paths costs less (docs/design.md).
const ONE_PASS_MAX: usize = 1024;

impl Selector {
    /// Reads every path from the JSON text `text` (parsed with `opts`; no
    /// document is kept) into `out`. Container items carry their node in
    /// the document `Document::parse(text, opts)` would build.
    pub fn read_text(&self, text: &[u8], opts: &Options, out: &mut Output<'_>) -> Result<(), Failure> {
        if text.len() <= ONE_PASS_MAX && self.read_direct(text, opts, out).is_some() {
            return Ok(());
        }
        (out.count, out.used) = (0, 0);
        match Document::parse_then(text, opts, |d| self.read(d, crate::ROOT, out)) {
            Ok(r) => r,
            Err(e) => Err(Failure::Input(e)),
        }
    }

    /// Reads every path from `base` into `out`.
    pub fn read(&self, d: &Document<'_>, base: Node, out: &mut Output<'_>) -> Result<(), Failure> {
        let mut hints = Hints { at: [(Node::MAX, 0); HINTS], next: 0 };
        let mut trail = Trail { nodes: [0; TRAIL], len: 0 };
        for entry in &self.entries {
            let found = trail.resolve(d, base, entry, &mut hints);
            // Most paths have no wildcard: their value, without `write`'s
            // call and list handling.
            match found {
                Some(node) if entry.pieces.len() == 1 => value(d, node, d.kind(node)?, entry, self.integers, out)?,
                _ => write(d, found, entry, 0, self.integers, out, &mut hints)?,
            }
        }
        Ok(())
    }
}

/// Objects a read looked keys up in, each with the member after its last
/// match: paths usually name keys in the order the text has them, so the
/// next lookup in that object starts there (see `Document::member_from`).
const HINTS: usize = 4;
struct Hints {
    at: [(Node, Node); HINTS],
    next: usize,
}

impl Hints {
    fn get(&self, obj: Node) -> Node {
        self.at.iter().find(|h| h.0 == obj).map_or(0, |h| h.1)
    }

    fn set(&mut self, obj: Node, after: Node) {
        match self.at.iter_mut().find(|h| h.0 == obj) {
            Some(h) => h.1 = after,
            None => {
                self.at[self.next % HINTS] = (obj, after);
                self.next += 1;
            }
        }
    }
}

/// The nodes the last entry's first piece went through, one per segment
/// (up to `TRAIL`), so that the next entry starts after the segments it
/// shares with it (`Entry::shared`).
const TRAIL: usize = 8;
struct Trail {
    nodes: [Node; TRAIL],
    /// How many of `nodes` the last entry reached.
    len: usize,
}

impl Trail {
    /// Resolves `entry.pieces[0]` from `base`, from the deepest node it
    /// shares with the last entry's.
    fn resolve(&mut self, d: &Document<'_>, base: Node, entry: &Entry, hints: &mut Hints) -> Option<Node> {
        let segments = entry.pieces[0].segments();
        let from = entry.shared.min(self.len);
        let mut node = if from == 0 { base } else { self.nodes[from - 1] };
        self.len = from;
        for (i, seg) in segments.iter().enumerate().skip(from) {
            node = step(d, node, seg, hints)?;
            if let Some(slot) = self.nodes.get_mut(i) {
                *slot = node;
                self.len = i + 1;
            }
        }
        Some(node)
    }
}

/// One segment from `node`.
#[inline(always)]
fn step(d: &Document<'_>, node: Node, seg: &Segment<'_>, hints: &mut Hints) -> Option<Node> {
    match seg {
        Segment::Key(k) => {
            let v = d.member_from(node, k, hints.get(node))?;
            hints.set(node, d.skip(v));
            Some(v)
        }
        Segment::Index(i) => d.element(node, *i),
        Segment::Token(..) => unreachable!("selector paths are compiled dotted (Path::compile_dotted)"),
    }
}

/// Resolves a wildcard-free path from `base`.
fn resolve(d: &Document<'_>, base: Node, path: &Path, hints: &mut Hints) -> Option<Node> {
    path.segments().iter().try_fold(base, |node, seg| step(d, node, seg, hints))
}

/// Resolves `entry.pieces[piece]` from `node` and writes what it finds.
fn walk(
    d: &Document<'_>,
    node: Node,
    entry: &Entry,
    piece: usize,
    integers: bool,
    out: &mut Output<'_>,
    hints: &mut Hints,
) -> Result<(), Failure> {
    let found = resolve(d, node, &entry.pieces[piece], hints);
    write(d, found, entry, piece, integers, out, hints)
}

/// Writes what `entry.pieces[piece]` resolved to: its value, or for a
/// piece a `[*]` follows, the list of what the rest finds in each element.
fn write(
    d: &Document<'_>,
    found: Option<Node>,
    entry: &Entry,
    piece: usize,
    integers: bool,
    out: &mut Output<'_>,
    hints: &mut Hints,
) -> Result<(), Failure> {
    let Some(found) = found else {
        out.simple(ItemTag::Missing);
        return Ok(());
    };
    let kind = d.kind(found)?;
    if piece + 1 == entry.pieces.len() {
        return value(d, found, kind, entry, integers, out);
    }
    match kind {
        Kind::Null => out.simple(ItemTag::Null),
        Kind::Array => {
            let len = d.len(found).unwrap_or(0);
            out.push(Item { len: len as u32, ..Item::simple(ItemTag::List) });
            let mut child = d.first_child(found);
            while let Some(c) = child {
                walk(d, c, entry, piece + 1, integers, out, hints)?;
                child = d.next_child(found, c);
            }
        }
        other => return Err(mismatch(entry, "array for '[*]'", other.name())),
    }
    Ok(())
}

#[inline]
fn value(
    d: &Document<'_>,
    node: Node,
    kind: Kind,
    entry: &Entry,
    integers: bool,
    out: &mut Output<'_>,
) -> Result<(), Failure> {
    let want = entry.want;
    if want == Want::Raw {
        return Ok(out.text(ItemTag::Raw, d.raw(node)?)?);
    }
    let ok = match (want, kind) {
        (_, Kind::Null) | (Want::Any, _) => true,
        (Want::String, k) => k == Kind::String,
        (Want::Number | Want::Integer, k) => k == Kind::Number,
        (Want::Boolean, k) => k == Kind::Boolean,
        (Want::Array, k) => k == Kind::Array,
        (Want::Object, k) => k == Kind::Object,
        (Want::Raw, _) => unreachable!("handled above"),
    };
    if !ok {
        return Err(mismatch(entry, want.name(), kind.name()));
    }
    match kind {
        Kind::Null => out.simple(ItemTag::Null),
        Kind::Boolean => out.simple(if d.bool(node)? { ItemTag::True } else { ItemTag::False }),
        Kind::Number if want == Want::Integer => {
            let Some(i) = d.i64(node)? else {
                return Err(mismatch(entry, "integer", "a number that is not one within int64 range"));
            };
            out.push(if integers { Item::integer(i) } else { Item::number(i as f64) });
        }
        Kind::Number => match if integers { d.i64(node)? } else { None } {
            Some(i) => out.push(Item::integer(i)),
            None => out.push(Item::number(d.number_checked(node)?.0)),
        },
        Kind::String => {
            // Without escapes the string is in the input (`text` keeps the
            // pointer); with them it is decoded straight into the area.
            let start = out.used;
            match d.str_into(node, &mut AreaSink { out: &mut *out, start })? {
                Some(s) => out.text(ItemTag::String, s)?,
                None => out.decoded(start)?,
            }
        }
        Kind::Array => out.push(Item { tag: ItemTag::Array, len: 0, v: ItemValue { node } }),
        Kind::Object => out.push(Item { tag: ItemTag::Object, len: 0, v: ItemValue { node } }),
    }
    Ok(())
}
