//! Parse options, laid out for the C ABI.

/// `mode`: 0 = strict (default), 1 = lazy (structure only; value errors are
/// raised when the value is read).
pub const MODE_STRICT: u32 = 0;
pub const MODE_LAZY: u32 = 1;
/// `duplicate_keys`: 0 = the last value wins (default), 1 = reject.
pub const DUPLICATES_LAST: u32 = 0;
pub const DUPLICATES_REJECT: u32 = 1;
/// The default `max_depth`, as lua-cjson's `decode_max_depth`.
pub const DEFAULT_MAX_DEPTH: u32 = 1000;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub mode: u32,
    pub max_depth: u32,
    pub duplicate_keys: u32,
    /// Non-zero: enforce I-JSON (RFC 7493); implies rejecting duplicates.
    pub ijson: u32,
    /// Non-zero: also accept the numbers lua-cjson's `decode_invalid_numbers`
    /// lets C's `strtod` read (`NaN`, `Infinity`, hex, `+1`, `01`, `1.`);
    /// ignored under `ijson`.
    pub invalid_numbers: u32,
    /// Non-zero: in the event stream of a strict document (`qjson_text_events`),
    /// an integer literal reads as lua-cjson reads one (C's `strtoll`, then
    /// a double): `-0` is 0, and past the 64-bit range it stops at ±2^63.
    pub cjson_integers: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: MODE_STRICT,
            max_depth: DEFAULT_MAX_DEPTH,
            duplicate_keys: DUPLICATES_LAST,
            ijson: 0,
            invalid_numbers: 0,
            cjson_integers: 0,
        }
    }
}

impl Options {
    pub fn lazy() -> Self {
        Options { mode: MODE_LAZY, ..Options::default() }
    }
    pub(crate) fn strict(&self) -> bool {
        self.mode != MODE_LAZY
    }
    pub(crate) fn reject_duplicates(&self) -> bool {
        self.duplicate_keys == DUPLICATES_REJECT || self.ijson != 0
    }
    /// Whether a text may be read in one checking pass with no tape
    /// (`crate::onepass`): strict, and no check that pass leaves out
    /// (repeated keys, I-JSON's ranges, lua-cjson's wider numbers).
    pub(crate) fn one_pass(&self) -> bool {
        self.strict() && !self.reject_duplicates() && self.invalid_numbers == 0
    }
    /// Numbers as `strtod` reads them, not only RFC 8259's grammar.
    pub(crate) fn lenient_numbers(&self) -> bool {
        self.invalid_numbers != 0 && self.ijson == 0
    }
}
