//! The parse pipeline: stage 1 and stage 2 run over buffers kept per
//! thread, so that a parse makes only its own allocations (the document
//! and an exact copy of its tape). A parse may also be measured first and
//! placed afterwards in memory the caller owns ([`measure`], [`place`]),
//! or lend its tape to one read without copying it ([`with_tape`]).

use std::cell::RefCell;

use crate::error::{Error, ErrorKind};
use crate::options::Options;
use crate::stage1;
use crate::stage2::{self, Open};

/// Stage 1's index, stage 2's tape and container stack, reused across
/// parses so that a parse makes only its own two allocations: the document
/// and an exactly sized copy of its tape.
#[derive(Default)]
struct Buffers {
    index: Vec<u32>,
    tape: Vec<u32>,
    stack: Vec<Open>,
    /// The input (address, length) and options `tape` was last built for
    /// by [`measure`]; cleared by every other build.
    measured: Option<(usize, usize, Options)>,
    /// Stage 1's `escape_room` for the last build.
    escape_room: usize,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// Scratch buffers larger than this are released after the parse.
const KEEP_SCRATCH_ENTRIES: usize = 1 << 22;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What `Buffers::measured` holds for a build of `input` with `opts`.
fn measured_key(input: &[u8], opts: &Options) -> Option<(usize, usize, Options)> {
    Some((input.as_ptr() as usize, input.len(), *opts))
}

/// The tape of `input`, copied out of the thread's buffers.
pub(crate) fn build_tape(input: &[u8], opts: &Options) -> Result<Vec<u32>, Error> {
    with_tape(input, opts, false, |tape| tape.to_vec())
}

/// Builds the tape of `input` in the thread's scratch buffers and hands it
/// to `keep`, which copies it out or lends it to a one-shot reader (which
/// must not parse). `measure` asks stage 1 for the room unescaped strings
/// need (see [`measure`]).
pub(crate) fn with_tape<R>(
    input: &[u8],
    opts: &Options,
    measure: bool,
    keep: impl FnOnce(&mut Vec<u32>) -> R,
) -> Result<R, Error> {
    if input.starts_with(BOM) {
        return Err(Error::at(ErrorKind::ByteOrderMark, input, 0));
    }
    if input.len() > u32::MAX as usize {
        return Err(Error::at(ErrorKind::TooLarge, &[], 0));
    }
    BUFFERS.with(|s| {
        let s = &mut *s.borrow_mut();
        s.measured = None;
        let info = stage1::scan(input, opts.strict(), measure, &mut s.index);
        s.escape_room = info.escape_room;
        let built = stage2::build(input, &s.index, &info, opts, &mut s.tape, &mut s.stack);
        let tape = built.map(|()| keep(&mut s.tape));
        for v in [&mut s.index, &mut s.tape] {
            if v.capacity() > KEEP_SCRATCH_ENTRIES {
                *v = Vec::new();
            }
        }
        if s.stack.capacity() > KEEP_SCRATCH_ENTRIES {
            s.stack = Vec::new();
        }
        tape
    })
}

/// The bytes the last build needs in caller memory: its tape, then room to
/// unescape strings into.
fn placed_size(s: &Buffers) -> usize {
    s.tape.len() * 4 + s.escape_room.next_multiple_of(4)
}

/// Parses `input` into the thread's buffers and returns the bytes
/// [`place`] needs for it.
pub(crate) fn measure(input: &[u8], opts: &Options) -> Result<usize, Error> {
    with_tape(input, opts, true, |_| ())?;
    BUFFERS.with(|s| {
        let mut s = s.borrow_mut();
        s.measured = measured_key(input, opts);
        Ok(placed_size(&s))
    })
}

/// The bytes [`measure`] returned for `input`, when it was the last parse
/// on this thread.
pub(crate) fn measured_size(input: &[u8], opts: &Options) -> Option<usize> {
    BUFFERS.with(|s| {
        let s = s.borrow();
        (s.measured == measured_key(input, opts)).then(|| placed_size(&s))
    })
}

/// The tape [`measure`] built for `input`, copied out, or a fresh one when
/// another parse ran since.
pub(crate) fn measured_tape(input: &[u8], opts: &Options) -> Result<Vec<u32>, Error> {
    let key = measured_key(input, opts);
    let measured = BUFFERS.with(|s| {
        let s = s.borrow();
        (s.measured == key).then(|| s.tape.to_vec())
    });
    match measured {
        Some(tape) => Ok(tape),
        None => build_tape(input, opts),
    }
}

/// Copies the tape measured for `input` (measuring it again when another
/// parse ran since) to the start of `mem`. Returns its slot count and the
/// bytes of unescaping room the document needs after it, or `None` when
/// `mem` is too small for both.
pub(crate) fn place(input: &[u8], opts: &Options, mem: &mut [u32]) -> Result<Option<(usize, usize)>, Error> {
    let key = measured_key(input, opts);
    if BUFFERS.with(|s| s.borrow().measured != key) {
        // (Measured, so that a caller whose memory is too small can still
        // place or box this parse: `measured_size`.)
        measure(input, opts)?;
    }
    Ok(BUFFERS.with(|s| {
        let s = s.borrow();
        let (slots, room) = (s.tape.len(), s.escape_room);
        let fits = slots <= mem.len() && (mem.len() - slots) * 4 >= room;
        if fits {
            mem[..slots].copy_from_slice(&s.tape);
        }
        fits.then_some((slots, room))
    }))
}
