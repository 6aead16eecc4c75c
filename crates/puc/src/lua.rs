//! The C API as this binding uses it, the same on every Lua version
//! (mlua-sys declares each version's own; its compat layer fills the
//! gaps), and the one way this binding raises a Lua error.
//!
//! The rule every function of this crate follows (docs/design.md, "The
//! PUC Lua binding"): `lua_error` is a `longjmp` (or a C++ exception with
//! a C++-built Lua), and so is every Lua API call that can raise: any
//! that allocates (pushing a string, creating a table or userdata,
//! `rawset`), which can also run a finalizer. A Rust frame alive at such
//! a call owns nothing with a destructor: owned state lives in Lua
//! userdata (freed by their `__gc`), and an error is raised with a
//! message built on the stack ([`Msg`]) once every owned value is
//! dropped ([`entry`]).

use std::ffi::{c_char, c_int, c_void};
use std::fmt;

pub use mlua_sys as sys;
pub use sys::lua_State;

/// The Lua state a C function was called with.
pub type State = *mut lua_State;

/// Whether this Lua has integers (5.3, 5.4).
pub const HAS_INTEGERS: bool = cfg!(any(feature = "lua53", feature = "lua54"));

/// An error message built on the stack, so that raising it leaves
/// nothing to free. Longer messages are cut.
pub struct Msg {
    buf: [u8; 480],
    len: usize,
}

impl Msg {
    pub fn new() -> Msg {
        Msg { buf: [0; 480], len: 0 }
    }

    pub fn of(args: fmt::Arguments<'_>) -> Msg {
        let mut m = Msg::new();
        let _ = fmt::Write::write_fmt(&mut m, args);
        m
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The message as text (without a character cut at the length limit).
    pub fn as_str(&self) -> &str {
        let b = self.bytes();
        std::str::from_utf8(b).unwrap_or_else(|e| std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or_default())
    }
}

impl Default for Msg {
    fn default() -> Msg {
        Msg::new()
    }
}

impl fmt::Write for Msg {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// `format!` into a [`Msg`].
macro_rules! msg {
    ($($arg:tt)*) => { $crate::lua::Msg::of(format_args!($($arg)*)) };
}
pub(crate) use msg;

/// What a C function's body gives back: its number of results, or the
/// message to raise (with no position prefix, as lua-cjson's).
pub type Ret = Result<c_int, Msg>;

/// Runs a C function's body and raises its error after the body's frame,
/// and everything it owned, is gone. A panic (a bug) becomes an error
/// instead of unwinding into Lua's C frames.
#[inline(always)]
pub unsafe fn entry(l: State, body: unsafe fn(State) -> Ret) -> c_int {
    // SAFETY: `body` is one of this crate's C function bodies, called with
    // the state Lua called us with.
    let r = std::panic::catch_unwind(|| unsafe { body(l) });
    let m = match r {
        Ok(Ok(n)) => return n,
        Ok(Err(m)) => m,
        Err(_) => msg!("qjson: internal error (a panic in the native module)"),
    };
    // SAFETY: as above; `m` lives on this frame and has no destructor.
    unsafe { raise(l, m.bytes()) }
}

/// Declares `extern "C-unwind" fn $name` running `$body` through [`entry`].
macro_rules! lua_fn {
    ($name:ident => $body:path) => {
        unsafe extern "C-unwind" fn $name(l: $crate::lua::State) -> std::ffi::c_int {
            // SAFETY: called by Lua as a C function.
            unsafe { $crate::lua::entry(l, $body) }
        }
    };
}
pub(crate) use lua_fn;

/// Raises `msg` as a Lua string error.
pub unsafe fn raise(l: State, msg: &[u8]) -> ! {
    // SAFETY: a valid state; lua_error never returns.
    unsafe {
        sys::lua_pushlstring(l, msg.as_ptr().cast(), msg.len());
        sys::lua_error(l)
    }
}

/// The bytes of the string at `idx`, or `None` for any other type (a
/// number is not converted: that would change the value in place).
/// Valid while the string is on the stack.
pub unsafe fn string_at<'a>(l: State, idx: c_int) -> Option<&'a [u8]> {
    // SAFETY: a valid state and index.
    unsafe {
        if sys::lua_type(l, idx) != sys::LUA_TSTRING {
            return None;
        }
        Some(string_bytes(l, idx))
    }
}

/// The bytes of the string at `idx`, its type checked by the caller (for
/// a caller that has just asked it), valid while it is on the stack.
pub unsafe fn string_bytes<'a>(l: State, idx: c_int) -> &'a [u8] {
    // SAFETY: a valid state; a string at `idx`, which lua_tolstring
    // neither converts nor allocates for.
    unsafe {
        let mut len = 0usize;
        let p = sys::lua_tolstring(l, idx, &mut len);
        std::slice::from_raw_parts(p.cast::<u8>(), len)
    }
}

/// The bytes of argument `arg`, which must be a string (or a number,
/// made one in place); else raises lua's argument error. Valid while the
/// argument is on the stack.
pub unsafe fn check_bytes<'a>(l: State, arg: c_int) -> &'a [u8] {
    // SAFETY: a valid state; luaL_checklstring returns `len` valid bytes.
    unsafe {
        let mut len = 0usize;
        let p = sys::luaL_checklstring(l, arg, &mut len);
        std::slice::from_raw_parts(p.cast::<u8>(), len)
    }
}

pub unsafe fn push_bytes(l: State, b: &[u8]) {
    // SAFETY: a valid state; the bytes are copied.
    unsafe { sys::lua_pushlstring(l, b.as_ptr().cast::<c_char>(), b.len()) };
}

/// A Lua integer where the version has them, else a double.
pub unsafe fn push_int(l: State, i: i64) {
    // SAFETY: a valid state.
    unsafe {
        if HAS_INTEGERS {
            sys::lua_pushinteger(l, i as sys::lua_Integer);
        } else {
            sys::lua_pushnumber(l, i as f64);
        }
    }
}

/// The integer at `idx` (5.3+: a Lua integer), else `None`.
pub unsafe fn integer_at(l: State, idx: c_int) -> Option<i64> {
    // SAFETY: a valid state and index.
    unsafe {
        if HAS_INTEGERS && sys::lua_isinteger(l, idx) != 0 {
            Some(sys::lua_tointeger(l, idx) as i64)
        } else {
            None
        }
    }
}

/// The number at `idx` truncated to an integer (a Lua integer read
/// without going through a float; one API call when it is one: the
/// document's cursors and iterators keep their nodes so).
pub unsafe fn number_as_int(l: State, idx: c_int) -> i64 {
    // SAFETY: a valid state and index.
    unsafe {
        if HAS_INTEGERS {
            let mut ok = 0;
            let i = sys::lua_tointegerx(l, idx, &mut ok);
            if ok != 0 {
                return i as i64;
            }
        }
        sys::lua_tonumber(l, idx) as i64
    }
}

/// Type name of the value at `idx`.
pub unsafe fn type_name(l: State, idx: c_int) -> &'static str {
    // SAFETY: a valid state and index.
    unsafe { type_name_of(l, sys::lua_type(l, idx)) }
}

/// Name of the Lua type `t`.
pub unsafe fn type_name_of(l: State, t: c_int) -> &'static str {
    // SAFETY: a valid state; lua_typename returns a static C string.
    unsafe { std::ffi::CStr::from_ptr(sys::lua_typename(l, t)).to_str().unwrap_or("?") }
}

/// The userdata at `idx` if its metatable is the registry's `name`.
pub unsafe fn userdata_at<T>(l: State, idx: c_int, name: &std::ffi::CStr) -> Option<*mut T> {
    // SAFETY: a valid state and index; a userdata with that metatable
    // holds a `T` (only this crate sets it).
    unsafe {
        let p = sys::lua_touserdata(l, idx);
        if p.is_null() || sys::lua_getmetatable(l, idx) == 0 {
            return None;
        }
        sys::luaL_getmetatable(l, name.as_ptr());
        let same = sys::lua_rawequal(l, -1, -2) != 0;
        sys::lua_pop(l, 2);
        same.then_some(p.cast::<T>())
    }
}

/// A new userdata holding `Some(make())`, with the registry's metatable
/// `name` (whose `__gc` takes the value out and drops it, [`gc`]), left
/// on the stack. `make` runs once the memory is there: a value that owns
/// memory made before an allocation that raises would be lost.
pub unsafe fn new_userdata<T>(l: State, name: &std::ffi::CStr, make: impl FnOnce() -> T) -> *mut Option<T> {
    // SAFETY: a valid state; the memory is written before anything else
    // can see it, and no Lua call runs between the allocation and then.
    unsafe {
        let p = sys::lua_newuserdata(l, std::mem::size_of::<Option<T>>()).cast::<Option<T>>();
        p.write(Some(make()));
        sys::luaL_getmetatable(l, name.as_ptr());
        sys::lua_setmetatable(l, -2);
        p
    }
}

/// A new userdata holding `None` (filled in once the values it will own
/// exist, after every call that can raise), with metatable `name`.
pub unsafe fn new_empty<T>(l: State, name: &std::ffi::CStr) -> *mut Option<T> {
    // SAFETY: a valid state; the memory is written before anything else
    // can see it.
    unsafe {
        let p = sys::lua_newuserdata(l, std::mem::size_of::<Option<T>>()).cast::<Option<T>>();
        p.write(None);
        sys::luaL_getmetatable(l, name.as_ptr());
        sys::lua_setmetatable(l, -2);
        p
    }
}

/// The `__gc` of a userdata made by [`new_userdata`]: drops its value
/// (once: a finalizer may see it again after `close`).
pub unsafe extern "C-unwind" fn gc<T>(l: State) -> c_int {
    // SAFETY: Lua calls __gc with the userdata as argument 1, which holds
    // an `Option<T>` (the metatable is this crate's).
    unsafe {
        let p = sys::lua_touserdata(l, 1).cast::<Option<T>>();
        if !p.is_null() {
            drop((*p).take());
        }
    }
    0
}

/// Pushes a new, empty metatable for `name` when the registry has none
/// (true; fill it, then [`end_metatable`]), else pushes nothing (false).
/// A metatable is registered only once complete: an allocation that
/// raises half-way (out of memory) leaves nothing registered, and the next
/// call builds it again, never a metatable without its `__gc`.
pub unsafe fn begin_metatable(l: State, name: &std::ffi::CStr) -> bool {
    // SAFETY: a valid state.
    unsafe {
        sys::luaL_getmetatable(l, name.as_ptr());
        let exists = sys::lua_type(l, -1) != sys::LUA_TNIL;
        sys::lua_pop(l, 1);
        if !exists {
            sys::lua_createtable(l, 0, 4);
        }
        !exists
    }
}

/// Registers the metatable [`begin_metatable`] pushed (popping it) as
/// `name`, with `__name` as `luaL_newmetatable` sets it and `__metatable`
/// false (what `getmetatable` gives instead of it).
pub unsafe fn end_metatable(l: State, name: &std::ffi::CStr) {
    // SAFETY: a valid state; the metatable at the top.
    unsafe {
        sys::lua_pushboolean(l, 0);
        sys::lua_setfield(l, -2, c"__metatable".as_ptr());
        sys::lua_pushstring(l, name.as_ptr());
        sys::lua_setfield(l, -2, c"__name".as_ptr());
        sys::lua_setfield(l, sys::LUA_REGISTRYINDEX, name.as_ptr());
    }
}

/// Sets field `name` of the table at the top to the closure `f` over one
/// nil upvalue (a method's spare encoder), wrapped by `protect` when given
/// (lib.rs's `protected`: nil and a message instead of an error).
pub unsafe fn set_method(l: State, name: &std::ffi::CStr, f: sys::lua_CFunction, protect: Option<sys::lua_CFunction>) {
    // SAFETY: a valid state; a table at the top.
    unsafe {
        sys::lua_pushnil(l);
        sys::lua_pushcclosure(l, f, 1);
        if let Some(protect) = protect {
            sys::lua_pushboolean(l, 0);
            sys::lua_pushcclosure(l, protect, 2);
        }
        sys::lua_setfield(l, -2, name.as_ptr());
    }
}

/// Registers metatable `name` with `__gc` = [`gc::<T>`], the given
/// methods as `__index` and other metamethods, leaving nothing on the
/// stack.
pub unsafe fn register_type<T>(
    l: State,
    name: &std::ffi::CStr,
    methods: &[(&std::ffi::CStr, sys::lua_CFunction)],
    extra: &[(&std::ffi::CStr, sys::lua_CFunction)],
) {
    // SAFETY: a valid state.
    unsafe {
        if !begin_metatable(l, name) {
            return;
        }
        sys::lua_pushcfunction(l, gc::<T>);
        sys::lua_setfield(l, -2, c"__gc".as_ptr());
        if !methods.is_empty() {
            sys::lua_createtable(l, 0, methods.len() as c_int);
            for (n, f) in methods {
                sys::lua_pushcfunction(l, *f);
                sys::lua_setfield(l, -2, n.as_ptr());
            }
            sys::lua_setfield(l, -2, c"__index".as_ptr());
        }
        for (n, f) in extra {
            sys::lua_pushcfunction(l, *f);
            sys::lua_setfield(l, -2, n.as_ptr());
        }
        end_metatable(l, name);
    }
}

/// Registers metatable `name` of an object holding a `T` (a patcher, a
/// validator): `__gc`, `__tostring` = `tostring`, and `methods` as
/// closures made by [`set_method`] (protected by `protect` when given).
pub unsafe fn register_object_type<T>(
    l: State,
    name: &std::ffi::CStr,
    methods: &[(&std::ffi::CStr, sys::lua_CFunction)],
    tostring: sys::lua_CFunction,
    protect: Option<sys::lua_CFunction>,
) {
    // SAFETY: a valid state.
    unsafe {
        if !begin_metatable(l, name) {
            return;
        }
        sys::lua_pushcfunction(l, gc::<T>);
        sys::lua_setfield(l, -2, c"__gc".as_ptr());
        sys::lua_pushcfunction(l, tostring);
        sys::lua_setfield(l, -2, c"__tostring".as_ptr());
        sys::lua_createtable(l, 0, methods.len() as c_int);
        for (n, f) in methods {
            set_method(l, n, *f, protect);
        }
        sys::lua_setfield(l, -2, c"__index".as_ptr());
        end_metatable(l, name);
    }
}

/// A light userdata NULL: lua-cjson's `cjson.null`, and so qjson's.
pub unsafe fn push_null(l: State) {
    // SAFETY: a valid state.
    unsafe { sys::lua_pushlightuserdata(l, std::ptr::null_mut::<c_void>()) };
}

/// Whether the value at `idx` is the light userdata NULL.
pub unsafe fn is_null(l: State, idx: c_int) -> bool {
    // SAFETY: a valid state and index.
    unsafe { sys::lua_type(l, idx) == sys::LUA_TLIGHTUSERDATA && sys::lua_touserdata(l, idx).is_null() }
}

/// `bad argument #n to 'f' (what)`, with the caller's position in front
/// and the function named as the calling code names it (`'?'` when
/// unknown; `calling 'f' on bad self` for a method's self; a `qjson.safe`
/// function, which Lua calls through its wrapper, as the wrapper is
/// named: [`wrapper_at`]): Lua 5.1's
/// `luaL_argerror` on every version, so that messages are the LuaJIT
/// binding's (5.4's own names the function by its `package.loaded` key,
/// `'qjson.parse'`). lua-cjson's configuration functions use the host's
/// `luaL_argerror`, as lua-cjson does.
pub unsafe fn arg_error(l: State, arg: c_int, what: &Msg) -> ! {
    // SAFETY: a valid state; `ar` is written by lua_getstack/lua_getinfo.
    unsafe {
        let mut ar = std::mem::MaybeUninit::<sys::lua_Debug>::zeroed().assume_init();
        let mut arg = arg;
        let (mut name, mut method) = (&b"?"[..], false);
        // (Level 1 when a safe wrapper runs this function: named as it is.)
        let level = if wrapper_at(l, &mut ar) { 1 } else { 0 };
        if sys::lua_getstack(l, level, &mut ar) != 0 {
            sys::lua_getinfo(l, c"n".as_ptr(), &mut ar);
            if !ar.name.is_null() {
                name = std::ffi::CStr::from_ptr(ar.name).to_bytes();
            }
            method = !ar.namewhat.is_null() && std::ffi::CStr::from_ptr(ar.namewhat).to_bytes() == b"method";
        }
        let field = if name == b"?" { module_field_name(l, &mut ar) } else { Msg::new() };
        if field.len > 0 {
            name = field.bytes();
        }
        let what = String::from_utf8_lossy(what.bytes());
        let name = String::from_utf8_lossy(name);
        if method {
            arg -= 1;
        }
        let m = if method && arg == 0 {
            msg!("calling '{name}' on bad self ({what})")
        } else {
            msg!("bad argument #{arg} to '{name}' ({what})")
        };
        drop((what, name));
        sys::luaL_where(l, 1);
        push_bytes(l, m.bytes());
        sys::lua_concat(l, 2);
        sys::lua_error(l)
    }
}

/// `bad argument #n to 'name' (what)` for argument `arg` of method
/// `name`, counted as the LuaJIT binding counts them (self is 0), with the
/// caller's position in front: for methods Lua cannot name when they are
/// called through `pcall` (their functions are in no loaded module).
pub unsafe fn method_arg_error(l: State, arg: c_int, name: &str, what: &Msg) -> ! {
    // SAFETY: a valid state.
    unsafe { named_arg_error(l, arg - 1, name, what) }
}

/// `bad argument #n to 'name' (what)` with the caller's position in
/// front, for functions named as the LuaJIT binding names them whatever
/// table they are in (`qjson.stream.each`).
pub unsafe fn named_arg_error(l: State, arg: c_int, name: &str, what: &Msg) -> ! {
    // SAFETY: a valid state.
    unsafe { raise_here(l, &msg!("bad argument #{arg} to '{name}' ({})", String::from_utf8_lossy(what.bytes()))) }
}

/// Raises `m` with the caller's position in front (`error(m, 2)` in the
/// calling Lua code).
pub unsafe fn raise_here(l: State, m: &Msg) -> ! {
    // SAFETY: a valid state; `m` has no destructor.
    unsafe {
        sys::luaL_where(l, 1);
        push_bytes(l, m.bytes());
        sys::lua_concat(l, 2);
        sys::lua_error(l)
    }
}

/// Whether the running function (level 0) was called by a `qjson.safe`
/// wrapper (lib.rs's `protected`, level 1: a C closure whose first
/// upvalue is the function it protects). Lua cannot name a function a C
/// function calls, and this one is in no module: the wrapper is.
unsafe fn wrapper_at(l: State, ar: &mut sys::lua_Debug) -> bool {
    // SAFETY: a valid state; `ar` is written by lua_getstack.
    unsafe {
        let top = sys::lua_gettop(l);
        sys::luaL_checkstack(l, 3, std::ptr::null());
        let mut wrapped = false;
        if sys::lua_getstack(l, 0, ar) != 0 {
            sys::lua_getinfo(l, c"f".as_ptr(), ar);
            if sys::lua_getstack(l, 1, ar) != 0 {
                sys::lua_getinfo(l, c"f".as_ptr(), ar);
                wrapped = sys::lua_iscfunction(l, -1) != 0
                    && !sys::lua_getupvalue(l, -1, 1).is_null()
                    && sys::lua_rawequal(l, -1, top + 1) != 0;
            }
        }
        sys::lua_settop(l, top);
        wrapped
    }
}

/// The running function's field name in a loaded module (`parse` for
/// `qjson.parse`), for a call Lua cannot name (through `pcall`); empty
/// when it is in none.
unsafe fn module_field_name(l: State, ar: &mut sys::lua_Debug) -> Msg {
    // SAFETY: a valid state; `ar` is level 0's.
    unsafe {
        let mut found = Msg::new();
        sys::lua_getinfo(l, c"f".as_ptr(), ar);
        let f = sys::lua_gettop(l);
        sys::luaL_checkstack(l, 6, std::ptr::null());
        sys::lua_getfield(l, sys::LUA_REGISTRYINDEX, c"_LOADED".as_ptr());
        if sys::lua_type(l, -1) == sys::LUA_TTABLE {
            sys::lua_pushnil(l);
            'modules: while sys::lua_next(l, -2) != 0 {
                if sys::lua_type(l, -1) == sys::LUA_TTABLE {
                    sys::lua_pushnil(l);
                    while sys::lua_next(l, -2) != 0 {
                        if sys::lua_rawequal(l, -1, f) != 0 && sys::lua_type(l, -2) == sys::LUA_TSTRING {
                            let _ = fmt::Write::write_str(
                                &mut found,
                                &String::from_utf8_lossy(string_at(l, -2).unwrap_or_default()),
                            );
                            break 'modules;
                        }
                        sys::lua_pop(l, 1);
                    }
                }
                sys::lua_pop(l, 1);
            }
        }
        sys::lua_settop(l, f - 1);
        found
    }
}

/// `tostring` of the value at `idx`, as Lua prints it.
pub unsafe fn to_text(l: State, idx: c_int) -> Msg {
    // SAFETY: a valid state; luaL_tolstring pushes a string (it may
    // allocate: nothing is owned here).
    unsafe {
        let mut n = 0;
        let p = sys::luaL_tolstring(l, idx, &mut n);
        let m = msg!("{}", String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), n)));
        sys::lua_pop(l, 1);
        m
    }
}
