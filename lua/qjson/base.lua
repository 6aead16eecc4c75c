-- qjson.base: the FFI plumbing every other module shares, in the manner
-- of resty.core.base: the library namespace, the out-parameter boxes
-- (here and nowhere else), the rules that make sharing them safe, and
-- the readers that follow them: every native call that writes a shared
-- box is made by a reader here, which returns plain Lua values (other
-- modules never see a box or a ticket: spec/reads_spec.lua).
--
-- Any Lua allocation may run a collector step, and a step may run
-- finalizers, which may call qjson themselves (read, parse, close, or
-- raise); LuaJIT also runs them when a compiled trace exits. So:
--   * A native call that writes a box first takes a ticket,
--     `local t = ticket()` (and so does every call that frees
--     memory a box may point into: close). The caller takes every value
--     it needs out of the boxes into locals, then checks `stale(t)`: if
--     anything else called qjson meanwhile, the values may be another
--     call's, and the read is done again. Nothing is read from a box
--     after its check: a compiled trace that exits while the collector
--     is in its atomic or finalize phase runs a collector step, and so a
--     finalizer, at whatever guard failed (lj_trace_exit), so a finalizer
--     can run between any two statements of compiled code. The values
--     taken before the check are plain Lua numbers, which reading does
--     not allocate, so a retry cannot be caught again by the same
--     finalizer: a 64-bit value is taken as its two 32-bit halves
--     (size_value, int64_value, uint64_value) and made whole after the
--     check. (In a trace that took the ticket, the check folds away: the
--     ticket is an integer, so LuaJIT forwards its load from the
--     ticket's store, where a float's `x == x` would stay a guard and a
--     snapshot in every trace, for NaN.)
--   * A string's pointer and length are boxed by LuaJIT, an allocation,
--     before the string can be made, so they are taken after the first
--     check: a second check after them tells whether a finalizer ran
--     qjson meanwhile (and may have closed the document or reused its
--     string scratch), and then the string is copied out natively into
--     memory of the call's own (box_string does both, through
--     copy_string), not read again.
--   * No pointer into a document is held across code that can allocate:
--     the encoder copies from a document through qjson_copy_input; a
--     build from events that point into a document pins it (qjson_pin).
--   * Options go in a box of the call's own (new_options), and a decode
--     keeps its boxes per slot (slot_boxes).
--   * Native objects (selectors, stream splitters, validators, compiled
--     paths) are held through a ref (new_ref): a one-pointer array in Lua
--     memory (the slot of crates/luajit/src/lib.rs), whose finalizer frees the
--     object and empties the ref. Native calls take the ref itself and
--     fail once it is empty: at lua_close LuaJIT runs every cdata
--     finalizer before any userdata's __gc, so a __gc that uses one then
--     gets "qjson: selector is freed", not freed memory. Lua never holds
--     the bare pointer (reading it would box it, an allocation). (A ref on
--     the caller's stack cannot be freed under it: a collector frees only
--     what nothing reaches, and lua_close's finalizers run one after
--     another.)
--   * No compiled pairs loop (bytecode ITERN) runs inside a finalizer:
--     LuaJIT makes such a loop progress past an exit at its head by
--     recording a side trace there, which it does not do while a
--     finalizer runs, so the loop can spin for ever (docs/security.md,
--     guarantee 11). Loops over tables that a call from a finalizer can
--     run are `while` loops over next(), not `for ... in pairs/next`
--     loops; the encoder's walk, which keeps the faster for loops, is run
--     by finalizers from a copy LuaJIT does not compile (qjson.encode).
-- docs/security.md states what this guarantees and how it is tested.
local ffi = require("ffi")
local C = require("qjson.lib")

local ffi_new, ffi_string, ffi_cast = ffi.new, ffi.string, ffi.cast
local error, tonumber, tobit = error, tonumber, require("bit").tobit

local M = {}

M.C = C

local MISSING = C.QJSON_STATUS_MISSING
local NULL, BOOLEAN, NUMBER = C.QJSON_KIND_NULL, C.QJSON_KIND_BOOLEAN, C.QJSON_KIND_NUMBER
local STRING, ARRAY, OBJECT = C.QJSON_KIND_STRING, C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT

-- Each value kind's name, by its `qjson_kind`.
M.KIND_NAMES = {
  [C.QJSON_KIND_NULL] = "null", [C.QJSON_KIND_BOOLEAN] = "boolean", [C.QJSON_KIND_NUMBER] = "number",
  [C.QJSON_KIND_STRING] = "string", [C.QJSON_KIND_ARRAY] = "array", [C.QJSON_KIND_OBJECT] = "object",
}

-- The ticket counter and a new ticket (see above).
local S = { seq = 0 }
local function ticket()
  local t = tobit(S.seq + 1)
  S.seq = t
  return t
end
-- Whether another call took a ticket since `t` was taken. (Here rather
-- than at each call site: the load must go through the same upvalue as
-- the ticket's store for LuaJIT to forward it; tobit makes it the integer
-- stored, and an integer `x ~= x` folds.)
local function stale(t)
  return tobit(S.seq) ~= t
end
-- (Exported for qjson.encode.string alone, which still follows the rules
-- by hand around qjson_escape.)
M.ticket, M.stale = ticket, stale

-- Shared out-parameter boxes: locals of this module. Other modules do not
-- see them: they read through the readers below, which take the ticket,
-- copy every value out and check it, once for all (spec/reads_spec.lua
-- fails when a module outside this one takes tickets or names a box).
local ptr_box = ffi_new("const char *[1]")
local size_box = ffi_new("size_t[1]")
local num_box = ffi_new("double[1]")
local i64_box = ffi_new("int64_t[1]")
local u64_box = ffi_new("uint64_t[1]")
local bool_box = ffi_new("uint8_t[1]")
local node_box = ffi_new("uint32_t[1]")
-- qjson_child_holding's index.
local index_box = ffi_new("uint32_t[1]")
local key_box = ffi_new("qjson_value")
local val_box = ffi_new("qjson_value")
-- qjson_member_span's offsets, and qjson_raw_span's.
local span_box = ffi_new("uint32_t[8]")
-- qjson_escape's count of input bytes used (qjson.encode.string's, which
-- still follows the rules above by hand).
M.consumed_box = ffi_new("size_t[1]")

-- 64-bit boxes are read as their two 32-bit halves (see the rules above):
-- index LO holds the low half, HI the high one.
local LO, HI = 0, 1
if not ffi.abi("le") then
  LO, HI = 1, 0
end
local halves_t = ffi.typeof("const uint32_t *")

-- A function that reads the size_t at `p` as a Lua number (exact: sizes
-- stay below 2^53).
local function size_reader(p)
  local w = ffi_cast(halves_t, p)
  return function()
    return w[LO] + w[HI] * 4294967296
  end
end
local size_value = size_reader(size_box)
M.consumed_value = size_reader(M.consumed_box)
local value_len_offset = ffi.offsetof("qjson_value", "len")
local val_len = size_reader(ffi_cast("const uint8_t *", val_box) + value_len_offset)

-- The halves of i64_box and u64_box, taken before the check, and the
-- int64_t or uint64_t cdata they make, after it.
local i64_words, u64_words = ffi_cast(halves_t, i64_box), ffi_cast(halves_t, u64_box)
local int64_t, uint64_t = ffi.typeof("int64_t"), ffi.typeof("uint64_t")
local function int64_value(lo, hi)
  return int64_t(tobit(hi)) * 4294967296 + lo
end
local function uint64_value(lo, hi)
  return uint64_t(hi) * 4294967296 + lo
end

-- val_box.num, read through C.qjson_load_f64 (see crates/luajit/src/load.rs: a load
-- from a box can be moved past the next call that rewrites it).
local val_num = ffi_cast("const double *", ffi_cast("const uint8_t *", val_box) + ffi.offsetof("qjson_value", "num"))
local load_f64 = C.qjson_load_f64

-- The error box of parses and path compiles, and its message as a
-- pointer made once: reading `err.message` would allocate a reference
-- (and so could run a finalizer) before the copy.
local err = ffi_new("qjson_error")
local err_message = ffi_cast("char *", err.message)

-- The message of the error box, or of document `ptr`'s last failed read
-- when `ptr` is given (empty when there is none). That one rewrites the
-- box, so it takes a ticket: a parse a finalizer interrupted with it
-- then sees that its message may be gone.
function M.error_message(ptr)
  if ptr ~= nil then
    ticket()
    err_message[0] = 0
    C.qjson_last_error(ptr, err)
  end
  return ffi_string(err_message)
end

-- The string (or with `raw`, the JSON text) of node `node` of document
-- `ptr`, copied natively into memory of this call's own: the slow path
-- of string reads. nil when the read fails (the document's last error
-- says why).
local function copy_string(ptr, node, raw)
  local copy = raw and C.qjson_copy_raw or C.qjson_copy_str
  local n = copy(ptr, node, nil, 0)
  if n < 0 then
    return nil
  end
  n = tonumber(n)
  local mem = ffi_new("uint8_t[?]", n)
  local m = copy(ptr, node, mem, n)
  if m ~= n then
    return nil
  end
  return ffi_string(mem, n)
end
M.copy_string = copy_string

-- A string read into a box under ticket `t`, whose values taken so far
-- passed their check: `n` bytes at `p`, both taken out of the box after
-- that check (boxing them is an allocation: no retry follows it).
-- When another call took a ticket since (it may have closed the document
-- or reused its string scratch), node `node` of document `ptr` is copied
-- natively instead (copy_string; nil when that read fails).
local function box_string(t, p, n, ptr, node, raw)
  if stale(t) then
    return copy_string(ptr, node, raw)
  end
  -- (Not a tail call: LuaJIT cannot trace a return from a builtin into a
  -- frame below the trace.)
  local s = ffi_string(p, n)
  return s
end

-- The readers: every native call that writes a shared box is made here,
-- and nowhere else. Each takes the ticket, makes the call, takes the
-- values out as the rules above say and returns them as plain Lua values
-- (a status or kind first), making the call again when the check fails.
-- `p`, `n`, `c` are a path read's (path, length, compiled path) triple:
-- nil, 0, nil for node `node` itself.

-- qjson_find: the kind at the path, and its node.
local function find(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_find(ptr, node, p, n, c, node_box)
  local found = node_box[0]
  if stale(t) then
    return find(ptr, node, p, n, c)
  end
  return k, found
end
M.find = find

-- qjson_get_len: the kind at the path, and its length.
local function get_len(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_len(ptr, node, p, n, c, size_box)
  local len = size_value()
  if stale(t) then
    return get_len(ptr, node, p, n, c)
  end
  return k, len
end
M.get_len = get_len

-- qjson_get_num: the kind at the path, and the number (nil unless it is
-- one).
local function get_num(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_num(ptr, node, p, n, c, num_box)
  local v
  if k == NUMBER then
    v = load_f64(num_box)
  end
  if stale(t) then
    return get_num(ptr, node, p, n, c)
  end
  return k, v
end
M.get_num = get_num

-- qjson_get_bool: the kind at the path, and the boolean (nil unless it
-- is one).
local function get_bool(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_bool(ptr, node, p, n, c, bool_box)
  local v
  if k == BOOLEAN then
    v = bool_box[0] ~= 0
  end
  if stale(t) then
    return get_bool(ptr, node, p, n, c)
  end
  return k, v
end
M.get_bool = get_bool

-- qjson_get_i64 and qjson_get_u64: the kind at the path, and the integer
-- as an int64_t or uint64_t cdata (nil unless it is a number that fits).
local function get_i64(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_i64(ptr, node, p, n, c, i64_box)
  local lo, hi = i64_words[LO], i64_words[HI]
  if stale(t) then
    return get_i64(ptr, node, p, n, c)
  end
  if k == NUMBER then
    return k, int64_value(lo, hi)
  end
  return k
end
M.get_i64 = get_i64

local function get_u64(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_u64(ptr, node, p, n, c, u64_box)
  local lo, hi = u64_words[LO], u64_words[HI]
  if stale(t) then
    return get_u64(ptr, node, p, n, c)
  end
  if k == NUMBER then
    return k, uint64_value(lo, hi)
  end
  return k
end
M.get_u64 = get_u64

-- The string a qjson_get_str or qjson_get_raw call left in ptr_box and
-- size_box under ticket `t`; when the check fails, the node at the path
-- found again and copied natively (nil when that fails).
local function path_string(t, ptr, node, p, n, c, raw)
  local sp, len = ptr_box[0], size_box[0]
  if stale(t) then
    local k, at = find(ptr, node, p, n, c)
    return k > MISSING and copy_string(ptr, at, raw) or nil
  end
  local s = ffi_string(sp, len)
  return s
end

-- qjson_get_str: the kind at the path, and the string (nil unless it is
-- one, or when the native copy after a finalizer's call fails).
local function get_str(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_str(ptr, node, p, n, c, ptr_box, size_box)
  if k == STRING then
    return k, path_string(t, ptr, node, p, n, c, false)
  elseif stale(t) then
    return get_str(ptr, node, p, n, c)
  end
  return k
end
M.get_str = get_str

-- qjson_get_raw: the kind at the path, and its JSON text.
local function get_raw(ptr, node, p, n, c)
  local t = ticket()
  local k = C.qjson_get_raw(ptr, node, p, n, c, ptr_box, size_box)
  if k > MISSING then
    return k, path_string(t, ptr, node, p, n, c, true)
  elseif stale(t) then
    return get_raw(ptr, node, p, n, c)
  end
  return k
end
M.get_raw = get_raw

-- The value a call left in val_box under ticket `t`, of kind `k`, as
-- (node, a, b):
--   string: its node, the string (nil when the native copy fails)
--   number: its node, the number, whether it is an integer beyond
--           ±(2^53 - 1) (the box's flag)
--   array, object: its node, its length, whether it holds no container
--   boolean: its node, the boolean; null: its node
-- nothing for a missing value or a failed read, and false when the check
-- fails (the call is made again).
local function take_value(t, k, ptr)
  local box = val_box
  if k == STRING then
    local node = box.node
    if stale(t) then
      return false
    end
    return node, box_string(t, box.ptr, box.len, ptr, node)
  elseif k == NUMBER then
    local node, flag, num = box.node, box.flag, load_f64(val_num)
    if stale(t) then
      return false
    end
    return node, num, flag ~= 0
  elseif k == OBJECT or k == ARRAY then
    local node, flag, len = box.node, box.flag, val_len()
    if stale(t) then
      return false
    end
    return node, len, flag ~= 0
  elseif k == BOOLEAN or k == NULL then
    local node, flag = box.node, box.flag
    if stale(t) then
      return false
    end
    return node, flag ~= 0
  elseif k ~= MISSING and stale(t) then
    return false
  end
end

-- qjson_read: the kind of node `node`, and take_value's (node, a, b).
local function read(ptr, node)
  local t = ticket()
  local k = C.qjson_read(ptr, node, val_box)
  local vn, a, b = take_value(t, k, ptr)
  if vn == false then
    return read(ptr, node)
  end
  return k, vn, a, b
end
M.read = read

-- qjson_read's kind alone (no value is taken out).
function M.read_kind(ptr, node)
  ticket()
  return C.qjson_read(ptr, node, val_box)
end

-- qjson_child: the kind of child `key` (a string of `klen` bytes) or, with
-- a nil key, `index` (0-based) of container `parent`, and take_value's
-- (node, a, b).
local function child(ptr, parent, key, klen, index)
  local t = ticket()
  local k = C.qjson_child(ptr, parent, key, klen, index, val_box)
  local vn, a, b = take_value(t, k, ptr)
  if vn == false then
    return child(ptr, parent, key, klen, index)
  end
  return k, vn, a, b
end
M.child = child

-- qjson_entry: the member of object `parent` after the one whose key node
-- is `prev` (0: the first): the value's kind, the key's node, the key,
-- and take_value's (node, a, b) for the value; only the status when
-- there is none. (Making the key's string may run a finalizer: the value
-- is then read again, from its node.)
local function entry(ptr, parent, prev)
  local t = ticket()
  local k = C.qjson_entry(ptr, parent, prev, key_box, val_box)
  if k <= MISSING then
    if k ~= MISSING and stale(t) then
      return entry(ptr, parent, prev)
    end
    return k
  end
  local kn = key_box.node
  if stale(t) then
    return entry(ptr, parent, prev)
  end
  local key = box_string(t, key_box.ptr, key_box.len, ptr, kn)
  local vn, a, b = take_value(t, k, ptr)
  if vn == false then
    local vk
    vk, vn, a, b = read(ptr, kn + 1)
    return vk, kn, key, vn, a, b
  end
  return k, kn, key, vn, a, b
end
M.entry = entry

-- qjson_next: the kind of the child after `prev` (0: the first) of
-- container `parent`, and the child's node.
local function next_child(ptr, parent, prev)
  local t = ticket()
  local k = C.qjson_next(ptr, parent, prev, node_box)
  local node = node_box[0]
  if stale(t) then
    return next_child(ptr, parent, prev)
  end
  return k, node
end
M.next_child = next_child

-- qjson_child_holding: the status, the child of container `parent` whose
-- subtree holds node `target` (its key node in an object), and its
-- 0-based index.
local function child_holding(ptr, parent, target)
  local t = ticket()
  local k = C.qjson_child_holding(ptr, parent, target, node_box, index_box)
  local node, index = node_box[0], index_box[0]
  if stale(t) then
    return child_holding(ptr, parent, target)
  end
  return k, node, index
end
M.child_holding = child_holding

-- qjson_raw_span: the status, and the input offsets [a, b) of node
-- `node`'s text.
local function raw_span(ptr, node)
  local t = ticket()
  local k = C.qjson_raw_span(ptr, node, span_box)
  local a, b = span_box[0], span_box[1]
  if stale(t) then
    return raw_span(ptr, node)
  end
  return k, a, b
end
M.raw_span = raw_span

-- qjson_member_span: the status, and the span of child `c` of `parent`
-- (`lim`: the offset just past the parent's text, or 0): the next child,
-- the key's start and end, the value's start and end, the parent's end
-- after its last child, and the parent's text's start and end.
local function member_span(ptr, parent, c, lim)
  local t = ticket()
  local k = C.qjson_member_span(ptr, parent, c, lim, span_box)
  local s = span_box
  local nc, ks, ke, vs, ve, close_end, cs, ce = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
  if stale(t) then
    return member_span(ptr, parent, c, lim)
  end
  return k, nc, ks, ke, vs, ve, close_end, cs, ce
end
M.member_span = member_span

-- Frees document `ptr`'s native memory (under a ticket: a read it
-- interrupted may point into that memory).
function M.close(ptr)
  ticket()
  C.qjson_close(ptr)
end

-- The shared error box's message after a call under ticket `t` failed;
-- nil when another call took a ticket since (the message may be its: the
-- caller then makes its call again with an error box of its own, which
-- no finalizer can send round again).
local function failure(t)
  local msg = ffi_string(err_message)
  if stale(t) then
    return nil
  end
  return msg
end

-- The parses into the shared error box (see qjson.parse): the native
-- call's result, and when it failed (0), failure's message.
function M.parse_into(s, n, o, mem, bytes)
  local t = ticket()
  local r = C.qjson_parse_into(s, n, o, mem, bytes, err)
  if r == 0 then
    return r, failure(t)
  end
  return r
end

function M.parse_in(s, n, o, mem, bytes)
  local t = ticket()
  local r = C.qjson_parse_in(s, n, o, mem, bytes, err)
  if r == 0 then
    return r, failure(t)
  end
  return r
end

function M.parse_measured_in(s, n, o, mem, bytes)
  local t = ticket()
  local r = C.qjson_parse_measured_in(s, n, o, mem, bytes, err)
  if r == 0 then
    return r, failure(t)
  end
  return r
end

-- qjson_path_compile_in of `s` into ref `p`, the same way.
function M.path_compile(s, p)
  local t = ticket()
  local r = C.qjson_path_compile_in(s, #s, p, err)
  if r == 0 then
    return r, failure(t)
  end
  return r
end

-- "bad argument #n to 'fname' (why)", Lua's own wording (without
-- `fname`: "bad argument #n (why)").
local function arg_message(n, fname, why)
  if fname == nil then
    return "bad argument #" .. n .. " (" .. why .. ")"
  end
  return "bad argument #" .. n .. " to '" .. fname .. "' (" .. why .. ")"
end
M.arg_message = arg_message

-- Raises arg_message's text; `level` as error's, counted from the caller
-- of arg_error (default 1).
function M.arg_error(n, fname, why, level)
  error(arg_message(n, fname, why), (level or 1) + 1)
end

-- pcall's results as a safe API returns them: the values, or nil and the
-- message.
function M.settle(ok, ...)
  if ok then
    return ...
  end
  return nil, (...)
end

-- Entry points that report failure as (nil, message, is_arg), is_arg
-- true when the message is about the caller's arguments, and their
-- raising forms: the message raised at the caller for a bad argument,
-- with no position for bad input (as lua-cjson does).
function M.raising(f)
  return function(a, b)
    local r, msg, is_arg = f(a, b)
    if r == nil then
      error(msg, is_arg and 2 or 0)
    end
    return r
  end
end

-- A `qjson_options` box for one call.
local options_t = ffi.typeof("qjson_options")
function M.new_options()
  return options_t()
end

-- Per decode slot (see qjson.plain_tables): stream info, error and options.
local infos, errs, opts = {}, {}, {}
function M.slot_boxes(slot)
  local i = slot + 1
  local info = infos[i]
  if info == nil then
    info = ffi_new("qjson_events_info")
    infos[i], errs[i], opts[i] = info, ffi_new("qjson_error"), options_t()
  end
  local e = errs[i]
  e.message[0] = 0
  return info, e, opts[i]
end

-- A ref (see the rules above) of type `ref_type` (`T *[1]`, which the
-- `*_new_in` exports fill), freed by `release` (the object's
-- `*_release`, which also empties it).
function M.new_ref(ref_type, release)
  return ffi.gc(ref_type(), release)
end

-- Whether `ref` still holds its object (for pools, which drop the ones
-- lua_close's finalizers freed).
function M.holds(ref)
  return ref[0] ~= nil
end

-- A pool of per-call records (output and error boxes that a native call
-- writes): `take()` gives one no other call holds (a finalizer that calls
-- qjson meanwhile takes another, or a new one from `make()`), `give(r)`
-- returns it once everything was copied out, kept when fewer than `max`
-- are and `keep(r)` (when given) allows. A record lost to an error
-- before its `give` is collected like any table.
function M.pool(make, max, keep)
  local items, n = {}, 0
  local function take()
    if n > 0 then
      local r = items[n]
      items[n] = nil
      n = n - 1
      return r
    end
    return make()
  end
  local function give(r)
    if n < max and (keep == nil or keep(r)) then
      n = n + 1
      items[n] = r
    end
  end
  return take, give
end

-- The first value of a field that later holds another type, given as a
-- variable rather than a constant. LuaJIT before its fix of June 2023
-- (LuaJIT issue #994; Debian 12's luajit2 2.1-20230119 has the bug) can
-- compile a load of a key that a table constructor's template holds as
-- a constant into a constant of the type the load had when it was
-- recorded: for a cache slot that held a string then, a string made of
-- `false`'s bits, which the collector later follows and crashes on. A
-- variable makes the constructor store the field, and a load finds that
-- store instead (docs/security.md, the bugs found so far).
-- (NONE, a nil from a variable, does the same for a slot a constructor
-- reserves with nil.)
M.NO = false

-- Bytes a document handle takes in Lua memory, and the type of that
-- memory (8-byte aligned), which also holds small placed documents whole.
M.HANDLE_SIZE = tonumber(C.qjson_handle_size())
ffi.cdef("struct qjson_doc { uint64_t mem[?]; };")
M.doc_mem = ffi.typeof("struct qjson_doc")

return M
