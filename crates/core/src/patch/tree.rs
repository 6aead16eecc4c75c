//! The edit tree: the target document as the patch sees it while it is
//! being applied. A value nobody changed stays a reference into the
//! document it came from (`Val::At`); a container an operation goes into
//! is opened into its members (`Obj`, `Arr`), each still a reference until
//! changed. Writing the tree out (`write`) copies every reference as its
//! original bytes, so the cost of a patch is its edits plus one copy.

use std::borrow::Cow;

use crate::string;
use crate::tape::Node;
use crate::Document;

/// A value of one of the documents a patch reads: the target (source 0),
/// the patch's own values, or the caller's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct At {
    pub src: u32,
    pub node: Node,
}

/// What the patch reads of a document (a trait, so that documents of
/// different lifetimes share one table: `Document` is invariant in its
/// lifetime).
pub(crate) trait Source {
    fn input(&self) -> &[u8];
    fn tape(&self) -> &[u32];
    fn raw(&self, node: Node) -> &[u8];
    fn unique_members(&self, obj: Node) -> Option<Vec<(Node, Node)>>;
    fn first_child(&self, node: Node) -> Option<Node>;
    fn next_child(&self, parent: Node, child: Node) -> Option<Node>;
    fn skip(&self, node: Node) -> Node;
    fn member(&self, obj: Node, key: &[u8]) -> Option<Node>;
    fn element(&self, arr: Node, index: usize) -> Option<Node>;
    fn len(&self, node: Node) -> Option<usize>;
}

impl Source for Document<'_> {
    fn input(&self) -> &[u8] {
        Document::input(self)
    }
    fn tape(&self) -> &[u32] {
        Document::tape(self)
    }
    fn raw(&self, node: Node) -> &[u8] {
        // Patches read strict documents, whose values all have ends.
        Document::raw(self, node).unwrap_or_default()
    }
    fn unique_members(&self, obj: Node) -> Option<Vec<(Node, Node)>> {
        Document::unique_members(self, obj)
    }
    fn first_child(&self, node: Node) -> Option<Node> {
        Document::first_child(self, node)
    }
    fn next_child(&self, parent: Node, child: Node) -> Option<Node> {
        Document::next_child(self, parent, child)
    }
    fn skip(&self, node: Node) -> Node {
        Document::skip(self, node)
    }
    fn member(&self, obj: Node, key: &[u8]) -> Option<Node> {
        Document::member(self, obj, key)
    }
    fn element(&self, arr: Node, index: usize) -> Option<Node> {
        Document::element(self, arr, index)
    }
    fn len(&self, node: Node) -> Option<usize> {
        Document::len(self, node)
    }
}

/// The documents a patch reads, by source number.
pub(crate) struct Sources<'s> {
    pub docs: Vec<&'s dyn Source>,
}

impl Sources<'_> {
    fn doc(&self, at: At) -> &dyn Source {
        self.docs[at.src as usize]
    }

    pub fn input(&self, at: At) -> &[u8] {
        self.doc(at).input()
    }

    /// The first byte of the value: its kind.
    pub fn first(&self, at: At) -> u8 {
        self.input(at)[self.pos(at)]
    }

    pub fn pos(&self, at: At) -> usize {
        crate::tape::offset(self.doc(at).tape(), at.node)
    }

    /// The value's text.
    pub fn raw(&self, at: At) -> &[u8] {
        self.doc(at).raw(at.node)
    }

    /// Where the value's text ends in its input.
    pub fn end(&self, at: At) -> usize {
        self.pos(at) + self.raw(at).len()
    }

    /// The value after `at` and everything inside it (in its container:
    /// the next member's key, or the next element).
    pub fn skip(&self, at: At) -> At {
        At { src: at.src, node: self.doc(at).skip(at.node) }
    }

    /// A key's bytes, unescaped.
    pub fn key(&self, at: At) -> Cow<'_, [u8]> {
        let body = &self.input(at)[self.pos(at) + 1..];
        let mut out = Vec::new();
        match string::read_to_quote(body, &mut out) {
            Ok(string::Read::Raw(raw)) => Cow::Borrowed(raw),
            _ => Cow::Owned(out),
        }
    }

    /// Whether key `at` is `want` (unescaped).
    pub fn key_is(&self, at: At, want: &[u8]) -> bool {
        string::key_eq(&self.input(at)[self.pos(at) + 1..], want)
    }

    /// The members of object `at`, each key once with its last value, and
    /// whether they are all of its members in order (no key repeats).
    pub fn members(&self, at: At) -> (Vec<(At, At)>, bool) {
        let doc = self.doc(at);
        let pair = |(k, v): (Node, Node)| (At { src: at.src, node: k }, At { src: at.src, node: v });
        if let Some(unique) = doc.unique_members(at.node) {
            return (unique.into_iter().map(pair).collect(), false);
        }
        let keys = std::iter::successors(doc.first_child(at.node), |&k| doc.next_child(at.node, k));
        let mut members = Vec::with_capacity(doc.len(at.node).unwrap_or(0));
        members.extend(keys.map(|k| pair((k, k + 1))));
        (members, true)
    }

    /// The value of `key` in object `at` (its last, when the key repeats).
    pub fn member(&self, at: At, key: &[u8]) -> Option<At> {
        self.doc(at).member(at.node, key).map(|node| At { src: at.src, node })
    }

    /// Element `index` of array `at`.
    pub fn element(&self, at: At, index: usize) -> Option<At> {
        self.doc(at).element(at.node, index).map(|node| At { src: at.src, node })
    }

    /// A container's member or element count.
    pub fn len(&self, at: At) -> usize {
        self.doc(at).len(at.node).unwrap_or(0)
    }

    /// The elements of array `at`.
    pub fn elements(&self, at: At) -> Vec<At> {
        let doc = self.doc(at);
        let mut elements = Vec::with_capacity(doc.len(at.node).unwrap_or(0));
        elements.extend(
            std::iter::successors(doc.first_child(at.node), |&e| doc.next_child(at.node, e))
                .map(|node| At { src: at.src, node }),
        );
        elements
    }
}

/// A value of the tree.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    At(At),
    Obj(Box<Obj>),
    Arr(Box<Arr>),
}

/// An object opened for editing. `from` is the object it was opened from
/// (its members' `orig` are ordinals in it), `None` for a new one.
#[derive(Debug, Clone)]
pub(crate) struct Obj {
    pub from: Option<At>,
    pub members: Vec<Member>,
}

#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub key: Key,
    pub val: Val,
    /// The member's place in `from`, and its value there, while it has
    /// not been replaced: the writer copies runs of such members whole.
    pub orig: Option<(u32, At)>,
}

impl Member {
    pub fn untouched(&self) -> Option<u32> {
        match (&self.val, self.orig) {
            (Val::At(v), Some((ordinal, was))) if *v == was => Some(ordinal),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Key {
    /// A key string of one of the sources.
    At(At),
    /// A key a pointer named, unescaped.
    Text(Vec<u8>),
}

/// An array opened for editing, as `Obj`.
#[derive(Debug, Clone)]
pub(crate) struct Arr {
    pub from: Option<At>,
    pub elems: Vec<Elem>,
}

#[derive(Debug, Clone)]
pub(crate) struct Elem {
    pub val: Val,
    pub orig: Option<(u32, At)>,
}

impl Elem {
    pub fn untouched(&self) -> Option<u32> {
        match (&self.val, self.orig) {
            (Val::At(v), Some((ordinal, was))) if *v == was => Some(ordinal),
            _ => None,
        }
    }
}

impl Obj {
    pub fn new() -> Obj {
        Obj { from: None, members: Vec::new() }
    }

    /// The member whose key is `key`.
    pub fn position(&self, key: &[u8], s: &Sources<'_>) -> Option<usize> {
        self.members.iter().position(|m| match &m.key {
            Key::At(at) => s.key_is(*at, key),
            Key::Text(t) => t == key,
        })
    }
}

/// Opens `val` for editing when it is a container reference; does
/// nothing to a scalar or an already opened container.
pub(crate) fn open(val: &mut Val, s: &Sources<'_>) {
    let Val::At(at) = *val else { return };
    match s.first(at) {
        b'{' => {
            let (pairs, in_order) = s.members(at);
            let members = pairs
                .into_iter()
                .enumerate()
                .map(|(i, (k, v))| Member {
                    key: Key::At(k),
                    val: Val::At(v),
                    // With repeated keys the earlier ones are dropped: no
                    // run of the original may be copied whole.
                    orig: in_order.then_some((i as u32, v)),
                })
                .collect();
            *val = Val::Obj(Box::new(Obj { from: Some(at), members }));
        }
        b'[' => {
            let elems = s
                .elements(at)
                .into_iter()
                .enumerate()
                .map(|(i, v)| Elem { val: Val::At(v), orig: Some((i as u32, v)) })
                .collect();
            *val = Val::Arr(Box::new(Arr { from: Some(at), elems }));
        }
        _ => {}
    }
}

/// A value read without opening anything: a node of the tree, or a
/// reference below one.
#[derive(Clone, Copy)]
pub(crate) enum Ref<'t> {
    Tree(&'t Val),
    At(At),
}

impl Ref<'_> {
    pub fn to_val(self) -> Val {
        match self {
            Ref::Tree(v) => v.clone(),
            Ref::At(at) => Val::At(at),
        }
    }
}
