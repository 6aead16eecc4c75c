-- qjson.plain_tables: plain Lua tables from JSON, built from the stream of
-- events the native library produces for a whole value in one call (see
-- crates/core/src/events/): qjson.cjson.decode and qjson.materialize use it.
--
-- The builder keeps its own stack instead of recursing, so LuaJIT
-- compiles it as one loop; tables are created with their exact sizes.
-- An object of a shape built before (the native side gives objects with
-- the same keys the same shape id) is a copy of a table with those keys
-- (OpenResty's table.clone, which LuaJIT compiles): storing into a key
-- the table has is much cheaper than inserting a new one
-- (docs/performance-log.md). Without table.clone (LuaJIT other than
-- OpenResty's), every object has its keys inserted.
local ffi = require("ffi")
local base = require("qjson.base")
local C = base.C
local new_tab = require("table.new")
local has_clone, clone = pcall(require, "table.clone")
if not has_clone then
  clone = nil
end
local arg_error = require("qjson.base").arg_error

local setmetatable, error, tostring, type, next = setmetatable, error, tostring, type, next
local ffi_string = ffi.string

local M = {}

local slot_boxes = base.slot_boxes

local NUMBER, STRING, KEY = C.QJSON_EVENT_TAG_NUMBER, C.QJSON_EVENT_TAG_STRING, C.QJSON_EVENT_TAG_KEY
local ARRAY, SCALAR_ARRAY = C.QJSON_EVENT_TAG_ARRAY, C.QJSON_EVENT_TAG_SCALAR_ARRAY
-- (OBJECT and SCALAR_OBJECT: the other tags, handled alike as the last
-- case below)
local TRUE, FALSE, NULL = C.QJSON_EVENT_TAG_TRUE, C.QJSON_EVENT_TAG_FALSE, C.QJSON_EVENT_TAG_NULL

-- The native side keeps the events of a call in a buffer per slot,
-- reused by the next call with that slot, with boxes per slot too
-- (base.slot_boxes). A decode started while another one is still
-- building its tables (from a finalizer the collector runs during the
-- build) takes another slot, so it cannot overwrite them.
--
-- claims[slot + 1] is the builder stack of the build holding that slot,
-- a table that only the build's own frame refers to otherwise (`claims`
-- is weak): a build ended by an error (raised by a finalizer, or out of
-- memory) lets go of its slot when the collector takes its stack, with
-- no pcall on the way. `held` counts claims not given back; when it is
-- not 0, the slots are counted again (some may have been let go so).
-- Only a decode with no other claim takes slot 0, the one that may renew
-- the key cache (whose strings the events of every running build point
-- to).
local SLOTS = 16
local claims = setmetatable({}, { __mode = "v" })
local held = 0
local spare, nspare = {}, 0 -- builder stacks given back, for reuse

-- The slot for a new build when `held` is not 0.
local function free_slot()
  held = 0
  for i = 1, SLOTS do
    if claims[i] ~= nil then
      held = held + 1
    end
  end
  if held == 0 then
    return 0
  end
  for i = 2, SLOTS do
    if claims[i] == nil then
      return i - 1
    end
  end
  return SLOTS -- (the native side refuses it: "nested more than 16 deep")
end

-- Claims a slot: the slot and the builder stack that holds it.
local function claim()
  local slot = 0
  if held ~= 0 then
    slot = free_slot()
  end
  local stack
  if nspare > 0 then
    stack = spare[nspare]
    spare[nspare] = nil
    nspare = nspare - 1
  else
    stack = {}
  end
  claims[slot + 1] = stack
  held = held + 1
  return slot, stack
end

local function release(slot, stack)
  claims[slot + 1] = nil
  held = held - 1
  nspare = nspare + 1
  spare[nspare] = stack
end

-- keys[id]: the string of each key in the native key cache (KEY events),
-- made once; templates[shape]: a table with the keys of objects of that
-- shape, every value false (see the top), made when the shape is seen a
-- second time (true after the first); both forgotten when the cache
-- renews (a new generation).
local keys, templates, key_generation = {}, {}, 0

-- A template from `t`, an object just built: its keys, values false.
-- (A `while` over next(), not a for loop: a finalizer's decode may run
-- it, see qjson.base, ITERN.)
local function template_of(t)
  local tmpl = clone(t)
  local k = next(tmpl)
  while k ~= nil do
    tmpl[k] = false
    k = next(tmpl, k)
  end
  return tmpl
end

-- The Lua value of a scalar event `e` with tag `tag`, or of an empty
-- container (a member of a scalars-only container may be one).
local function scalar(e, tag, null, array_mt, empty_mt)
  if tag == NUMBER then
    return e.v.num
  elseif tag == STRING then
    return ffi_string(e.v.ptr, e.n)
  elseif tag == TRUE then
    return true
  elseif tag == FALSE then
    return false
  elseif tag == NULL then
    return null
  end
  local v = new_tab(0, 0)
  if tag == SCALAR_ARRAY then
    if array_mt then
      setmetatable(v, array_mt)
    elseif empty_mt then
      setmetatable(v, empty_mt)
    end
  end
  return v
end

-- The string of a key event (KEY or STRING).
local function key_of(e)
  if e.tag == KEY then
    local id = e.n
    local k = keys[id]
    if k == nil then
      k = ffi_string(e.v.ptr) -- NUL-terminated
      keys[id] = k
    end
    return k
  end
  return ffi_string(e.v.ptr, e.n)
end

-- Builds the value from the `count` events at `ev`. `null` is what a JSON
-- null becomes; `array_mt` is set on every array, else `empty_mt` on empty
-- ones.
local function build(ev, count, null, array_mt, empty_mt, stack)
  -- The container being filled, its members left, 1 when it is an object
  -- (a number: true and false would be two types to the compiler), the
  -- last index set in an array, and the shape to make a template of once
  -- it is complete (0 for none). The root goes to stack[0], as the one
  -- element of an array (so that `cur` is always a table, which keeps the
  -- compiled loop stable).
  local cur, left, in_obj, idx, cshape = stack, 1, 0, -1, 0
  local top = 0 -- entries used in `stack`
  local i = 0
  while i < count do
    local key
    if in_obj == 1 then
      key = key_of(ev[i])
      i = i + 1
    end
    local e = ev[i]
    local tag = e.tag
    i = i + 1
    local v
    local open -- members of a container to read from the events after it
    local pending = 0 -- the shape of an object opened here, to make a template of
    if tag == NUMBER or tag == STRING or tag <= TRUE then
      v = scalar(e, tag, null)
    elseif tag == SCALAR_ARRAY or tag == ARRAY then
      local n = e.n
      v = new_tab(n, 0)
      if array_mt then
        setmetatable(v, array_mt)
      elseif n == 0 and empty_mt then
        setmetatable(v, empty_mt)
      end
      if tag == ARRAY then
        open = n
      else
        for j = 1, n do
          local f = ev[i]
          v[j] = scalar(f, f.tag, null, array_mt, empty_mt)
          i = i + 1
        end
      end
    else
      local n = e.n
      local shape = clone and e.v.num or 0
      local tmpl = shape ~= 0 and templates[shape] or nil
      if tmpl == nil then
        -- A shape seen once (keys used as ids, say) is not worth a
        -- template: only noted.
        v = new_tab(0, n)
        if shape ~= 0 then
          templates[shape] = true
        end
        shape = 0
      elseif tmpl == true then
        v = new_tab(0, n) -- (the template is made of it once built)
      else
        v = clone(tmpl)
        shape = 0
      end
      -- (`shape` is now the one to make a template of, else 0.)
      open = n
      pending = shape
    end

    if in_obj == 1 then
      cur[key] = v -- in order, so a repeated key keeps its last value
    else
      idx = idx + 1
      cur[idx] = v
    end
    left = left - 1

    if open and open > 0 then
      stack[top + 1], stack[top + 2], stack[top + 3], stack[top + 4], stack[top + 5] = cur, left, in_obj, idx, cshape
      top = top + 5
      cur, left, in_obj, idx, cshape = v, open, tag == ARRAY and 0 or 1, 0, pending
    else
      -- Close every container this value completed.
      while left == 0 and top > 0 do
        if cshape ~= 0 then
          templates[cshape] = template_of(cur)
        end
        cur, left, in_obj, idx, cshape = stack[top - 4], stack[top - 3], stack[top - 2], stack[top - 1], stack[top]
        stack[top - 4] = nil -- hold no reference once built
        top = top - 5
      end
    end
  end
  local root = stack[0]
  stack[0] = nil
  return root
end

-- Builds the result of a native call that used `slot`, held by `stack`
-- (see claim); `doc` is the pinned document the events point into, if
-- any (unpinned when done). With `fallback`, a text `s` the parser
-- rejected is `fallback(s)`'s (a tail call: a decode that returns through
-- another frame compiles worse).
local function run(ev, slot, stack, info, err, settings, doc, fallback, s)
  local count, generation = info.count, info.key_generation
  if ev == nil then
    local message = ffi_string(err.message) -- (allocates: before the slot is given back)
    release(slot, stack)
    if doc ~= nil then
      C.qjson_unpin(doc)
    end
    if fallback then
      return fallback(s)
    end
    error("qjson: " .. message, 0)
  end
  if generation ~= key_generation then
    keys, templates, key_generation = {}, {}, generation
  end
  local v = build(ev, count, settings.null, settings.array_mt, settings.empty_array_mt, stack)
  release(slot, stack)
  if doc ~= nil then
    C.qjson_unpin(doc)
  end
  return v
end

-- Plain tables for the JSON text `s`. `settings`: `null` (the value of a
-- JSON null), `array_mt` (set on every array), `empty_array_mt` (set on
-- empty arrays when `array_mt` is not given), `max_depth` (default 1000),
-- `invalid_numbers` (lua-cjson's decode_invalid_numbers) and
-- `cjson_integers` (integers read as lua-cjson reads them). Invalid
-- input raises "qjson: <what> at line L, column C (byte B)", or with
-- `fallback` returns fallback(s).
function M.from_string(s, settings, fallback)
  local slot, stack = claim()
  local info, err, opts = slot_boxes(slot)
  opts.mode, opts.duplicate_keys, opts.ijson = 0, 0, 0
  opts.max_depth = settings.max_depth or 1000
  opts.invalid_numbers = settings.invalid_numbers and 1 or 0
  opts.cjson_integers = settings.cjson_integers and 1 or 0
  return run(C.qjson_text_events(s, #s, opts, slot, info, err), slot, stack, info, err, settings, nil, fallback, s)
end

-- Plain tables for the value at `node` of a parsed document (`doc_ptr`, a
-- `qjson_doc *`); the document's own options applied at its parse. The
-- document is pinned while its events are read: a finalizer that closes
-- it meanwhile only marks it closed.
function M.from_node(doc_ptr, node, settings)
  if C.qjson_pin(doc_ptr) <= 0 then
    error("qjson: " .. base.error_message(doc_ptr), 0)
  end
  local slot, stack = claim()
  local info, err = slot_boxes(slot)
  return run(C.qjson_doc_events(doc_ptr, node, slot, info, err), slot, stack, info, err, settings, doc_ptr)
end

-- For error messages about the argument of a decode function.
function M.check_string(s, name)
  local t = type(s)
  if t == "string" then
    return s
  elseif t == "number" then
    return tostring(s) -- as lua_tolstring converts it
  end
  arg_error(1, name, "string expected, got " .. t, 3)
end

return M
