//! Validation errors as qjson reports them: where in the instance (JSON
//! Pointer, byte, line, column), which keyword, and a message.

use jsonschema::json::{Array, Json, Node, Object};

use super::node::{TapeJson, TapeNode};
use super::SchemaOptions;
use crate::error::{Error, ErrorKind};

/// One validation error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// JSON Pointer to the failing value, from the validated node.
    pub instance_location: String,
    /// JSON Pointer to the keyword in the schema, through any `$ref`.
    pub keyword_location: String,
    pub message: String,
    /// Where the failing value starts in the input: 0-based byte, 1-based
    /// line and column (in characters).
    pub byte: usize,
    pub line: usize,
    pub column: usize,
}

/// The errors of `root` (at most `opts.max_errors()`).
pub(crate) fn failures(v: &jsonschema::Validator<TapeJson>, root: TapeNode<'_>, opts: &SchemaOptions) -> Vec<Failure> {
    let depth = root.depth();
    if depth > opts.max_depth() {
        let message =
            format!("instance nested {depth} deep, deeper than the schema's max_depth ({})", opts.max_depth());
        return vec![failure(root, root, String::new(), String::new(), message)];
    }
    if v.is_valid(root) {
        return Vec::new();
    }
    let report = |e: jsonschema::ValidationError<'_>| {
        let at = e.instance_path().as_str().to_owned();
        let node = locate(root, &at);
        failure(root, node, at, e.evaluation_path().as_str().to_owned(), e.masked().to_string())
    };
    // The crate collects every error before the first is returned (a few
    // hundred bytes each): a large instance reports its first error only,
    // which the crate finds without collecting the others.
    if root.slots() > ALL_ERRORS_MAX_SLOTS {
        return v.validate(root).err().into_iter().map(report).collect();
    }
    v.iter_errors(root).take(opts.max_errors()).map(report).collect()
}

/// Largest instance (in tape slots, about one per key and value) for
/// which `validate` reports every error, up to `max_errors`.
pub const ALL_ERRORS_MAX_SLOTS: usize = 16384;

fn failure(root: TapeNode<'_>, node: TapeNode<'_>, at: String, keyword: String, message: String) -> Failure {
    let byte = node.offset();
    let Error { line, column, .. } = Error::at(ErrorKind::Empty, root.input(), byte);
    Failure { instance_location: at, keyword_location: keyword, message, byte, line, column }
}

/// The node a JSON Pointer names below `root` (the deepest one found).
fn locate<'a>(root: TapeNode<'a>, pointer: &str) -> TapeNode<'a> {
    let mut node = root;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = if let Some(o) = node.as_object() {
            o.get(&TapeJson::prepare_key(&token))
        } else if let Some(a) = node.as_array() {
            token.parse::<usize>().ok().and_then(|i| a.elements().nth(i))
        } else {
            None
        };
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    node
}
