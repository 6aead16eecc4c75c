//! Reports written into memory the caller owns, for the checks that
//! return structured results (schema errors, OpenAPI outcomes): nothing
//! is kept in Rust between calls, so the caller reads the report at
//! leisure, whatever its allocations make the collector run.
//!
//! Layout, in native-endian `u32`s: a head of words (its length is the
//! report kind's), then records, each its numbers, the byte lengths of
//! its strings and those strings, padded to 4 bytes. lua/qjson/report.lua
//! reads it.

/// Bytes a report starts with room for.
const START_ROOM: usize = 512;

/// A report being written.
pub(crate) struct Records(Vec<u8>);

impl Records {
    pub(crate) fn new(head: &[usize]) -> Records {
        // (Room for most reports at once: growing by doubling from a few
        // words reallocates several times per call.)
        let mut r = Records(Vec::with_capacity(START_ROOM));
        r.words(head);
        r
    }

    fn words(&mut self, words: &[usize]) {
        for &v in words {
            self.0.extend_from_slice(&(v.min(u32::MAX as usize) as u32).to_ne_bytes());
        }
    }

    pub(crate) fn push(&mut self, nums: &[usize], strs: &[&str]) {
        let len = 4 * (nums.len() + strs.len()) + strs.iter().map(|s| s.len()).sum::<usize>();
        self.0.reserve(len + 3);
        self.words(nums);
        for s in strs {
            self.words(&[s.len()]);
        }
        for s in strs {
            self.0.extend_from_slice(s.as_bytes());
        }
        self.0.resize(self.0.len().next_multiple_of(4), 0);
    }

    /// The report's size, the report written to `out` when it fits in
    /// `cap` bytes (else the caller calls again with that much room).
    pub(crate) fn deliver(self, out: *mut u8, cap: usize) -> Result<i32, String> {
        deliver(&self.0, out, cap)
    }
}

/// The size of `bytes` (a report, or a text such as a problem document),
/// written to `out` when they fit in `cap` bytes (else the caller calls
/// again with that much room).
pub(crate) fn deliver(bytes: &[u8], out: *mut u8, cap: usize) -> Result<i32, String> {
    if !out.is_null() && bytes.len() <= cap {
        // SAFETY: the caller passes `cap` writable bytes at `out`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
    }
    i32::try_from(bytes.len()).map_err(|_| "report larger than 2 GB".to_string())
}
