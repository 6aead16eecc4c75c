//! The document API on PUC Lua: `qjson.parse` returns a userdata that
//! borrows the Lua string (kept alive as its user value) and holds the
//! core's `Document`; cursors are tables `{document, node}`. Reads take
//! an optional path (a string, dotted or a JSON Pointer, or a
//! `qjson.path`).
//!
//! No reference into a document is held across a Lua call that can
//! allocate: a finalizer run by that allocation may read the document
//! (overwriting the buffer escaped strings are decoded into) or close
//! it. A string that lives in the input is pushed from the input (which
//! the user value keeps); one decoded into the document's buffer is
//! copied to the stack first when short, else read again after its Lua
//! memory is allocated, and copied at once.

use std::ffi::{c_int, CStr};

use qjson_core::events::Walker;
use qjson_core::{Document, Kind, Node, Path};

use crate::config::Config;
use crate::lua::{self, lua_fn, msg, sys, Msg, Ret, State};
use crate::{decode, encode};

pub const DOC: &CStr = c"qjson.document";
pub const CURSOR: &CStr = c"qjson.cursor";
pub const PATH: &CStr = c"qjson.path";
const PAIRS: &CStr = c"qjson.pairs";

const CLOSED: &str = "qjson: document is closed";

/// A parsed document. Its user value anchors the input string (or, for
/// `parse_file`, nothing: the document owns its bytes).
pub struct Doc {
    doc: Option<Document<'static>>,
}

// A cursor (a value inside a document) is a table `{doc, node}` with the
// registry's metatable CURSOR, as the LuaJIT binding's cursors are
// tables: it holds its document's userdata, so it keeps it alive.

/// A compiled path and its text (for messages).
pub struct CompiledPath {
    path: Path,
    text: Vec<u8>,
}

/// The (key, last value) list of an iterated object whose keys repeat,
/// and the next entry to give.
struct Pairs {
    unique: Vec<(Node, Node)>,
    at: usize,
}

/// Sets the value at the top as the user value of the userdata at `ud`
/// (in a table on 5.1 and 5.2, whose user values must be tables).
pub unsafe fn set_anchor(l: State, ud: c_int) {
    // SAFETY: a valid state.
    unsafe {
        if cfg!(any(feature = "lua51", feature = "lua52")) {
            sys::lua_createtable(l, 1, 0);
            sys::lua_insert(l, -2);
            sys::lua_rawseti(l, -2, 1);
        }
        sys::lua_setuservalue(l, ud);
    }
}

/// Pushes the value `set_anchor` set on the userdata at `ud`.
pub unsafe fn push_anchor(l: State, ud: c_int) {
    // SAFETY: a valid state; no allocation (the 5.1 and 5.2 table exists).
    unsafe {
        sys::lua_getuservalue(l, ud);
        if cfg!(any(feature = "lua51", feature = "lua52")) {
            sys::lua_rawgeti(l, -1, 1);
            sys::lua_remove(l, -2);
        }
    }
}

/// Raises `string expected, got <type>` for argument `arg` unless it is
/// a string (lua::arg_error's name, also under `qjson.safe`, where the
/// host's `luaL_checktype` says `'?'`).
unsafe fn check_string(l: State, arg: c_int) {
    // SAFETY: a valid state.
    unsafe {
        if sys::lua_type(l, arg) != sys::LUA_TSTRING {
            lua::arg_error(l, arg, &msg!("string expected, got {}", lua::type_name(l, arg)));
        }
    }
}

/// `qjson.parse(str [, opts])`.
pub unsafe fn parse(l: State, max_depth: u32) -> Ret {
    // SAFETY: called by Lua with the arguments at 1 and 2.
    unsafe {
        check_string(l, 1);
        let opts = crate::options::parse(l, 2, max_depth);
        sys::lua_settop(l, 1);
        let len = lua::string_at(l, 1).unwrap_or_default().len();
        push_document(l, 1, 0..len, &opts)?;
        Ok(1)
    }
}

/// Pushes a new document over the bytes `range` of the string at
/// `anchor` (its user value), parsed with `opts` (`qjson.parse`, and each
/// value of `qjson.stream`). On a parse error, `qjson: <what>`; the
/// document left on the stack is empty.
pub unsafe fn push_document(
    l: State,
    anchor: c_int,
    range: std::ops::Range<usize>,
    opts: &qjson_core::Options,
) -> Result<(), Msg> {
    // SAFETY: a valid state; a string at `anchor`, `range` within it.
    unsafe {
        let anchor = sys::lua_absindex(l, anchor);
        let input = &lua::string_at(l, anchor).unwrap_or_default()[range];
        // SAFETY: the input string is the document's user value, so it
        // outlives the document, which `close` or `__gc` drops.
        let input: &'static [u8] = std::slice::from_raw_parts(input.as_ptr(), input.len());
        // Measured (parsed into the thread's buffers) when small, then
        // the userdata made (an allocation, which may run a finalizer that
        // parses: `place` and `parse_measured` then parse again), then the
        // document built in it or beside it, with no Lua call.
        let size = if input.len() <= MEASURED_MAX {
            guarded(|| Document::measure(input, opts).map_err(|e| msg!("qjson: {e}")))?
        } else {
            usize::MAX
        };
        let placed = size <= PLACED_MAX;
        let header = std::mem::size_of::<Option<Doc>>().next_multiple_of(8);
        let room = if placed { size.next_multiple_of(8) } else { 0 };
        let ud = sys::lua_newuserdata(l, header + room).cast::<Option<Doc>>();
        ud.write(Some(Doc { doc: None }));
        sys::luaL_getmetatable(l, DOC.as_ptr());
        sys::lua_setmetatable(l, -2);
        let at = sys::lua_gettop(l);
        sys::lua_pushvalue(l, anchor);
        set_anchor(l, at);
        let parsed = guarded(|| {
            if placed {
                // SAFETY: `room` bytes after the header, 8-byte aligned (a
                // userdata's memory is), which never move and outlive the
                // document (dropped by `close` or `__gc` before the
                // collector frees them).
                let mem = std::slice::from_raw_parts_mut(ud.cast::<u8>().add(header).cast::<u32>(), room / 4);
                if let Some(doc) = Document::place(input, opts, mem).map_err(|e| msg!("qjson: {e}"))? {
                    return Ok(doc);
                }
            }
            Document::parse_measured(input, opts).map_err(|e| msg!("qjson: {e}"))
        })?;
        let bytes = if placed { 0 } else { parsed.tape_bytes() };
        (*ud).as_mut().expect("just made").doc = Some(parsed);
        account(l, bytes);
        Ok(())
    }
}

/// Documents that need up to this many bytes (their tape and room to
/// unescape strings into, `Document::measure`) are built in their
/// userdata, as the LuaJIT binding places them: one Lua allocation, which
/// the collector counts, instead of a native tape and decode buffer.
const PLACED_MAX: usize = 16384;

/// Larger inputs are parsed without being measured first: measuring
/// counts the room each escaped string needs, which costs a text with
/// many of them (twitter.json) more than placing saves.
const MEASURED_MAX: usize = 256 * 1024;

/// Tells the collector about `bytes` of native memory a new document
/// holds (its tape), as a step of the work that much Lua memory would
/// have caused: a document's userdata is small, so documents left to the
/// collector would otherwise pile up their tapes (hundreds of MB for a
/// loop parsing twitter.json). Not when the collector is stopped, and
/// not on 5.1, whose step would restart a stopped collector.
unsafe fn account(l: State, bytes: usize) {
    #[cfg(not(feature = "lua51"))]
    // SAFETY: a valid state; the document is anchored on the stack (a
    // step may run finalizers).
    unsafe {
        let kb = (bytes / 1024).min(c_int::MAX as usize) as c_int;
        if kb > 0 && sys::lua_gc(l, sys::LUA_GCISRUNNING, 0) != 0 {
            sys::lua_gc(l, sys::LUA_GCSTEP, kb);
        }
    }
    #[cfg(feature = "lua51")]
    let _ = (l, bytes);
}

/// `qjson.parse_file(path [, opts])`.
pub unsafe fn parse_file(l: State, max_depth: u32) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let mut len = 0;
        let p = sys::luaL_checklstring(l, 1, &mut len);
        let name = std::slice::from_raw_parts(p.cast::<u8>(), len);
        if name.contains(&0) {
            lua::arg_error(l, 1, &msg!("path contains a NUL byte"));
        }
        let mut max_size = u32::MAX as u64;
        if sys::lua_type(l, 2) == sys::LUA_TTABLE {
            sys::lua_getfield(l, 2, c"max_size".as_ptr());
            if sys::lua_type(l, -1) != sys::LUA_TNIL {
                let v = if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { -1.0 };
                if v.is_nan() || v < 0.0 || v.floor() != v {
                    let got = lua::to_text(l, -1);
                    let m = msg!(
                        "bad option 'max_size' (non-negative integer expected, got {})",
                        String::from_utf8_lossy(got.bytes())
                    );
                    lua::arg_error(l, 2, &m);
                }
                // (A document holds at most 4 GiB - 1 bytes.)
                max_size = v.min(u32::MAX as f64) as u64;
            }
            sys::lua_pop(l, 1);
            // The other options, with max_size taken out of a copy.
            sys::lua_createtable(l, 0, 4);
            sys::lua_pushnil(l);
            while sys::lua_next(l, 2) != 0 {
                if lua::string_at(l, -2) == Some(b"max_size") {
                    sys::lua_pop(l, 1);
                    continue;
                }
                sys::lua_pushvalue(l, -2);
                sys::lua_insert(l, -2);
                sys::lua_rawset(l, -4);
            }
            sys::lua_replace(l, 2);
        }
        let opts = crate::options::parse(l, 2, max_depth);
        sys::lua_settop(l, 1);
        let ud = lua::new_userdata(l, DOC, || Doc { doc: None });
        let name = lua::string_at(l, 1).unwrap_or_default();
        let parsed = guarded(|| {
            let path = std::path::Path::new(std::ffi::OsStr::from_encoded_bytes_unchecked(name));
            let bytes = qjson_core::document::file::read_file(path, max_size)
                .map_err(|e| msg!("qjson: cannot read file '{}': {}", String::from_utf8_lossy(name), e))?;
            Document::parse_owned(bytes, &opts).map_err(|e| msg!("qjson: {e}"))
        })?;
        let bytes = parsed.tape_bytes() + parsed.input().len();
        (*ud).as_mut().expect("just made").doc = Some(parsed);
        account(l, bytes);
        Ok(1)
    }
}

/// Runs pure Rust code (no Lua call), a panic becoming an error.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, Msg>) -> Result<T, Msg> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(msg!("qjson: internal error (a panic in the native module)")))
}

/// `qjson.path(str)`.
pub unsafe fn compile_path(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        check_string(l, 1);
        let text = lua::string_at(l, 1).unwrap_or_default();
        if let Err(e) = Path::compile(text) {
            return Err(where_msg(l, msg!("qjson: {e}")));
        }
        // The userdata first: a path owns memory, and the allocation may
        // raise.
        let ud = lua::new_empty::<CompiledPath>(l, PATH);
        let path = Path::compile(text).expect("checked above");
        *ud = Some(CompiledPath { path, text: text.to_vec() });
        Ok(1)
    }
}

/// `msg` with the calling Lua code's position in front (`luaL_where`).
pub unsafe fn where_msg(l: State, m: Msg) -> Msg {
    // SAFETY: a valid state; luaL_where pushes a string (it may
    // allocate: nothing is owned here).
    unsafe {
        sys::luaL_where(l, 1);
        let w = lua::string_at(l, -1).unwrap_or_default();
        let out = msg!("{}{}", String::from_utf8_lossy(w), String::from_utf8_lossy(m.bytes()));
        sys::lua_pop(l, 1);
        out
    }
}

/// The document and base node of `self` (argument 1: a document or a
/// cursor), and the stack index of the `Doc` userdata (a cursor's is
/// pushed).
unsafe fn this<'a>(l: State) -> Result<(&'a mut Document<'static>, Node, c_int), Msg> {
    // SAFETY: a valid state.
    unsafe {
        // (self and the path; what this pushes goes above them.)
        sys::lua_settop(l, 2);
        let mts = (sys::lua_upvalueindex(UP_DOC_MT), sys::lua_upvalueindex(UP_CURSOR_MT));
        let Some((ud, node)) = document_or_cursor_with(l, 1, mts) else {
            let m = msg!("qjson document or cursor expected, got {}", lua::type_name(l, 1));
            lua::arg_error(l, 1, &m)
        };
        Ok((doc_at(l, ud)?, node, ud))
    }
}

/// For a document or a cursor at `idx`: the stack index of its `Doc`
/// userdata (a cursor's is pushed) and the node it is at; `None` for
/// any other value. The document may be closed (see [`doc_at`]).
pub unsafe fn document_or_cursor(l: State, idx: c_int) -> Option<(c_int, Node)> {
    // SAFETY: a valid state and index.
    unsafe {
        let idx = sys::lua_absindex(l, idx);
        sys::luaL_getmetatable(l, DOC.as_ptr());
        sys::luaL_getmetatable(l, CURSOR.as_ptr());
        let top = sys::lua_gettop(l);
        let found = document_or_cursor_with(l, idx, (top - 1, top));
        sys::lua_remove(l, top - 1);
        sys::lua_remove(l, top - 1);
        // (A cursor's document was pushed above the two metatables.)
        found.map(|(ud, node)| (if ud > top { ud - 2 } else { ud }, node))
    }
}

/// [`document_or_cursor`] with the document's and the cursor's metatables
/// at the indices `mts` (for the methods, their upvalues: no registry
/// lookup per read).
unsafe fn document_or_cursor_with(l: State, idx: c_int, mts: (c_int, c_int)) -> Option<(c_int, Node)> {
    // SAFETY: a valid state and indices.
    unsafe {
        // (A document is a userdata, a cursor a table: one metatable to
        // compare.)
        let mt = match sys::lua_type(l, idx) {
            sys::LUA_TUSERDATA => mts.0,
            sys::LUA_TTABLE => mts.1,
            _ => return None,
        };
        if sys::lua_getmetatable(l, idx) == 0 {
            return None;
        }
        let ours = sys::lua_rawequal(l, -1, mt) != 0;
        sys::lua_pop(l, 1);
        let idx = sys::lua_absindex(l, idx);
        if !ours {
            None
        } else if mt == mts.0 {
            Some((idx, qjson_core::ROOT))
        } else {
            sys::lua_rawgeti(l, idx, 2);
            let node = lua::number_as_int(l, -1) as Node;
            sys::lua_pop(l, 1);
            sys::lua_rawgeti(l, idx, 1);
            Some((sys::lua_gettop(l), node))
        }
    }
}

/// A JSON value as a function takes it: a text, or the stack index of a
/// document's userdata and the node (the document is opened last, after
/// every call that can raise).
pub enum Target<'a> {
    Text(&'a [u8]),
    Document(c_int, Node),
}

/// The value at `arg`: a string, a document or cursor, or a table encoded
/// with the settings `c` (its text pushed; the spare encoder in upvalue
/// `spare`). Another type raises a bad argument, for method `method` when
/// given (its arguments counted as the LuaJIT binding counts them).
pub unsafe fn target<'a>(
    l: State,
    arg: c_int,
    spare: c_int,
    c: &Config,
    method: Option<&str>,
) -> Result<Target<'a>, Msg> {
    // SAFETY: a valid state and index.
    unsafe {
        if let Some(text) = lua::string_at(l, arg) {
            return Ok(Target::Text(text));
        }
        if let Some((ud, node)) = document_or_cursor(l, arg) {
            return Ok(Target::Document(ud, node));
        }
        if sys::lua_type(l, arg) == sys::LUA_TTABLE {
            encode::encode(l, arg, 0, spare, c)?;
            return Ok(Target::Text(lua::string_at(l, -1).unwrap_or_default()));
        }
        let m = msg!("JSON string, document or table expected, got {}", lua::type_name(l, arg));
        match method {
            Some(name) => lua::method_arg_error(l, arg, name, &m),
            None => lua::arg_error(l, arg, &m),
        }
    }
}

/// The open document of the `Doc` userdata at `ud`.
pub unsafe fn doc_at<'a>(l: State, ud: c_int) -> Result<&'a mut Document<'static>, Msg> {
    // SAFETY: a valid state; `ud` holds a Doc userdata.
    unsafe {
        let d = sys::lua_touserdata(l, ud).cast::<Option<Doc>>();
        match (*d).as_mut().and_then(|d| d.doc.as_mut()) {
            Some(doc) => Ok(doc),
            None => Err(msg!("{CLOSED}")),
        }
    }
}

/// The open document of the `Doc` userdata at `ud`, when `node` is one of
/// its nodes (a cursor is a table, whose node Lua code can change).
pub unsafe fn doc_node<'a>(l: State, ud: c_int, node: Node) -> Result<&'a mut Document<'static>, Msg> {
    // SAFETY: a valid state; `ud` holds a Doc userdata.
    unsafe {
        let doc = doc_at(l, ud)?;
        if node as usize >= doc.tape_len() {
            return Err(msg!("qjson: no such node"));
        }
        Ok(doc)
    }
}

/// The node at the path argument `arg` from `base`, or `None` when the
/// path leads nowhere. A malformed path raises at the caller.
unsafe fn find(l: State, doc: &Document<'_>, base: Node, arg: c_int) -> Result<Option<Node>, Msg> {
    // SAFETY: a valid state.
    unsafe {
        match sys::lua_type(l, arg) {
            sys::LUA_TNIL | sys::LUA_TNONE => Ok(Some(base)),
            sys::LUA_TSTRING => {
                let p = lua::string_at(l, arg).unwrap_or_default();
                match doc.find(base, p) {
                    Ok(n) => Ok(n),
                    Err(e) => Err(where_msg(l, msg!("qjson: {e}"))),
                }
            }
            _ => match lua::userdata_at::<Option<CompiledPath>>(l, arg, PATH) {
                Some(p) => Ok((*p).as_ref().and_then(|p| doc.find_compiled(base, &p.path))),
                None => {
                    let m = msg!("path string or qjson.path expected, got {}", lua::type_name(l, arg));
                    lua::arg_error(l, arg, &m)
                }
            },
        }
    }
}

/// The path argument as the messages name it.
unsafe fn describe_path(l: State, arg: c_int) -> Msg {
    // SAFETY: a valid state.
    unsafe {
        let text = match lua::string_at(l, arg) {
            Some(t) => t,
            None => match lua::userdata_at::<Option<CompiledPath>>(l, arg, PATH) {
                Some(p) => (*p).as_ref().map_or(&[][..], |p| &p.text[..]),
                None => &[],
            },
        };
        if text.is_empty() {
            msg!("the root")
        } else {
            msg!("'{}'", String::from_utf8_lossy(text))
        }
    }
}

unsafe fn mismatch(l: State, arg: c_int, want: &str, got: Kind) -> Msg {
    // SAFETY: a valid state.
    unsafe {
        let p = describe_path(l, arg);
        msg!("qjson: type mismatch at {}: expected {want}, got {}", String::from_utf8_lossy(p.bytes()), got.name())
    }
}

fn read_error(e: qjson_core::Error) -> Msg {
    msg!("qjson: {e}")
}

/// Finds the path argument's node and its kind, or returns 1 result (nil)
/// from the calling function when it is missing.
macro_rules! target {
    ($l:expr) => {{
        let (doc, base, ud) = this($l)?;
        match find($l, doc, base, 2)? {
            Some(node) => {
                let kind = doc.kind(node).map_err(read_error)?;
                (doc, node, kind, ud)
            }
            None => {
                sys::lua_pushnil($l);
                return Ok(1);
            }
        }
    }};
}

unsafe fn typeof_(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (_, _, kind, _) = target!(l);
        lua::push_bytes(l, kind.name().as_bytes());
        Ok(1)
    }
}

unsafe fn len(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (doc, node, kind, _) = target!(l);
        match kind {
            Kind::Array | Kind::Object => {
                sys::lua_pushnumber(l, doc.len(node).unwrap_or(0) as f64);
                if lua::HAS_INTEGERS {
                    sys::lua_pop(l, 1);
                    lua::push_int(l, doc.len(node).unwrap_or(0) as i64);
                }
                Ok(1)
            }
            k => Err(mismatch(l, 2, "array or object", k)),
        }
    }
}

/// Decoded strings up to this length are copied to the stack, longer ones
/// to a userdata, before Lua copies them.
const SHORT_DECODED: usize = 256;

/// Pushes the string at `node` of the document at `ud` (see the module
/// comment for why a decoded one is copied before its Lua string is
/// made, or read twice).
unsafe fn push_str(l: State, ud: c_int, node: Node) -> Result<(), Msg> {
    // SAFETY: a valid state; `ud` holds the Doc userdata.
    unsafe {
        let doc = doc_at(l, ud)?;
        let input = doc.input().as_ptr_range();
        let s = doc.str(node).map_err(read_error)?;
        if input.contains(&s.as_ptr()) || s.is_empty() {
            // In the input, which the document's user value keeps alive.
            lua::push_bytes(l, s);
            return Ok(());
        }
        let n = s.len();
        if n <= SHORT_DECODED {
            // Copied to this frame (which owns nothing to drop) before
            // the allocation: no garbage for a short string.
            let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); SHORT_DECODED];
            std::ptr::copy_nonoverlapping(s.as_ptr(), buf.as_mut_ptr().cast::<u8>(), n);
            sys::lua_pushlstring(l, buf.as_ptr().cast(), n);
            return Ok(());
        }
        let buf = sys::lua_newuserdata(l, n).cast::<u8>();
        let doc = doc_at(l, ud)?;
        let s = doc.str(node).map_err(read_error)?;
        std::ptr::copy_nonoverlapping(s.as_ptr(), buf, n.min(s.len()));
        sys::lua_pushlstring(l, buf.cast(), n);
        sys::lua_remove(l, -2);
        Ok(())
    }
}

unsafe fn get_str(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (_, node, kind, ud) = target!(l);
        if kind != Kind::String {
            return Err(mismatch(l, 2, "string", kind));
        }
        push_str(l, ud, node)?;
        Ok(1)
    }
}

unsafe fn get_num(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (doc, node, kind, _) = target!(l);
        if kind != Kind::Number {
            return Err(mismatch(l, 2, "number", kind));
        }
        let v = doc.f64(node).map_err(read_error)?;
        sys::lua_pushnumber(l, v);
        Ok(1)
    }
}

/// `get_i64` and `get_u64`: a Lua integer on 5.3 and 5.4 (a uint64 past
/// 2^63 wraps, as Lua's own unsigned arithmetic); on 5.1 and 5.2 a
/// number, which must hold the integer exactly.
unsafe fn get_int(l: State, unsigned: bool) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (doc, node, kind, _) = target!(l);
        if kind != Kind::Number {
            return Err(mismatch(l, 2, "number", kind));
        }
        let v = if unsigned {
            doc.u64(node).map_err(read_error)?.map(|u| (u as i64, u as f64, u < (1 << 53)))
        } else {
            doc.i64(node).map_err(read_error)?.map(|i| (i, i as f64, i.unsigned_abs() < (1 << 53)))
        };
        let range = if unsigned { "uint64" } else { "int64" };
        match v {
            Some((i, _, _)) if lua::HAS_INTEGERS => lua::push_int(l, i),
            Some((_, f, true)) => sys::lua_pushnumber(l, f),
            Some(_) => return Err(msg!("qjson: number is beyond 2^53, which this Lua's numbers cannot hold exactly")),
            None => {
                let kind = qjson_core::ErrorKind::NotInteger(range);
                return Err(read_error(qjson_core::Error::at(kind, doc.input(), doc.offset(node))));
            }
        }
        Ok(1)
    }
}

unsafe fn get_i64(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { get_int(l, false) }
}

unsafe fn get_u64(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { get_int(l, true) }
}

unsafe fn get_bool(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (doc, node, kind, _) = target!(l);
        if kind != Kind::Boolean {
            return Err(mismatch(l, 2, "boolean", kind));
        }
        let v = doc.bool(node).map_err(read_error)?;
        sys::lua_pushboolean(l, v as c_int);
        Ok(1)
    }
}

unsafe fn is_null(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (_, _, kind, _) = target!(l);
        sys::lua_pushboolean(l, (kind == Kind::Null) as c_int);
        Ok(1)
    }
}

unsafe fn raw(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (doc, node, _, _) = target!(l);
        // The raw text is always in the input, which the user value keeps.
        let s = doc.raw(node).map_err(read_error)?;
        lua::push_bytes(l, s);
        Ok(1)
    }
}

/// Pushes the Lua value of `node` (of kind `kind`): scalars as `decode`
/// reads them, containers as cursors (`cursor_mt`: the index of their
/// metatable) or plain tables.
unsafe fn push_value(l: State, ud: c_int, node: Node, kind: Kind, cursor_mt: Option<c_int>) -> Result<(), Msg> {
    // SAFETY: a valid state; `ud` holds the Doc userdata.
    unsafe {
        match kind {
            Kind::Null => lua::push_null(l),
            Kind::Boolean => {
                let v = doc_at(l, ud)?.bool(node).map_err(read_error)?;
                sys::lua_pushboolean(l, v as c_int);
            }
            Kind::Number => {
                let doc = doc_at(l, ud)?;
                match doc.i64(node).map_err(read_error)? {
                    Some(i) if lua::HAS_INTEGERS => lua::push_int(l, i),
                    _ => sys::lua_pushnumber(l, doc.f64(node).map_err(read_error)?),
                }
            }
            Kind::String => push_str(l, ud, node)?,
            Kind::Array | Kind::Object => match cursor_mt {
                Some(mt) => push_cursor(l, ud, node, mt),
                None => push_tables(l, ud, node)?,
            },
        }
        Ok(())
    }
}

/// Pushes the container at `node` of the document at `ud` as plain
/// tables, as `qjson.decode` builds them.
pub unsafe fn push_tables(l: State, ud: c_int, node: Node) -> Result<(), Msg> {
    // SAFETY: a valid state; `ud` holds the Doc userdata.
    unsafe {
        let ud = sys::lua_absindex(l, ud);
        let build = decode::Build { opts: qjson_core::Options::default(), array_mt: 0, empty_array_mt: 0 };
        crate::markers::push_empty_array_mt(l);
        let mt = sys::lua_gettop(l);
        decode::from_document(l, ud, node, decode::Build { empty_array_mt: mt, ..build })?;
        sys::lua_remove(l, mt);
        Ok(())
    }
}

/// Pushes a cursor at `node` of the document whose userdata is at `ud`,
/// with the cursor metatable at `mt`.
unsafe fn push_cursor(l: State, ud: c_int, node: Node, mt: c_int) {
    // SAFETY: a valid state.
    unsafe {
        let (ud, mt) = (sys::lua_absindex(l, ud), sys::lua_absindex(l, mt));
        sys::lua_createtable(l, 2, 0);
        sys::lua_pushvalue(l, ud);
        sys::lua_rawseti(l, -2, 1);
        lua::push_int(l, node as i64);
        sys::lua_rawseti(l, -2, 2);
        sys::lua_pushvalue(l, mt);
        sys::lua_setmetatable(l, -2);
    }
}

/// `doc:get(path)`: a scalar as a Lua value; an object or array as plain
/// tables (PUC Lua has no lazy views), built as `qjson.decode` builds them.
unsafe fn get(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (_, node, kind, ud) = target!(l);
        push_value(l, ud, node, kind, None)?;
        Ok(1)
    }
}

unsafe fn open(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (_, node, _, ud) = target!(l);
        push_cursor(l, ud, node, sys::lua_upvalueindex(UP_CURSOR_MT));
        Ok(1)
    }
}

// The iterator of `pairs` and `ipairs` is a closure whose upvalues hold
// its state, so that an iteration allocates that closure only (its
// state written back with `lua_replace`, which does not allocate): the
// document's userdata, the container node, the last child given (-1
// before the first), for an array the last index given (0 before the
// first; -1 for an object), the cursor metatable; for an object whose
// keys repeat, also a `Pairs` userdata.
const UP_DOC: c_int = 1;
const UP_PARENT: c_int = 2;
const UP_PREV: c_int = 3;
const UP_INDEX: c_int = 4;
const UP_ITER_CURSOR_MT: c_int = 5;
const UP_PAIRS: c_int = 6;

/// The number upvalue `n` holds.
unsafe fn upvalue_int(l: State, n: c_int) -> i64 {
    // SAFETY: a valid state, called from a closure with upvalue `n`.
    unsafe { lua::number_as_int(l, sys::lua_upvalueindex(n)) }
}

/// Sets upvalue `n` to the number `v` (no allocation).
unsafe fn set_upvalue_int(l: State, n: c_int, v: i64) {
    // SAFETY: a valid state, called from a closure with upvalue `n`.
    unsafe {
        lua::push_int(l, v);
        sys::lua_replace(l, sys::lua_upvalueindex(n));
    }
}

/// What an iteration gives as the key: an object's key node, or an
/// array's index.
enum Key {
    Member(Node),
    Index(i64),
}

/// The iterator of `pairs` and `ipairs` (see above).
unsafe fn next_pair(l: State) -> Ret {
    // SAFETY: called by Lua as a closure made by `iterate`.
    unsafe {
        let ud = sys::lua_upvalueindex(UP_DOC);
        let pairs = sys::lua_touserdata(l, sys::lua_upvalueindex(UP_PAIRS)).cast::<Option<Pairs>>();
        let doc = doc_at(l, ud)?;
        let (key, value) = if let Some(st) = pairs.as_mut().and_then(|p| p.as_mut()) {
            let Some(&(k, v)) = st.unique.get(st.at) else { return Ok(0) };
            st.at += 1;
            (Key::Member(k), v)
        } else {
            let parent = upvalue_int(l, UP_PARENT) as Node;
            let child = match upvalue_int(l, UP_PREV) {
                -1 => doc.first_child(parent),
                prev => doc.next_child(parent, prev as Node),
            };
            let Some(child) = child else { return Ok(0) };
            set_upvalue_int(l, UP_PREV, child as i64);
            match upvalue_int(l, UP_INDEX) {
                -1 => (Key::Member(child), child + 1),
                index => {
                    set_upvalue_int(l, UP_INDEX, index + 1);
                    (Key::Index(index + 1), child)
                }
            }
        };
        let kind = doc.kind(value).map_err(read_error)?;
        // (Two values and a cursor's making fit in the LUA_MINSTACK slots
        // a C function is called with.)
        match key {
            Key::Member(k) => push_str(l, ud, k)?,
            Key::Index(i) => lua::push_int(l, i),
        }
        push_value(l, ud, value, kind, Some(sys::lua_upvalueindex(UP_ITER_CURSOR_MT)))?;
        Ok(2)
    }
}

lua_fn!(c_next_pair => next_pair);

/// `doc:pairs(path)` / `doc:ipairs(path)`.
unsafe fn iterate(l: State, arrays_only: bool) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let (doc, base, ud) = this(l)?;
        let Some(node) = find(l, doc, base, 2)? else {
            let p = describe_path(l, 2);
            return Err(msg!("qjson: nothing at {} to iterate", String::from_utf8_lossy(p.bytes())));
        };
        let kind = doc.kind(node).map_err(read_error)?;
        let array = match kind {
            Kind::Array => true,
            Kind::Object if !arrays_only => false,
            k => return Err(mismatch(l, 2, if arrays_only { "array" } else { "object or array" }, k)),
        };
        // (Whether keys repeat, found without Lua calls; the list is made
        // again below once a userdata exists to own it: rare.)
        let repeats = !array && guarded(|| Ok(doc.unique_members(node).is_some()))?;
        sys::lua_pushvalue(l, ud);
        lua::push_int(l, node as i64);
        lua::push_int(l, -1);
        lua::push_int(l, if array { 0 } else { -1 });
        sys::lua_pushvalue(l, sys::lua_upvalueindex(UP_CURSOR_MT));
        if repeats {
            let st = lua::new_empty::<Pairs>(l, PAIRS);
            let doc = doc_at(l, ud)?;
            let unique = guarded(|| Ok(doc.unique_members(node)))?;
            *st = unique.map(|unique| Pairs { unique, at: 0 });
            sys::lua_pushcclosure(l, c_next_pair, UP_PAIRS);
        } else {
            sys::lua_pushcclosure(l, c_next_pair, UP_ITER_CURSOR_MT);
        }
        Ok(1)
    }
}

unsafe fn pairs(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { iterate(l, false) }
}

unsafe fn ipairs(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { iterate(l, true) }
}

/// `doc:close()`: the document's memory now; later reads raise.
unsafe fn close(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        close_at(l, 1);
        Ok(0)
    }
}

/// Frees the document at `idx` now, if it is one. A document a call made
/// for itself is freed this way before the call returns, not left to its
/// `__gc`: a finalizer that Lua cannot call for lack of memory is dropped,
/// and would take the document's memory with it.
pub unsafe fn close_at(l: State, idx: c_int) {
    // SAFETY: a valid state and index.
    unsafe {
        if let Some(d) = lua::userdata_at::<Option<Doc>>(l, idx, DOC) {
            if let Some(d) = (*d).as_mut() {
                drop(d.doc.take());
            }
        }
    }
}

/// "qjson.document", or "qjson.cursor (<kind>)".
unsafe fn tostring(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        if lua::userdata_at::<Option<Doc>>(l, 1, DOC).is_some() {
            sys::lua_pushstring(l, c"qjson.document".as_ptr());
            return Ok(1);
        }
        let kind = match this(l) {
            Ok((doc, node, _)) => doc.kind(node).map(|k| k.name()).unwrap_or("?"),
            Err(_) => "closed",
        };
        let m = msg!("qjson.cursor ({kind})");
        lua::push_bytes(l, m.bytes());
        Ok(1)
    }
}

lua_fn!(c_typeof => typeof_);
lua_fn!(c_len => len);
lua_fn!(c_get_str => get_str);
lua_fn!(c_get_num => get_num);
lua_fn!(c_get_i64 => get_i64);
lua_fn!(c_get_u64 => get_u64);
lua_fn!(c_get_bool => get_bool);
lua_fn!(c_is_null => is_null);
lua_fn!(c_raw => raw);
lua_fn!(c_get => get);
lua_fn!(c_open => open);
lua_fn!(c_pairs => pairs);
lua_fn!(c_ipairs => ipairs);
lua_fn!(c_close => close);
lua_fn!(c_tostring => tostring);

const METHODS: &[(&CStr, sys::lua_CFunction)] = &[
    (c"typeof", c_typeof),
    (c"len", c_len),
    (c"get_str", c_get_str),
    (c"get_num", c_get_num),
    (c"get_i64", c_get_i64),
    (c"get_u64", c_get_u64),
    (c"get_bool", c_get_bool),
    (c"is_null", c_is_null),
    (c"raw", c_raw),
    (c"get", c_get),
    (c"open", c_open),
    (c"pairs", c_pairs),
    (c"ipairs", c_ipairs),
    (c"close", c_close),
];

// The methods (and `__tostring`) are closures over the document's and
// the cursor's metatables, which `this` compares `self`'s with.
const UP_DOC_MT: c_int = 1;
const UP_CURSOR_MT: c_int = 2;

/// Registers the document, cursor, path and iteration metatables.
pub unsafe fn register(l: State) {
    // SAFETY: a valid state.
    unsafe {
        // Both metatables are complete before either is registered (an
        // allocation that raises half-way registers neither).
        sys::luaL_getmetatable(l, DOC.as_ptr());
        sys::luaL_getmetatable(l, CURSOR.as_ptr());
        let done = sys::lua_type(l, -1) != sys::LUA_TNIL && sys::lua_type(l, -2) != sys::LUA_TNIL;
        sys::lua_pop(l, 2);
        if !done {
            sys::lua_createtable(l, 0, 6);
            let doc_mt = sys::lua_gettop(l);
            sys::lua_pushcfunction(l, lua::gc::<Doc>);
            sys::lua_setfield(l, doc_mt, c"__gc".as_ptr());
            // A cursor's metatable: no __gc (a table).
            sys::lua_createtable(l, 0, 4);
            let cursor_mt = doc_mt + 1;
            // Their methods: the same but close for a cursor (its
            // document may have others).
            sys::lua_createtable(l, 0, METHODS.len() as c_int);
            sys::lua_createtable(l, 0, METHODS.len() as c_int);
            let (doc_methods, cursor_methods) = (doc_mt + 2, doc_mt + 3);
            let closure = |f: sys::lua_CFunction| {
                sys::lua_pushvalue(l, doc_mt);
                sys::lua_pushvalue(l, cursor_mt);
                sys::lua_pushcclosure(l, f, 2);
            };
            for (n, f) in METHODS {
                closure(*f);
                if *n != c"close" {
                    sys::lua_pushvalue(l, -1);
                    sys::lua_setfield(l, cursor_methods, n.as_ptr());
                }
                sys::lua_setfield(l, doc_methods, n.as_ptr());
            }
            closure(c_tostring);
            sys::lua_pushvalue(l, -1);
            sys::lua_setfield(l, cursor_mt, c"__tostring".as_ptr());
            sys::lua_setfield(l, doc_mt, c"__tostring".as_ptr());
            sys::lua_setfield(l, cursor_mt, c"__index".as_ptr());
            sys::lua_setfield(l, doc_mt, c"__index".as_ptr());
            lua::end_metatable(l, CURSOR);
            lua::end_metatable(l, DOC);
        }
        lua::register_type::<CompiledPath>(l, PATH, &[], &[]);
        lua::register_type::<Pairs>(l, PAIRS, &[], &[]);
    }
}

/// The events of the value at `node` of the document at `ud`, into
/// `walker` (for `decode::from_document`).
pub unsafe fn events_of(
    l: State,
    ud: c_int,
    node: Node,
    walker: &mut Walker,
    keys: &mut qjson_core::events::KeyCache,
) -> Result<(*const qjson_core::events::Event, usize), Msg> {
    // SAFETY: a valid state; `ud` holds the Doc userdata.
    unsafe {
        let doc = doc_at(l, ud)?;
        guarded(|| walker.events(doc, node, Some(keys)).map(|e| (e.as_ptr(), e.len())).map_err(read_error))
    }
}
