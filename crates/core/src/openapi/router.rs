//! Method-independent routing of a path to a path template: a trie of
//! segments, literal segments tried before templated ones (as OpenAPI
//! says: `/pets/mine` before `/pets/{petId}`), templated ones with more
//! literal text first. A lookup visits each trie node at most once, so it
//! is linear in the trie's size at worst, and in the path's segments for
//! the usual specs.
//!
//! A path is split at its raw `/` only, so `%2F` never splits a segment.
//! Literal segments compare percent-decoded (`/caf%C3%A9` is the spec's
//! `/café`); template variables bind the raw text, which their style
//! decodes, and so do the literal parts of a templated segment.

use std::borrow::Cow;
use std::collections::HashMap;

use super::errors::SpecError;

/// One part of a templated segment: `{name}.{ext}` is var, literal, var.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var(String),
}

#[derive(Default)]
struct Node {
    /// Literal segments, percent-decoded, and their nodes, sorted by
    /// segment once all paths are in (`finish`): found by bisection, no
    /// hashing per segment of a request's path.
    literal: Vec<(String, usize)>,
    /// Templated segments and their nodes, the most literal text first.
    templated: Vec<(Vec<Part>, usize)>,
    /// The path template ending here (an index the caller gave).
    target: Option<usize>,
}

#[derive(Default)]
pub(crate) struct Router {
    nodes: Vec<Node>,
    /// While paths are inserted: (node, literal segment) → child.
    children: HashMap<(usize, String), usize>,
}

/// A route found: the caller's index, and the raw (still percent-encoded)
/// text of each template variable, in the template's order (`variables`).
pub(crate) struct Route<'r, 'p> {
    pub(crate) target: usize,
    pub(crate) values: &'r [&'p str],
}

impl Router {
    /// Adds `template` (at spec pointer `at`) leading to `target`.
    pub(crate) fn insert(&mut self, template: &str, target: usize, at: &str) -> Result<(), SpecError> {
        if self.nodes.is_empty() {
            self.nodes.push(Node::default());
        }
        let rest = template.strip_prefix('/').ok_or_else(|| SpecError::new(at, "a path must start with '/'"))?;
        let mut node = 0;
        for segment in rest.split('/') {
            let parts =
                parts(segment).map_err(|why| SpecError::new(at, format!("path template {template:?}: {why}")))?;
            node = match parts.as_slice() {
                [Part::Literal(l)] => self.literal_child(node, l),
                [] => self.literal_child(node, ""),
                _ => self.templated_child(node, parts),
            };
        }
        if self.nodes[node].target.is_some() {
            return Err(SpecError::new(
                at,
                format!("path {template:?} is the same as another one but for its parameters' names"),
            ));
        }
        self.nodes[node].target = Some(target);
        Ok(())
    }

    fn literal_child(&mut self, node: usize, segment: &str) -> usize {
        let key = (node, decoded(segment).into_owned());
        if let Some(&n) = self.children.get(&key) {
            return n;
        }
        let n = self.push();
        self.nodes[node].literal.push((key.1.clone(), n));
        self.children.insert(key, n);
        n
    }

    fn templated_child(&mut self, node: usize, parts: Vec<Part>) -> usize {
        let shape = |ps: &[Part]| {
            ps.iter().map(|p| matches!(p, Part::Literal(l) if !l.is_empty()).then(|| p.clone())).collect::<Vec<_>>()
        };
        if let Some((_, n)) = self.nodes[node].templated.iter().find(|(ps, _)| shape(ps) == shape(&parts)) {
            return *n;
        }
        let n = self.push();
        let templated = &mut self.nodes[node].templated;
        templated.push((parts, n));
        templated.sort_by_key(|(ps, _)| std::cmp::Reverse(literal_len(ps)));
        n
    }

    /// Ends the inserts: sorts each node's literal segments for `find`.
    pub(crate) fn finish(mut self) -> Router {
        for node in &mut self.nodes {
            node.literal.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        }
        self.children = HashMap::new();
        self
    }

    fn push(&mut self) -> usize {
        self.nodes.push(Node::default());
        self.nodes.len() - 1
    }

    /// The routes of `path` in preference order, passed to `accept` until
    /// it takes one (returns true); whether any route matched at all.
    pub(crate) fn find<'p>(&self, path: &'p str, accept: &mut dyn FnMut(&Route<'_, 'p>) -> bool) -> bool {
        let Some(rest) = path.strip_prefix('/') else { return false };
        if self.nodes.is_empty() {
            return false;
        }
        let segments: Vec<(&str, Cow<'_, str>)> = rest.split('/').map(|s| (s, decoded(s))).collect();
        let mut vars = Vec::new();
        let mut matched = false;
        self.walk(0, &segments, &mut vars, &mut matched, accept);
        matched
    }

    /// Depth-first over the trie; true once `accept` took a route.
    fn walk<'p>(
        &self,
        node: usize,
        segments: &[(&'p str, Cow<'_, str>)],
        vars: &mut Vec<&'p str>,
        matched: &mut bool,
        accept: &mut dyn FnMut(&Route<'_, 'p>) -> bool,
    ) -> bool {
        let n = &self.nodes[node];
        let Some(((segment, literal), rest)) = segments.split_first() else {
            return match n.target {
                Some(target) => {
                    *matched = true;
                    accept(&Route { target, values: vars })
                }
                None => false,
            };
        };
        if let Ok(at) = n.literal.binary_search_by(|(l, _)| l.as_str().cmp(literal.as_ref())) {
            if self.walk(n.literal[at].1, rest, vars, matched, accept) {
                return true;
            }
        }
        for (parts, child) in &n.templated {
            let before = vars.len();
            if bind(parts, segment, vars) && self.walk(*child, rest, vars, matched, accept) {
                return true;
            }
            vars.truncate(before);
        }
        false
    }
}

/// A literal segment as compared: percent-decoded, or as it is when that
/// is not UTF-8 (then only the same raw text matches it).
fn decoded(segment: &str) -> Cow<'_, str> {
    if !segment.contains('%') {
        return Cow::Borrowed(segment);
    }
    percent_encoding::percent_decode_str(segment).decode_utf8().unwrap_or(Cow::Borrowed(segment))
}

/// A segment's parts; adjacent variables cannot be told apart.
fn parts(segment: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut rest = segment;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(Part::Literal(rest[..open].to_owned()));
        }
        let close = rest[open..].find('}').ok_or("'{' without '}'")? + open;
        let name = &rest[open + 1..close];
        if name.is_empty() || name.contains('{') {
            return Err("a template variable needs a name".into());
        }
        if matches!(parts.last(), Some(Part::Var(_))) {
            return Err("two template variables side by side cannot be told apart".into());
        }
        parts.push(Part::Var(name.to_owned()));
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return Err("'}' without '{'".into());
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest.to_owned()));
    }
    Ok(parts)
}

fn literal_len(parts: &[Part]) -> usize {
    parts.iter().map(|p| if let Part::Literal(l) = p { l.len() } else { 0 }).sum()
}

/// Binds `segment` to `parts`, each variable taking the text up to the
/// first occurrence of the literal after it (the last one takes the rest).
fn bind<'p>(parts: &[Part], segment: &'p str, vars: &mut Vec<&'p str>) -> bool {
    let mut rest = segment;
    let mut i = 0;
    while i < parts.len() {
        match &parts[i] {
            Part::Literal(l) => match rest.strip_prefix(l.as_str()) {
                Some(r) => rest = r,
                None => return false,
            },
            Part::Var(_) => {
                let end = match parts.get(i + 1) {
                    Some(Part::Literal(l)) => match rest.find(l.as_str()) {
                        Some(e) => e,
                        None => return false,
                    },
                    _ => rest.len(),
                };
                vars.push(&rest[..end]);
                rest = &rest[end..];
            }
        }
        i += 1;
    }
    rest.is_empty()
}

/// The variable names of a path template, in order.
pub(crate) fn variables(template: &str) -> Vec<String> {
    template
        .split('/')
        .filter_map(|s| parts(s).ok())
        .flatten()
        .filter_map(|p| if let Part::Var(v) = p { Some(v) } else { None })
        .collect()
}
