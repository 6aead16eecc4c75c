//! The bounds of one compile or validation (docs/security.md, "Schema
//! validation: depth, work, memory"): the native stack it may use, the
//! backtracking its patterns may do, and the memory `validate`'s errors
//! may take.
//!
//! The `jsonschema` crate recurses, through the instance and through the
//! schema's `$ref`s; it runs on a stack of known size here. Every descent
//! into the instance passes `TapeNode::as_array`/`as_object`, which checks
//! the stack pointer against a limit; between two checks the crate can only
//! go through subschemas applied to the same value, each subschema at most
//! once (a `$ref` cycle is cut by the crate's guard), so a red zone of
//! `subschemas x STACK_PER_SUBSCHEMA` below the limit always holds it. An
//! exhausted bound ends the validation by unwinding with an [`Abort`],
//! caught where it started: no frame of the crate is left half done, and
//! nothing it keeps between validations is touched by the unwinding (its
//! per-thread caches are `RefCell`s, released as the stack unwinds).

use std::cell::Cell;

use super::node::TapeNode;

/// Stack bytes a subschema applied to the same instance value may take in
/// the crate's recursion (`validate` and `is_valid` alike): 4 times the
/// most measured (a chain of `oneOf`s under `validate`, 491 bytes a
/// subschema; docs/design.md); tests/schema_bounds.rs runs chains of
/// 40,000 in a child process.
pub(crate) const STACK_PER_SUBSCHEMA: usize = 2048;
/// Stack bytes compiling one subschema may take in the crate's recursion
/// (10 times the 26 bytes measured), beyond `COMPILE_STACK`.
pub(crate) const COMPILE_STACK_PER_SUBSCHEMA: usize = 4096;
/// Stack a compile takes whatever its size (serde_json nests a schema 128
/// levels deep at most).
pub(crate) const COMPILE_STACK: usize = 1 << 20;
/// Stack the instance's nesting may use, whatever the schema: the bound
/// that a deep instance (times the `$ref`s each level goes through) meets.
pub const SCHEMA_VALIDATION_STACK: usize = 4 << 20;
/// Room for everything that runs past a check: the crate's leaf keywords,
/// the regex engines, qjson's own frames, the unwinding.
const MARGIN: usize = 256 << 10;

/// Why a validation stopped before its end.
#[derive(Debug)]
pub(crate) enum Abort {
    /// The stack left for the instance's nesting ran out at this slot.
    Stack(u32),
    /// A pattern could not be matched within the backtracking left: the
    /// whole budget (`budget`), or one match's `backtrack_limit`.
    Backtrack { at: u32, keyword: String, budget: bool },
    /// `validate`'s errors reached their memory bound.
    Errors,
    /// The validation read instance values more often than its work
    /// budget allows, stopped at this slot.
    Work(u32),
}

/// Ends the validation (or compile) with `why`, unwinding to [`run`].
pub(crate) fn abort(why: Abort) -> ! {
    // `resume_unwind` does not run the panic hook: nothing is reported.
    std::panic::resume_unwind(Box::new(why))
}

/// The budgets of one validation, shared by all its nodes.
pub(crate) struct Bounds {
    /// A descent into the instance below this stack address aborts.
    stack_limit: usize,
    /// Backtracking steps the validation's patterns may still take.
    backtrack_left: Cell<u64>,
    /// Bytes of errors `validate` may still build (`usize::MAX`: errors
    /// are not being collected).
    error_bytes_left: Cell<usize>,
    /// Reads of instance values the validation may still make.
    work_left: Cell<u64>,
}

/// What one error costs `validate`'s budget: its own size, with room for
/// the strings it may carry (`additionalProperties` and `unevaluated*`
/// list the names or texts of what the object or array it is about holds,
/// so an error about a container also counts each of its tape slots).
pub(crate) const ERROR_BYTES: usize = 512;
const ERROR_BYTES_PER_SLOT: usize = 128;

impl Bounds {
    /// Bounds that never stop anything (a node made outside a validation).
    pub(crate) fn unbounded() -> Bounds {
        Bounds {
            stack_limit: 0,
            backtrack_left: Cell::new(u64::MAX),
            error_bytes_left: Cell::new(usize::MAX),
            work_left: Cell::new(u64::MAX),
        }
    }

    /// Counts one read of the instance value at slot `at` (every keyword
    /// reads its value's first byte, `TapeNode::first`). Once the budget
    /// is spent the validation stops; the reads that locate the error
    /// after that are free.
    #[inline(always)]
    pub(crate) fn charge_work(&self, at: u32) {
        let left = self.work_left.get();
        if left == 0 {
            self.work_left.set(u64::MAX);
            abort(Abort::Work(at));
        }
        self.work_left.set(left - 1);
    }

    #[inline(always)]
    pub(crate) fn check_stack(&self, at: u32) {
        if stack_pointer() < self.stack_limit {
            abort(Abort::Stack(at));
        }
    }

    /// Counts one error about `node` (`validate` only).
    pub(crate) fn charge_error(&self, node: &TapeNode<'_>) {
        let left = self.error_bytes_left.get();
        if left == usize::MAX {
            return;
        }
        let mut cost = ERROR_BYTES;
        if matches!(node.first(), b'[' | b'{') {
            cost += node.slots().saturating_mul(ERROR_BYTES_PER_SLOT);
        }
        match left.checked_sub(cost) {
            Some(left) => self.error_bytes_left.set(left),
            None => abort(Abort::Errors),
        }
    }

    /// Takes `steps` of backtracking from the budget; false when fewer are left.
    pub(crate) fn take_backtracking(&self, steps: u64) -> bool {
        match self.backtrack_left.get().checked_sub(steps) {
            Some(left) => {
                self.backtrack_left.set(left);
                true
            }
            None => false,
        }
    }
}

/// The budgets a run starts with.
pub(crate) struct Limits {
    /// Subschemas that may be applied to one instance value in a row.
    pub(crate) subschemas: usize,
    pub(crate) backtracking: u64,
    /// `None`: errors are not collected (`is_valid`, or the first error).
    pub(crate) error_bytes: Option<usize>,
    /// Reads of instance values the run may make (see [`work_budget`]).
    pub(crate) work: u64,
}

/// Reads of instance values one validation may make: a keyword reads the
/// value it applies to, so a validation that applies each of `subschemas`
/// at most a few times to each of the instance's `slots` (about one a key,
/// value and container) stays well within it; work that grows faster
/// (`anyOf` branches that all lead to the same subschema, nested: twice
/// the work per level) meets it. Documented in docs/security.md.
pub(crate) fn work_budget(slots: usize, subschemas: usize) -> u64 {
    let per_pair = (slots as u64 + 1).saturating_mul(subschemas as u64 + 1);
    WORK_FLOOR.saturating_add(per_pair.saturating_mul(WORK_PER_SLOT_AND_SUBSCHEMA))
}

/// The work every validation may do, however small.
pub(crate) const WORK_FLOOR: u64 = 1_000_000;
/// Reads allowed per instance slot and subschema, beyond the floor.
pub(crate) const WORK_PER_SLOT_AND_SUBSCHEMA: u64 = 64;

/// The error of one of qjson's own keywords about `node`, counted as the
/// crate's are (the crate gives it a `serde_json::Value` of `node`).
pub(crate) fn custom_error<'i>(node: &TapeNode<'_>, message: String) -> jsonschema::ValidationError<'i> {
    node.walk().bounds.charge_error(node);
    jsonschema::ValidationError::custom(message)
}

/// An address in the current stack frame.
#[inline(always)]
fn stack_pointer() -> usize {
    let here = 0u8;
    std::hint::black_box(&here) as *const u8 as usize
}

/// Runs `f` with `limits`, on a stack that has room for them (this one
/// when it has, else one of its own), and catches an [`Abort`].
pub(crate) fn run<R>(limits: &Limits, f: impl FnOnce(Bounds) -> R) -> Result<R, Abort> {
    let red_zone = limits.subschemas.saturating_mul(STACK_PER_SUBSCHEMA);
    let need = red_zone.saturating_add(SCHEMA_VALIDATION_STACK + MARGIN);
    let bounds = |sp: usize| Bounds {
        stack_limit: sp.saturating_sub(SCHEMA_VALIDATION_STACK),
        backtrack_left: Cell::new(limits.backtracking),
        error_bytes_left: Cell::new(limits.error_bytes.unwrap_or(usize::MAX)),
        work_left: Cell::new(limits.work),
    };
    on_stack(need, || f(bounds(stack_pointer())))
}

/// Runs `f` with at least `need` bytes of stack (a stack of its own when
/// this one has less left), catching an [`Abort`].
pub(crate) fn on_stack<R>(need: usize, f: impl FnOnce() -> R) -> Result<R, Abort> {
    let caught = stacker::maybe_grow(need, need.saturating_add(MARGIN), || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    });
    match caught {
        Ok(r) => Ok(r),
        Err(payload) => match payload.downcast::<Abort>() {
            Ok(why) => Err(*why),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}
