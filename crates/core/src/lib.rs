//! qjson: a SIMD JSON parser built for reading a few fields out of large
//! documents from LuaJIT.
//!
//! Bytes flow one way: [`stage1`] (over the vector code of [`arch`]) finds
//! every structural position, `stage2` checks the grammar and links
//! containers into a [`tape`] (`parser` runs the two over per-thread
//! buffers), and a [`Document`] answers reads by walking the tape, or
//! [`events`] turns a value into a flat stream for Lua to build tables
//! from. Bindings (the LuaJIT FFI's C ABI, crates/luajit) live in crates of
//! their own.

// The vector code's unsafe fns are `#[target_feature]` kernels whose
// bodies are all intrinsics; they keep the pre-2024 implicit unsafe body
// for now (the other modules write every unsafe operation out).
#[allow(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
pub mod arch;
pub mod document;
pub mod encode;
pub mod error;
pub mod events;
pub mod number;
mod onepass;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod options;
pub mod panic;
mod parser;
pub mod patch;
pub mod path;
#[cfg(feature = "schema")]
pub mod schema;
pub mod select;
#[allow(unsafe_op_in_unsafe_fn)]
pub mod stage1;
mod stage2;
pub mod stream;
mod string;
pub mod tape;

pub use document::Document;
pub use error::{Error, ErrorKind};
pub use options::Options;
pub use path::Path;
pub use tape::{Kind, Node, ROOT};
