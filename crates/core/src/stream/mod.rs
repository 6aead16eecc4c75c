//! Streams of JSON values: NDJSON, concatenated JSON and server-sent
//! events. A [`Splitter`] finds where each value is; it does not parse
//! them (the caller parses or selects each value). It works on a whole
//! buffer at once, or incrementally on chunks (`feed`), keeping only the
//! incomplete tail, never more than `max` bytes of it.
//!
//! What a call found stays in the splitter until its next call, and no
//! longer than that: the buffers give back what exceeds [`KEEP_BYTES`]
//! when the next call starts (or at [`Splitter::trim`]), so a splitter
//! kept idle (in a pool, or between a gateway's chunks) does not hold the
//! peak of a large value.
//!
//! `lines.rs` has NDJSON and SSE (line formats), `concat.rs` concatenated
//! JSON.

mod concat;
mod lines;

/// The formats a splitter reads.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamFormat {
    /// One value per line (`\n`, optionally `\r\n`); blank lines skipped.
    Ndjson = 0,
    /// Values one after another, separated by optional whitespace.
    Concat = 1,
    /// Server-sent events: each event's `data:` lines, joined with `\n`,
    /// are one value; `data: [DONE]` ends the stream; comments and other
    /// fields are skipped.
    Sse = 2,
}

impl StreamFormat {
    pub fn from_u32(v: u32) -> Option<StreamFormat> {
        match v {
            0 => Some(StreamFormat::Ndjson),
            1 => Some(StreamFormat::Concat),
            2 => Some(StreamFormat::Sse),
            _ => None,
        }
    }
}

/// Where a value is: `len` bytes at `start` of the data (the buffer the
/// call split) or, for `joined` 1, of the joined area (an SSE event with
/// several `data:` lines). `at` is its position in the whole stream.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub at: u64,
    pub len: u32,
    pub joined: u32,
}

/// A splitting error: what and where in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    pub message: String,
    pub at: u64,
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {} of the stream", self.message, self.at)
    }
}

/// Per-format progress kept between chunks.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    /// Where the unfinished line or value starts, in the stream.
    pub(crate) start: u64,
    /// Where scanning resumes, in the stream (past what was seen).
    pub(crate) scan: u64,
    // Concatenated JSON: inside a value, its nesting and string state.
    pub(crate) in_value: bool,
    pub(crate) depth: u32,
    pub(crate) in_string: bool,
    pub(crate) escaped: bool,
    pub(crate) scalar: bool,
    // SSE: the current event's data lines (stream position, length).
    pub(crate) data: Vec<(u64, u32)>,
    pub(crate) data_len: usize,
    pub(crate) event_at: u64,
    // SSE: the stream's first bytes were checked for a byte-order mark.
    pub(crate) bom_checked: bool,
}

/// The most bytes a value may have: its length is a `u32` in a [`Span`]
/// (and the parser takes at most 4 GiB).
pub const MAX_SIZE: usize = u32::MAX as usize;

/// Bytes each of a splitter's buffers keeps between calls; beyond that,
/// what a large value or a long buffer made it grow to is given back.
pub const KEEP_BYTES: usize = 64 << 10;

/// Gives back `v`'s capacity beyond `KEEP_BYTES` (or twice what it holds).
fn shrink<T>(v: &mut Vec<T>) {
    let keep = (KEEP_BYTES / std::mem::size_of::<T>().max(1)).max(2 * v.len());
    if v.capacity() > keep {
        v.shrink_to(keep);
    }
}

/// Finds the values of a stream.
pub struct Splitter {
    pub(crate) format: StreamFormat,
    pub(crate) max: usize,
    /// Incremental use: the bytes kept (from stream position `base`).
    buf: Vec<u8>,
    base: u64,
    pub(crate) state: State,
    pub(crate) spans: Vec<Span>,
    pub(crate) joined: Vec<u8>,
    /// `[DONE]` seen (SSE): the rest of the stream is ignored.
    pub(crate) done: bool,
    failed: Option<StreamError>,
    /// The last call was `split_all`: a `feed` starts a new stream.
    whole: bool,
    /// A feed said the stream ends: only that end may be repeated.
    ended: bool,
}

impl Splitter {
    /// A splitter whose values may have up to `max` bytes (at least 1, at
    /// most [`MAX_SIZE`]: a larger `max` is taken as `MAX_SIZE`).
    pub fn new(format: StreamFormat, max: usize) -> Splitter {
        Splitter {
            format,
            max: max.clamp(1, MAX_SIZE),
            buf: Vec::new(),
            base: 0,
            state: State::default(),
            spans: Vec::new(),
            joined: Vec::new(),
            done: false,
            failed: None,
            whole: false,
            ended: false,
        }
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    pub fn joined(&self) -> &[u8] {
        &self.joined
    }

    pub fn done(&self) -> bool {
        self.done
    }

    /// The most bytes a value may have.
    pub fn max_size(&self) -> usize {
        self.max
    }

    /// Bytes the splitter's buffers hold allocated (their capacity): what
    /// it keeps while idle.
    pub fn held_bytes(&self) -> usize {
        fn bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        bytes(&self.buf) + bytes(&self.spans) + bytes(&self.joined) + bytes(&self.state.data)
    }

    /// The bytes spans of the last `feed` refer to.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }

    /// Splits a whole stream held in `data` (spans refer to `data`).
    /// After an error, `spans` still holds the values before it.
    pub fn split_all(&mut self, data: &[u8]) -> Result<(), StreamError> {
        self.state = State::default();
        self.done = false;
        self.failed = None;
        self.whole = true;
        self.ended = false;
        self.spans.clear();
        self.joined.clear();
        self.run(data, 0, true)
    }

    /// Forgets the last call's values and gives back the memory beyond
    /// [`KEEP_BYTES`] each buffer holds (for a splitter kept idle).
    pub fn trim(&mut self) {
        self.spans.clear();
        self.joined.clear();
        self.give_back();
    }

    fn give_back(&mut self) {
        shrink(&mut self.buf);
        shrink(&mut self.spans);
        shrink(&mut self.joined);
        shrink(&mut self.state.data);
    }

    /// Adds `chunk` (the next bytes of the stream) and finds the values it
    /// completes; `end` says the stream ends after it. Spans refer to
    /// [`Splitter::buffer`] until the next call. Bytes of an unfinished
    /// value are kept, up to `max` (an error beyond). After an error every
    /// later call fails with it. After `end`, a call with bytes, or
    /// without `end`, fails (not for good: the stream's values stand); an
    /// empty call with `end` again finds nothing.
    pub fn feed(&mut self, chunk: &[u8], end: bool) -> Result<(), StreamError> {
        self.feed_from(chunk, end, false)
    }

    /// As [`Splitter::feed`], but the values of the previous call stay
    /// in front of this call's (in `spans`, their bytes in the buffer and
    /// the joined area): for a caller that could not take them all (an
    /// error while it copied them out), so that none is lost.
    pub fn feed_keeping(&mut self, chunk: &[u8], end: bool) -> Result<(), StreamError> {
        self.feed_from(chunk, end, true)
    }

    fn feed_from(&mut self, chunk: &[u8], end: bool, keep: bool) -> Result<(), StreamError> {
        if self.whole {
            // After a whole buffer, a new stream.
            *self = Splitter::new(self.format, self.max);
        }
        if !keep {
            self.spans.clear();
            self.joined.clear();
            // Drop what the previous call finished with.
            let keep_from = self.state.start.min(self.state.data.first().map_or(u64::MAX, |d| d.0));
            let keep_from = keep_from.max(self.base);
            let drop = ((keep_from - self.base) as usize).min(self.buf.len());
            self.buf.drain(..drop);
            self.base += drop as u64;
            self.give_back();
        }
        if let Some(e) = &self.failed {
            if !keep {
                self.buf = Vec::new();
            }
            return Err(e.clone());
        }
        if self.ended {
            if chunk.is_empty() && end {
                return Ok(());
            }
            return Err(StreamError {
                message: "feed after the end of the stream".into(),
                at: self.base + self.buf.len() as u64,
            });
        }
        self.ended = end;
        if self.done {
            return Ok(());
        }
        self.buf.extend_from_slice(chunk);
        let buf = std::mem::take(&mut self.buf);
        let r = self.run(&buf, self.base, end);
        self.buf = buf;
        // (After an error the buffer is kept for the spans found before
        // it, and released by the next call.)
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    /// Scans `data`, which starts at stream position `base`.
    fn run(&mut self, data: &[u8], base: u64, end: bool) -> Result<(), StreamError> {
        match self.format {
            StreamFormat::Concat => concat::split(self, data, base, end),
            StreamFormat::Ndjson => lines::ndjson(self, data, base, end),
            StreamFormat::Sse => lines::sse(self, data, base, end),
        }?;
        // Bounded memory: an unfinished value or line may not outgrow max
        // (with room for an SSE line's field name).
        if !end && !self.done {
            let from = self.state.start.min(self.state.data.first().map_or(u64::MAX, |d| d.0));
            let held = (base + data.len() as u64).saturating_sub(from.max(base));
            if held > self.max as u64 + 64 {
                return Err(StreamError {
                    message: format!("value larger than max_size ({} bytes)", self.max),
                    at: from.max(base),
                });
            }
        }
        Ok(())
    }

    /// Records a value of `len` bytes at stream position `at`.
    pub(crate) fn emit(&mut self, base: u64, at: u64, len: usize) -> Result<(), StreamError> {
        if len > self.max {
            return Err(StreamError { message: format!("value larger than max_size ({} bytes)", self.max), at });
        }
        self.spans.push(Span { start: at - base, at, len: len as u32, joined: 0 });
        Ok(())
    }
}

/// JSON whitespace.
#[inline]
pub(crate) fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}
