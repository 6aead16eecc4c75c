//! The two kinds of OpenAPI errors: a spec that cannot be compiled (with
//! its JSON Pointer into the spec) and a request that does not conform.

use std::fmt;

/// A problem in the spec: the message, and where (a JSON Pointer into the
/// spec; empty for the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub message: String,
    pub location: String,
}

impl SpecError {
    pub(crate) fn new(location: &str, message: impl Into<String>) -> SpecError {
        SpecError { message: message.into(), location: location.to_owned() }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.location.is_empty() { "/" } else { &self.location };
        write!(f, "invalid OpenAPI spec at {at}: {}", self.message)
    }
}

impl std::error::Error for SpecError {}

/// Which part of the request an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// No operation for this method and path (404, 405).
    Route,
    Path,
    Query,
    Header,
    Cookie,
    Body,
}

impl Where {
    pub fn as_str(self) -> &'static str {
        match self {
            Where::Route => "route",
            Where::Path => "path",
            Where::Query => "query",
            Where::Header => "header",
            Where::Cookie => "cookie",
            Where::Body => "body",
        }
    }
}

/// Where in the body an error is: 0-based byte, 1-based line and column
/// (in characters), as the schema validator and the parser report them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyPosition {
    pub byte: usize,
    pub line: usize,
    pub column: usize,
}

/// One way a request does not conform to its operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestError {
    pub location: Where,
    /// The parameter's name (empty for the body and the route).
    pub name: String,
    /// JSON Pointer into the parameter's value or the body.
    pub instance_location: String,
    /// JSON Pointer into the spec: the schema keyword that failed, or the
    /// parameter or request body whose rule the request broke.
    pub keyword_location: String,
    pub message: String,
    /// The HTTP status the error implies: 400, 404, 405 or 415.
    pub status: u16,
    /// For body errors located in the body.
    pub position: Option<BodyPosition>,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.location.as_str(), self.name)?;
        if !self.instance_location.is_empty() {
            write!(f, " at {}", self.instance_location)?;
        }
        write!(f, ": {} ({})", self.message, self.status)
    }
}

/// Longest request text an error message quotes whole.
const SHOWN_MAX: usize = 64;

/// A piece of the request quoted in an error message: whole when short,
/// else its start and its length, so that a hostile megabyte value does
/// not become a megabyte message.
pub(crate) fn shown(text: &str) -> String {
    if text.len() <= SHOWN_MAX {
        return format!("{text:?}");
    }
    let mut end = SHOWN_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}... ({} bytes)", &text[..end], text.len())
}
