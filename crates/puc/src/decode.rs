//! Plain Lua tables from a JSON text: the core's event stream
//! (`qjson_core::events`) in one native pass, then the tables built from
//! it with the raw C API, each at its exact size.
//!
//! The two phases keep the rule of `lua.rs`: the walk calls no Lua
//! function, and the build owns nothing (its state, the events and their
//! strings, is in a `Decoder` userdata on the Lua stack). A decode takes
//! the decode function's spare `Decoder` (its upvalue) and gives it back
//! at the end; a decode that runs meanwhile (from a finalizer) finds no
//! spare and makes its own, and one ended by an error leaves its
//! `Decoder` to the collector.

use std::ffi::c_int;

use qjson_core::events::{Event, EventTag, KeyCache, Walker};
use qjson_core::{Document, Options};

use crate::lua::{self, msg, sys, Msg, State};

pub const DECODER: &std::ffi::CStr = c"qjson.decoder";

/// A decode's buffers: the event stream, the key cache whose ids the
/// key-string table (the userdata's user value) is indexed by, and the
/// build's open containers.
#[derive(Default)]
pub struct Decoder {
    walker: Walker,
    keys: KeyCache,
    /// The key cache's generation the key-string table was made for.
    key_generation: u32,
    frames: Vec<Frame>,
}

impl Decoder {
    /// A decoder whose walker reads integer literals as this Lua's
    /// integers and makes no object shape ids (the build uses none).
    fn new() -> Decoder {
        let mut d = Decoder::default();
        d.walker.set_integers(lua::HAS_INTEGERS);
        d.walker.set_shapes(false);
        d
    }
}

/// An open container of the build.
#[derive(Clone, Copy)]
struct Frame {
    object: bool,
    /// Members still to come.
    left: u32,
    /// Elements set so far (arrays).
    index: u32,
}

/// How a decode builds its tables.
#[derive(Clone, Copy)]
pub struct Build {
    pub opts: Options,
    /// Stack index of a metatable for every array (lua-cjson's
    /// `decode_array_with_array_mt`), or 0.
    pub array_mt: c_int,
    /// Stack index of a metatable for empty arrays (qjson.decode's
    /// `empty_array_mt`, so that they encode back as `[]`), or 0.
    pub empty_array_mt: c_int,
}

/// Where a spare decoder waits between decodes: a C closure's upvalue
/// (the decode functions), or the registry (`doc:get`).
#[derive(Clone, Copy)]
pub enum Spare {
    Upvalue(c_int),
    Registry,
}

static REGISTRY_SPARE: u8 = 0;

impl Spare {
    unsafe fn push(self, l: State) {
        // SAFETY: a valid state.
        unsafe {
            match self {
                Spare::Upvalue(i) => sys::lua_pushvalue(l, sys::lua_upvalueindex(i)),
                Spare::Registry => {
                    sys::lua_rawgetp(l, sys::LUA_REGISTRYINDEX, (&REGISTRY_SPARE as *const u8).cast());
                }
            }
        }
    }

    /// Sets the spare to the value at `idx`.
    unsafe fn copy_from(self, l: State, idx: c_int) {
        // SAFETY: a valid state.
        unsafe {
            match self {
                Spare::Upvalue(i) => copy(l, idx, sys::lua_upvalueindex(i)),
                Spare::Registry => {
                    sys::lua_pushvalue(l, idx);
                    self.set(l);
                }
            }
        }
    }

    /// Sets the spare to the value at the top, popping it.
    unsafe fn set(self, l: State) {
        // SAFETY: a valid state.
        unsafe {
            match self {
                Spare::Upvalue(i) => sys::lua_replace(l, sys::lua_upvalueindex(i)),
                Spare::Registry => sys::lua_rawsetp(l, sys::LUA_REGISTRYINDEX, (&REGISTRY_SPARE as *const u8).cast()),
            }
        }
    }
}

/// `lua_copy`, which Lua 5.1 lacks: there, a push and a replace (the
/// stand-in's stack check is not needed: a decode has a free slot).
#[inline(always)]
unsafe fn copy(l: State, from: c_int, to: c_int) {
    // SAFETY: a valid state; valid indices; one free stack slot on 5.1.
    unsafe {
        if cfg!(feature = "lua51") {
            sys::lua_pushvalue(l, from);
            sys::lua_replace(l, to);
        } else {
            sys::lua_copy(l, from, to);
        }
    }
}

/// Pushes the spare decoder (taking it out of its place), or a new one;
/// returns it.
unsafe fn take_decoder(l: State, spare: Spare) -> *mut Decoder {
    // SAFETY: a valid state; the spare is nil or a Decoder userdata.
    unsafe {
        spare.push(l);
        // (Null for nil: the spare is taken.)
        let mut p = sys::lua_touserdata(l, -1).cast::<Option<Decoder>>();
        if !p.is_null() {
            sys::lua_pushnil(l);
            spare.set(l);
        } else {
            sys::lua_pop(l, 1);
            lua::new_userdata(l, DECODER, Decoder::new);
            sys::lua_createtable(l, 0, 0);
            sys::lua_setuservalue(l, -2);
            p = sys::lua_touserdata(l, -1).cast::<Option<Decoder>>();
        }
        (*p).as_mut().expect("a decoder's value is dropped only by __gc") as *mut Decoder
    }
}

/// Decodes `input`, the bytes of a string on the stack, into a value left
/// on the top of the stack.
pub unsafe fn decode(l: State, input: &[u8], spare: Spare, build: Build) -> Result<(), Msg> {
    // SAFETY: a valid state; the string of `input` stays on the stack, so
    // its bytes stay valid.
    unsafe {
        let d = take_decoder(l, spare);
        let dec = sys::lua_gettop(l);
        // Phase 1: the events, no Lua call. (Its error is the core's small
        // one, made a message only on the way out: a `Msg` in the result
        // would be copied on every decode.)
        let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let d = &mut *d;
            d.keys.renew_if_full();
            let Decoder { walker, keys, .. } = d;
            if let Some(events) = walker.events_direct(input, &build.opts, keys) {
                return Ok((events.as_ptr(), events.len()));
            }
            Document::parse_then(input, &build.opts, |doc| {
                walker.events(doc, qjson_core::ROOT, Some(keys)).map(|e| (e.as_ptr(), e.len()))
            })
            .and_then(|r| r)
        }));
        let (events, n) = match walked {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(give_back(l, spare, msg!("qjson: {e}"))),
            Err(payload) => {
                // (Freed before the call that can raise.)
                drop(payload);
                return Err(give_back(l, spare, msg!("qjson: internal error (a panic in the native module)")));
            }
        };
        finish(l, d, dec, spare, events, n, build);
        Ok(())
    }
}

/// Gives the decoder at the top back to `spare` after a failed walk;
/// returns the walk's message.
unsafe fn give_back(l: State, spare: Spare, m: Msg) -> Msg {
    // SAFETY: a valid state; the decoder is at the top.
    unsafe { spare.set(l) };
    m
}

/// Pushes plain tables of the value at `node` of the document whose `Doc`
/// userdata is at `ud`, as `decode` builds them.
pub unsafe fn from_document(l: State, ud: c_int, node: qjson_core::Node, build: Build) -> Result<(), Msg> {
    // SAFETY: a valid state.
    unsafe {
        let d = take_decoder(l, Spare::Registry);
        let dec = sys::lua_gettop(l);
        (*d).keys.renew_if_full();
        let Decoder { walker, keys, .. } = &mut *d;
        let (events, n) = match crate::doc::events_of(l, ud, node, walker, keys) {
            Ok(r) => r,
            Err(m) => return Err(give_back(l, Spare::Registry, m)),
        };
        finish(l, d, dec, Spare::Registry, events, n, build);
        Ok(())
    }
}

/// Phase 2: the tables from the `n` events at `events` the decoder `d`
/// (at stack index `dec`, the top) walked; then the decoder goes back to
/// `spare`.
unsafe fn finish(l: State, d: *mut Decoder, dec: c_int, spare: Spare, events: *const Event, n: usize, build: Build) {
    // SAFETY: a valid state; the decoder userdata is at `dec`.
    unsafe {
        // The key-string table: a new one when the cache renewed.
        let generation = (*d).keys.generation();
        if generation != (*d).key_generation {
            sys::lua_createtable(l, 0, 0);
            sys::lua_setuservalue(l, dec);
            (*d).key_generation = generation;
        }
        sys::lua_getuservalue(l, dec);
        // The events stay put: they live in the decoder, which no other
        // decode uses meanwhile.
        let events = std::slice::from_raw_parts(events, n);
        build_tables(l, &mut *d, events, dec + 1, build);
        // [decoder, keys, value]: give the decoder back, leave the value.
        spare.copy_from(l, dec);
        copy(l, -1, dec);
        sys::lua_settop(l, dec);
    }
}

/// Pushes the value the events describe.
unsafe fn build_tables(l: State, d: &mut Decoder, events: &[Event], keys: c_int, build: Build) {
    // SAFETY: a valid state; `keys` is the key-string table's index; the
    // events' strings point into the input or the decoder, both alive.
    unsafe {
        d.frames.clear();
        let mut i = 0;
        loop {
            let e = events[i];
            i += 1;
            match e.tag {
                EventTag::Array | EventTag::ScalarArray => {
                    sys::lua_createtable(l, e.n as c_int, 0);
                    if e.n > 0 {
                        if build.array_mt != 0 {
                            sys::lua_pushvalue(l, build.array_mt);
                            sys::lua_setmetatable(l, -2);
                        }
                        sys::luaL_checkstack(l, 4, c"qjson: nesting too deep for the Lua stack".as_ptr());
                        d.frames.push(Frame { object: false, left: e.n, index: 0 });
                        continue;
                    }
                    let mt = if build.array_mt != 0 { build.array_mt } else { build.empty_array_mt };
                    if mt != 0 {
                        sys::lua_pushvalue(l, mt);
                        sys::lua_setmetatable(l, -2);
                    }
                }
                EventTag::Object | EventTag::ScalarObject => {
                    sys::lua_createtable(l, 0, e.n as c_int);
                    if e.n > 0 {
                        sys::luaL_checkstack(l, 4, c"qjson: nesting too deep for the Lua stack".as_ptr());
                        d.frames.push(Frame { object: true, left: e.n, index: 0 });
                        push_key(l, &d.keys, &events[i], keys);
                        i += 1;
                        continue;
                    }
                }
                _ => push_scalar(l, &e),
            }
            // A value is complete: set it in its container, and close the
            // containers it completes.
            loop {
                let Some(top) = d.frames.last_mut() else { return };
                if top.object {
                    sys::lua_rawset(l, -3);
                } else {
                    top.index += 1;
                    sys::lua_rawseti(l, -2, top.index as sys::lua_Integer);
                }
                top.left -= 1;
                if top.left > 0 {
                    if top.object {
                        push_key(l, &d.keys, &events[i], keys);
                        i += 1;
                    }
                    break;
                }
                d.frames.pop();
            }
        }
    }
}

#[inline(always)]
unsafe fn push_scalar(l: State, e: &Event) {
    // SAFETY: a valid state; string events point at `n` valid bytes.
    unsafe {
        match e.tag {
            EventTag::Null => lua::push_null(l),
            EventTag::False => sys::lua_pushboolean(l, 0),
            EventTag::True => sys::lua_pushboolean(l, 1),
            EventTag::Number => match e.integer() {
                Some(i) => lua::push_int(l, i),
                None => sys::lua_pushnumber(l, e.v.num),
            },
            _ => {
                sys::lua_pushlstring(l, e.v.ptr, e.n as usize);
            }
        }
    }
}

/// Pushes an object key: a cached key's string from the key-string table
/// (made once per id), any other from its bytes.
#[inline(always)]
unsafe fn push_key(l: State, cache: &KeyCache, e: &Event, keys: c_int) {
    // SAFETY: a valid state; key events point at their stored bytes.
    unsafe {
        if e.tag != EventTag::Key {
            sys::lua_pushlstring(l, e.v.ptr, e.n as usize);
            return;
        }
        if sys::lua_rawgeti(l, keys, e.n as sys::lua_Integer) != sys::LUA_TNIL {
            return;
        }
        sys::lua_pop(l, 1);
        sys::lua_pushlstring(l, e.v.ptr, cache.len_of(e.n));
        sys::lua_pushvalue(l, -1);
        sys::lua_rawseti(l, keys, e.n as sys::lua_Integer);
    }
}
