//! What compiling a schema's `unevaluatedProperties` and `unevaluatedItems`
//! costs, counted before the `jsonschema` crate compiles them
//! (docs/security.md, "Schema validation: depth, work, memory").
//!
//! For each of these keywords (but `true`), the crate (0.61.2,
//! `keywords/unevaluated_*.rs`) builds a tree of its own of the subschemas
//! applied to the same value: through `$ref`, `$dynamicRef`,
//! `$recursiveRef`, `allOf`, `anyOf`, `oneOf`, `if`, `then`, `else` (and
//! `dependentSchemas`, for properties). It cuts a cycle (a subschema
//! already on the path) and nothing else: a subschema reached by two paths
//! is built twice, and two keywords share nothing. Past a reference it also
//! compiles again, at the referring location, the subschemas it needs whole
//! (the branches, `if`, `additionalProperties`, `patternProperties`,
//! `contains`, the `unevaluated*` values), with the trees of the
//! `unevaluated*` inside them. A chain of n `$defs`, each an
//! `unevaluated*` beside a link to the next, costs n²/2; one of `anyOf`s of
//! two links, 2^n. The walk here counts the same, every path, and stops at
//! [`SCHEMA_MAX_UNEVALUATED_COST`].

use std::collections::{HashMap, HashSet};

use referencing::{Draft, Registry, Resolver};
use serde_json::{Map, Value};

use super::SchemaError;

/// Most subschemas the `unevaluatedProperties` and `unevaluatedItems` of
/// a schema (with its supplied documents) may make the crate build, each
/// counted on every path it is reached by: the crate builds a tree of them
/// per keyword, about 2 KB a subschema, so that a chain of `$defs` each
/// holding one grows the compile's memory and time with the square of its
/// length (figures in docs/security.md).
pub const SCHEMA_MAX_UNEVALUATED_COST: usize = 25_000;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Properties,
    Items,
}

impl Kind {
    fn keyword(self) -> &'static str {
        match self {
            Kind::Properties => "unevaluatedProperties",
            Kind::Items => "unevaluatedItems",
        }
    }

    /// Keywords whose subschemas the crate compiles whole again at a node
    /// of the tree reached through a reference.
    fn whole(self) -> &'static [&'static str] {
        match self {
            Kind::Properties => {
                &["allOf", "anyOf", "oneOf", "if", "additionalProperties", "patternProperties", "unevaluatedProperties"]
            }
            Kind::Items => &["allOf", "anyOf", "oneOf", "if", "contains", "unevaluatedItems"],
        }
    }
}

enum Task<'r> {
    /// A subschema of a keyword's tree; `moved`: reached through a reference.
    Tree { schema: &'r Map<String, Value>, resolver: Resolver<'r>, draft: Draft, kind: Kind, moved: bool },
    /// A value the crate compiles whole again.
    Whole { value: &'r Value, resolver: Resolver<'r>, draft: Draft },
    /// The tree is done with this subschema (address, kind).
    Leave(usize, Kind),
}

struct Walk<'r> {
    left: usize,
    /// Subschemas being built (the crate's pending ones), by address.
    on_path: HashSet<(usize, Kind)>,
    tasks: Vec<Task<'r>>,
    /// Objects of all the documents: the charge for a reference this walk
    /// cannot resolve.
    everything: usize,
}

/// The unevaluated keyword beside `schema` that builds a tree (`true` builds none).
fn kinds(schema: &Map<String, Value>) -> impl Iterator<Item = Kind> + '_ {
    [Kind::Properties, Kind::Items]
        .into_iter()
        .filter(|k| schema.get(k.keyword()).is_some_and(|v| v != &Value::Bool(true)))
}

/// `resolver` inside `value` (a `$id` there moves the base URI).
fn inside<'r>(resolver: &Resolver<'r>, draft: Draft, value: &Value) -> Resolver<'r> {
    resolver.in_subresource(draft.detect(value).create_resource_ref(value)).unwrap_or_else(|_| resolver.clone())
}

impl<'r> Walk<'r> {
    fn charge(&mut self, n: usize) -> Result<(), ()> {
        self.left = self.left.checked_sub(n).ok_or(())?;
        Ok(())
    }

    /// Runs the tasks until none is left, or the budget runs out.
    fn run(&mut self) -> Result<(), ()> {
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Leave(at, kind) => {
                    self.on_path.remove(&(at, kind));
                }
                Task::Whole { value, resolver, draft } => match value {
                    Value::Object(map) => {
                        self.charge(1)?;
                        let resolver = inside(&resolver, draft, value);
                        for kind in kinds(map) {
                            let (resolver, moved) = (resolver.clone(), false);
                            self.tasks.push(Task::Tree { schema: map, resolver, draft, kind, moved });
                        }
                        for v in map.values().filter(|v| v.is_object() || v.is_array()) {
                            self.tasks.push(Task::Whole { value: v, resolver: resolver.clone(), draft });
                        }
                    }
                    Value::Array(items) => {
                        for v in items.iter().filter(|v| v.is_object() || v.is_array()) {
                            self.tasks.push(Task::Whole { value: v, resolver: resolver.clone(), draft });
                        }
                    }
                    _ => {}
                },
                Task::Tree { schema, resolver, draft, kind, moved } => {
                    self.tree(schema, resolver, draft, kind, moved)?
                }
            }
        }
        Ok(())
    }

    fn tree(
        &mut self,
        schema: &'r Map<String, Value>,
        resolver: Resolver<'r>,
        draft: Draft,
        kind: Kind,
        moved: bool,
    ) -> Result<(), ()> {
        let at = schema as *const Map<String, Value> as usize;
        if !self.on_path.insert((at, kind)) {
            return Ok(());
        }
        self.charge(1)?;
        self.tasks.push(Task::Leave(at, kind));
        if moved {
            for value in kind.whole().iter().filter_map(|k| schema.get(*k)) {
                self.tasks.push(Task::Whole { value, resolver: resolver.clone(), draft });
            }
        }
        let branches = ["allOf", "anyOf", "oneOf"].iter().filter_map(|k| schema.get(*k)?.as_array()).flatten();
        let conditional = ["if", "then", "else"].iter().filter_map(|k| schema.get(*k));
        let dependent = match (kind, schema.get("dependentSchemas")) {
            (Kind::Properties, Some(Value::Object(m))) => Some(m.values()),
            _ => None,
        };
        for sub in branches.chain(conditional).chain(dependent.into_iter().flatten()) {
            if let Value::Object(map) = sub {
                let resolver = inside(&resolver, draft, sub);
                self.tasks.push(Task::Tree { schema: map, resolver, draft, kind, moved });
            }
        }
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            let resolved = match schema.get(keyword) {
                None => continue,
                Some(_) if keyword == "$recursiveRef" => resolver.lookup_recursive_ref(),
                Some(Value::String(reference)) => resolver.lookup(reference),
                Some(_) => continue,
            };
            match resolved.map(|r| r.into_inner()) {
                Ok((Value::Object(map), resolver, draft)) => {
                    self.tasks.push(Task::Tree { schema: map, resolver, draft, kind, moved: true })
                }
                Ok(_) => {}
                // (The crate fails the compile on it, or resolves it as
                // this walk cannot: all of every document, once.)
                Err(_) => self.charge(self.everything)?,
            }
        }
        Ok(())
    }

    /// Starts the tree of every unevaluated keyword in `value` (at `path`
    /// of document `uri`); the first to run out of budget is the error.
    fn starts(
        &mut self,
        value: &'r Value,
        resolver: &Resolver<'r>,
        draft: Draft,
        path: &mut Vec<Segment<'r>>,
        uri: Option<&str>,
    ) -> Result<(), SchemaError> {
        match value {
            Value::Object(map) => {
                let resolver = inside(resolver, draft, value);
                for kind in kinds(map) {
                    let moved = false;
                    self.tasks.push(Task::Tree { schema: map, resolver: resolver.clone(), draft, kind, moved });
                    if self.run().is_err() {
                        return Err(refused(path, kind, uri));
                    }
                }
                for (key, child) in map {
                    path.push(Segment::Key(key));
                    self.starts(child, &resolver, draft, path, uri)?;
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    path.push(Segment::Index(i));
                    self.starts(child, resolver, draft, path, uri)?;
                    path.pop();
                }
            }
            _ => {}
        }
        Ok(())
    }
}

enum Segment<'r> {
    Key(&'r str),
    Index(usize),
}

fn refused(path: &[Segment<'_>], kind: Kind, uri: Option<&str>) -> SchemaError {
    let mut at = uri.map(|u| format!("{u}#")).unwrap_or_default();
    for segment in path {
        match segment {
            Segment::Key(k) => at.push_str(&format!("/{}", k.replace('~', "~0").replace('/', "~1"))),
            Segment::Index(i) => at.push_str(&format!("/{i}")),
        }
    }
    at.push('/');
    at.push_str(kind.keyword());
    SchemaError::new(
        format!(
            "with the unevaluated keywords before it, this one makes more than {SCHEMA_MAX_UNEVALUATED_COST} subschemas to build (each counted on every path through $ref, $dynamicRef, $recursiveRef, allOf, anyOf, oneOf, if, then, else and dependentSchemas)"
        ),
        at,
    )
}

/// Whether any object of `v` holds an unevaluated keyword that builds a tree.
fn any_unevaluated(v: &Value) -> bool {
    match v {
        Value::Object(map) => kinds(map).next().is_some() || map.values().any(any_unevaluated),
        Value::Array(items) => items.iter().any(any_unevaluated),
        _ => false,
    }
}

/// Refuses a schema whose unevaluated keywords would make the crate build
/// more than [`SCHEMA_MAX_UNEVALUATED_COST`] subschemas. `registry` holds
/// the supplied documents (and the drafts'), `objects` the objects of all
/// the documents; `draft_given`: the draft is the caller's, not the schema's.
pub(crate) fn check(
    schema: &Value,
    remotes: &HashMap<String, Value>,
    registry: &Registry<'_>,
    retriever: impl referencing::Retrieve + 'static,
    draft: Draft,
    draft_given: bool,
    objects: usize,
) -> Result<(), SchemaError> {
    if !any_unevaluated(schema) && !remotes.values().any(any_unevaluated) {
        return Ok(());
    }
    // The root at the base URI the crate gives it, in a registry built as
    // the crate builds its own (whose errors fail the compile).
    let resource = draft.create_resource_ref(schema);
    let Ok(base) = referencing::uri::from_str(resource.id().unwrap_or("json-schema:///")) else {
        return Ok(());
    };
    let with_root = registry
        .add(base.as_str(), resource)
        .and_then(|r| r.retriever(retriever).draft(draft).retrieve_known_draft_meta_schemas(!draft_given).prepare());
    let Ok(with_root) = with_root else {
        return Ok(());
    };
    let mut walk =
        Walk { left: SCHEMA_MAX_UNEVALUATED_COST, on_path: HashSet::new(), tasks: Vec::new(), everything: objects };
    walk.starts(schema, &with_root.resolver(base), draft, &mut Vec::new(), None)?;
    // The supplied documents a reference reaches, as the registry holds them.
    for uri in remotes.keys() {
        let Ok(base) = referencing::uri::from_str(uri) else { continue };
        if with_root.contains_resource(base.as_str()) {
            if let Ok((doc, resolver, draft)) = with_root.resolver(base).lookup("").map(|r| r.into_inner()) {
                walk.starts(doc, &resolver, draft, &mut Vec::new(), Some(uri))?;
            }
        }
    }
    Ok(())
}
