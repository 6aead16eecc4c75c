//! JSON text from Lua values: a walk over tables with the raw C API,
//! lua-cjson's rules (docs/encoding.md: arrays and objects, numbers,
//! markers, errors) and qjson's options (`indent`, `sort_keys`, `ascii`,
//! `html_safe`, `precision`, `escape_slash`, `validate_utf8`), strings
//! escaped and numbers formatted by the core (`qjson_core::encode`).
//!
//! The walk is a loop over an explicit stack of open tables, so nesting
//! costs no Rust stack, and within it one loop per kind of table that
//! writes members until one is a table (which becomes the innermost
//! level) or none is left. Its state and the output are in an `Encoder`
//! userdata taken from the encode function's upvalue as `decode.rs`
//! takes its `Decoder` (an encode run by a finalizer meanwhile gets its
//! own). `lua_next` and `lua_rawget` allocate nothing; the walk's only
//! allocating calls push number keys for sorted objects and grow the Lua
//! stack, and its frame owns nothing then. It has two instances: one for
//! cjson's defaults (compact, unsorted, nothing skipped) that tests none
//! of these per member, one for the rest. Each member reserves its
//! output room once, and a failure is a small `Fail` value until the
//! walk is over.

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
    /// A member was skipped (`encode_skip_unsupported_value_types`): in
    /// indented output lua-cjson closes a table that had members on a new
    /// line even when none was written.
    skipped: bool,
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
        sys::lua_pushvalue(l, arg);
        let r = if call.indent || call.sort_keys || call.skip_unsupported {
            walk::<false>(l, enc, &call)
        } else {
            walk::<true>(l, enc, &call)
        };
        let r = r.map_err(|f| f.message(l));
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

/// Why a walk stopped, made into its message once the walk is over: a
/// value small enough for the walk's functions to return in registers.
#[derive(Clone, Copy)]
enum Fail {
    Memory,
    /// A key of this Lua type.
    KeyType(c_int),
    /// A value of this Lua type.
    ValueType(c_int),
    /// Invalid UTF-8 at this byte of a string (`validate_utf8`, `ascii`).
    InvalidUtf8(usize),
    NotFinite,
    SparseArray,
    Cycle,
    /// Nested deeper than `encode_max_depth`: lua-cjson's message, with
    /// this depth.
    Nesting(i64),
}

impl Fail {
    unsafe fn message(self, l: State) -> Msg {
        // SAFETY: a valid state.
        let name = |t| unsafe { lua::type_name_of(l, t) };
        match self {
            Fail::Memory => msg!("not enough memory"),
            Fail::KeyType(t) => msg!("Cannot serialise {}: table key must be a number or string", name(t)),
            Fail::ValueType(t) => msg!("Cannot serialise {}: type not supported", name(t)),
            Fail::InvalidUtf8(at) => msg!("Cannot serialise string: invalid UTF-8 at byte {at}"),
            Fail::NotFinite => msg!("Cannot serialise number: must not be NaN or Infinity"),
            Fail::SparseArray => msg!("Cannot serialise table: excessively sparse array"),
            Fail::Cycle => msg!("Cannot serialise table: reference cycle"),
            Fail::Nesting(depth) => msg!("Cannot serialise, excessive nesting ({depth})"),
        }
    }
}

/// Makes room for `n` more bytes of output.
#[inline(always)]
fn reserve(out: &mut Vec<u8>, n: usize) -> Result<(), Fail> {
    if out.capacity() - out.len() >= n {
        return Ok(());
    }
    grow(out, n)
}

#[cold]
#[inline(never)]
fn grow(out: &mut Vec<u8>, n: usize) -> Result<(), Fail> {
    out.try_reserve(n).map_err(|_| Fail::Memory)
}

/// Appends `b` to room reserved before.
#[inline(always)]
unsafe fn push(out: &mut Vec<u8>, b: &[u8]) {
    debug_assert!(out.capacity() - out.len() >= b.len());
    let len = out.len();
    // SAFETY: the caller reserved the room; u8 has no invalid values.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), out.as_mut_ptr().add(len), b.len());
        out.set_len(len + b.len());
    }
}

/// Appends `b`, after a comma when `comma`.
#[inline(always)]
fn put(out: &mut Vec<u8>, comma: bool, b: &[u8]) -> Result<(), Fail> {
    reserve(out, b.len() + 1)?;
    // SAFETY: reserved just above.
    unsafe {
        if comma {
            push(out, b",");
        }
        push(out, b);
    }
    Ok(())
}

/// The walk. `PLAIN`: compact, unsorted output without
/// `encode_skip_unsupported_value_types` (cjson's defaults), so that its
/// instance tests none of these per member. The value is on the stack.
unsafe fn walk<const PLAIN: bool>(l: State, enc: &mut Encoder, call: &Call) -> Result<(), Fail> {
    // SAFETY: a valid state; the stack indexes are this walk's.
    unsafe {
        let t = sys::lua_type(l, -1);
        if t != sys::LUA_TTABLE {
            return scalar::<PLAIN>(l, &mut enc.out, call, t, false);
        }
        if !open_table(l, enc, call)? {
            return Ok(());
        }
        while let Some(&top) = enc.levels.last() {
            let visit = match top.kind {
                Kind::Array { n, i } => array::<PLAIN>(l, enc, call, top, n, i)?,
                Kind::Object => object::<PLAIN>(l, enc, call, top)?,
                Kind::Sorted { at, end } => sorted(l, enc, call, top, at, end)?,
            };
            if let Visit::Done { count } = visit {
                close(l, enc, top, count)?;
            }
        }
        Ok(())
    }
}

/// How a visit of the innermost level ended.
enum Visit {
    /// A member is a table, now the innermost level.
    Opened,
    /// Every member written, `count` of them.
    Done { count: u32 },
}

/// Records the innermost level's progress before one of its members
/// opens a level of its own.
fn save(enc: &mut Encoder, count: u32, kind: Kind) {
    if let Some(top) = enc.levels.last_mut() {
        top.count = count;
        top.kind = kind;
    }
}

/// The elements `i + 1..=n` of the array `level`.
unsafe fn array<const PLAIN: bool>(
    l: State,
    enc: &mut Encoder,
    call: &Call,
    level: Level,
    n: i64,
    mut i: i64,
) -> Result<Visit, Fail> {
    // SAFETY: a valid state; the table is at `level.table`, the top.
    unsafe {
        let mut count = level.count;
        while i < n {
            i += 1;
            sys::lua_rawgeti(l, level.table, i as sys::lua_Integer);
            if !PLAIN && call.skip_unsupported && unsupported(l, -1) {
                skipped(enc);
                sys::lua_pop(l, 1);
                continue;
            }
            let comma = separator::<PLAIN>(&mut enc.out, &enc.indent, count > 0, enc.levels.len())?;
            count += 1;
            let t = sys::lua_type(l, -1);
            if t != sys::LUA_TTABLE {
                scalar::<PLAIN>(l, &mut enc.out, call, t, comma)?;
                continue;
            }
            if comma {
                put(&mut enc.out, false, b",")?;
            }
            save(enc, count, Kind::Array { n, i });
            if open_table(l, enc, call)? {
                return Ok(Visit::Opened);
            }
        }
        Ok(Visit::Done { count })
    }
}

/// The members of the object `level` after the key on the stack, in
/// `lua_next` order.
unsafe fn object<const PLAIN: bool>(l: State, enc: &mut Encoder, call: &Call, level: Level) -> Result<Visit, Fail> {
    // SAFETY: a valid state; the table at `level.table`, its last key at
    // the top.
    unsafe {
        let mut count = level.count;
        while sys::lua_next(l, level.table) != 0 {
            if !PLAIN && call.skip_unsupported && unsupported(l, -1) {
                skipped(enc);
                sys::lua_pop(l, 1);
                continue;
            }
            let comma = separator::<PLAIN>(&mut enc.out, &enc.indent, count > 0, enc.levels.len())?;
            count += 1;
            key::<PLAIN>(&mut enc.out, call, comma, key_at(l, -2)?)?;
            let t = sys::lua_type(l, -1);
            if t != sys::LUA_TTABLE {
                scalar::<PLAIN>(l, &mut enc.out, call, t, false)?;
                continue;
            }
            save(enc, count, Kind::Object);
            if open_table(l, enc, call)? {
                return Ok(Visit::Opened);
            }
        }
        Ok(Visit::Done { count })
    }
}

/// The members of the object `level` whose keys are `keys[at..end]`
/// (`sort_keys`).
unsafe fn sorted(
    l: State,
    enc: &mut Encoder,
    call: &Call,
    level: Level,
    mut at: usize,
    end: usize,
) -> Result<Visit, Fail> {
    // SAFETY: a valid state; the table at `level.table`, the top.
    unsafe {
        let mut count = level.count;
        while at < end {
            let k = enc.keys[at];
            at += 1;
            match k {
                SortKey::Int(i) => lua::push_int(l, i),
                SortKey::Num(f) => sys::lua_pushnumber(l, f),
                SortKey::Str(p, n) => lua::push_bytes(l, std::slice::from_raw_parts(p, n)),
            }
            sys::lua_rawget(l, level.table);
            if call.skip_unsupported && unsupported(l, -1) {
                skipped(enc);
                sys::lua_pop(l, 1);
                continue;
            }
            let comma = separator::<false>(&mut enc.out, &enc.indent, count > 0, enc.levels.len())?;
            count += 1;
            key::<false>(&mut enc.out, call, comma, k)?;
            let t = sys::lua_type(l, -1);
            if t != sys::LUA_TTABLE {
                scalar::<false>(l, &mut enc.out, call, t, false)?;
                continue;
            }
            save(enc, count, Kind::Sorted { at, end });
            if open_table(l, enc, call)? {
                return Ok(Visit::Opened);
            }
        }
        Ok(Visit::Done { count })
    }
}

/// Notes on the innermost level that one of its members was skipped.
fn skipped(enc: &mut Encoder) {
    if let Some(top) = enc.levels.last_mut() {
        top.skipped = true;
    }
}

/// Ends the innermost level, `count` members written: its closing
/// bracket, and the table off the stack.
unsafe fn close(l: State, enc: &mut Encoder, level: Level, count: u32) -> Result<(), Fail> {
    // SAFETY: a valid state; the level's table is on the stack.
    unsafe {
        let depth = enc.levels.len();
        let skipped = enc.levels.pop().is_some_and(|v| v.skipped);
        if let Kind::Sorted { .. } = level.kind {
            let from = enc.levels.iter().rev().find_map(|v| match v.kind {
                Kind::Sorted { end, .. } => Some(end),
                _ => None,
            });
            enc.keys.truncate(from.unwrap_or(0));
        }
        if !enc.indent.is_empty() && (count > 0 || skipped) {
            newline(&mut enc.out, &enc.indent, depth - 1)?;
        }
        put(&mut enc.out, false, if let Kind::Array { .. } = level.kind { b"]" } else { b"}" })?;
        // The table (and for an object, nothing else: lua_next took its
        // last key).
        sys::lua_settop(l, level.table - 1);
        Ok(())
    }
}

/// Before a member at `depth`: in indented output the comma (when
/// `comma`), a newline and the indent, and false; else whether the
/// member's own write starts with a comma.
#[inline(always)]
fn separator<const PLAIN: bool>(out: &mut Vec<u8>, indent: &[u8], comma: bool, depth: usize) -> Result<bool, Fail> {
    if PLAIN || indent.is_empty() {
        return Ok(comma);
    }
    if comma {
        put(out, false, b",")?;
    }
    newline(out, indent, depth)?;
    Ok(false)
}

fn newline(out: &mut Vec<u8>, unit: &[u8], depth: usize) -> Result<(), Fail> {
    reserve(out, 1 + unit.len() * depth)?;
    // SAFETY: reserved just above.
    unsafe {
        push(out, b"\n");
        for _ in 0..depth {
            push(out, unit);
        }
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

/// The object key at `idx`; a key JSON cannot have fails.
#[inline(always)]
unsafe fn key_at(l: State, idx: c_int) -> Result<SortKey, Fail> {
    // SAFETY: a valid state and index.
    unsafe {
        match sys::lua_type(l, idx) {
            sys::LUA_TSTRING => {
                let s = lua::string_bytes(l, idx);
                Ok(SortKey::Str(s.as_ptr(), s.len()))
            }
            sys::LUA_TNUMBER => Ok(match number_at(l, idx) {
                Number::Int(i) => SortKey::Int(i),
                Number::Float(f) => SortKey::Num(f),
            }),
            t => Err(Fail::KeyType(t)),
        }
    }
}

/// Writes an object key (a number key as a string) and its colon, after
/// a comma when `comma`.
#[inline(always)]
fn key<const PLAIN: bool>(out: &mut Vec<u8>, call: &Call, comma: bool, k: SortKey) -> Result<(), Fail> {
    // A comma, the key and ": ".
    const AROUND: usize = 3;
    // SAFETY: each write below is within the room reserved before it;
    // the key's bytes are alive while its table is on the stack.
    unsafe {
        match k {
            SortKey::Str(p, n) => {
                reserve(out, string_room(n) + AROUND)?;
                if comma {
                    push(out, b",");
                }
                push_string(out, std::slice::from_raw_parts(p, n), call.flags)?;
            }
            SortKey::Int(i) => quoted_number(out, call, comma, Number::Int(i))?,
            SortKey::Num(f) => quoted_number(out, call, comma, Number::Float(f))?,
        }
        push(out, if !PLAIN && call.indent { b": " } else { b":" });
    }
    Ok(())
}

/// A number key's text in quotes, after a comma when `comma`, with room
/// for what follows it in `key`.
#[inline(always)]
fn quoted_number(out: &mut Vec<u8>, call: &Call, comma: bool, v: Number) -> Result<(), Fail> {
    reserve(out, NUMBER_ROOM + 5)?;
    // SAFETY: reserved just above.
    unsafe {
        if comma {
            push(out, b",");
        }
        push(out, b"\"");
        push_number(out, call, v)?;
        push(out, b"\"");
    }
    Ok(())
}

/// Writes the value at the top of the stack, of Lua type `t` (not a
/// table), after a comma when `comma`, and pops it.
#[inline(always)]
unsafe fn scalar<const PLAIN: bool>(
    l: State,
    out: &mut Vec<u8>,
    call: &Call,
    t: c_int,
    comma: bool,
) -> Result<(), Fail> {
    // SAFETY: a valid state; each write is within the room reserved
    // before it.
    unsafe {
        match t {
            sys::LUA_TSTRING => {
                let s = lua::string_bytes(l, -1);
                reserve(out, string_room(s.len()) + 1)?;
                if comma {
                    push(out, b",");
                }
                push_string(out, s, call.flags)?;
            }
            sys::LUA_TNUMBER => {
                reserve(out, NUMBER_ROOM + 1)?;
                if comma {
                    push(out, b",");
                }
                push_number(out, call, number_at(l, -1))?;
            }
            sys::LUA_TBOOLEAN => put(out, comma, if sys::lua_toboolean(l, -1) != 0 { b"true" } else { b"false" })?,
            sys::LUA_TNIL => put(out, comma, b"null")?,
            sys::LUA_TLIGHTUSERDATA if lua::is_null(l, -1) => put(out, comma, b"null")?,
            sys::LUA_TLIGHTUSERDATA if markers::is_empty_array(l, -1) => put(out, comma, b"[]")?,
            _ if !PLAIN && call.skip_unsupported => {}
            _ => return Err(Fail::ValueType(t)),
        }
        sys::lua_pop(l, 1);
        Ok(())
    }
}

/// The table on top of the stack: written whole when empty, else opened
/// as a level (true).
unsafe fn open_table(l: State, enc: &mut Encoder, call: &Call) -> Result<bool, Fail> {
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
                    put(&mut enc.out, false, text)?;
                    sys::lua_pop(l, 1);
                    return Ok(false);
                }
                n
            }
        };
        enc.levels.try_reserve(1).map_err(|_| Fail::Memory)?;
        if n < 0 {
            put(&mut enc.out, false, b"{")?;
            if call.sort_keys {
                let at = enc.keys.len();
                collect_keys(l, enc, table)?;
                let end = enc.keys.len();
                enc.keys[at..end].sort_by(key_order);
                enc.levels.push(Level { table, kind: Kind::Sorted { at, end }, count: 0, skipped: false });
            } else {
                sys::lua_pushnil(l);
                enc.levels.push(Level { table, kind: Kind::Object, count: 0, skipped: false });
            }
        } else if n == 0 {
            put(&mut enc.out, false, b"[]")?;
            sys::lua_pop(l, 1);
            return Ok(false);
        } else {
            put(&mut enc.out, false, b"[")?;
            enc.levels.push(Level { table, kind: Kind::Array { n, i: 0 }, count: 0, skipped: false });
        }
        Ok(true)
    }
}

/// Past `encode_max_depth`, or every `CYCLE_CHECK` levels: a table
/// already on the path is a reference cycle (qjson names it; lua-cjson
/// goes round until it is too deep).
unsafe fn check_depth(l: State, enc: &Encoder, call: &Call, table: c_int, depth: i64) -> Result<(), Fail> {
    // SAFETY: a valid state; the levels' tables are on the stack.
    unsafe {
        let on_path = enc.levels.iter().any(|v| sys::lua_rawequal(l, v.table, table) != 0);
        if on_path {
            if call.dropin {
                return Err(Fail::Nesting(call.max_depth + 1));
            }
            return Err(Fail::Cycle);
        }
        if depth > call.max_depth {
            if !call.dropin {
                for (i, a) in enc.levels.iter().enumerate() {
                    if enc.levels[i + 1..].iter().any(|b| sys::lua_rawequal(l, a.table, b.table) != 0) {
                        return Err(Fail::Cycle);
                    }
                }
            }
            return Err(Fail::Nesting(depth));
        }
        Ok(())
    }
}

/// lua-cjson's `lua_array_length`: the largest key when every key is a
/// positive integer, -1 for an object; an excessively sparse array
/// fails or is an object (`encode_sparse_array`).
unsafe fn array_length(l: State, table: c_int, call: &Call) -> Result<i64, Fail> {
    // SAFETY: a valid state; the table is at `table`.
    unsafe {
        let (mut max, mut items) = (0i64, 0i64);
        sys::lua_pushnil(l);
        while sys::lua_next(l, table) != 0 {
            // The key, below the value.
            let k = if sys::lua_type(l, -2) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -2) } else { 0.0 };
            // A positive integer within a C int (lua-cjson keeps the
            // length in one; past it an object); the cast is exact there.
            if !(k >= 1.0 && k <= c_int::MAX as f64 && (k as i64) as f64 == k) {
                sys::lua_settop(l, -3);
                return Ok(-1);
            }
            sys::lua_pop(l, 1);
            max = max.max(k as i64);
            items += 1;
        }
        if call.sparse_ratio > 0 && max > items * call.sparse_ratio && max > call.sparse_safe {
            if !call.sparse_convert {
                return Err(Fail::SparseArray);
            }
            return Ok(-1);
        }
        Ok(max)
    }
}

/// The keys of the table at `table`, onto `enc.keys`; a key JSON cannot
/// have fails.
unsafe fn collect_keys(l: State, enc: &mut Encoder, table: c_int) -> Result<(), Fail> {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_pushnil(l);
        while sys::lua_next(l, table) != 0 {
            sys::lua_pop(l, 1);
            let k = match key_at(l, -1) {
                Ok(k) => k,
                Err(f) => {
                    sys::lua_pop(l, 1);
                    return Err(f);
                }
            };
            enc.keys.try_reserve(1).map_err(|_| Fail::Memory)?;
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

/// The room a string of `n` bytes may take, quotes included.
const fn string_room(n: usize) -> usize {
    n * escape::MAX_EXPANSION + escape::SLACK + 2
}

/// Writes the JSON string of `s` into `string_room(s.len())` bytes
/// reserved before.
#[inline(always)]
unsafe fn push_string(out: &mut Vec<u8>, s: &[u8], flags: u32) -> Result<(), Fail> {
    let len = out.len();
    let room = string_room(s.len());
    debug_assert!(out.capacity() - len >= room);
    // SAFETY: the room is reserved; the bytes written below are the ones
    // `set_len` then counts (the quotes and what `escape` reports
    // written); u8 has no invalid values.
    unsafe {
        let dst = std::slice::from_raw_parts_mut(out.as_mut_ptr().add(len), room);
        dst[0] = b'"';
        match escape::escape(s, &mut dst[1..room - 1], flags, true) {
            Escaped::Done { written, .. } => {
                dst[written + 1] = b'"';
                out.set_len(len + written + 2);
                Ok(())
            }
            Escaped::InvalidUtf8(at) => Err(Fail::InvalidUtf8(at)),
        }
    }
}

enum Number {
    Int(i64),
    Float(f64),
}

/// The number at `idx`.
#[inline(always)]
unsafe fn number_at(l: State, idx: c_int) -> Number {
    // SAFETY: a valid state and index.
    unsafe {
        match lua::integer_at(l, idx) {
            Some(i) => Number::Int(i),
            None => Number::Float(sys::lua_tonumber(l, idx)),
        }
    }
}

/// The room a number's text may take.
const NUMBER_ROOM: usize = number::MAX_LEN + 8;

/// Writes `v` into `NUMBER_ROOM` bytes reserved before: an integer
/// exactly, a double as `%.{precision}g` (or the shortest text), NaN and
/// infinities per `encode_invalid_numbers`.
#[inline(always)]
unsafe fn push_number(out: &mut Vec<u8>, call: &Call, v: Number) -> Result<(), Fail> {
    let len = out.len();
    debug_assert!(out.capacity() - len >= NUMBER_ROOM);
    // SAFETY: the room is reserved; `set_len` counts the bytes written.
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().add(len), NUMBER_ROOM) };
    let n = match v {
        Number::Int(i) => number::integer(i, dst),
        Number::Float(v) if v.is_finite() => {
            if call.precision == 0 {
                number::format_shortest(v, dst)
            } else {
                number::format_g(v, call.precision, dst)
            }
        }
        Number::Float(v) => {
            let text: &[u8] = match call.invalid_numbers {
                0 => return Err(Fail::NotFinite),
                1 if v.is_nan() => b"NaN",
                1 if v < 0.0 => b"-Infinity",
                1 => b"Infinity",
                _ => b"null",
            };
            dst[..text.len()].copy_from_slice(text);
            text.len()
        }
    };
    // SAFETY: `n` bytes written above.
    unsafe { out.set_len(len + n) };
    Ok(())
}
