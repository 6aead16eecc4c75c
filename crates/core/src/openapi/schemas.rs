//! Compiling the spec's schemas with qjson's `Schema`: each schema gets a
//! root of its own holding the `#/components/...` entries it reaches, so
//! its local `$ref`s resolve as they do in the spec; each schema is
//! compiled once (by its pointer), at spec compile time.
//!
//! Every schema compiled here checks a request, so `readOnly` is applied
//! by rewriting the root before it is compiled (`requests_only`): the
//! validator itself knows nothing of OpenAPI's read and write directions.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::errors::SpecError;
use super::pointer::{local_ref, lookup, resolve};
use crate::schema::{objects, Schema, SchemaOptions};

/// Most JSON objects all the compiled schema roots may hold together: a
/// schema's root copies the components it reaches, so a hostile spec
/// (many schemas reaching one large component) could otherwise make
/// compile time and memory quadratic in its size.
pub const OPENAPI_MAX_SCHEMA_OBJECTS: usize = 1_000_000;

/// Which JSON Schema dialect the spec's schemas are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// OpenAPI 3.0's schema object: draft 4 with `nullable`.
    OpenApi30,
    /// OpenAPI 3.1: JSON Schema 2020-12.
    Draft202012,
}

/// Compiles the spec's schemas, sharing those named by the same pointer.
pub(crate) struct SchemaCompiler<'s> {
    spec: &'s Value,
    dialect: Dialect,
    opts: SchemaOptions,
    compiled: HashMap<String, Arc<Schema>>,
    objects: usize,
}

impl<'s> SchemaCompiler<'s> {
    pub(crate) fn new(spec: &'s Value, dialect: Dialect, formats: bool) -> SchemaCompiler<'s> {
        let opts = match dialect {
            Dialect::OpenApi30 => SchemaOptions { openapi: 1, formats: formats as u32, ..Default::default() },
            Dialect::Draft202012 => SchemaOptions { draft: 2020, formats: formats as u32, ..Default::default() },
        };
        SchemaCompiler { spec, dialect, opts, compiled: HashMap::new(), objects: 0 }
    }

    /// The compiled schema at `at` (its `$ref` chain followed first, so
    /// that schemas naming one component share its compiled form) and the
    /// pointer it was compiled from.
    pub(crate) fn compile(&mut self, schema: &'s Value, at: &str) -> Result<(Arc<Schema>, String), SpecError> {
        let (schema, at) = match schema {
            // A `$ref` with siblings is a schema of its own (2020-12).
            Value::Object(m) if m.len() == 1 && m.contains_key("$ref") => resolve(self.spec, schema, at)?,
            _ => (schema, at.to_owned()),
        };
        if let Some(done) = self.compiled.get(&at) {
            return Ok((done.clone(), at));
        }
        let mut root = self.root(schema, &at)?;
        requests_only(self.spec, self.dialect, &mut root);
        self.objects += objects(&root);
        if self.objects > OPENAPI_MAX_SCHEMA_OBJECTS {
            return Err(SpecError::new(
                &at,
                format!("the spec's schemas, each with the components it reaches, hold more than {OPENAPI_MAX_SCHEMA_OBJECTS} objects"),
            ));
        }
        let compiled = Schema::compile_value(root, &self.opts).map_err(|e| {
            // Errors inside a copied component are at their spec pointer.
            let location =
                if e.location.starts_with("/components/") { e.location } else { format!("{at}{}", e.location) };
            SpecError::new(&location, format!("schema does not compile: {}", e.message))
        })?;
        let compiled = Arc::new(compiled);
        self.compiled.insert(at.clone(), compiled.clone());
        Ok((compiled, at))
    }

    /// `schema` with a `components` member holding, at their spec
    /// pointers, the component entries its `$ref`s reach (transitively).
    fn root(&self, schema: &Value, at: &str) -> Result<Value, SpecError> {
        let mut root = schema.clone();
        let mut copied: Map<String, Value> = Map::new();
        let mut pending = refs_in(schema, at);
        let mut seen = std::collections::HashSet::new();
        while let Some((target, from)) = pending.pop() {
            let pointer = local_ref(&target, &from)?;
            let entry = component_entry(pointer).ok_or_else(|| {
                SpecError::new(
                    &from,
                    format!("$ref {target:?}: schemas may refer only into #/components/<kind>/<name>"),
                )
            })?;
            if !seen.insert(entry.clone()) {
                continue;
            }
            let value = lookup(self.spec, &entry)
                .ok_or_else(|| SpecError::new(&from, format!("$ref {target:?} names nothing in the spec")))?;
            if lookup(self.spec, pointer).is_none() {
                return Err(SpecError::new(&from, format!("$ref {target:?} names nothing in the spec")));
            }
            pending.extend(refs_in(value, &entry));
            insert_at(&mut copied, &entry, value.clone());
        }
        if let (Value::Object(m), Some(components)) = (&mut root, copied.remove("components")) {
            if m.contains_key("components") {
                return Err(SpecError::new(
                    &format!("{at}/components"),
                    "a schema keyword named components hides the spec's components from its $refs",
                ));
            }
            m.insert("components".into(), components);
        }
        Ok(root)
    }
}

/// What a read-only property's schema becomes in a request: a schema no
/// value passes, in both dialects (draft 4 has no `false` schema), whose
/// failure `request_failure` recognizes by the unknown keyword it holds.
fn read_only_schema() -> Value {
    serde_json::json!({"not": {"x-qjson": "read-only"}})
}

/// The start of the validator's message for `read_only_schema`'s failure
/// (its `not` names the schema it refused).
const READ_ONLY_FAILURE: &str = r#"{"x-qjson":"read-only"}"#;

/// The keyword location (`schema_at`, the schema's spec pointer, then the
/// failure's location in it) and message of a validation failure as a
/// request error: a read-only property is said to be one, located at its
/// schema.
pub(crate) fn request_failure(schema_at: &str, keyword_location: &str, message: String) -> (String, String) {
    // (Joined by `concat`: one allocation, no formatting machinery.)
    let keyword_location = [schema_at, keyword_location].concat();
    match keyword_location.strip_suffix("/not") {
        Some(property) if message.starts_with(READ_ONLY_FAILURE) => {
            (property.to_owned(), "is read-only: it may not be sent in a request".to_owned())
        }
        _ => (keyword_location, message),
    }
}

/// OpenAPI's `readOnly` in a request (3.0.3's Schema Object: a read-only
/// property "SHOULD NOT be sent as part of the request", and in `required`
/// it is required in responses only; 3.1 takes JSON Schema's `readOnly`,
/// which says the same). In every schema object of `root` with
/// `properties`, each read-only property's schema is replaced by
/// `read_only_schema` and its name dropped from that object's `required`.
/// `writeOnly` properties are ordinary in a request. Values (`const`,
/// `enum`, `default`, examples) are data and left alone.
fn requests_only(spec: &Value, dialect: Dialect, root: &mut Value) {
    let mut pending = vec![root];
    while let Some(v) = pending.pop() {
        match v {
            Value::Object(m) => {
                let mut read_only = Vec::new();
                if let Some(Value::Object(props)) = m.get_mut("properties") {
                    for (name, property) in props.iter_mut() {
                        if is_read_only(spec, dialect, property) {
                            *property = read_only_schema();
                            read_only.push(name.clone());
                        }
                    }
                }
                if let Some(Value::Array(required)) = m.get_mut("required") {
                    required.retain(|r| !read_only.iter().any(|n| r.as_str() == Some(n)));
                    // Draft 4 wants at least one name.
                    if required.is_empty() && !read_only.is_empty() {
                        m.remove("required");
                    }
                }
                pending.extend(
                    m.iter_mut()
                        .filter(|(k, _)| !["const", "enum", "default", "example", "examples"].contains(&k.as_str()))
                        .map(|(_, v)| v),
                );
            }
            Value::Array(a) => pending.extend(a.iter_mut()),
            _ => {}
        }
    }
}

/// Whether a property's schema says `readOnly: true`, itself or through
/// its `$ref` chain (3.0 ignores a `$ref`'s siblings).
fn is_read_only(spec: &Value, dialect: Dialect, schema: &Value) -> bool {
    let own = schema.get("readOnly") == Some(&Value::Bool(true));
    let has_ref = schema.get("$ref").is_some();
    if own && !(has_ref && dialect == Dialect::OpenApi30) {
        return true;
    }
    // A bad $ref is reported when the schema compiles, not here.
    has_ref && resolve(spec, schema, "").is_ok_and(|(target, _)| target.get("readOnly") == Some(&Value::Bool(true)))
}

/// `/components/<kind>/<name>` of a pointer into a component (decoded
/// tokens re-escaped as they were).
fn component_entry(pointer: &str) -> Option<String> {
    let mut tokens = pointer.split('/').skip(1);
    match (tokens.next(), tokens.next(), tokens.next()) {
        (Some("components"), Some(kind), Some(name)) => Some(format!("/components/{kind}/{name}")),
        _ => None,
    }
}

/// Sets `/components/<kind>/<name>` in `map`.
fn insert_at(map: &mut Map<String, Value>, entry: &str, value: Value) {
    let tokens: Vec<&str> = entry.split('/').skip(1).collect();
    let mut map = map;
    for token in &tokens[..tokens.len() - 1] {
        let next = map.entry(token.replace("~1", "/").replace("~0", "~")).or_insert_with(|| Value::Object(Map::new()));
        map = next.as_object_mut().expect("built as objects");
    }
    let last = tokens[tokens.len() - 1].replace("~1", "/").replace("~0", "~");
    map.insert(last, value);
}

/// Every `$ref` string in `v` (at `at`), with the pointer of its object.
fn refs_in(v: &Value, at: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut pending = vec![(v, at.to_owned())];
    while let Some((v, at)) = pending.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    found.push((r.clone(), format!("{at}/$ref")));
                }
                pending.extend(m.iter().map(|(k, v)| (v, super::pointer::join(&at, k))));
            }
            Value::Array(a) => pending.extend(a.iter().enumerate().map(|(i, v)| (v, format!("{at}/{i}")))),
            _ => {}
        }
    }
    found
}
