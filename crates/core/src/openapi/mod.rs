//! OpenAPI 3.0/3.1 request validation: a spec compiled once into an
//! immutable [`Api`] (`spec`), then per request one route lookup
//! (`router`), each declared parameter parsed by its style and coerced
//! strictly (`params`, `query`, `coerce`, `shape`), and the body checked
//! by qjson's JSON Schema validator over qjson's parse (`body`; form
//! bodies read as a query string is, `form`); all
//! schemas compiled with [`crate::schema::Schema`] (`schemas`).

mod body;
mod coerce;
mod errors;
mod form;
mod params;
mod pointer;
mod problem;
mod query;
mod router;
mod schemas;
mod shape;
mod spec;
mod validate;
#[cfg(feature = "yaml")]
mod yaml;

use std::sync::Arc;

pub use errors::{BodyPosition, RequestError, SpecError, Where};
pub use pointer::OPENAPI_MAX_REF_CHAIN;
pub use problem::{problem_json, problem_title, ProblemItem};
pub use schemas::OPENAPI_MAX_SCHEMA_OBJECTS;
#[cfg(feature = "yaml")]
pub use yaml::{OPENAPI_MAX_YAML_COPIED, OPENAPI_MAX_YAML_DEPTH};

/// Default cap on the errors `validate_request` returns.
pub const OPENAPI_DEFAULT_MAX_ERRORS: usize = 100;

/// Options of a compiled spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiOptions {
    /// Most errors a request gets (1: the first only; 0: the default).
    pub max_errors: usize,
    /// `format` is an assertion in the spec's schemas, not an annotation.
    pub formats: bool,
}

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions { max_errors: OPENAPI_DEFAULT_MAX_ERRORS, formats: false }
    }
}

/// One request, as a gateway has it.
pub struct Request<'a> {
    /// The HTTP method, any case.
    pub method: &'a str,
    /// The raw (percent-encoded) path, without the query.
    pub path: &'a str,
    /// The raw query string, without '?'.
    pub query: Option<&'a str>,
    /// A header's value by its lower-case name: only declared headers are
    /// asked for.
    pub headers: &'a dyn Fn(&str) -> Option<&'a [u8]>,
    pub body: Option<&'a [u8]>,
    pub content_type: Option<&'a str>,
}

impl<'a> Request<'a> {
    /// A request from the bytes a binding has (Lua strings): the one error
    /// of a request whose method, path, query or content type is not
    /// UTF-8 (400; no route or parameter of a spec can read it) otherwise.
    pub fn from_bytes(
        method: &'a [u8],
        path: &'a [u8],
        query: Option<&'a [u8]>,
        headers: &'a dyn Fn(&str) -> Option<&'a [u8]>,
        body: Option<&'a [u8]>,
        content_type: Option<&'a [u8]>,
    ) -> Result<Request<'a>, Vec<RequestError>> {
        let text = |b: &'a [u8], location: Where, what: &str| {
            std::str::from_utf8(b).map_err(|_| {
                vec![RequestError {
                    location,
                    name: String::new(),
                    instance_location: String::new(),
                    keyword_location: String::new(),
                    message: format!("the {what} is not UTF-8"),
                    status: 400,
                    position: None,
                }]
            })
        };
        Ok(Request {
            method: text(method, Where::Route, "method")?,
            path: text(path, Where::Route, "path")?,
            query: query.map(|q| text(q, Where::Query, "query string")).transpose()?,
            headers,
            body,
            content_type: content_type.map(|c| text(c, Where::Body, "content type")).transpose()?,
        })
    }
}

/// The operation a valid request matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched<'a> {
    pub operation_id: Option<&'a str>,
    /// The path template, as in the spec's `paths`.
    pub template: &'a str,
    /// Each path parameter's name and its value as JSON text.
    pub path_params: Vec<(&'a str, String)>,
}

/// A compiled spec.
pub struct Api {
    router: router::Router,
    paths: Vec<PathItem>,
    /// The servers' base paths, longest first ("" for the root).
    bases: Vec<String>,
    opts: ApiOptions,
}

struct PathItem {
    /// Lower-case method → operation.
    operations: Vec<(String, Operation)>,
    /// The template's variable names, in order.
    variables: Vec<String>,
}

struct Operation {
    id: Option<String>,
    template: String,
    params: Vec<Arc<params::Param>>,
    body: Option<body::Body>,
    /// The lower-case header names `params` read.
    headers: Vec<String>,
}

impl Api {
    /// Compiles a spec given as JSON or YAML text (YAML when its first
    /// byte other than white space is not `{`, with the `yaml` feature).
    pub fn compile(spec: &[u8], opts: &ApiOptions) -> Result<Api, SpecError> {
        let mut opts = *opts;
        if opts.max_errors == 0 {
            opts.max_errors = OPENAPI_DEFAULT_MAX_ERRORS;
        }
        spec::compile(spec, &opts)
    }

    /// Checks `req`: the operation it matched, or its errors (at most
    /// `max_errors`; 404 and 405 alone).
    pub fn validate_request(&self, req: &Request<'_>) -> Result<Matched<'_>, Vec<RequestError>> {
        validate::request(self, req)
    }

    /// The lower-case names of the headers that `validate_request` would
    /// ask for on a request with this method and path (none when it has no
    /// route): a binding reads just these from its caller first, then
    /// validates with a lookup that makes no call back.
    pub fn header_names(&self, method: &str, path: &str) -> &[String] {
        match validate::route(self, method, path) {
            Ok((_, op, _)) => &op.headers,
            Err(_) => &[],
        }
    }

    /// Every header name any operation reads, each once (lower case): a
    /// binding given a table of headers may read these few up front and
    /// skip the per-request `header_names`.
    pub fn all_header_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for op in self.paths.iter().flat_map(|p| &p.operations).map(|(_, op)| op) {
            for name in &op.headers {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        names
    }
}
