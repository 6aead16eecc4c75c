//! JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386), applied to a
//! parsed document in one pass that writes the result: every member and
//! element the patch does not touch is copied as its original bytes
//! (whitespace and number text kept), new values as the patch gives
//! them, and nothing is written at all when an operation fails.
//!
//! Data flow: the operations' text → [`Patch::compile`] (pointers parsed,
//! values parsed, placeholders for values given per call) → with a target
//! document, [`Patch::apply`] runs the operations on an edit tree
//! (`tree`) that opens only the containers the operations go into, then
//! `write` copies it out. [`merge_patch`] does the same for RFC 7386.

mod equal;
mod merge;
pub mod pointer;
mod tree;
mod write;

use std::fmt;

pub use merge::merge_patch;
pub use pointer::{Pointer, PointerError};

use crate::{Document, Node, Options};
use tree::{open, At, Elem, Key, Member, Obj, Ref, Source, Sources, Val};

/// The six operations of RFC 6902.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Add,
    Remove,
    Replace,
    Move,
    Copy,
    Test,
}

impl OpKind {
    fn parse(name: &[u8]) -> Option<OpKind> {
        Some(match name {
            b"add" => OpKind::Add,
            b"remove" => OpKind::Remove,
            b"replace" => OpKind::Replace,
            b"move" => OpKind::Move,
            b"copy" => OpKind::Copy,
            b"test" => OpKind::Test,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Add => "add",
            OpKind::Remove => "remove",
            OpKind::Replace => "replace",
            OpKind::Move => "move",
            OpKind::Copy => "copy",
            OpKind::Test => "test",
        }
    }

    fn takes_value(self) -> bool {
        matches!(self, OpKind::Add | OpKind::Replace | OpKind::Test)
    }

    fn takes_from(self) -> bool {
        matches!(self, OpKind::Move | OpKind::Copy)
    }
}

/// Where an operation's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueFrom {
    /// Its `value` member in the patch text.
    Inline(crate::Node),
    /// The caller's argument of that number, given to each `apply`.
    Arg(usize),
}

#[derive(Debug, Clone)]
struct Op {
    kind: OpKind,
    path: Pointer,
    from: Option<Pointer>,
    value: Option<ValueFrom>,
}

/// A compiled JSON Patch: its operations checked once, applied to any
/// number of documents.
pub struct Patch {
    /// The patch's text, parsed: `value` members are read from it.
    text: Document<'static>,
    ops: Vec<Op>,
    args: usize,
}

/// Why a patch could not be compiled or applied. `op` is the failing
/// operation's index (0-based) when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    pub op: Option<usize>,
    pub kind: PatchErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchErrorKind {
    /// The patch's text is not JSON.
    Parse(crate::Error),
    /// A target document that is not JSON (for texts parsed here).
    Target(crate::Error),
    /// The patch is not an array of operation objects as RFC 6902 has them.
    Malformed(String),
    /// An operation's pointer names nothing the operation can use.
    Path { op: OpKind, pointer: String, why: &'static str },
    /// A `test` operation found another value.
    TestFailed { pointer: String },
    /// The result would pass the output bound.
    TooLarge(usize),
    /// The caller gave the wrong number of values, or an invalid one.
    Args(String),
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Operations are counted from 1 in messages, as Lua counts.
        if let Some(i) = self.op {
            write!(f, "operation {}: ", i + 1)?;
        }
        match &self.kind {
            PatchErrorKind::Parse(e) => write!(f, "the patch is not JSON: {e}"),
            PatchErrorKind::Target(e) => write!(f, "{e}"),
            PatchErrorKind::Malformed(why) => f.write_str(why),
            PatchErrorKind::Path { op, pointer, why } => write!(f, "{} at \"{pointer}\": {why}", op.name()),
            PatchErrorKind::TestFailed { pointer } => write!(f, "test at \"{pointer}\" failed: the values differ"),
            PatchErrorKind::TooLarge(max) => write!(f, "the result would be larger than max_size ({max} bytes)"),
            PatchErrorKind::Args(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for PatchError {}

fn malformed(op: Option<usize>, why: impl Into<String>) -> PatchError {
    PatchError { op, kind: PatchErrorKind::Malformed(why.into()) }
}

/// The most bytes a patch may write, when the caller sets no bound:
/// twice everything it reads, plus 64 KiB. A patch grows its output only
/// by values it inserts or copies, so only `copy` chains (a document
/// copied into itself, again and again) reach it.
pub fn default_max_size(read: usize) -> usize {
    read.saturating_mul(2).saturating_add(1 << 16)
}

impl Patch {
    /// Compiles the operations in `text` (a JSON array of RFC 6902
    /// operation objects). With `args`, an `add`, `replace` or `test`
    /// without a `value` takes the next of the values given to each
    /// [`Patch::apply`], in order; without, a missing value is an error.
    pub fn compile(text: &[u8], args: bool) -> Result<Patch, PatchError> {
        let doc = Document::parse_owned(text.to_vec(), &Options::default())
            .map_err(|e| PatchError { op: None, kind: PatchErrorKind::Parse(e) })?;
        let mut ops = Vec::new();
        let mut nargs = 0;
        let root = crate::ROOT;
        if doc.kind(root).ok() != Some(crate::Kind::Array) {
            return Err(malformed(None, "a JSON Patch is an array of operations"));
        }
        let elements = std::iter::successors(doc.first_child(root), |&e| doc.next_child(root, e));
        for (i, node) in elements.enumerate() {
            let op = compile_op(&doc, node, i, args, &mut nargs)?;
            ops.push(op);
        }
        Ok(Patch { text: doc, ops, args: nargs })
    }

    /// How many values each [`Patch::apply`] takes.
    pub fn args(&self) -> usize {
        self.args
    }

    /// Operations in the patch.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Applies the patch to node `ROOT` of `target` (a strict document)
    /// with `args` (parsed JSON values, as many as [`Patch::args`]),
    /// appending the result's text to `out`. `max_size` bounds the
    /// result (0: [`default_max_size`] of what the patch reads). On an
    /// error nothing is appended.
    pub fn apply(
        &self,
        target: &Document<'_>,
        args: &[&Document<'_>],
        max_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), PatchError> {
        if args.len() != self.args {
            let why = format!("the patch takes {} values, {} given", self.args, args.len());
            return Err(PatchError { op: None, kind: PatchErrorKind::Args(why) });
        }
        // (Sized at once: this runs per request, and a grown vector is
        // one more allocation.)
        let mut docs: Vec<&dyn Source> = Vec::with_capacity(2 + args.len());
        docs.push(target);
        docs.push(&self.text);
        docs.extend(args.iter().map(|d| *d as &dyn Source));
        let read = docs.iter().map(|d| d.input().len()).sum();
        let s = Sources { docs };
        let mut run =
            Run { s: &s, root: Val::At(At { src: 0, node: crate::ROOT }), grown: 0, max: bound(max_size, read) };
        for (i, op) in self.ops.iter().enumerate() {
            run.op(op).map_err(|kind| PatchError { op: Some(i), kind })?;
        }
        // The result is about the target plus what the operations added:
        // reserved at once, not grown by doubling.
        out.reserve(target.input().len().saturating_add(run.grown));
        write::value(&run.root, &s, out);
        Ok(())
    }
}

impl Patch {
    /// [`Patch::apply`] with the values as JSON texts, each parsed here
    /// (an `Args` error names the one that is not JSON, from 1).
    pub fn apply_texts(
        &self,
        target: &Document<'_>,
        values: &[&[u8]],
        max_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), PatchError> {
        let not_json = |i: usize, e: crate::Error| PatchError {
            op: None,
            kind: PatchErrorKind::Args(format!("value {} is not JSON: {e}", i + 1)),
        };
        // One value, the per-request case: its tape stays in the thread's
        // parse buffers for the call (`apply` parses nothing), with no
        // copy of it and no vectors to allocate.
        if let [text] = values {
            return Document::parse_then(text, &Options::default(), |value| {
                self.apply(target, &[&*value], max_size, out)
            })
            .map_err(|e| not_json(0, e))?;
        }
        let mut args = Vec::with_capacity(values.len());
        for (i, text) in values.iter().enumerate() {
            args.push(Document::parse(text, &Options::default()).map_err(|e| not_json(i, e))?);
        }
        let args: Vec<&Document<'_>> = args.iter().collect();
        self.apply(target, &args, max_size, out)
    }
}

/// Runs `f` on the value at `node` of `doc` as what [`Patch::apply`] and
/// [`merge_patch`] take, a strict document: `doc` itself at the root of a
/// strict document, else the value's text parsed again (and so checked,
/// for a lazy document). The error is the message for the caller.
pub fn with_target<R>(doc: &Document<'_>, node: Node, f: impl FnOnce(&Document<'_>) -> R) -> Result<R, String> {
    let strict = Options::default();
    let o = doc.options();
    if node == crate::ROOT && o.mode == strict.mode && o.invalid_numbers == 0 {
        return Ok(f(doc));
    }
    let text = doc.raw(node).map_err(|e| e.to_string())?;
    let value = Document::parse(text, &strict).map_err(|e| format!("the target is not JSON: {e}"))?;
    Ok(f(&value))
}

fn bound(max_size: usize, read: usize) -> usize {
    if max_size == 0 {
        default_max_size(read)
    } else {
        max_size
    }
}

fn compile_op(
    doc: &Document<'_>,
    node: crate::Node,
    i: usize,
    args: bool,
    nargs: &mut usize,
) -> Result<Op, PatchError> {
    if doc.kind(node).ok() != Some(crate::Kind::Object) {
        return Err(malformed(Some(i), "an operation is an object"));
    }
    let string = |name: &str| -> Result<Option<String>, PatchError> {
        let Some(v) = doc.member(node, name.as_bytes()) else { return Ok(None) };
        if doc.kind(v).ok() != Some(crate::Kind::String) {
            return Err(malformed(Some(i), format!("\"{name}\" must be a string")));
        }
        let s = doc.raw(v).map_err(|e| PatchError { op: Some(i), kind: PatchErrorKind::Parse(e) })?;
        let value: String = serde_json::from_slice(s).map_err(|e| malformed(Some(i), e.to_string()))?;
        Ok(Some(value))
    };
    let pointer = |name: &str| -> Result<Option<Pointer>, PatchError> {
        match string(name)? {
            None => Ok(None),
            Some(p) => Pointer::parse(&p).map(Some).map_err(|e| malformed(Some(i), format!("\"{name}\": {e}"))),
        }
    };
    let name = string("op")?.ok_or_else(|| malformed(Some(i), "no \"op\""))?;
    let kind = OpKind::parse(name.as_bytes()).ok_or_else(|| {
        malformed(Some(i), format!("unknown op \"{name}\" (add, remove, replace, move, copy or test)"))
    })?;
    let path = pointer("path")?.ok_or_else(|| malformed(Some(i), "no \"path\""))?;
    let from = if kind.takes_from() {
        Some(pointer("from")?.ok_or_else(|| malformed(Some(i), format!("{name} needs \"from\"")))?)
    } else {
        None
    };
    let value = if kind.takes_value() {
        Some(match doc.member(node, b"value") {
            Some(v) => ValueFrom::Inline(v),
            None if args => {
                *nargs += 1;
                ValueFrom::Arg(*nargs - 1)
            }
            None => return Err(malformed(Some(i), format!("{name} needs \"value\""))),
        })
    } else {
        None
    };
    Ok(Op { kind, path, from, value })
}

/// One application of a patch: the edit tree and the output bound.
struct Run<'r, 's> {
    s: &'r Sources<'s>,
    root: Val,
    /// Bytes the values added and copied so far may add to the output.
    grown: usize,
    max: usize,
}

type OpResult = Result<(), PatchErrorKind>;

impl Run<'_, '_> {
    fn op(&mut self, op: &Op) -> OpResult {
        let fail = |why: &'static str| PatchErrorKind::Path { op: op.kind, pointer: op.path.as_str().to_owned(), why };
        let value = |v: ValueFrom| match v {
            ValueFrom::Inline(node) => At { src: 1, node },
            ValueFrom::Arg(k) => At { src: 2 + k as u32, node: crate::ROOT },
        };
        match op.kind {
            OpKind::Add => {
                let v = value(op.value.expect("compiled"));
                self.grow(self.s.raw(v).len())?;
                self.add(&op.path, Val::At(v)).map_err(fail)
            }
            OpKind::Remove => self.remove(&op.path).map(drop).map_err(fail),
            OpKind::Replace => {
                let v = value(op.value.expect("compiled"));
                self.grow(self.s.raw(v).len())?;
                let slot = self.get_mut(&op.path).map_err(fail)?;
                *slot = Val::At(v);
                Ok(())
            }
            OpKind::Move => {
                let from = op.from.as_ref().expect("compiled");
                if op.path.is_inside(from) {
                    return Err(fail("a value cannot be moved into itself"));
                }
                let from_fail = |why| PatchErrorKind::Path { op: op.kind, pointer: from.as_str().to_owned(), why };
                if op.path == *from {
                    // (RFC 6902 4.4: the value must exist all the same.)
                    return self.read(from).map(drop).map_err(from_fail);
                }
                let v = self.remove(from).map_err(from_fail)?;
                self.add(&op.path, v).map_err(fail)
            }
            OpKind::Copy => {
                let from = op.from.as_ref().expect("compiled");
                let from_fail = |why| PatchErrorKind::Path { op: op.kind, pointer: from.as_str().to_owned(), why };
                let v = self.read(from).map_err(from_fail)?.to_val();
                self.grow(size(&v, self.s))?;
                self.add(&op.path, v).map_err(fail)
            }
            OpKind::Test => {
                let v = value(op.value.expect("compiled"));
                let here = self.read(&op.path).map_err(fail)?;
                if equal::equal(here, Ref::At(v), self.s) {
                    Ok(())
                } else {
                    Err(PatchErrorKind::TestFailed { pointer: op.path.as_str().to_owned() })
                }
            }
        }
    }

    fn grow(&mut self, bytes: usize) -> OpResult {
        self.grown = self.grown.saturating_add(bytes);
        if self.grown > self.max {
            return Err(PatchErrorKind::TooLarge(self.max));
        }
        Ok(())
    }

    /// The value at `p`, opening nothing.
    fn read(&self, p: &Pointer) -> Result<Ref<'_>, &'static str> {
        let mut here = Ref::Tree(&self.root);
        for token in p.tokens() {
            here = match here {
                Ref::Tree(&Val::At(at)) | Ref::At(at) => Ref::At(child_at(at, token, self.s)?),
                Ref::Tree(Val::Obj(obj)) => {
                    let i = obj.position(token, self.s).ok_or(NO_MEMBER)?;
                    Ref::Tree(&obj.members[i].val)
                }
                Ref::Tree(Val::Arr(arr)) => {
                    let i = element_index(token, arr.elems.len())?;
                    Ref::Tree(&arr.elems[i].val)
                }
            };
        }
        Ok(here)
    }

    /// The container holding the value at `p`, opened, and `p`'s last token.
    fn parent<'p>(&mut self, p: &'p Pointer) -> Result<(&mut Val, &'p [u8]), &'static str> {
        let (last, path) = p.tokens().split_last().expect("not the root");
        if p.tokens().len() > MAX_DEPTH {
            return Err(TOO_DEEP);
        }
        let mut here = &mut self.root;
        for token in path {
            open(here, self.s);
            here = match here {
                Val::Obj(obj) => {
                    let i = obj.position(token, self.s).ok_or(NO_MEMBER)?;
                    &mut obj.members[i].val
                }
                Val::Arr(arr) => {
                    let i = element_index(token, arr.elems.len())?;
                    &mut arr.elems[i].val
                }
                Val::At(_) => return Err(NOT_CONTAINER),
            };
        }
        open(here, self.s);
        Ok((here, last))
    }

    /// The value at `p`, for replacing.
    fn get_mut(&mut self, p: &Pointer) -> Result<&mut Val, &'static str> {
        if p.tokens().is_empty() {
            return Ok(&mut self.root);
        }
        let s = self.s;
        let (parent, last) = self.parent(p)?;
        match parent {
            Val::Obj(obj) => {
                let i = obj.position(last, s).ok_or(NO_MEMBER)?;
                Ok(&mut obj.members[i].val)
            }
            Val::Arr(arr) => {
                let i = element_index(last, arr.elems.len())?;
                Ok(&mut arr.elems[i].val)
            }
            Val::At(_) => Err(NOT_CONTAINER),
        }
    }

    fn add(&mut self, p: &Pointer, v: Val) -> Result<(), &'static str> {
        if p.tokens().len() + opened_depth(&v) > MAX_DEPTH {
            return Err(TOO_DEEP);
        }
        if p.tokens().is_empty() {
            self.root = v;
            return Ok(());
        }
        let s = self.s;
        let (parent, last) = self.parent(p)?;
        match parent {
            Val::Obj(obj) => match obj.position(last, s) {
                Some(i) => obj.members[i].val = v,
                None => obj.members.push(Member { key: Key::Text(last.to_vec()), val: v, orig: None }),
            },
            Val::Arr(arr) => {
                let len = arr.elems.len();
                let i = if last == b"-" { len } else { pointer::index(last).ok_or(BAD_INDEX)? };
                if i > len {
                    return Err(PAST_END);
                }
                arr.elems.insert(i, Elem { val: v, orig: None });
            }
            Val::At(_) => return Err(NOT_CONTAINER),
        }
        Ok(())
    }

    fn remove(&mut self, p: &Pointer) -> Result<Val, &'static str> {
        if p.tokens().is_empty() {
            return Err("the whole document cannot be removed");
        }
        let s = self.s;
        let (parent, last) = self.parent(p)?;
        match parent {
            Val::Obj(obj) => {
                let i = obj.position(last, s).ok_or(NO_MEMBER)?;
                Ok(obj.members.remove(i).val)
            }
            Val::Arr(arr) => {
                let i = element_index(last, arr.elems.len())?;
                Ok(arr.elems.remove(i).val)
            }
            Val::At(_) => Err(NOT_CONTAINER),
        }
    }
}

/// The deepest the edit tree goes (opened containers; references below
/// them are copied, not walked): writing and dropping it recurse.
const MAX_DEPTH: usize = 1000;

const TOO_DEEP: &str = "the patch would nest edits deeper than 1000 levels";
const NO_MEMBER: &str = "no such member";
const NOT_CONTAINER: &str = "a step goes into a value that is not an object or array";
const BAD_INDEX: &str = "an array index must be 0 or digits without a leading zero";
const PAST_END: &str = "index past the end of the array";

/// An existing element's index.
fn element_index(token: &[u8], len: usize) -> Result<usize, &'static str> {
    if token == b"-" {
        return Err(PAST_END);
    }
    let i = pointer::index(token).ok_or(BAD_INDEX)?;
    if i >= len {
        return Err(PAST_END);
    }
    Ok(i)
}

/// The child `token` names of a value not opened.
fn child_at(at: At, token: &[u8], s: &Sources<'_>) -> Result<At, &'static str> {
    match s.first(at) {
        b'{' => s.member(at, token).ok_or(NO_MEMBER),
        b'[' => {
            element_index(token, s.len(at))?;
            Ok(s.element(at, pointer::index(token).expect("checked")).expect("within the length"))
        }
        _ => Err(NOT_CONTAINER),
    }
}

/// How deep `v`'s opened containers nest (0 for a reference).
fn opened_depth(v: &Val) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(v, 0)];
    while let Some((v, d)) = pending.pop() {
        match v {
            Val::At(_) => deepest = deepest.max(d),
            Val::Obj(obj) => pending.extend(obj.members.iter().map(|m| (&m.val, d + 1))),
            Val::Arr(arr) => pending.extend(arr.elems.iter().map(|e| (&e.val, d + 1))),
        }
        deepest = deepest.max(d);
    }
    deepest
}

/// The bytes `v` writes, about: what copying it adds to the output.
fn size(v: &Val, s: &Sources<'_>) -> usize {
    let mut total = 0usize;
    let mut pending = vec![v];
    while let Some(v) = pending.pop() {
        total = total.saturating_add(match v {
            Val::At(at) => s.raw(*at).len(),
            Val::Obj(obj) => {
                pending.extend(obj.members.iter().map(|m| &m.val));
                2 + 4 * obj.members.len()
            }
            Val::Arr(arr) => {
                pending.extend(arr.elems.iter().map(|e| &e.val));
                2 + arr.elems.len()
            }
        });
    }
    total
}

impl Obj {
    /// Sets member `key` (a key node of one of the sources) to `val`.
    pub(crate) fn set(&mut self, key: At, val: Val, s: &Sources<'_>) {
        let name = s.key(key);
        match self.position(&name, s) {
            Some(i) => self.members[i].val = val,
            None => self.members.push(Member { key: Key::At(key), val, orig: None }),
        }
    }
}
