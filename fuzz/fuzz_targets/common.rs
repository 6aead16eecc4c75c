//! Shared by the fuzz targets.

/// A panic hook that prints and does not abort, set once. libFuzzer's own
/// aborts on any panic, even one caught, and the library's (set by its
/// first call through the C ABI) records a panic's message instead of
/// printing it: a target's own failures must be seen. A panic the target
/// does not catch still ends the run, through libfuzzer-sys; one inside
/// the library is caught at its boundary and fails the comparisons.
pub fn printing_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|info| eprintln!("{info}"))));
}
