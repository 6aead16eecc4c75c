//! Helpers for the Lua encoder (`lua/qjson/encode.lua`): the encoder walks
//! Lua tables itself and calls these for the inner work that is slow in
//! Lua, writing straight into the reserved space of a `string.buffer`.
//!
//! * [`escape`]: a string's JSON body, escaped as lua-cjson does plus the
//!   optional `ascii`, `html_safe`, `escape_slash` and UTF-8 checks.
//! * [`number`]: a double as C's `%.Ng` prints it, or as the shortest text
//!   that reads back to the same double.

pub mod escape;
pub mod number;
