//! Compiling a schema: options, the draft, documents the caller supplies,
//! the OpenAPI 3.0 dialect and the bounds on pattern work.

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Retrieve, Uri};
use serde_json::Value;

use super::accept::{self, Accept};
use super::bounds::{self, COMPILE_STACK_PER_SUBSCHEMA};
use super::node::TapeJson;
use super::{equal, numeric, pattern, uneval_cost, SchemaError};

/// Draft codes for `SchemaOptions::draft` (0: from `$schema`, else the
/// latest).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaDraft {
    Auto = 0,
    Draft4 = 4,
    Draft6 = 6,
    Draft7 = 7,
    Draft201909 = 2019,
    Draft202012 = 2020,
}

/// Default bound on the instance's nesting depth (the validator recurses).
pub const SCHEMA_DEFAULT_MAX_DEPTH: u32 = 256;
/// The most `max_depth` may be: an error's instance is a `serde_json::Value`,
/// which is copied and dropped recursively.
pub const SCHEMA_MAX_DEPTH: u32 = 2_000;
/// Default bound on backtracking steps per `pattern` match.
pub const SCHEMA_DEFAULT_BACKTRACK_LIMIT: u32 = 100_000;
/// Default bound on the backtracking steps of all the `pattern` matches of
/// one validation (see `pattern.rs` for what a match costs).
pub const SCHEMA_DEFAULT_BACKTRACK_BUDGET: u32 = 1_000_000;
/// Most subschemas a schema (with its supplied documents) may have: the
/// crate compiles and validates recursively, on a stack sized from it.
pub const SCHEMA_MAX_SUBSCHEMAS: usize = 100_000;
/// Default bound on a compiled `pattern`'s size, in bytes.
pub const SCHEMA_DEFAULT_REGEX_SIZE_LIMIT: u32 = 1 << 20;
/// Default number of errors `validate` reports.
pub const SCHEMA_DEFAULT_MAX_ERRORS: u32 = 100;

/// Options of a compiled schema, laid out for the C ABI. Zero in a bound
/// means its default.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SchemaOptions {
    /// A `SchemaDraft` code.
    pub draft: u32,
    /// Non-zero: `format` is an assertion, not an annotation.
    pub formats: u32,
    /// Non-zero: OpenAPI 3.0's dialect (draft 4 with `nullable`).
    pub openapi: u32,
    /// Deepest instance nesting validated; deeper instances fail.
    pub max_depth: u32,
    /// Errors `validate` reports at most.
    pub max_errors: u32,
    /// Backtracking steps per `pattern` match before it fails.
    pub backtrack_limit: u32,
    /// Compiled size of a `pattern`, in bytes.
    pub regex_size_limit: u32,
    /// Backtracking steps all the `pattern` matches of one validation may
    /// take before it fails.
    pub backtrack_budget: u32,
}

impl SchemaOptions {
    pub(crate) fn max_depth(&self) -> usize {
        or_default(self.max_depth, SCHEMA_DEFAULT_MAX_DEPTH)
    }
    pub(crate) fn max_errors(&self) -> usize {
        or_default(self.max_errors, SCHEMA_DEFAULT_MAX_ERRORS)
    }
    pub(crate) fn backtrack_budget(&self) -> u64 {
        or_default(self.backtrack_budget, SCHEMA_DEFAULT_BACKTRACK_BUDGET) as u64
    }
}

fn or_default(v: u32, default: u32) -> usize {
    if v == 0 {
        default as usize
    } else {
        v as usize
    }
}

fn draft(code: u32) -> Result<Option<Draft>, SchemaError> {
    Ok(match code {
        0 => None,
        4 => Some(Draft::Draft4),
        6 => Some(Draft::Draft6),
        7 => Some(Draft::Draft7),
        2019 => Some(Draft::Draft201909),
        2020 => Some(Draft::Draft202012),
        _ => return Err(SchemaError::new(format!("unknown draft {code}"), String::new())),
    })
}

/// Serves the documents the caller supplied, by URI (without fragment);
/// anything else is an error: qjson never fetches. (The drafts' own
/// meta-schemas come from the registry the crate resolves from, under
/// every draft.)
#[derive(Clone)]
struct Supplied(Arc<HashMap<String, Value>>);

fn not_supplied(uri: &str) -> String {
    format!("{uri} is not among the supplied documents (qjson never fetches)")
}

impl Retrieve for Supplied {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str().split('#').next().unwrap_or_default();
        match self.0.get(key) {
            Some(v) => Ok(v.clone()),
            None => Err(not_supplied(key).into()),
        }
    }
}

/// A compiled schema, how many subschemas it may apply in a row to one
/// instance value (its objects and its supplied documents' objects), and
/// its acceptance test when it has one.
pub(crate) struct Compiled {
    pub(crate) validator: jsonschema::Validator<TapeJson>,
    pub(crate) subschemas: usize,
    pub(crate) accept: Option<Accept>,
}

/// Compiles `schema` with `remotes` (URI → document) available to `$ref`.
pub(crate) fn compile(
    mut schema: Value,
    remotes: HashMap<String, Value>,
    opts: &SchemaOptions,
) -> Result<Compiled, SchemaError> {
    let mut draft = draft(opts.draft)?;
    if opts.max_depth > SCHEMA_MAX_DEPTH {
        return Err(SchemaError::new(
            format!("max_depth is at most {SCHEMA_MAX_DEPTH}, got {}", opts.max_depth),
            String::new(),
        ));
    }
    if opts.openapi != 0 {
        nullable_to_type(&mut schema);
        draft = draft.or(Some(Draft::Draft4));
    }
    let subschemas = objects(&schema) + remotes.values().map(objects).sum::<usize>() + *META_SCHEMA_OBJECTS;
    if subschemas > SCHEMA_MAX_SUBSCHEMAS {
        return Err(SchemaError::new(
            format!("{subschemas} subschemas (with the supplied documents), more than {SCHEMA_MAX_SUBSCHEMAS}"),
            String::new(),
        ));
    }
    let limits = pattern::Limits {
        backtrack_limit: or_default(opts.backtrack_limit, SCHEMA_DEFAULT_BACKTRACK_LIMIT),
        size_limit: or_default(opts.regex_size_limit, SCHEMA_DEFAULT_REGEX_SIZE_LIMIT),
    };
    // The crate resolves `$ref`s to the drafts' meta-schemas from its
    // registry, where it puts only the schema's own draft's: a registry
    // holding them all, and the custom meta-schema the root names (from
    // which the crate learns the draft); other documents on demand.
    let supplied = Supplied(Arc::new(remotes));
    let meta = schema
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(|uri| supplied.0.get_key_value(uri.trim_end_matches('#')));
    let registry = referencing::SPECIFICATIONS
        .extend(meta.map(|(uri, doc)| (uri.as_str(), doc.clone())))
        .and_then(|r| r.retriever(supplied.clone()).prepare())
        .map_err(|e| SchemaError::new(format!("$schema: {e}"), String::new()))?;
    let draft_of_root = draft.unwrap_or_else(|| Draft::default().detect(&schema));
    uneval_cost::check(&schema, &supplied.0, &registry, supplied.clone(), draft_of_root, draft.is_some(), subschemas)?;
    let mut builder = jsonschema::options_for::<TapeJson>()
        .with_retriever(supplied)
        .with_registry(&registry)
        .with_pattern_options(limits.linear())
        .should_validate_formats(opts.formats != 0);
    // qjson's own `pattern`, numeric keywords and `const` (custom keywords,
    // which run whatever the vocabularies): unless the schema's custom
    // meta-schema leaves the validation vocabulary out, when the crate
    // does not run its own either.
    if registry.find_vocabularies(draft_of_root, &schema).contains(&referencing::Vocabulary::Validation) {
        builder = builder.with_keyword("pattern", move |_, value, location| pattern::keyword(limits, value, location));
        for (name, factory) in
            numeric::KEYWORDS.into_iter().chain([("const", equal::const_keyword as numeric::Factory)])
        {
            builder = builder.with_keyword(name, move |parent, value, location| factory(parent, value, location));
        }
    }
    if let Some(d) = draft {
        builder = builder.with_draft(d);
    }
    // The crate compiles recursively, through `$ref`s too: on a stack with
    // room for every subschema. It also panics on some schemas it should
    // refuse (0.61.2: a `$dynamicRef` into a resource whose `$id` another
    // subschema repeats, found by fuzz/fuzz_targets/schema_differential.rs):
    // such a schema is refused like any other that does not compile.
    let need = subschemas.saturating_mul(COMPILE_STACK_PER_SUBSCHEMA) + bounds::COMPILE_STACK;
    match bounds::on_stack(need, || crate::panic::catch(|| builder.build(&schema))) {
        Ok(Ok(Ok(validator))) => {
            let cx = accept::Context { formats: opts.formats != 0, draft4: draft_of_root == Draft::Draft4, limits };
            Ok(Compiled { validator, subschemas, accept: Accept::compile(&schema, &cx) })
        }
        Ok(Ok(Err(e))) => Err(compile_error(&e)),
        Ok(Err(why)) => {
            Err(SchemaError::new(format!("the jsonschema crate cannot compile this schema ({why})"), String::new()))
        }
        Err(_) => unreachable!("compiling checks no bound"),
    }
}

/// The crate's compile error in qjson's words: where in the schema, and
/// why, without the crate's rendering of the schema value.
fn compile_error(e: &jsonschema::ValidationError<'_>) -> SchemaError {
    let at = e.instance_path().as_str().to_owned();
    let message = match e.kind() {
        ValidationErrorKind::Referencing(r) => match r {
            jsonschema::ReferencingError::Unretrievable { uri, .. } => not_supplied(uri),
            other => format!("$ref cannot be resolved: {other}"),
        },
        ValidationErrorKind::Format { format } if format == "regex" => {
            format!("not a regular expression qjson can run with its linear-time engine (patterns that need backtracking, with backreferences or lookaround, run only under the pattern keyword): {}", e.instance())
        }
        ValidationErrorKind::Custom { message, .. } => message.clone(),
        _ => e.masked_with("the schema's value").to_string(),
    };
    SchemaError::new(message, at)
}

/// Objects in a JSON value (an upper bound on its subschemas).
pub(crate) fn objects(v: &Value) -> usize {
    let mut n = 0;
    let mut pending = vec![v];
    while let Some(v) = pending.pop() {
        match v {
            Value::Object(m) => {
                n += 1;
                pending.extend(m.values());
            }
            Value::Array(a) => pending.extend(a),
            _ => {}
        }
    }
    n
}

/// Objects of the meta-schemas a `$ref` may reach, under every draft.
static META_SCHEMA_OBJECTS: std::sync::LazyLock<usize> = std::sync::LazyLock::new(|| {
    use referencing::meta::*;
    [
        &DRAFT4,
        &DRAFT6,
        &DRAFT7,
        &DRAFT201909,
        &DRAFT201909_APPLICATOR,
        &DRAFT201909_CONTENT,
        &DRAFT201909_CORE,
        &DRAFT201909_FORMAT,
        &DRAFT201909_META_DATA,
        &DRAFT201909_VALIDATION,
        &DRAFT202012,
        &DRAFT202012_CORE,
        &DRAFT202012_APPLICATOR,
        &DRAFT202012_UNEVALUATED,
        &DRAFT202012_VALIDATION,
        &DRAFT202012_META_DATA,
        &DRAFT202012_FORMAT_ANNOTATION,
        &DRAFT202012_FORMAT_ASSERTION,
        &DRAFT202012_CONTENT,
    ]
    .iter()
    .map(|m| objects(m))
    .sum()
});

/// OpenAPI 3.0's `nullable: true` as draft 4 says it: `null` added to
/// `type` (and to `enum`, which would otherwise still reject it).
fn nullable_to_type(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if map.get("nullable") == Some(&Value::Bool(true)) {
                match map.get_mut("type") {
                    Some(Value::String(t)) => {
                        let t = Value::String(std::mem::take(t));
                        map.insert("type".into(), Value::Array(vec![t, Value::from("null")]));
                    }
                    Some(Value::Array(ts)) if !ts.contains(&Value::from("null")) => ts.push(Value::from("null")),
                    _ => {}
                }
                if let Some(Value::Array(e)) = map.get_mut("enum") {
                    if !e.contains(&Value::Null) {
                        e.push(Value::Null);
                    }
                }
            }
            map.values_mut().for_each(nullable_to_type);
        }
        Value::Array(items) => items.iter_mut().for_each(nullable_to_type),
        _ => {}
    }
}
