//! JSON text from Lua values: a walk over tables with the raw C API,
//! lua-cjson's rules (docs/encoding.md: arrays and objects, numbers,
//! markers, errors) and qjson's options (`indent`, `sort_keys`, `ascii`,
//! `html_safe`, `precision`, `escape_slash`, `validate_utf8`), strings
//! escaped and numbers formatted by the core (`qjson_core::encode`).
//!
//! The walk is a loop over an explicit stack of open tables, so nesting
//! costs no Rust stack; its state and the output are in an `Encoder`
//! userdata taken from the encode function's upvalue as `decode.rs`
//! takes its `Decoder` (an encode run by a finalizer meanwhile gets its
//! own). `lua_next` and `lua_rawget` allocate nothing; the walk's only
//! allocating calls push number keys for sorted objects and grow the Lua
//! stack, and its frame owns nothing then.

use std::ffi::{c_int, CStr};

use qjson_core::encode::escape::{self, Escaped};
use qjson_core::encode::number;

use crate::config::Config;
use crate::lua::{self, msg, sys, Msg, State};
use crate::{markers, options};

pub const ENCODER: &CStr = c"qjson.encoder";

#[derive(Default)]
pub struct Encoder {
    out: Vec<u8>,
    levels: Vec<Level>,
    /// The keys of the sorted objects being written, level after level.
    keys: Vec<SortKey>,
    /// The call's indent unit (a copy: a finalizer may change the
    /// instance's meanwhile), empty for compact output.
    indent: Vec<u8>,
}

#[derive(Clone, Copy)]
struct Level {
    /// Stack index of the table.
    table: c_int,
    kind: Kind,
    /// Members written so far.
    count: u32,
}

#[derive(Clone, Copy)]
enum Kind {
    /// Elements 1..=n, `i` written so far.
    Array { n: i64, i: i64 },
    /// `lua_next` order; the last key is on the stack above the table.
    Object,
    /// `keys[at..end]` to go.
    Sorted { at: usize, end: usize },
}

#[derive(Clone, Copy)]
enum SortKey {
    Int(i64),
    Num(f64),
    /// A string key's bytes, alive while the table holds the key.
    Str(*const u8, usize),
}

/// What one call does: the instance's settings and the call's options.
pub struct Call {
    /// Significant digits, 0 for the shortest text that reads back.
    pub precision: u32,
    /// `qjson_core::encode::escape` flags.
    pub flags: u32,
    pub indent: bool,
    pub sort_keys: bool,
    pub max_depth: i64,
    pub sparse_convert: bool,
    pub sparse_ratio: i64,
    pub sparse_safe: i64,
    pub invalid_numbers: c_int,
    pub empty_table_as_object: bool,
    pub skip_unsupported: bool,
    /// lua-cjson's report of a cycle (excessive nesting).
    pub dropin: bool,
    pub keep_buffer: bool,
}

/// A walk between cycle checks when `encode_max_depth` is high, so that
/// a cycle is named long before the Lua stack runs out.
const CYCLE_CHECK: i64 = 1000;

/// Pushes the spare encoder of upvalue `up` (taken out of it), or a new one.
unsafe fn take_encoder(l: State, up: c_int) -> *mut Encoder {
    // SAFETY: a valid state; the upvalue holds nil or an Encoder userdata.
    unsafe {
        let up = sys::lua_upvalueindex(up);
        if sys::lua_type(l, up) == sys::LUA_TUSERDATA {
            sys::lua_pushvalue(l, up);
            sys::lua_pushnil(l);
            sys::lua_replace(l, up);
        } else {
            lua::new_userdata(l, ENCODER, Encoder::default);
        }
        let p = sys::lua_touserdata(l, -1).cast::<Option<Encoder>>();
        (*p).as_mut().expect("an encoder's value is dropped only by __gc") as *mut Encoder
    }
}

/// Encodes the value at `arg` with the settings `c` and the options
/// table at `opts` (0 for none); pushes the text. Upvalue `spare` keeps
/// an encoder between calls.
pub unsafe fn encode(l: State, arg: c_int, opts: c_int, spare: c_int, c: &Config) -> Result<(), Msg> {
    // SAFETY: a valid state.
    unsafe {
        let arg = sys::lua_absindex(l, arg);
        let e = take_encoder(l, spare);
        let at = sys::lua_gettop(l);
        let enc = &mut *e;
        let call = options::encode(l, opts, c, &mut enc.indent);
        enc.out.clear();
        enc.levels.clear();
        enc.keys.clear();
        let r = walk(l, enc, arg, &call);
        sys::lua_settop(l, at);
        if r.is_ok() {
            lua::push_bytes(l, &enc.out);
        }
        if !call.keep_buffer {
            *enc = Encoder::default();
        }
        // Give the encoder back (also after an error).
        sys::lua_pushvalue(l, at);
        sys::lua_replace(l, sys::lua_upvalueindex(spare));
        if r.is_ok() {
            sys::lua_replace(l, at);
        } else {
            sys::lua_pop(l, 1);
        }
        r
    }
}

/// Appends to the output, failing cleanly when memory runs out.
#[inline(always)]
fn put(out: &mut Vec<u8>, b: &[u8]) -> Result<(), Msg> {
    out.try_reserve(b.len()).map_err(|_| msg!("not enough memory"))?;
    out.extend_from_slice(b);
    Ok(())
}

unsafe fn walk(l: State, enc: &mut Encoder, arg: c_int, call: &Call) -> Result<(), Msg> {
    // SAFETY: a valid state; the stack indexes are this walk's.
    unsafe {
        sys::lua_pushvalue(l, arg);
        if !value(l, enc, call)? {
            return Ok(());
        }
        loop {
            let Some(top) = enc.levels.last_mut() else { return Ok(()) };
            let table = top.table;
            // The next member's value on top of the stack, or the end.
            let more = match &mut top.kind {
                Kind::Array { n, i } => {
                    if *i < *n {
                        *i += 1;
                        sys::lua_rawgeti(l, table, *i as sys::lua_Integer);
                        true
                    } else {
                        false
                    }
                }
                Kind::Object => loop {
                    if sys::lua_next(l, table) == 0 {
                        break false;
                    }
                    if call.skip_unsupported && unsupported(l, -1) {
                        sys::lua_pop(l, 1);
                        continue;
                    }
                    break true;
                },
                Kind::Sorted { at, end } => loop {
                    if *at == *end {
                        break false;
                    }
                    let k = enc.keys[*at];
                    *at += 1;
                    match k {
                        SortKey::Int(i) => lua::push_int(l, i),
                        SortKey::Num(f) => sys::lua_pushnumber(l, f),
                        SortKey::Str(p, n) => lua::push_bytes(l, std::slice::from_raw_parts(p, n)),
                    }
                    sys::lua_rawget(l, table);
                    if call.skip_unsupported && unsupported(l, -1) {
                        sys::lua_pop(l, 1);
                        continue;
                    }
                    break true;
                },
            };
            let object = !matches!(top.kind, Kind::Array { .. });
            if !more {
                let (count, end_keys) = (top.count, matches!(top.kind, Kind::Sorted { .. }));
                let depth = enc.levels.len();
                enc.levels.pop();
                if end_keys {
                    let from = enc.levels.iter().rev().find_map(|v| match v.kind {
                        Kind::Sorted { end, .. } => Some(end),
                        _ => None,
                    });
                    enc.keys.truncate(from.unwrap_or(0));
                }
                if !enc.indent.is_empty() && count > 0 {
                    newline(&mut enc.out, &enc.indent, depth - 1)?;
                }
                put(&mut enc.out, if object { b"}" } else { b"]" })?;
                // The table (and for an object, nothing else: lua_next
                // took its last key).
                sys::lua_settop(l, table - 1);
                continue;
            }
            if !object && call.skip_unsupported && unsupported(l, -1) {
                sys::lua_pop(l, 1);
                continue;
            }
            let depth = enc.levels.len();
            let top = enc.levels.last_mut().expect("the level just read");
            if top.count > 0 {
                put(&mut enc.out, b",")?;
            }
            top.count += 1;
            if !enc.indent.is_empty() {
                newline(&mut enc.out, &enc.indent, depth)?;
            }
            let sorted = match top.kind {
                Kind::Sorted { at, .. } => Some(enc.keys[at - 1]),
                _ => None,
            };
            match sorted {
                Some(k) => key(&mut enc.out, &enc.indent, call, k)?,
                None if object => key(&mut enc.out, &enc.indent, call, key_at(l, -2)?)?,
                None => {}
            }
            value(l, enc, call)?;
        }
    }
}

fn newline(out: &mut Vec<u8>, unit: &[u8], depth: usize) -> Result<(), Msg> {
    put(out, b"\n")?;
    for _ in 0..depth {
        put(out, unit)?;
    }
    Ok(())
}

/// Whether `encode_skip_unsupported_value_types` drops the value at `idx`.
unsafe fn unsupported(l: State, idx: c_int) -> bool {
    // SAFETY: a valid state and index.
    unsafe {
        match sys::lua_type(l, idx) {
            sys::LUA_TSTRING | sys::LUA_TNUMBER | sys::LUA_TBOOLEAN | sys::LUA_TTABLE | sys::LUA_TNIL => false,
            sys::LUA_TLIGHTUSERDATA => !(lua::is_null(l, idx) || markers::is_empty_array(l, idx)),
            _ => true,
        }
    }
}

/// The object key at `idx`; a key JSON cannot have raises.
unsafe fn key_at(l: State, idx: c_int) -> Result<SortKey, Msg> {
    // SAFETY: a valid state and index.
    unsafe {
        match sys::lua_type(l, idx) {
            sys::LUA_TSTRING => {
                let s = lua::string_bytes(l, idx);
                Ok(SortKey::Str(s.as_ptr(), s.len()))
            }
            sys::LUA_TNUMBER => Ok(match lua::integer_at(l, idx) {
                Some(i) => SortKey::Int(i),
                None => SortKey::Num(sys::lua_tonumber(l, idx)),
            }),
            _ => Err(msg!("Cannot serialise {}: table key must be a number or string", lua::type_name(l, idx))),
        }
    }
}

/// Writes an object key and its colon: a number key as a string.
fn key(out: &mut Vec<u8>, indent: &[u8], call: &Call, k: SortKey) -> Result<(), Msg> {
    match k {
        // SAFETY: the key is alive while its table is on the stack.
        SortKey::Str(p, n) => string(out, unsafe { std::slice::from_raw_parts(p, n) }, call.flags)?,
        SortKey::Int(i) => {
            put(out, b"\"")?;
            put_number(out, call, Number::Int(i))?;
            put(out, b"\"")?;
        }
        SortKey::Num(f) => {
            put(out, b"\"")?;
            put_number(out, call, Number::Float(f))?;
            put(out, b"\"")?;
        }
    }
    put(out, if indent.is_empty() { b":" } else { b": " })
}

/// Writes the value on top of the stack. A scalar is popped; a table
/// that has members becomes the innermost open level (true), left on the
/// stack.
unsafe fn value(l: State, enc: &mut Encoder, call: &Call) -> Result<bool, Msg> {
    // SAFETY: a valid state.
    unsafe {
        let out = &mut enc.out;
        match sys::lua_type(l, -1) {
            sys::LUA_TSTRING => string(out, lua::string_bytes(l, -1), call.flags)?,
            sys::LUA_TNUMBER => number(l, out, call, -1)?,
            sys::LUA_TBOOLEAN => put(out, if sys::lua_toboolean(l, -1) != 0 { b"true" } else { b"false" })?,
            sys::LUA_TNIL => put(out, b"null")?,
            sys::LUA_TTABLE => return open_table(l, enc, call),
            sys::LUA_TLIGHTUSERDATA if lua::is_null(l, -1) => put(out, b"null")?,
            sys::LUA_TLIGHTUSERDATA if markers::is_empty_array(l, -1) => put(out, b"[]")?,
            _ if call.skip_unsupported => {}
            _ => return Err(msg!("Cannot serialise {}: type not supported", lua::type_name(l, -1))),
        }
        sys::lua_pop(l, 1);
        Ok(false)
    }
}

/// The table on top of the stack: written whole when empty, else opened
/// as a level (true).
unsafe fn open_table(l: State, enc: &mut Encoder, call: &Call) -> Result<bool, Msg> {
    // SAFETY: a valid state; the table is at the top.
    unsafe {
        let table = sys::lua_gettop(l);
        let depth = enc.levels.len() as i64 + 1;
        if depth > call.max_depth || depth % CYCLE_CHECK == 0 {
            check_depth(l, enc, call, table, depth)?;
        }
        sys::luaL_checkstack(l, 4, c"qjson: nesting too deep for the Lua stack".as_ptr());
        let n = match markers::array_kind(l, table) {
            markers::Marked::Array => sys::lua_rawlen(l, table) as i64,
            marked => {
                let empty_array = matches!(marked, markers::Marked::EmptyArray);
                let n = array_length(l, table, call)?;
                if n == 0 {
                    let text: &[u8] = if empty_array || !call.empty_table_as_object { b"[]" } else { b"{}" };
                    put(&mut enc.out, text)?;
                    sys::lua_pop(l, 1);
                    return Ok(false);
                }
                n
            }
        };
        if n < 0 {
            put(&mut enc.out, b"{")?;
            if call.sort_keys {
                let at = enc.keys.len();
                collect_keys(l, enc, table)?;
                let end = enc.keys.len();
                enc.keys[at..end].sort_by(key_order);
                enc.levels.push(Level { table, kind: Kind::Sorted { at, end }, count: 0 });
            } else {
                sys::lua_pushnil(l);
                enc.levels.push(Level { table, kind: Kind::Object, count: 0 });
            }
        } else if n == 0 {
            put(&mut enc.out, b"[]")?;
            sys::lua_pop(l, 1);
            return Ok(false);
        } else {
            put(&mut enc.out, b"[")?;
            enc.levels.push(Level { table, kind: Kind::Array { n, i: 0 }, count: 0 });
        }
        Ok(true)
    }
}

/// Past `encode_max_depth`, or every `CYCLE_CHECK` levels: a table
/// already on the path is a reference cycle (qjson names it; lua-cjson
/// goes round until it is too deep).
unsafe fn check_depth(l: State, enc: &Encoder, call: &Call, table: c_int, depth: i64) -> Result<(), Msg> {
    // SAFETY: a valid state; the levels' tables are on the stack.
    unsafe {
        let on_path = enc.levels.iter().any(|v| sys::lua_rawequal(l, v.table, table) != 0);
        if on_path {
            if call.dropin {
                return Err(msg!("Cannot serialise, excessive nesting ({})", call.max_depth + 1));
            }
            return Err(msg!("Cannot serialise table: reference cycle"));
        }
        if depth > call.max_depth {
            if !call.dropin {
                for (i, a) in enc.levels.iter().enumerate() {
                    if enc.levels[i + 1..].iter().any(|b| sys::lua_rawequal(l, a.table, b.table) != 0) {
                        return Err(msg!("Cannot serialise table: reference cycle"));
                    }
                }
            }
            return Err(msg!("Cannot serialise, excessive nesting ({depth})"));
        }
        Ok(())
    }
}

/// lua-cjson's `lua_array_length`: the largest key when every key is a
/// positive integer, -1 for an object; an excessively sparse array
/// raises or is an object (`encode_sparse_array`).
unsafe fn array_length(l: State, table: c_int, call: &Call) -> Result<i64, Msg> {
    // SAFETY: a valid state; the table is at `table`.
    unsafe {
        let (mut max, mut items) = (0i64, 0i64);
        sys::lua_pushnil(l);
        while sys::lua_next(l, table) != 0 {
            sys::lua_pop(l, 1);
            let k = if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { 0.0 };
            if k >= 1.0 && k.floor() == k {
                // lua-cjson keeps the length in a C int; past it an object.
                if k > c_int::MAX as f64 {
                    sys::lua_pop(l, 1);
                    return Ok(-1);
                }
                max = max.max(k as i64);
                items += 1;
            } else {
                sys::lua_pop(l, 1);
                return Ok(-1);
            }
        }
        if call.sparse_ratio > 0 && max > items * call.sparse_ratio && max > call.sparse_safe {
            if !call.sparse_convert {
                return Err(msg!("Cannot serialise table: excessively sparse array"));
            }
            return Ok(-1);
        }
        Ok(max)
    }
}

/// The keys of the table at `table`, onto `enc.keys`; a key JSON cannot
/// have raises.
unsafe fn collect_keys(l: State, enc: &mut Encoder, table: c_int) -> Result<(), Msg> {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_pushnil(l);
        while sys::lua_next(l, table) != 0 {
            sys::lua_pop(l, 1);
            let k = match key_at(l, -1) {
                Ok(k) => k,
                Err(m) => {
                    sys::lua_pop(l, 1);
                    return Err(m);
                }
            };
            enc.keys.try_reserve(1).map_err(|_| msg!("not enough memory"))?;
            enc.keys.push(k);
        }
        Ok(())
    }
}

/// `sort_keys`: numbers first in numeric order, then strings in byte order.
fn key_order(a: &SortKey, b: &SortKey) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn num(k: &SortKey) -> Option<f64> {
        match *k {
            SortKey::Int(i) => Some(i as f64),
            SortKey::Num(f) => Some(f),
            SortKey::Str(..) => None,
        }
    }
    match (a, b) {
        (SortKey::Int(x), SortKey::Int(y)) => x.cmp(y),
        (SortKey::Str(p, n), SortKey::Str(q, m)) => {
            // SAFETY: the keys are alive while their table is on the stack.
            let (x, y) = unsafe { (std::slice::from_raw_parts(*p, *n), std::slice::from_raw_parts(*q, *m)) };
            x.cmp(y)
        }
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        },
    }
}

/// A JSON string of `s`.
fn string(out: &mut Vec<u8>, s: &[u8], flags: u32) -> Result<(), Msg> {
    let room = s.len() * escape::MAX_EXPANSION + escape::SLACK + 2;
    out.try_reserve(room).map_err(|_| msg!("not enough memory"))?;
    let dst = out.spare_capacity_mut();
    // SAFETY: the bytes written below are the ones `set_len` then counts
    // (the quotes and what `escape` reports written); u8 has no invalid
    // values.
    let dst = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), room) };
    dst[0] = b'"';
    match escape::escape(s, &mut dst[1..room - 1], flags, true) {
        Escaped::Done { written, .. } => {
            dst[written + 1] = b'"';
            // SAFETY: `written + 2` bytes were initialised above.
            unsafe { out.set_len(out.len() + written + 2) };
            Ok(())
        }
        Escaped::InvalidUtf8(at) => Err(msg!("Cannot serialise string: invalid UTF-8 at byte {at}")),
    }
}

enum Number {
    Int(i64),
    Float(f64),
}

/// The number at `idx`.
unsafe fn number(l: State, out: &mut Vec<u8>, call: &Call, idx: c_int) -> Result<(), Msg> {
    // SAFETY: a valid state and index.
    let v = unsafe {
        match lua::integer_at(l, idx) {
            Some(i) => Number::Int(i),
            None => Number::Float(sys::lua_tonumber(l, idx)),
        }
    };
    put_number(out, call, v)
}

/// An integer exactly, a double as `%.{precision}g` (or the shortest
/// text), NaN and infinities per `encode_invalid_numbers`.
fn put_number(out: &mut Vec<u8>, call: &Call, v: Number) -> Result<(), Msg> {
    let mut text = [0u8; number::MAX_LEN + 8];
    let v = match v {
        Number::Int(i) => {
            let n = number::integer(i, &mut text);
            return put(out, &text[..n]);
        }
        Number::Float(v) => v,
    };
    if !v.is_finite() {
        return match call.invalid_numbers {
            0 => Err(msg!("Cannot serialise number: must not be NaN or Infinity")),
            1 if v.is_nan() => put(out, b"NaN"),
            1 if v < 0.0 => put(out, b"-Infinity"),
            1 => put(out, b"Infinity"),
            _ => put(out, b"null"),
        };
    }
    let n = if call.precision == 0 {
        number::format_shortest(v, &mut text)
    } else {
        number::format_g(v, call.precision, &mut text)
    };
    put(out, &text[..n])
}
