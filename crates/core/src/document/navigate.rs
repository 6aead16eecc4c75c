//! Moving through a document: kinds, children, counts, member and element
//! lookup (with the indexes of `lookup` for large containers), and paths.

use super::lookup::{self, Lookup};
use super::{Document, WIDE_SPAN};
use crate::error::Error;
use crate::path::{self, PathError, Segment};
use crate::stage2;
use crate::string;
use crate::tape::{self, Kind, Node};

impl Document<'_> {
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
    pub(super) fn is_container(&self, node: Node) -> bool {
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

    /// The child of container `parent` whose subtree holds node `target`
    /// (for an object, the member's key node) and its index among the
    /// children, or `None` when `target` is not inside `parent`. Reads no
    /// value: in lazy mode the children passed on the way are not checked
    /// (a read reports the errors of what it reads, not of its siblings).
    pub fn child_holding(&self, parent: Node, target: Node) -> Option<(Node, usize)> {
        // (The C ABI takes any numbers.)
        if parent as usize >= self.tape_len() {
            return None;
        }
        let mut child = self.first_child(parent)?;
        if target < child || target >= self.members_end(parent) {
            return None;
        }
        let object = self.first_byte(parent) == b'{';
        let mut index = 0;
        loop {
            let next = if object { self.skip(child + 1) } else { self.skip(child) };
            if target < next {
                return Some((child, index));
            }
            child = next;
            index += 1;
        }
    }

    /// Whether stage 2 proved that no two keys of object `obj` are equal
    /// (see `tape::UNIQUE_KEYS`).
    #[inline(always)]
    pub(super) fn keys_proven_unique(&self, obj: Node) -> bool {
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
        // A plain key, the commonest path, is its one segment: looked up
        // without the segment parser.
        if path.first().is_some_and(|&c| c != b'/') && !path.iter().any(|&c| matches!(c, b'.' | b'[' | b']')) {
            return Ok(self.member(base, path));
        }
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
}
