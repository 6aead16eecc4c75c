//! `qjson.select` on PUC Lua: selectors (crates/core/src/select/) with
//! the LuaJIT binding's arguments, results and messages
//! (lua/qjson/select.lua). A selector is a userdata holding the compiled
//! paths; its user value, for a selector with names, the names in the
//! order their values come out.
//!
//! A call reads every path into an output userdata (items and the bytes
//! of unescaped strings) with no Lua call, then pushes the values. Those
//! pushes allocate, so a finalizer may run between two of them: the
//! strings they copy are in the text (on the stack), in the output (this
//! call's own) or in a document's input, which is checked open again
//! before each (a closed document raises, as every read of it does).
//! Objects and arrays come back as plain tables, as `doc:get` builds
//! them; for a text, from the text parsed again into a document.

use std::ffi::{c_int, CStr};

use qjson_core::select::{Failure, Item, ItemTag, ItemValue, Output, Selector};
use qjson_core::{Node, Options};

use crate::doc::{close_at, doc_at, document_or_cursor, guarded, push_document, push_tables};
use crate::lua::{self, lua_fn, msg, sys, Msg, Ret, State};

const SELECTOR: &CStr = c"qjson.selector";
const OUTPUT: &CStr = c"qjson.select_output";

/// The most paths a selector made from a list alone may have: a call
/// returns its values as that many results (as the LuaJIT binding's
/// `MAX_VALUES`; a selector with names returns a table).
const MAX_VALUES: usize = 4096;

/// A compiled selector.
pub struct Compiled {
    sel: Selector,
    opts: Options,
    /// Whether `opts` were given (a stream's parse options then clash).
    has_opts: bool,
    /// How many values come out by position; the rest by name.
    npos: usize,
    /// Each path as given (`path:type` for the `{ path, type }` form).
    texts: Vec<Vec<u8>>,
    /// While compiling: the names, pointing into strings of a table on
    /// the stack, sorted.
    names: Vec<(*const u8, usize)>,
}

/// Where a call's items and unescaped strings go.
#[derive(Default)]
struct Buffers {
    items: Vec<Item>,
    bytes: Vec<u8>,
}

/// `bad argument #n to 'select' (what)`, with the caller's position in
/// front (none under `qjson.safe`, whose wrapper is the caller).
unsafe fn select_arg_error(l: State, arg: c_int, what: &Msg) -> ! {
    // SAFETY: a valid state. (method_arg_error counts from a self.)
    unsafe { lua::method_arg_error(l, arg + 1, "select", what) }
}

/// `bad argument #n to selector (what)`, at the selector's caller.
unsafe fn call_arg_error(l: State, arg: c_int, what: &Msg) -> ! {
    // SAFETY: a valid state.
    unsafe {
        let m = msg!("bad argument #{arg} to selector ({})", String::from_utf8_lossy(what.bytes()));
        sys::luaL_where(l, 1);
        lua::push_bytes(l, m.bytes());
        sys::lua_concat(l, 2);
        sys::lua_error(l)
    }
}

unsafe fn name_at<'a>(p: (*const u8, usize)) -> &'a [u8] {
    // SAFETY: the caller keeps the string alive.
    unsafe { std::slice::from_raw_parts(p.0, p.1) }
}

/// `qjson.select(paths [, opts])`.
unsafe fn select(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        sys::lua_settop(l, 2);
        if sys::lua_type(l, 1) != sys::LUA_TTABLE {
            let m = msg!("table of paths expected, got {}", lua::type_name(l, 1));
            select_arg_error(l, 1, &m);
        }
        let opts = crate::options::parse(l, 2, qjson_core::options::DEFAULT_MAX_DEPTH);
        let has_opts = sys::lua_type(l, 2) == sys::LUA_TTABLE;
        let npos = sys::lua_rawlen(l, 1);
        // The userdata first: what it holds owns memory, and the
        // allocations to come may raise.
        let ud = lua::new_userdata(l, SELECTOR, || Compiled {
            sel: Selector::new(),
            opts,
            has_opts,
            npos,
            texts: Vec::new(),
            names: Vec::new(),
        });
        let st = (*ud).as_mut().expect("just made");
        // 4: the names as found (which keeps them alive), 5: sorted.
        sys::lua_createtable(l, 0, 0);
        let mut found = 0;
        sys::lua_pushnil(l);
        while sys::lua_next(l, 1) != 0 {
            sys::lua_pop(l, 1);
            if sys::lua_type(l, -1) == sys::LUA_TSTRING {
                found += 1;
                sys::lua_pushvalue(l, -1);
                sys::lua_rawseti(l, 4, found);
                continue;
            }
            let k = if sys::lua_type(l, -1) == sys::LUA_TNUMBER { sys::lua_tonumber(l, -1) } else { f64::NAN };
            if !(k >= 1.0 && k <= npos as f64 && k.floor() == k) {
                let key = lua::to_text(l, -1);
                let m = msg!("keys must be 1..n or names, got {}", String::from_utf8_lossy(key.bytes()));
                select_arg_error(l, 1, &m);
            }
        }
        for i in 1..=found {
            sys::lua_rawgeti(l, 4, i);
            let name = lua::string_at(l, -1).unwrap_or_default();
            st.names.push((name.as_ptr(), name.len()));
            sys::lua_pop(l, 1);
        }
        // (Byte order, as Lua's `<` in the C locale.)
        st.names.sort_unstable_by(|a, b| name_at(*a).cmp(name_at(*b)));
        let n = npos + st.names.len();
        if n == 0 {
            select_arg_error(l, 1, &msg!("no paths"));
        } else if st.names.is_empty() && npos > MAX_VALUES {
            let m = msg!(
                "more than {MAX_VALUES} paths in a list (a call returns each as a value); name them to get a table"
            );
            select_arg_error(l, 1, &m);
        }
        sys::lua_createtable(l, st.names.len() as c_int, 0);
        for i in 0..st.names.len() {
            let name = name_at(st.names[i]);
            lua::push_bytes(l, name);
            sys::lua_rawseti(l, 5, (i + 1) as _);
        }
        st.names = Vec::new();
        sys::luaL_checkstack(l, 4, std::ptr::null());
        for i in 1..=n {
            if i <= npos {
                sys::lua_rawgeti(l, 1, i as _);
            } else {
                sys::lua_rawgeti(l, 5, (i - npos) as _);
                sys::lua_rawget(l, 1);
            }
            // The path at -1 (or at -2 and its type at -1).
            let mut ty = None;
            if sys::lua_type(l, -1) == sys::LUA_TTABLE {
                sys::lua_rawgeti(l, -1, 1);
                sys::lua_rawgeti(l, -2, 2);
                if sys::lua_type(l, -1) != sys::LUA_TSTRING {
                    let m = msg!("path #{i}: type name expected, got {}", lua::type_name(l, -1));
                    select_arg_error(l, 1, &m);
                }
                ty = lua::string_at(l, -1);
                sys::lua_remove(l, -3);
            }
            let at = if ty.is_some() { -2 } else { -1 };
            let Some(path) = lua::string_at(l, at) else {
                let m = msg!("path #{i}: string expected, got {}", lua::type_name(l, at));
                select_arg_error(l, 1, &m)
            };
            let added = guarded(|| {
                st.sel.push(path, ty).map_err(|e| msg!("{}", e.message))?;
                let mut text = path.to_vec();
                if let Some(ty) = ty {
                    text.push(b':');
                    text.extend_from_slice(ty);
                }
                st.texts.push(text);
                Ok(())
            });
            if let Err(m) = added {
                select_arg_error(l, 1, &m);
            }
            sys::lua_settop(l, 5);
        }
        if lua::HAS_INTEGERS {
            st.sel.read_integers();
        }
        // The names are the user value (a table on every version).
        sys::lua_setuservalue(l, 3);
        sys::lua_settop(l, 3);
        Ok(1)
    }
}

/// What a call reads: bytes `start..end` of the string at a stack index
/// (a text), or the stack index of a document's userdata and the node.
#[derive(Clone, Copy)]
enum Target {
    Text(c_int, usize, usize),
    Document(c_int, Node),
}

/// Reads every path of `st` from `target` (a text with `opts`) into
/// `out`, growing it until everything fits. Calls no Lua function.
unsafe fn read(l: State, st: &Compiled, target: Target, opts: &Options, out: &mut Buffers) -> Result<(), Msg> {
    // SAFETY: a valid state; a document target's userdata on the stack.
    unsafe {
        loop {
            let fits = guarded(|| {
                let mut w = Output { items: &mut out.items, bytes: &mut out.bytes, count: 0, used: 0 };
                let r = match target {
                    Target::Text(text, start, end) => {
                        let text = &lua::string_at(l, text).unwrap_or_default()[start..end];
                        st.sel.read_text(text, opts, &mut w)
                    }
                    Target::Document(ud, node) => {
                        let d = doc_at(l, ud)?;
                        if node as usize >= d.tape_len() {
                            return Err(msg!("qjson: no such node"));
                        }
                        st.sel.read(d, node, &mut w)
                    }
                };
                match r {
                    Ok(()) if w.fits() => Ok(None),
                    Ok(()) => Ok(Some((w.count, w.used))),
                    Err(Failure::Input(e)) => Err(msg!("qjson: {e}")),
                    Err(Failure::Type(m)) => Err(msg!("qjson: {m}")),
                }
            })?;
            match fits {
                None => return Ok(()),
                Some((count, used)) => guarded(|| {
                    let missing = Item { tag: ItemTag::Missing, len: 0, v: ItemValue { num: 0.0 } };
                    out.items.resize(count.max(out.items.len()), missing);
                    out.bytes.resize(used.max(out.bytes.len()), 0);
                    Ok(())
                })?,
            }
        }
    }
}

/// What pushing a call's values needs: the items, the target, and the
/// stack slot for the document a text's containers are read from.
struct Push<'a> {
    items: &'a [Item],
    target: Target,
    /// Holds nil until a container of a text is met, then the document.
    doc_slot: c_int,
    opts: &'a Options,
}

/// Pushes the value of item `j`; returns the index after it (a list:
/// after its elements).
unsafe fn push_item(l: State, p: &Push<'_>, j: usize) -> Result<usize, Msg> {
    // SAFETY: a valid state; the items' strings are alive (module comment).
    unsafe {
        let it = p.items[j];
        match it.tag {
            ItemTag::Missing => sys::lua_pushnil(l),
            ItemTag::Null => lua::push_null(l),
            ItemTag::False => sys::lua_pushboolean(l, 0),
            ItemTag::True => sys::lua_pushboolean(l, 1),
            ItemTag::Number => sys::lua_pushnumber(l, it.v.num),
            ItemTag::Integer => lua::push_int(l, it.v.integer),
            ItemTag::String | ItemTag::Raw => {
                if let Target::Document(ud, _) = p.target {
                    // (A finalizer run by the last push may have closed it.)
                    doc_at(l, ud)?;
                }
                let s =
                    if it.len == 0 { &[][..] } else { std::slice::from_raw_parts(it.v.ptr.cast(), it.len as usize) };
                lua::push_bytes(l, s);
            }
            ItemTag::List => {
                sys::luaL_checkstack(l, 4, c"qjson: selector lists nested too deep".as_ptr());
                let n = it.len as usize;
                sys::lua_createtable(l, n.min(1 << 16) as c_int, 0);
                let mut k = j + 1;
                for e in 1..=n {
                    k = push_item(l, p, k)?;
                    sys::lua_rawseti(l, -2, e as _);
                }
                return Ok(k);
            }
            ItemTag::Array | ItemTag::Object => {
                let ud = match p.target {
                    Target::Document(ud, _) => ud,
                    Target::Text(text, start, end) => {
                        if sys::lua_type(l, p.doc_slot) == sys::LUA_TNIL {
                            push_document(l, text, start..end, p.opts)?;
                            sys::lua_replace(l, p.doc_slot);
                        }
                        p.doc_slot
                    }
                };
                push_tables(l, ud, it.v.node)?;
            }
        }
        Ok(j + 1)
    }
}

/// `sel(x [, out])`: `x` a text, a document or a cursor.
unsafe fn call(l: State) -> Ret {
    // SAFETY: called by Lua as the selector's __call.
    unsafe {
        sys::lua_settop(l, 3);
        let Some(st) = compiled_at(l, 1) else {
            return Err(msg!("qjson: not a selector"));
        };
        let target = if let Some(text) = lua::string_at(l, 2) {
            Target::Text(2, 0, text.len())
        } else if let Some((ud, node)) = document_or_cursor(l, 2) {
            Target::Document(ud, node)
        } else {
            let m = msg!("string or qjson document expected, got {}", lua::type_name(l, 2));
            call_arg_error(l, 1, &m)
        };
        run(l, 1, st, target, &st.opts, 3)
    }
}

/// What a read for `qjson.stream` gives back when it fails.
pub enum Failed {
    /// The value does not read (the stream names its position).
    Value(Msg),
    /// Anything else (a document is closed, out of stack).
    Other(Msg),
}

/// Reads bytes `range` of the string at `text` with the selector at
/// `sel` (`st`), parsing with `opts`, and pushes its values as a call
/// without `out` does: each value, or one table for a selector with
/// names. For `qjson.stream`: returns how many values were pushed.
pub unsafe fn push_selected(
    l: State,
    sel: c_int,
    st: &Compiled,
    text: c_int,
    range: std::ops::Range<usize>,
    opts: &Options,
) -> Result<c_int, Failed> {
    // SAFETY: a valid state; the selector at `sel`, a string at `text`.
    unsafe {
        let (sel, text) = (sys::lua_absindex(l, sel), sys::lua_absindex(l, text));
        read_and_push(l, sel, st, Target::Text(text, range.start, range.end), opts, 0)
    }
}

/// Reads `target` with the selector at `sel` (`st`), parsing a text with
/// `opts`, and pushes its values: each value, or into the table at `fill`
/// (0: none; a new table for a selector with names). Returns how many
/// values were pushed.
unsafe fn run(l: State, sel: c_int, st: &Compiled, target: Target, opts: &Options, fill: c_int) -> Ret {
    // SAFETY: a valid state; the selector at `sel`.
    unsafe { read_and_push(l, sel, st, target, opts, fill) }.map_err(|(Failed::Value(m) | Failed::Other(m))| m)
}

/// `run`, with a failure of the read told apart from one of the pushes.
unsafe fn read_and_push(
    l: State,
    sel: c_int,
    st: &Compiled,
    target: Target,
    opts: &Options,
    fill: c_int,
) -> Result<c_int, Failed> {
    // SAFETY: a valid state; the selector at `sel`.
    unsafe {
        let out = lua::new_userdata(l, OUTPUT, Buffers::default);
        let out = (*out).as_mut().expect("just made");
        read(l, st, target, opts, out).map_err(Failed::Value)?;
        push_values(l, sel, st, target, opts, out, fill).map_err(Failed::Other)
    }
}

/// Pushes the values `read` put in `out` (see `run`).
unsafe fn push_values(
    l: State,
    sel: c_int,
    st: &Compiled,
    target: Target,
    opts: &Options,
    out: &mut Buffers,
    fill: c_int,
) -> Ret {
    // SAFETY: a valid state; the selector at `sel`, `out` in a userdata
    // on the stack.
    unsafe {
        let n = st.sel.len();
        let by_name = n > st.npos;
        let fill = if fill != 0 && sys::lua_type(l, fill) != sys::LUA_TNIL { fill } else { 0 };
        if fill != 0 && sys::lua_type(l, fill) != sys::LUA_TTABLE {
            call_arg_error(l, 2, &msg!("table expected, got {}", lua::type_name(l, fill)));
        }
        sys::luaL_checkstack(l, 8, std::ptr::null());
        sys::lua_pushnil(l);
        let p = Push { items: &out.items, target, doc_slot: sys::lua_gettop(l), opts };
        if fill == 0 && !by_name {
            sys::luaL_checkstack(l, n as c_int + 8, c"qjson: too many values for the Lua stack".as_ptr());
            let mut j = 0;
            for _ in 0..n {
                j = push_item(l, &p, j)?;
            }
            // Emptied now, not by `__gc` (see patch.rs's `run`).
            close_at(l, p.doc_slot);
            *out = Buffers::default();
            return Ok(n as c_int);
        }
        let t = if fill != 0 {
            fill
        } else {
            sys::lua_createtable(l, st.npos as c_int, (n - st.npos) as c_int);
            sys::lua_gettop(l)
        };
        sys::lua_getuservalue(l, sel);
        let names = sys::lua_gettop(l);
        let mut j = 0;
        for i in 1..=n {
            if i <= st.npos {
                lua::push_int(l, i as i64);
            } else {
                sys::lua_rawgeti(l, names, (i - st.npos) as _);
            }
            j = push_item(l, &p, j)?;
            sys::lua_settable(l, t);
        }
        close_at(l, p.doc_slot);
        sys::lua_settop(l, t);
        *out = Buffers::default();
        Ok(1)
    }
}

/// The compiled selector of the userdata at `idx`: `None` when it is no
/// selector, or one freed (at `lua_close`, in any order).
pub unsafe fn compiled_at<'a>(l: State, idx: c_int) -> Option<&'a Compiled> {
    // SAFETY: a valid state and index.
    unsafe { lua::userdata_at::<Option<Compiled>>(l, idx, SELECTOR).and_then(|p| (*p).as_ref()) }
}

/// Whether the value at `idx` is a selector (freed or not).
pub unsafe fn is_selector(l: State, idx: c_int) -> bool {
    // SAFETY: a valid state and index.
    unsafe { lua::userdata_at::<Option<Compiled>>(l, idx, SELECTOR).is_some() }
}

impl Compiled {
    /// Whether the selector was made with parse options.
    pub fn has_options(&self) -> bool {
        self.has_opts
    }

    /// The parse options it reads texts with.
    pub fn options(&self) -> &Options {
        &self.opts
    }
}

/// `sel:paths()`: the paths, in the order values come out.
unsafe fn paths(l: State) -> Ret {
    // SAFETY: called by Lua.
    unsafe {
        let Some(st) = compiled_at(l, 1) else {
            lua::arg_error(l, 1, &msg!("qjson.selector expected, got {}", lua::type_name(l, 1)))
        };
        // (The selector, argument 1, keeps `texts` alive.)
        sys::lua_createtable(l, st.texts.len() as c_int, 0);
        for (i, text) in st.texts.iter().enumerate() {
            lua::push_bytes(l, text);
            sys::lua_rawseti(l, -2, (i + 1) as _);
        }
        Ok(1)
    }
}

/// "qjson.selector (path, ...)".
unsafe fn tostring(l: State) -> Ret {
    // SAFETY: called by Lua as __tostring.
    unsafe {
        let Some(st) = compiled_at(l, 1) else {
            return Err(msg!("qjson: not a selector"));
        };
        lua::push_bytes(l, b"qjson.selector (");
        for (i, text) in st.texts.iter().enumerate() {
            if i > 0 {
                lua::push_bytes(l, b", ");
                sys::lua_concat(l, 2);
            }
            lua::push_bytes(l, text);
            sys::lua_concat(l, 2);
        }
        lua::push_bytes(l, b")");
        sys::lua_concat(l, 2);
        Ok(1)
    }
}

lua_fn!(c_select => select);
lua_fn!(c_call => call);
lua_fn!(c_paths => paths);
lua_fn!(c_tostring => tostring);

/// An instance's functions: (name, for qjson, for qjson.safe), set as
/// closures over its settings (`qjson.safe` protects `select`, which then
/// returns nil and the message for a bad selector; calls raise).
pub const FUNCTIONS: &[(&CStr, sys::lua_CFunction, sys::lua_CFunction)] = &[(c"select", c_select, c_select)];

/// Registers the selector and output metatables.
pub unsafe fn register(l: State) {
    // SAFETY: a valid state.
    unsafe {
        lua::register_type::<Buffers>(l, OUTPUT, &[], &[]);
        let extra: &[(&CStr, sys::lua_CFunction)] = &[(c"__call", c_call), (c"__tostring", c_tostring)];
        lua::register_type::<Compiled>(l, SELECTOR, &[(c"paths", c_paths)], extra);
    }
}
