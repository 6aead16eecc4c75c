//! Compiling a schema: options, the draft, documents the caller supplies,
//! the OpenAPI 3.0 dialect and the bounds on pattern work.

use std::collections::HashMap;

use jsonschema::{Draft, PatternOptions, Retrieve, Uri};
use serde_json::Value;

use super::node::TapeJson;
use super::SchemaError;

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
/// Default bound on backtracking steps per `pattern` match.
pub const SCHEMA_DEFAULT_BACKTRACK_LIMIT: u32 = 100_000;
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
}

impl SchemaOptions {
    pub(crate) fn max_depth(&self) -> usize {
        or_default(self.max_depth, SCHEMA_DEFAULT_MAX_DEPTH)
    }
    pub(crate) fn max_errors(&self) -> usize {
        or_default(self.max_errors, SCHEMA_DEFAULT_MAX_ERRORS)
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
/// anything else is an error: qjson never fetches.
struct Supplied(HashMap<String, Value>);

impl Retrieve for Supplied {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str().split('#').next().unwrap_or_default();
        match self.0.get(key) {
            Some(v) => Ok(v.clone()),
            None => Err(format!("{key} is not among the supplied documents (qjson never fetches)").into()),
        }
    }
}

/// Compiles `schema` with `remotes` (URI → document) available to `$ref`.
pub(crate) fn compile(
    mut schema: Value,
    remotes: HashMap<String, Value>,
    opts: &SchemaOptions,
) -> Result<jsonschema::Validator<TapeJson>, SchemaError> {
    let mut draft = draft(opts.draft)?;
    if opts.openapi != 0 {
        nullable_to_type(&mut schema);
        draft = draft.or(Some(Draft::Draft4));
    }
    let patterns = PatternOptions::fancy_regex()
        .backtrack_limit(or_default(opts.backtrack_limit, SCHEMA_DEFAULT_BACKTRACK_LIMIT))
        .size_limit(or_default(opts.regex_size_limit, SCHEMA_DEFAULT_REGEX_SIZE_LIMIT))
        .dfa_size_limit(or_default(opts.regex_size_limit, SCHEMA_DEFAULT_REGEX_SIZE_LIMIT));
    let mut builder = jsonschema::options_for::<TapeJson>()
        .with_retriever(Supplied(remotes))
        .with_pattern_options(patterns)
        .should_validate_formats(opts.formats != 0);
    if let Some(d) = draft {
        builder = builder.with_draft(d);
    }
    // The crate panics on some schemas it should refuse (0.61.2: a
    // `$dynamicRef` into a resource whose `$id` another subschema repeats,
    // found by fuzz/fuzz_targets/schema_differential.rs): such a schema
    // is refused like any other that does not compile.
    match crate::panic::catch(|| builder.build(&schema)) {
        Ok(r) => r.map_err(|e| SchemaError::new(e.to_string(), e.instance_path().as_str().to_owned())),
        Err(why) => {
            Err(SchemaError::new(format!("the jsonschema crate cannot compile this schema ({why})"), String::new()))
        }
    }
}

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
