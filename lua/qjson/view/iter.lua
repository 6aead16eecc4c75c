-- qjson.view.iter: iterating lazy views (__pairs, __ipairs, __len, and
-- qjson.pairs / ipairs / len for every LuaJIT build). The fields:
-- qjson.view.fields; native reads through qjson.base's readers.
local ffi = require("ffi")
local base = require("qjson.base")
local F = require("qjson.view.fields")
local read = require("qjson.view.read")

local error, rawget, rawset, getmetatable, tonumber, next, ipairs =
  error, rawget, rawset, getmetatable, tonumber, next, ipairs
local getinfo = debug.getinfo

local DOC, NODE, PTR, EDITS, ADDED, UNIQ = F.DOC, F.NODE, F.PTR, F.EDITS, F.ADDED, F.UNIQ
local DELETED, ObjectMT, ArrayMT = F.DELETED, F.ObjectMT, F.ArrayMT
local fail, check_raw, cached = F.fail, F.check_raw, F.cached
local value_of, array_len, array_get = read.value_of, read.array_len, read.array_get

local C, read_node, entry = base.C, base.read, base.entry
local MISSING, STRING = C.QJSON_STATUS_MISSING, C.QJSON_KIND_STRING

local M = {}

-- For an object whose keys repeat: the (key node, last value node) pairs,
-- each key once; false when no key repeats (computed once per view).
local function unique_pairs(st)
  local u = rawget(st, UNIQ)
  if u == nil then
    local count = tonumber(C.qjson_unique_members(st[DOC][PTR], st[NODE], nil, 0))
    if count < 0 then
      fail(st)
    end
    u = false
    if count > 0 then
      -- (A buffer of this call's own: the document may be closed while
      -- it is allocated.)
      local buf = ffi.new("uint32_t[?]", 2 * count)
      if C.qjson_unique_members(st[DOC][PTR], st[NODE], buf, count) < 0 then
        fail(st)
      end
      u = { n = count }
      for i = 0, 2 * count - 1 do
        u[i + 1] = buf[i]
      end
    end
    rawset(st, UNIQ, u)
  end
  return u
end

-- Steps through an object's original members, each key once with its last
-- value. `pos` is 0 to start; returns the next pos, the key, and the
-- value as qjson.base's readers give it (kind, node, a, b: see
-- member_value); nil at the end.
local function step_member(st, pos)
  local u = unique_pairs(st)
  local ptr = st[DOC][PTR]
  if u then
    local i = pos + 1
    if i > u.n then
      return nil
    end
    local kk, _, key = read_node(ptr, u[2 * i - 1])
    if kk ~= STRING or key == nil then
      fail(st)
    end
    local kind, vn, a, b = read_node(ptr, u[2 * i])
    if kind <= MISSING then
      fail(st)
    end
    return i, key, kind, vn, a, b
  end
  local kind, kn, key, vn, a, b = entry(ptr, st[NODE], pos)
  if kind <= MISSING then
    if kind == MISSING then
      return nil
    end
    fail(st)
  end
  if key == nil then
    fail(st)
  end
  return kn, key, kind, vn, a, b
end

-- The Lua value of member `key` that step_member read.
local function member_value(st, kind, key, vn, a, b)
  local v = value_of(st, kind, vn, a, b, key)
  return v
end

-- Iterator state: { st, pos (original members), added (index into
-- rawget(st, ADDED), once the original members are done) }.
local function object_next(it)
  local st = it.st
  local pos = it.pos
  while pos ~= nil do
    local np, k, kind, vn, a, b = step_member(st, pos)
    it.pos = np
    pos = np
    if np ~= nil then
      local edits = rawget(st, EDITS)
      local e = edits and edits[k]
      if e == nil then
        local v = cached(st, k)
        if v == nil then
          v = member_value(st, kind, k, vn, a, b)
        end
        return k, v
      elseif e ~= DELETED then
        return k, e
      end
    end
  end
  local added = rawget(st, ADDED)
  if added ~= nil then
    local i = it.added
    while true do
      i = i + 1
      local k = added[i]
      if k == nil then
        break
      end
      local e = rawget(st, EDITS)[k]
      if e ~= DELETED then
        it.added = i
        return k, e
      end
    end
    it.added = i
  end
  return nil
end

local function object_pairs(v)
  check_raw(v)
  return object_next, { st = v, pos = 0, added = 0 }, nil
end

-- ipairs: 1..n, stopping at the first hole, as Lua's ipairs does.
local function array_inext(v, i)
  i = i + 1
  local x = array_get(v, i)
  if x ~= nil then
    return i, x
  end
end

-- pairs: every index 1..n that holds a value.
local function array_next(v, i)
  local n = array_len(v)
  i = i + 1
  while i <= n do
    local x = array_get(v, i)
    if x ~= nil then
      return i, x
    end
    i = i + 1
  end
end

local function array_pairs(v)
  check_raw(v)
  return array_next, v, 0
end

local function array_ipairs(v)
  check_raw(v)
  return array_inext, v, 0
end

-- As `#` on the table lua-cjson builds: the element count for an array,
-- 0 for an object (its keys are strings).
local function view_len(v)
  check_raw(v)
  local mt = getmetatable(v)
  if mt == ArrayMT then
    return array_len(v)
  end
  return 0
end

ObjectMT.__pairs = object_pairs
ArrayMT.__pairs = array_pairs
ArrayMT.__ipairs = array_ipairs
-- ipairs over an object view reads v[1], v[2], ... like any table.
local function generic_inext(v, i)
  i = i + 1
  local x = v[i]
  if x ~= nil then
    return i, x
  end
end
ObjectMT.__ipairs = function(v)
  return generic_inext, v, 0
end
-- `#` of an object view, 0 as for lua-cjson's table; but OpenResty's
-- lua-cjson (C) calls __len to tell arrays from objects, and would write
-- an object view as `[]`: called from C, it raises instead.
local function object_len(v)
  local caller = getinfo(2, "S")
  if caller ~= nil and caller.what == "C" then
    error("qjson: lua-cjson cannot encode a qjson view (an object): use qjson.encode, or qjson.materialize first", 0)
  end
  return view_len(v)
end
ObjectMT.__len = object_len
ArrayMT.__len = view_len


-- qjson.pairs / ipairs / len: on views and plain tables alike, on every
-- LuaJIT build (Lua 5.1 semantics ignore __pairs and __len).
function M.pairs(t)
  local mt = getmetatable(t)
  if mt == ObjectMT then
    return object_pairs(t)
  elseif mt == ArrayMT then
    return array_pairs(t)
  end
  return next, t, nil
end

function M.ipairs(t)
  local mt = getmetatable(t)
  if mt == ArrayMT then
    return array_ipairs(t)
  elseif mt == ObjectMT then
    return generic_inext, t, 0
  end
  return ipairs(t)
end

function M.length(t)
  local mt = getmetatable(t)
  if mt == ObjectMT or mt == ArrayMT then
    return view_len(t)
  end
  return #t
end


M.unique_pairs, M.step_member, M.member_value, M.object_pairs = unique_pairs, step_member, member_value, object_pairs

return M
