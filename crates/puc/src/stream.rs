//! `qjson.stream` on PUC Lua: NDJSON, concatenated JSON and server-sent
//! events (crates/core/src/stream/) with the LuaJIT binding's arguments,
//! values and messages (lua/qjson/stream.lua); each value a document
//! (`"doc"`), its JSON text (`"raw"`) or a `qjson.select` selector's
//! values (read by select.rs's `push_selected`, no document opened).
//!
//! An iteration is a userdata ([`Iter`]) holding where the values are,
//! made before anything is split: `each` splits its buffer (its user
//! value) into it, and a feeder's `feed` copies the values a chunk
//! completes out of the feeder's splitter into it, with no Lua call
//! between the splitter's work and the copy (so a finalizer cannot feed
//! the feeder in the middle of a feed, and no copy is cut short). Each
//! step then pushes one value: nothing Rust owns is alive at a call that
//! can raise (lua.rs).
//!
//! An iteration's user value is a table: [1] the buffer (`each`) or the
//! feeder, [2] the selector (a feeder's own user value), so that both
//! live as long as the iteration.

use std::ffi::{c_int, CStr};

use qjson_core::stream::{Span, Splitter, StreamFormat, MAX_SIZE};
use qjson_core::Options;

use crate::doc::{guarded, push_anchor, push_document, set_anchor};
use crate::lua::{self, lua_fn, msg, sys, Msg, Ret, State};
use crate::options::{self, Blame};
use crate::select::{self, Failed};

const ITER: &CStr = c"qjson.stream_iteration";
const FEEDER: &CStr = c"qjson.stream_feeder";

/// The most bytes an unfinished value may hold, by default.
const DEFAULT_MAX_SIZE: usize = 8 * 1024 * 1024;

/// How values are handed out: documents parsed with these options,
/// their JSON texts, or the values of the selector (in the iteration's
/// and the feeder's user value) reading with the stream's parse options
/// (`None`: its own).
#[derive(Clone, Copy)]
enum How {
    Doc(Options),
    Raw,
    Select(Option<Options>),
}

/// The values of a buffer (`each`) or of a feed, handed out one per step.
pub struct Iter {
    /// A span with `joined` 1 is in `own`; one with 0 in the buffer (the
    /// user value of an `each` iteration; a feed's are all in `own`).
    spans: Vec<Span>,
    own: Vec<u8>,
    /// The stream's error, raised after the values before it (once).
    err: Option<String>,
    /// A value that did not parse: raised by every later step.
    failed: Option<String>,
    how: How,
    /// A feed's iteration: its user value is the feeder, which a bad
    /// value fails too.
    fed: bool,
}

/// An incremental splitter and how its values are handed out.
pub struct Feeder {
    splitter: Splitter,
    how: How,
    /// A value that did not parse: every later feed raises it.
    failed: Option<String>,
}

/// What `each` and `feeder` were asked for.
struct Settings {
    format: StreamFormat,
    how: How,
    max_size: usize,
}

/// Checks `format`, `how` and `opts` at `first`, `first + 1` and
/// `first + 2` for `name` (`each` or `feeder`), with the LuaJIT binding's
/// messages.
unsafe fn settings(l: State, name: &str, first: c_int) -> Settings {
    // SAFETY: a valid state.
    unsafe {
        // (each's first argument is the stream.)
        let n = first - 1;
        let format = match lua::string_at(l, first) {
            Some(b"ndjson") => StreamFormat::Ndjson,
            Some(b"json") => StreamFormat::Concat,
            Some(b"sse") => StreamFormat::Sse,
            _ => {
                let got = lua::to_text(l, first);
                let m = msg!("\"ndjson\", \"json\" or \"sse\" expected, got {}", String::from_utf8_lossy(got.bytes()));
                lua::named_arg_error(l, n + 1, name, &m)
            }
        };
        let (raw, sel) = match sys::lua_type(l, first + 1) {
            sys::LUA_TNIL | sys::LUA_TNONE => (false, false),
            _ => match lua::string_at(l, first + 1) {
                Some(b"doc") => (false, false),
                Some(b"raw") => (true, false),
                _ if select::is_selector(l, first + 1) => (false, true),
                _ => {
                    let m = msg!(
                        "\"doc\", \"raw\" or a qjson.select selector expected, got {}",
                        lua::type_name(l, first + 1)
                    );
                    lua::named_arg_error(l, n + 2, name, &m)
                }
            },
        };
        let mut max_size = DEFAULT_MAX_SIZE;
        let mut parse = None;
        let at = first + 2;
        match sys::lua_type(l, at) {
            sys::LUA_TNIL | sys::LUA_TNONE => {}
            sys::LUA_TTABLE => {
                // max_size taken out; the parse options into a table of
                // their own.
                sys::lua_createtable(l, 0, 4);
                let rest = sys::lua_gettop(l);
                let mut any = false;
                sys::lua_pushnil(l);
                while sys::lua_next(l, at) != 0 {
                    if lua::string_at(l, -2) == Some(b"max_size") {
                        let v = if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { -1.0 };
                        if !(1.0..=MAX_SIZE as f64).contains(&v) || v.floor() != v {
                            let got = lua::to_text(l, -1);
                            let m = msg!(
                                "bad option 'max_size' (integer from 1 to {MAX_SIZE} expected, got {})",
                                String::from_utf8_lossy(got.bytes())
                            );
                            lua::raise_here(l, &m);
                        }
                        max_size = v as usize;
                        sys::lua_pop(l, 1);
                        continue;
                    }
                    any = true;
                    sys::lua_pushvalue(l, -2);
                    sys::lua_insert(l, -2);
                    sys::lua_rawset(l, rest);
                }
                if any {
                    let o = options::parse_table(l, rest, qjson_core::options::DEFAULT_MAX_DEPTH, Blame::Call(name));
                    // Parse options apply to every value parsed: none is
                    // accepted where nothing would use it.
                    if raw {
                        let m =
                            msg!("bad argument to '{name}' (parse options with \"raw\": the values are not parsed)");
                        lua::raise_here(l, &m);
                    }
                    if sel && select::compiled_at(l, first + 1).is_some_and(|c| c.has_options()) {
                        let m = msg!(
                            "bad argument to '{name}' (parse options given both to the selector and to the stream)"
                        );
                        lua::raise_here(l, &m);
                    }
                    parse = Some(o);
                }
                sys::lua_pop(l, 1);
            }
            _ => {
                let m = msg!("table expected, got {}", lua::type_name(l, at));
                lua::named_arg_error(l, n + 3, name, &m)
            }
        }
        let how = if raw {
            How::Raw
        } else if sel {
            How::Select(parse)
        } else {
            How::Doc(
                parse.unwrap_or(Options { max_depth: qjson_core::options::DEFAULT_MAX_DEPTH, ..Options::default() }),
            )
        };
        Settings { format, how, max_size }
    }
}

/// `qjson: <e>`, as a stream's error is raised.
fn stream_error(e: &qjson_core::stream::StreamError) -> String {
    format!("qjson: {e}")
}

/// Sets the user value of the iteration at `iter`: a table of the
/// value at `source` (the buffer or the feeder) and the one at `sel` (the
/// selector; 0: none).
unsafe fn set_sources(l: State, iter: c_int, source: c_int, sel: c_int) {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_createtable(l, 2, 0);
        sys::lua_pushvalue(l, source);
        sys::lua_rawseti(l, -2, 1);
        if sel != 0 {
            sys::lua_pushvalue(l, sel);
            sys::lua_rawseti(l, -2, 2);
        }
        sys::lua_setuservalue(l, iter);
    }
}

/// Pushes field `k` of the user value `set_sources` set on the iteration
/// at `iter` (no allocation).
unsafe fn push_source(l: State, iter: c_int, k: c_int) {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_getuservalue(l, iter);
        sys::lua_rawgeti(l, -1, k as _);
        sys::lua_remove(l, -2);
    }
}

/// Pushes the iteration `step, iter, 0` over the `Iter` at `iter`.
unsafe fn push_iteration(l: State, iter: c_int) -> Ret {
    // SAFETY: a valid state.
    unsafe {
        sys::lua_pushcfunction(l, c_step);
        sys::lua_pushvalue(l, iter);
        lua::push_int(l, 0);
        Ok(3)
    }
}

/// `qjson.stream.each(buf, format [, how [, opts]])`.
unsafe fn each(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        sys::lua_settop(l, 4);
        if sys::lua_type(l, 1) != sys::LUA_TSTRING {
            let m = msg!("string expected, got {}", lua::type_name(l, 1));
            lua::named_arg_error(l, 1, "each", &m);
        }
        let s = settings(l, "each", 2);
        // The iteration's userdata first (allocations), then the split,
        // which calls no Lua function.
        let it = lua::new_empty::<Iter>(l, ITER);
        let at = sys::lua_gettop(l);
        set_sources(l, at, 1, if matches!(s.how, How::Select(_)) { 3 } else { 0 });
        let buf = lua::string_at(l, 1).unwrap_or_default();
        let made = guarded(|| {
            let mut sp = Splitter::new(s.format, s.max_size);
            let r = sp.split_all(buf);
            Ok(Iter {
                spans: sp.spans().to_vec(),
                own: sp.joined().to_vec(),
                err: r.err().map(|e| stream_error(&e)),
                failed: None,
                how: s.how,
                fed: false,
            })
        })?;
        *it = Some(made);
        push_iteration(l, at)
    }
}

/// The message of a failed iteration or feeder, to raise.
fn raised(m: &str) -> Msg {
    msg!("{m}")
}

/// An iteration's step: `(iter, i)` → `i + 1, value`, or nothing at the
/// end (raising the stream's error there, once).
unsafe fn step(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let Some(p) = lua::userdata_at::<Option<Iter>>(l, 1, ITER) else {
            let m = msg!("qjson.stream iteration expected, got {}", lua::type_name(l, 1));
            lua::named_arg_error(l, 1, "step", &m)
        };
        let i = sys::lua_tonumber(l, 2) as usize;
        sys::lua_settop(l, 1);
        // (No reference into the iteration is kept across a call that
        // allocates: a finalizer may step it too.)
        let Some(it) = (*p).as_mut() else { return Err(msg!("qjson: stream iteration is freed")) };
        if let Some(m) = &it.failed {
            return Err(raised(m));
        }
        if i >= it.spans.len() {
            if let Some(m) = it.err.take() {
                return Err(raised(&m));
            }
            // Done: the buffers freed now, not by `__gc` (see patch.rs's
            // `run`).
            (it.spans, it.own) = (Vec::new(), Vec::new());
            return Ok(0);
        }
        let (span, how, fed) = (it.spans[i], it.how, it.fed);
        let range = span.start as usize..span.start as usize + span.len as usize;
        lua::push_int(l, (i + 1) as i64);
        // The value's string: copied out of the iteration, or the buffer.
        let text = if span.joined != 0 {
            // (The iteration is on the stack, and `own` is never changed
            // once made: the bytes stay put while Lua copies them.)
            let own = (*p).as_ref().expect("checked above").own[range].as_ptr();
            lua::push_bytes(l, std::slice::from_raw_parts(own, span.len as usize));
            None
        } else {
            push_source(l, 1, 1);
            Some(range)
        };
        let len = lua::string_at(l, 3).unwrap_or_default().len();
        let text = text.unwrap_or(0..len);
        let e = match how {
            How::Raw => {
                if text.len() != len {
                    let s = lua::string_at(l, 3).unwrap_or_default();
                    lua::push_bytes(l, &s[text]);
                    sys::lua_replace(l, 3);
                }
                return Ok(2);
            }
            How::Doc(opts) => match push_document(l, 3, text, &opts) {
                Ok(()) => {
                    // (i, the document: the string it lies in is its user
                    // value.)
                    sys::lua_replace(l, 3);
                    return Ok(2);
                }
                Err(e) => e,
            },
            How::Select(opts) => {
                push_source(l, 1, 2);
                let Some(st) = select::compiled_at(l, 4) else { return Err(msg!("qjson: selector is freed")) };
                match select::push_selected(l, 4, st, 3, text, opts.as_ref().unwrap_or(st.options())) {
                    Ok(n) => {
                        // i, then the values (push_selected left stack
                        // room for one more).
                        sys::lua_pushvalue(l, 2);
                        sys::lua_insert(l, -(n + 1));
                        return Ok(n + 1);
                    }
                    Err(Failed::Value(e)) => e,
                    Err(Failed::Other(m)) => return Err(m),
                }
            }
        };
        // A bad value ends the iteration, and a feeder's stream: every
        // later step and feed raises it again.
        let m = msg!("{} in the value at byte {} of the stream", String::from_utf8_lossy(e.bytes()), span.at);
        let feeder = if fed {
            push_source(l, 1, 1);
            lua::userdata_at::<Option<Feeder>>(l, -1, FEEDER)
        } else {
            None
        };
        // (No Lua call from here on: the messages are owned.)
        let text = String::from_utf8_lossy(m.bytes()).into_owned();
        if let Some(f) = feeder.and_then(|f| (*f).as_mut()) {
            f.failed = Some(text.clone());
        }
        if let Some(it) = (*p).as_mut() {
            it.failed = Some(text);
        }
        Err(m)
    }
}

/// `qjson.stream.feeder(format [, how [, opts]])`.
unsafe fn feeder(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        sys::lua_settop(l, 3);
        let s = settings(l, "feeder", 1);
        let f = lua::new_empty::<Feeder>(l, FEEDER);
        if matches!(s.how, How::Select(_)) {
            // The selector, the feeder's user value, set before the feeder
            // owns anything (an allocation on 5.1 and 5.2).
            sys::lua_pushvalue(l, 2);
            set_anchor(l, 4);
        }
        *f = Some(Feeder { splitter: Splitter::new(s.format, s.max_size), how: s.how, failed: None });
        Ok(1)
    }
}

/// `f:feed(chunk [, last])` (and `f:finish()`, `chunk` "" and `last`).
unsafe fn feed_chunk(l: State, finish: bool) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let name = if finish { "finish" } else { "feed" };
        let Some(p) = lua::userdata_at::<Option<Feeder>>(l, 1, FEEDER) else {
            lua::arg_error(l, 1, &msg!("qjson.stream feeder expected, got {}", lua::type_name(l, 1)))
        };
        if finish {
            sys::lua_settop(l, 1);
            sys::lua_pushnil(l);
            sys::lua_pushboolean(l, 1);
        }
        sys::lua_settop(l, 3);
        if sys::lua_type(l, 2) != sys::LUA_TNIL && sys::lua_type(l, 2) != sys::LUA_TSTRING {
            let m = msg!("string expected, got {}", lua::type_name(l, 2));
            lua::method_arg_error(l, 2, name, &m);
        }
        let last = sys::lua_toboolean(l, 3) != 0;
        // The iteration's userdata first (allocations), then the feed and
        // the copy, which call no Lua function: no finalizer runs in
        // between.
        let it = lua::new_empty::<Iter>(l, ITER);
        let at = sys::lua_gettop(l);
        let selects = (*p).as_ref().is_some_and(|f| matches!(f.how, How::Select(_)));
        if selects {
            push_anchor(l, 1);
        }
        set_sources(l, at, 1, if selects { at + 1 } else { 0 });
        sys::lua_settop(l, at);
        let chunk = lua::string_at(l, 2).unwrap_or_default();
        let Some(f) = (*p).as_mut() else { return Err(msg!("qjson: feeder is freed")) };
        if let Some(m) = &f.failed {
            return Err(raised(m));
        }
        let made = guarded(|| {
            let r = f.splitter.feed(chunk, last);
            // Each value copied out, so that the feeder's next feed (a
            // finalizer's too) does not change this iteration.
            let found = f.splitter.spans();
            let mut own = Vec::with_capacity(found.iter().map(|s| s.len as usize).sum());
            let mut spans = Vec::with_capacity(found.len());
            for s in found {
                let area = if s.joined != 0 { f.splitter.joined() } else { f.splitter.buffer() };
                let start = s.start as usize;
                spans.push(Span { start: own.len() as u64, at: s.at, len: s.len, joined: 1 });
                own.extend_from_slice(&area[start..start + s.len as usize]);
            }
            Ok(Iter { spans, own, err: r.err().map(|e| stream_error(&e)), failed: None, how: f.how, fed: true })
        })?;
        let it = &mut *it;
        *it = Some(made);
        let made = it.as_mut().expect("just made");
        if made.spans.is_empty() {
            if let Some(m) = made.err.take() {
                return Err(raised(&m));
            }
        }
        push_iteration(l, at)
    }
}

unsafe fn feed(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { feed_chunk(l, false) }
}

unsafe fn finish(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe { feed_chunk(l, true) }
}

/// A feeder's fields: its methods, and `done` (an SSE stream sent
/// `[DONE]`).
unsafe fn feeder_index(l: State) -> Ret {
    // SAFETY: called by Lua as `__index` (self, key).
    unsafe {
        match lua::string_at(l, 2) {
            Some(b"feed") => sys::lua_pushcfunction(l, c_feed),
            Some(b"finish") => sys::lua_pushcfunction(l, c_finish),
            Some(b"done") => {
                let p = lua::userdata_at::<Option<Feeder>>(l, 1, FEEDER).expect("a feeder's metatable");
                let done = (*p).as_ref().is_some_and(|f| f.splitter.done());
                sys::lua_pushboolean(l, done as c_int);
            }
            _ => sys::lua_pushnil(l),
        }
        Ok(1)
    }
}

lua_fn!(c_each => each);
lua_fn!(c_step => step);
lua_fn!(c_feeder => feeder);
lua_fn!(c_feed => feed);
lua_fn!(c_finish => finish);
lua_fn!(c_feeder_index => feeder_index);

/// Sets field `stream` of the instance table at the top: `each`,
/// `feeder`, `DEFAULT_MAX_SIZE` and `MAX_SIZE` (the same functions in
/// `qjson.safe`, which raise there too, as the LuaJIT binding's).
pub unsafe fn set_field(l: State) {
    // SAFETY: a valid state; a table at the top.
    unsafe {
        sys::lua_createtable(l, 0, 4);
        sys::lua_pushcfunction(l, c_each);
        sys::lua_setfield(l, -2, c"each".as_ptr());
        sys::lua_pushcfunction(l, c_feeder);
        sys::lua_setfield(l, -2, c"feeder".as_ptr());
        lua::push_int(l, DEFAULT_MAX_SIZE as i64);
        sys::lua_setfield(l, -2, c"DEFAULT_MAX_SIZE".as_ptr());
        lua::push_int(l, MAX_SIZE as i64);
        sys::lua_setfield(l, -2, c"MAX_SIZE".as_ptr());
        sys::lua_setfield(l, -2, c"stream".as_ptr());
    }
}

/// Registers the iteration and feeder metatables.
pub unsafe fn register(l: State) {
    // SAFETY: a valid state.
    unsafe {
        lua::register_type::<Iter>(l, ITER, &[], &[]);
        lua::register_type::<Feeder>(l, FEEDER, &[], &[(c"__index", c_feeder_index)]);
    }
}
