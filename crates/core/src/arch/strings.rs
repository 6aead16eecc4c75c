//! The vector searches outside stage 1, in one place: the first quote or
//! backslash of a string body (reading strings, walking to events) and
//! the first byte the encoder must escape. Each has a vector path (SSE2 on
//! x86-64, NEON on aarch64: both part of their target's baseline, so the
//! code is compiled only where every CPU of the target has the feature, as
//! `cfg(target_feature)` checks) and a portable word-at-a-time one (`swar`).
//! The one a call takes follows the stage 1 backend ([`Finder::of`]): the
//! portable and scalar backends take the portable finders, so that forcing
//! `QJSON_BACKEND=swar` runs the code a CPU without vectors runs.

use super::Backend;

// Exactly one vector path per target, or none.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::x86_64::strings as vector;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
use super::aarch64::strings as vector;

use super::swar::strings as words;

/// An implementation of the searches; every one gives the same answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finder {
    /// SSE2 on x86-64, NEON on aarch64.
    #[cfg(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        all(target_arch = "aarch64", target_feature = "neon")
    ))]
    Vector,
    /// Eight bytes per u64.
    Swar,
}

impl Finder {
    /// Every finder this build has, the vector one first.
    pub fn all() -> Vec<Finder> {
        vec![
            #[cfg(any(
                all(target_arch = "x86_64", target_feature = "sse2"),
                all(target_arch = "aarch64", target_feature = "neon")
            ))]
            Finder::Vector,
            Finder::Swar,
        ]
    }

    /// The finder a parse with stage 1 backend `b` uses.
    pub fn of(b: Backend) -> Finder {
        match b {
            Backend::Scalar | Backend::Swar => Finder::Swar,
            #[allow(unreachable_patterns)]
            _ => Finder::all()[0],
        }
    }

    /// The finder of the detected backend.
    #[inline(always)]
    pub fn current() -> Finder {
        // A relaxed load per call, set once: `Backend::detect` costs more.
        use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
        static CURRENT: AtomicU8 = AtomicU8::new(0);
        match CURRENT.load(Relaxed) {
            1 => Finder::Swar,
            #[cfg(any(
                all(target_arch = "x86_64", target_feature = "sse2"),
                all(target_arch = "aarch64", target_feature = "neon")
            ))]
            2 => Finder::Vector,
            _ => {
                let f = Finder::of(Backend::detect());
                CURRENT.store(if f == Finder::Swar { 1 } else { 2 }, Relaxed);
                f
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Finder::Vector => "sse2",
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Finder::Vector => "neon",
            Finder::Swar => "swar",
        }
    }

    /// The offset of the first `"` or `\` in `s`.
    #[inline(always)]
    pub fn quote_or_backslash(self, s: &[u8]) -> Option<usize> {
        match self {
            #[cfg(any(
                all(target_arch = "x86_64", target_feature = "sse2"),
                all(target_arch = "aarch64", target_feature = "neon")
            ))]
            Finder::Vector => vector::quote_or_backslash(s),
            Finder::Swar => words::quote_or_backslash(s),
        }
    }

    /// The offset in `src[i..i + 16]` of the first byte the encoder stops
    /// at, 16 if none. Every mode stops at bytes below 0x20, `"`, `\` and
    /// 0x7f; `SLASH` adds `/`, `HIGH` bytes from 0x80 up, `HTML` `<` `>`
    /// `&`. Panics unless 16 bytes are there.
    #[inline(always)]
    pub fn escape_stop<const SLASH: bool, const HIGH: bool, const HTML: bool>(self, src: &[u8], i: usize) -> usize {
        let block: &[u8; 16] = src[i..i + 16].try_into().expect("16 bytes");
        match self {
            #[cfg(any(
                all(target_arch = "x86_64", target_feature = "sse2"),
                all(target_arch = "aarch64", target_feature = "neon")
            ))]
            Finder::Vector => vector::escape_stop::<SLASH, HIGH, HTML>(block),
            Finder::Swar => words::escape_stop::<SLASH, HIGH, HTML>(block),
        }
    }
}

/// The offset of the first `"` or `\` in `s`, by the current finder.
#[inline(always)]
pub fn quote_or_backslash(s: &[u8]) -> Option<usize> {
    Finder::current().quote_or_backslash(s)
}

/// [`Finder::escape_stop`] by the current finder.
#[inline(always)]
pub fn escape_stop<const SLASH: bool, const HIGH: bool, const HTML: bool>(src: &[u8], i: usize) -> usize {
    Finder::current().escape_stop::<SLASH, HIGH, HTML>(src, i)
}

/// The value of the four hex digits that start `s` (either case), if they
/// are there.
#[inline]
pub fn hex4(s: &[u8]) -> Option<u32> {
    let d = s.get(..4)?;
    let (a, b, c, e) = (HEX[d[0] as usize], HEX[d[1] as usize], HEX[d[2] as usize], HEX[d[3] as usize]);
    // Non-digits are 0xFF in the table: one test for all four.
    if (a | b | c | e) & 0x80 != 0 {
        return None;
    }
    Some((a as u32) << 12 | (b as u32) << 8 | (c as u32) << 4 | e as u32)
}

/// Each byte's hex digit value, 0xFF for a byte that is not one.
const HEX: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex4_matches_to_digit() {
        for a in 0..=255u8 {
            for b in [b'0', b'9', b'a', b'f', b'A', b'F', b'g', b'G', b'/', b':', b'@', b'`', 0, 0x80, 0xFF] {
                let s = [a, b, b'7', a];
                let want = s.iter().try_fold(0, |v, &d| Some(v << 4 | (d as char).to_digit(16)?));
                assert_eq!(hex4(&s), want, "{s:?}");
                assert_eq!(hex4(&s[..3]), None);
            }
        }
    }
}
