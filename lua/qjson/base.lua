-- qjson.base: the FFI plumbing every other module shares, in the manner
-- of resty.core.base: the library namespace, the out-parameter boxes
-- (here and nowhere else), and the rules that make sharing them safe.
--
-- Any Lua allocation may run a collector step, and a step may run
-- finalizers, which may call qjson themselves (read, parse, close, or
-- raise); LuaJIT also runs them when a compiled trace exits. So, in every
-- module:
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
--   * A pointer into a document (a string read) is boxed by LuaJIT, an
--     allocation, before the string can be made: a second check after it
--     tells whether a finalizer ran qjson meanwhile (and may have closed
--     the document or reused its string scratch), and then the string is
--     copied out natively into memory of the call's own (box_string does
--     both, through copy_string).
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

-- Each value kind's name, by its `qjson_kind`.
M.KIND_NAMES = {
  [C.QJSON_KIND_NULL] = "null", [C.QJSON_KIND_BOOLEAN] = "boolean", [C.QJSON_KIND_NUMBER] = "number",
  [C.QJSON_KIND_STRING] = "string", [C.QJSON_KIND_ARRAY] = "array", [C.QJSON_KIND_OBJECT] = "object",
}

-- The ticket counter and a new ticket (see above).
local S = { seq = 0 }
function M.ticket()
  local t = tobit(S.seq + 1)
  S.seq = t
  return t
end
-- Whether another call took a ticket since `t` was taken. (Here rather
-- than at each call site: the load must go through the same upvalue as
-- the ticket's store for LuaJIT to forward it; tobit makes it the integer
-- stored, and an integer `x ~= x` folds.)
function M.stale(t)
  return tobit(S.seq) ~= t
end

-- Shared out-parameter boxes.
M.ptr_box = ffi_new("const char *[1]")
M.size_box = ffi_new("size_t[1]")
M.num_box = ffi_new("double[1]")
M.i64_box = ffi_new("int64_t[1]")
M.u64_box = ffi_new("uint64_t[1]")
M.bool_box = ffi_new("uint8_t[1]")
M.node_box = ffi_new("uint32_t[1]")
-- qjson_child_holding's index.
M.index_box = ffi_new("uint32_t[1]")
M.key_box = ffi_new("qjson_value")
M.val_box = ffi_new("qjson_value")
-- qjson_member_span's offsets, and qjson_raw_span's.
M.span_box = ffi_new("uint32_t[8]")
-- qjson_escape's count of input bytes used.
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
M.size_value = size_reader(M.size_box)
M.consumed_value = size_reader(M.consumed_box)
M.val_len = size_reader(ffi_cast("const uint8_t *", M.val_box) + ffi.offsetof("qjson_value", "len"))

-- The halves of i64_box and u64_box, to take before the check, and the
-- int64_t or uint64_t cdata they make, after it.
local i64_words, u64_words = ffi_cast(halves_t, M.i64_box), ffi_cast(halves_t, M.u64_box)
function M.i64_halves()
  return i64_words[LO], i64_words[HI]
end
function M.u64_halves()
  return u64_words[LO], u64_words[HI]
end
local int64_t, uint64_t = ffi.typeof("int64_t"), ffi.typeof("uint64_t")
function M.int64_value(lo, hi)
  return int64_t(tobit(hi)) * 4294967296 + lo
end
function M.uint64_value(lo, hi)
  return uint64_t(hi) * 4294967296 + lo
end
-- The child after `prev` (0: the first) of container `parent` of document
-- `ptr`, read under a ticket: qjson_next's kind and the child's node.
function M.next_child(ptr, parent, prev)
  local t = M.ticket()
  local k = C.qjson_next(ptr, parent, prev, M.node_box)
  local node = M.node_box[0]
  if M.stale(t) then
    return M.next_child(ptr, parent, prev)
  end
  return k, node
end

-- val_box.num, read through C.qjson_load_f64 (see crates/luajit/src/load.rs: a load
-- from a box can be moved past the next call that rewrites it).
M.val_num = ffi_cast("const double *", ffi_cast("const uint8_t *", M.val_box) + ffi.offsetof("qjson_value", "num"))

-- The error box of parses and path compiles, and its message as a
-- pointer made once: reading `err.message` would allocate a reference
-- (and so could run a finalizer) before the copy.
local err = ffi_new("qjson_error")
local err_message = ffi_cast("char *", err.message)
M.err_box = err

-- The message of the error box, or of document `ptr`'s last failed read
-- when `ptr` is given (empty when there is none). That one rewrites the
-- box, so it takes a ticket: a parse a finalizer interrupted with it
-- then sees that its message may be gone.
function M.error_message(ptr)
  if ptr ~= nil then
    M.ticket()
    err_message[0] = 0
    C.qjson_last_error(ptr, err)
  end
  return ffi_string(err_message)
end

-- The string (or with `raw`, the JSON text) of node `node` of document
-- `ptr`, copied natively into memory of this call's own: the slow path
-- of string reads. nil when the read fails (the document's last error
-- says why).
function M.copy_string(ptr, node, raw)
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

-- A string read into a box under ticket `t`: `n` bytes at `p`, taken out
-- of the box after the read. When another call took a ticket since (it
-- may have closed the document or reused its string scratch), node
-- `node` of document `ptr` is copied natively instead (copy_string; nil
-- when that read fails).
function M.box_string(t, p, n, ptr, node, raw)
  if M.stale(t) then
    return M.copy_string(ptr, node, raw)
  end
  -- (Not a tail call: LuaJIT cannot trace a return from a builtin into a
  -- frame below the trace.)
  local s = ffi_string(p, n)
  return s
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

-- Per decode slot (see qjson.tables): stream info, error and options.
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

-- Bytes a document handle takes in Lua memory, and the type of that
-- memory (8-byte aligned), which also holds small placed documents whole.
M.HANDLE_SIZE = tonumber(C.qjson_handle_size())
ffi.cdef("struct qjson_doc { uint64_t mem[?]; };")
M.doc_mem = ffi.typeof("struct qjson_doc")

return M
