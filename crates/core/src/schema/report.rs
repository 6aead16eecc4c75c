//! Validation errors as qjson reports them: where in the instance (JSON
//! Pointer, byte, line, column), which keyword, and a message.

use std::fmt::Write;

use jsonschema::json::{Array, Json, Node, Object};

use super::bounds::{self, Abort, Bounds, Limits};
use super::node::{TapeJson, TapeNode, Walk};
use super::Schema;
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

/// Bytes of errors `validate` may build per error it reports (see
/// `bounds::ERROR_BYTES` for what an error counts): past `max_errors`
/// (at least the default, 100) times this, it reports the first error
/// only.
pub const ERRORS_BYTES_PER_REPORTED: usize = 64 << 10;

/// How a run of the crate over the value at `at` goes: which budgets, and
/// whether it collects errors.
fn limits(schema: &Schema, input: &[u8], tape: &[u32], at: u32, error_bytes: Option<usize>) -> Limits {
    let slots = (crate::tape::skip(tape, at, input[crate::tape::offset(tape, at)]) - at) as usize;
    Limits {
        subschemas: schema.subschemas,
        backtracking: schema.opts.backtrack_budget(),
        error_bytes,
        work: bounds::work_budget(slots, schema.subschemas),
    }
}

/// Runs `f` on the node `at` of the document, within `limits`.
fn walk<R>(
    input: &[u8],
    tape: &[u32],
    at: u32,
    limits: &Limits,
    f: impl for<'w> FnOnce(TapeNode<'w>) -> R,
) -> Result<R, Box<(Abort, Failure)>> {
    let mut stopped = None;
    let r = bounds::run(limits, |bounds| {
        let walk = Walk::new(input, tape, bounds);
        let root = TapeNode::new(&walk, at);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(root))) {
            Ok(r) => Some(r),
            Err(payload) => {
                // Located while the walk is alive, then raised again.
                if let Some(why) = payload.downcast_ref::<Abort>() {
                    stopped = Some(aborted(root, why, limits));
                }
                std::panic::resume_unwind(payload)
            }
        }
    });
    match r {
        Ok(Some(r)) => Ok(r),
        Ok(None) => unreachable!("a run returns or unwinds"),
        Err(why) => Err(Box::new((why, stopped.expect("located before unwinding")))),
    }
}

/// Whether the schema's acceptance test (`accept`) passes `at`: valid
/// without running the crate.
pub(super) fn accepted(schema: &Schema, input: &[u8], tape: &[u32], at: u32) -> bool {
    let Some(accept) = &schema.accept else { return false };
    let walk = Walk::new(input, tape, Bounds::unbounded());
    let root = TapeNode::new(&walk, at);
    depth_over(root, schema.opts.max_depth()).is_none() && accept.accepts(root)
}

/// Whether `at` is valid (a run stopped by a bound is not).
pub(crate) fn is_valid(schema: &Schema, input: &[u8], tape: &[u32], at: u32) -> bool {
    accepted(schema, input, tape, at) || crate_is_valid(schema, input, tape, at)
}

/// As [`is_valid`], by the crate alone.
pub(super) fn crate_is_valid(schema: &Schema, input: &[u8], tape: &[u32], at: u32) -> bool {
    walk(input, tape, at, &limits(schema, input, tape, at, None), |root| {
        depth_over(root, schema.opts.max_depth()).is_none() && schema.validator.is_valid(root)
    })
    .unwrap_or(false)
}

/// The nesting of `root` when deeper than `max`. Each level of nesting
/// takes a container's two header slots, so a value of at most `2 * max`
/// slots is within `max` without walking it (every parameter, most bodies).
fn depth_over(root: TapeNode<'_>, max: usize) -> Option<usize> {
    if root.slots() <= max.saturating_mul(crate::tape::HEADER) {
        return None;
    }
    let depth = root.depth();
    (depth > max).then_some(depth)
}

/// The errors of `at` (at most `max_errors`, and at most `cap`).
pub(crate) fn failures(schema: &Schema, input: &[u8], tape: &[u32], at: u32, cap: usize) -> Vec<Failure> {
    if accepted(schema, input, tape, at) {
        return Vec::new();
    }
    let opts = &schema.opts;
    let v = &schema.validator;
    if cap.min(opts.max_errors()) == 1 {
        return first_failure(schema, input, tape, at).into_iter().collect();
    }
    let first = walk(input, tape, at, &limits(schema, input, tape, at, None), |root| {
        if let Some(f) = too_deep(root, opts.max_depth()) {
            return Some(vec![f]);
        }
        (!v.is_valid(root)).then(Vec::new)
    });
    match first {
        Ok(None) => return Vec::new(),
        Ok(Some(f)) if !f.is_empty() => return f,
        Ok(Some(_)) => {}
        Err(stopped) => return vec![stopped.1],
    }
    // The crate builds every error (those of `anyOf`'s failing branches
    // too) before returning any: the bytes they may take are bounded, and
    // past the bound the report is the first error, which the crate finds
    // without collecting the others.
    let bytes =
        opts.max_errors().max(super::SCHEMA_DEFAULT_MAX_ERRORS as usize).saturating_mul(ERRORS_BYTES_PER_REPORTED);
    let all = walk(input, tape, at, &limits(schema, input, tape, at, Some(bytes)), |root| {
        v.iter_errors(root).take(opts.max_errors().min(cap)).map(|e| report_error(root, e)).collect::<Vec<_>>()
    });
    match all {
        Ok(all) => all,
        Err(stopped) if matches!(stopped.0, Abort::Errors) => {
            match walk(input, tape, at, &limits(schema, input, tape, at, None), |root| {
                v.validate(root).err().map(|e| report_error(root, e))
            }) {
                Ok(first) => first.into_iter().collect(),
                Err(stopped) => vec![stopped.1],
            }
        }
        Err(stopped) => vec![stopped.1],
    }
}

/// The first error of `at`, in one walk: the crate's `validate` stops at
/// the error `iter_errors` would give first, so a caller that wants one
/// error neither walks the instance twice nor builds the others.
fn first_failure(schema: &Schema, input: &[u8], tape: &[u32], at: u32) -> Option<Failure> {
    let first = walk(input, tape, at, &limits(schema, input, tape, at, None), |root| {
        too_deep(root, schema.opts.max_depth())
            .or_else(|| schema.validator.validate(root).err().map(|e| report_error(root, e)))
    });
    first.unwrap_or_else(|stopped| Some(stopped.1))
}

/// The failure of an instance nested deeper than `max_depth`, if it is.
fn too_deep(root: TapeNode<'_>, max_depth: usize) -> Option<Failure> {
    let depth = depth_over(root, max_depth)?;
    let message = format!("instance nested {depth} deep, deeper than the schema's max_depth ({max_depth})");
    Some(failure(root, root, String::new(), String::new(), message))
}

/// A failure from one of the crate's errors, located in the instance.
fn report_error(root: TapeNode<'_>, e: jsonschema::ValidationError<'_>) -> Failure {
    let at = e.instance_path().as_str().to_owned();
    let node = locate(root, &at);
    // (Written into room made once: the crate's Display writes a message
    // in many small pieces.)
    let mut message = String::with_capacity(MESSAGE_ROOM);
    write!(message, "{}", e.masked()).expect("writing to a String cannot fail");
    failure(root, node, at, e.evaluation_path().as_str().to_owned(), message)
}

/// Bytes reserved for an error's message (most are shorter).
const MESSAGE_ROOM: usize = 128;

/// The error of a run a bound stopped, located at the value it stopped on.
fn aborted(root: TapeNode<'_>, why: &Abort, limits: &Limits) -> Failure {
    let (slot, keyword, message) = match why {
        Abort::Stack(slot) => (
            *slot,
            String::new(),
            format!(
                "instance nested too deep for this schema: validating it takes more than the {} MB of stack a validation may use (its nesting times the subschemas each level goes through)",
                bounds::SCHEMA_VALIDATION_STACK >> 20
            ),
        ),
        Abort::Backtrack { at, keyword, budget: true } => (
            *at,
            keyword.clone(),
            format!(
                "pattern matching needs more backtracking than the validation's backtrack_budget ({} steps) allows",
                limits.backtracking
            ),
        ),
        Abort::Backtrack { at, keyword, budget: false } => {
            (*at, keyword.clone(), "pattern cannot be matched within backtrack_limit steps of backtracking".to_owned())
        }
        Abort::Errors => (root.slot(), String::new(), "too many errors".to_owned()),
        Abort::Work(slot) => (
            *slot,
            String::new(),
            format!(
                "validation needs more work than this schema and instance allow ({} reads of the instance's values)",
                limits.work
            ),
        ),
    };
    let (pointer, node) = pointer_to(root, slot);
    failure(root, node, pointer, keyword, message)
}

/// The JSON Pointer from `root` to the value at `slot` (for a key's slot,
/// its member), and that value's node.
fn pointer_to<'a>(root: TapeNode<'a>, slot: u32) -> (String, TapeNode<'a>) {
    let mut pointer = String::new();
    let mut node = root;
    let escape = |s: &str| s.replace('~', "~0").replace('/', "~1");
    'descend: while node.slot() != slot {
        match node.first() {
            b'[' => {
                for (i, e) in node.elements_of().enumerate() {
                    if (e.slot()..e.skip()).contains(&slot) {
                        pointer.push_str(&format!("/{i}"));
                        node = e;
                        continue 'descend;
                    }
                }
            }
            b'{' => {
                let mut k = node.first_member();
                while k < node.members_end() {
                    let value = node.at(k + 1);
                    if (k..value.skip()).contains(&slot) {
                        pointer.push('/');
                        pointer.push_str(&escape(&node.at(k).text()));
                        node = value;
                        continue 'descend;
                    }
                    k = value.skip();
                }
            }
            _ => {}
        }
        break;
    }
    (pointer, node)
}

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
