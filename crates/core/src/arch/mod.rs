//! Everything that depends on the CPU: the stage 1 backends, the one place
//! that looks at CPU features ([`Backend::available`]), the [`Block`] trait
//! the generic stage 1 is written over, and its instances: AVX-512 and AVX2
//! (`x86_64`), NEON (`aarch64`), and the portable word-at-a-time one
//! (`swar`). The byte-at-a-time `stage1::scalar` is the test oracle. Also
//! the vector searches outside stage 1 ([`strings`]).

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod block;
pub mod strings;
pub(crate) mod swar;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub(crate) use block::Block;

use crate::stage1::{scalar, ScanInfo};
use std::ffi::CStr;
use std::sync::OnceLock;

/// Declares a backend's entry point and its run-time check from ONE list of
/// target features: the function is compiled with exactly the features the
/// check requires, so code built for a feature runs only where it was
/// detected. This is the crate's only `#[target_feature]` (a test checks).
macro_rules! backend_entry {
    ($detect:ident, $supported:ident, $entry:ident, $block:ty, [$($feature:tt),+]) => {
        pub(crate) fn $supported() -> bool {
            $(std::arch::$detect!($feature))&&+
        }

        /// # Safety
        /// Only where the check above returned true.
        $(#[target_feature(enable = $feature)])+
        pub(crate) unsafe fn $entry(input: &[u8], strict: bool, measure: bool, out: &mut Vec<u32>) -> crate::stage1::ScanInfo {
            if strict {
                crate::stage1::generic::scan::<$block, true>(input, measure, out)
            } else {
                crate::stage1::generic::scan::<$block, false>(input, measure, out)
            }
        }
    };
}
pub(crate) use backend_entry;

/// The stage 1 implementations; all produce identical output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Byte at a time: the test oracle.
    Scalar,
    /// Eight bytes per u64 (SWAR): the production fallback on any CPU.
    Swar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX-512 with VBMI: a faster strict skip over long strings.
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi,
    /// NEON with prefix-XOR by carry-less multiply (PMULL).
    #[cfg(target_arch = "aarch64")]
    Neon,
    /// NEON without PMULL: prefix-XOR by shifts.
    #[cfg(target_arch = "aarch64")]
    NeonNoPmull,
}

impl Backend {
    /// The fastest backend this CPU supports, or the one `QJSON_BACKEND`
    /// names if this CPU supports it (checked once per process).
    pub fn detect() -> Backend {
        static CHOSEN: OnceLock<Backend> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            if let Ok(forced) = std::env::var("QJSON_BACKEND") {
                if let Some(b) = Backend::available().into_iter().find(|b| b.name() == forced) {
                    return b;
                }
            }
            Backend::available()[0]
        })
    }

    /// Every backend usable on this CPU, fastest first; the scalar oracle
    /// last.
    pub fn available() -> Vec<Backend> {
        #[allow(unused_mut)]
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if x86_64::avx512vbmi_supported() {
                v.push(Backend::Avx512Vbmi);
            }
            if x86_64::avx512_supported() {
                v.push(Backend::Avx512);
            }
            if x86_64::avx2_supported() {
                v.push(Backend::Avx2);
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if aarch64::neon_supported() {
                v.push(Backend::Neon);
            }
            if aarch64::neon_nopmull_supported() {
                v.push(Backend::NeonNoPmull);
            }
        }
        v.push(Backend::Swar);
        v.push(Backend::Scalar);
        v
    }

    /// The name `QJSON_BACKEND` takes and `qjson.backend()` returns.
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("?")
    }

    pub fn c_name(self) -> &'static CStr {
        match self {
            Backend::Scalar => c"scalar",
            Backend::Swar => c"swar",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => c"avx2",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => c"avx512",
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vbmi => c"avx512vbmi",
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => c"neon",
            #[cfg(target_arch = "aarch64")]
            Backend::NeonNoPmull => c"neon-nopmull",
        }
    }

    /// Appends the structural index of `input` to `out` (which is cleared);
    /// with `measure`, also measures [`ScanInfo::escape_room`] (a few
    /// percent of a scan of escape-heavy text, so only when asked).
    pub fn scan(self, input: &[u8], strict: bool, measure: bool, out: &mut Vec<u32>) -> ScanInfo {
        out.clear();
        match self {
            Backend::Scalar => scalar::scan(input, strict, measure, out),
            Backend::Swar => swar::scan(input, strict, measure, out),
            // SAFETY: these variants are only handed out by `available`,
            // after the check of exactly the features the entry enables.
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => unsafe { x86_64::scan_avx2(input, strict, measure, out) },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => unsafe { x86_64::scan_avx512(input, strict, measure, out) },
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512Vbmi => unsafe { x86_64::scan_avx512vbmi(input, strict, measure, out) },
            #[cfg(target_arch = "aarch64")]
            Backend::Neon => unsafe { aarch64::scan_neon(input, strict, measure, out) },
            #[cfg(target_arch = "aarch64")]
            Backend::NeonNoPmull => unsafe { aarch64::scan_neon_nopmull(input, strict, measure, out) },
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every `#[target_feature]` in the crate comes from `backend_entry`,
    /// so that each is paired with the detection of the same features.
    #[test]
    fn target_feature_only_in_backend_entry() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, found);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    for (n, line) in text.lines().enumerate() {
                        let code = line.trim_start();
                        if code.starts_with("#[target_feature") || code.starts_with("$(#[target_feature") {
                            found.push(format!("{}:{}", p.display(), n + 1));
                        }
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut found);
        assert_eq!(found.len(), 1, "target_feature attributes outside arch::backend_entry: {found:?}");
        assert!(found[0].contains("arch/mod.rs"), "{found:?}");
    }
}
