//! JSON Schema validation of a parsed document, in place: the `jsonschema`
//! crate compiles the schema and walks qjson's tape through its instance
//! traits (`node`), so validation builds no value tree (see docs/design.md
//! for the measurements behind this choice). A schema in a plain subset
//! of keywords also has an acceptance test of qjson's own (`accept`),
//! tried first: what it accepts is valid without the crate.
//!
//! Data flow: schema text → `compile` (options, draft, supplied documents,
//! OpenAPI dialect) → [`Schema`]; document + node → [`Schema::validate`] →
//! [`Failure`]s located in the instance (`report`).

mod accept;
mod bounds;
mod compile;
mod equal;
mod node;
mod numeric;
mod pattern;
pub(crate) mod report;
mod uneval_cost;

use std::collections::HashMap;

use serde_json::Value;

pub use bounds::SCHEMA_VALIDATION_STACK;
pub(crate) use compile::objects;
pub use compile::{
    SchemaDraft, SchemaOptions, SCHEMA_DEFAULT_BACKTRACK_BUDGET, SCHEMA_DEFAULT_BACKTRACK_LIMIT,
    SCHEMA_DEFAULT_MAX_DEPTH, SCHEMA_DEFAULT_MAX_ERRORS, SCHEMA_DEFAULT_REGEX_SIZE_LIMIT, SCHEMA_MAX_DEPTH,
    SCHEMA_MAX_SUBSCHEMAS,
};
pub use node::{TapeJson, TapeNode};
pub use report::{Failure, ERRORS_BYTES_PER_REPORTED};
pub use uneval_cost::SCHEMA_MAX_UNEVALUATED_COST;

use crate::{Document, Error, Node, Options};

/// A schema that cannot be compiled: the message, and where in the schema
/// (a JSON Pointer; empty for the root or when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub message: String,
    pub location: String,
}

impl SchemaError {
    pub(crate) fn new(message: String, location: String) -> SchemaError {
        SchemaError { message, location }
    }
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.location.is_empty() { "/" } else { &self.location };
        write!(f, "invalid schema at {at}: {}", self.message)
    }
}

/// A compiled schema.
pub struct Schema {
    validator: jsonschema::Validator<TapeJson>,
    opts: SchemaOptions,
    /// Subschemas the crate may apply in a row to one instance value.
    subschemas: usize,
    /// The acceptance test of a schema in its subset, tried first.
    accept: Option<accept::Accept>,
}

impl Schema {
    /// Compiles the schema in `text` (JSON); `remotes` is a JSON object
    /// mapping URIs to the documents `$ref` may reach outside `text`.
    pub fn compile(text: &[u8], remotes: Option<&[u8]>, opts: &SchemaOptions) -> Result<Schema, SchemaError> {
        let parse = |what: &str, bytes: &[u8]| {
            serde_json::from_slice::<Value>(bytes).map_err(|e| SchemaError::new(format!("{what}: {e}"), String::new()))
        };
        let schema = parse("schema is not JSON", text)?;
        let remotes: HashMap<String, Value> = match remotes {
            None => HashMap::new(),
            Some(bytes) => match parse("remote documents are not JSON", bytes)? {
                Value::Object(map) => map.into_iter().collect(),
                _ => return Err(SchemaError::new("remote documents must be a JSON object".into(), String::new())),
            },
        };
        let compile::Compiled { validator, subschemas, accept } = compile::compile(schema, remotes, opts)?;
        Ok(Schema { validator, opts: *opts, subschemas, accept })
    }

    /// Compiles a schema already read as a value (the OpenAPI compiler
    /// builds each schema's root from the spec it has read once).
    #[cfg(feature = "openapi")]
    pub(crate) fn compile_value(schema: Value, opts: &SchemaOptions) -> Result<Schema, SchemaError> {
        let compile::Compiled { validator, subschemas, accept } = compile::compile(schema, HashMap::new(), opts)?;
        Ok(Schema { validator, opts: *opts, subschemas, accept })
    }

    pub fn options(&self) -> &SchemaOptions {
        &self.opts
    }

    /// Whether `node` of `doc` is valid. Documents not parsed in strict
    /// mode are parsed again strictly first.
    pub fn is_valid(&self, doc: &Document<'_>, node: Node) -> Result<bool, Error> {
        self.with_instance(doc, node, |input, tape, node| Ok(report::is_valid(self, input, tape, node)))
    }

    /// The errors of `node` of `doc` (at most `max_errors`), empty when valid.
    pub fn validate(&self, doc: &Document<'_>, node: Node) -> Result<Vec<Failure>, Error> {
        self.with_instance(doc, node, |input, tape, node| Ok(report::failures(self, input, tape, node, usize::MAX)))
    }

    /// Parses `input` (strict) and validates its root, building no
    /// document beyond the thread's scratch tape.
    pub fn validate_bytes(&self, input: &[u8]) -> Result<Vec<Failure>, Error> {
        self.validate_bytes_up_to(input, usize::MAX)
    }

    /// As [`Schema::validate_bytes`], at most `cap` errors (at least one;
    /// 1: one walk of an invalid instance, not two).
    pub fn validate_bytes_up_to(&self, input: &[u8], cap: usize) -> Result<Vec<Failure>, Error> {
        Document::parse_then(input, &Options::default(), |doc| {
            report::failures(self, doc.input(), doc.tape(), crate::ROOT, cap.max(1))
        })
    }

    /// As [`Schema::validate_bytes_up_to`] for `text`, one JSON scalar that
    /// qjson's strict parse accepts as it is (the caller built it): no
    /// parse.
    #[cfg(feature = "openapi")]
    pub(crate) fn validate_scalar_up_to(&self, text: &[u8], cap: usize) -> Vec<Failure> {
        report::failures(self, text, &node::SCALAR_TAPE, crate::ROOT, cap)
    }

    /// As [`Schema::validate_bytes`], the boolean alone.
    pub fn is_valid_bytes(&self, input: &[u8]) -> Result<bool, Error> {
        Document::parse_then(input, &Options::default(), |doc| {
            report::is_valid(self, doc.input(), doc.tape(), crate::ROOT)
        })
    }

    fn with_instance<R>(
        &self,
        doc: &Document<'_>,
        node: Node,
        f: impl FnOnce(&[u8], &[u32], Node) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let o = doc.options();
        if o.strict() && !o.lenient_numbers() && (node as usize) < doc.tape_len() {
            return f(doc.input(), doc.tape(), node);
        }
        // A lazy document has not checked its strings and numbers: parse
        // its text again strictly (the tape layout is the same).
        let strict = Options { mode: crate::options::MODE_STRICT, invalid_numbers: 0, ..*o };
        Document::parse_then(doc.input(), &strict, |d| {
            if node as usize >= d.tape_len() {
                return Err(Error::at(crate::ErrorKind::Empty, &[], 0));
            }
            f(d.input(), d.tape(), node)
        })?
    }
}
