-- qjson.materialize: plain Lua tables from views (and from plain tables
-- that hold views), equal to what lua-cjson's decode builds.
local tables = require("qjson.plain_tables")
local encoder = require("qjson.encode")
local F = require("qjson.view.fields")
local read = require("qjson.view.read")

local type, next, getmetatable, setmetatable, rawget = type, next, getmetatable, setmetatable, rawget
local tnew = require("table.new")

local is_view, ObjectMT = F.is_view, F.ObjectMT
local object_pairs = require("qjson.view.iter").object_pairs
local array_len, array_get = read.array_len, read.array_get
local DOC, NODE, DIRTY, PTR, BIG_INT = F.DOC, F.NODE, F.DIRTY, F.PTR, F.BIG_INT

-- Plain tables equal to what lua-cjson's decode builds. Arrays carry
-- `array_mt` when given, else empty arrays carry empty_array_mt (so that
-- they encode as []). An untouched view is built by qjson.plain_tables in one
-- native call; a changed one is walked, its untouched parts built so.
-- A plain table (one assigned into a view, say) is returned as it is
-- unless it holds a view at some depth: then a copy with those views
-- materialized, keeping its metatable. `seen` maps the plain tables met
-- so far to what they became (false while one is being copied), and
-- changed views to their tables: a cycle gives a cycle of the new tables.
local materialize

-- qjson.plain_tables' settings for an untouched view: one table per `array_mt`
-- (the encoder's, or none), so that a finalizer's materialize with the
-- other cannot change them while this one's build runs.
local build_settings = setmetatable({}, { __mode = "k" })
local function settings_for(array_mt)
  local key = array_mt or false
  local s = build_settings[key]
  if s == nil then
    s = { array_mt = array_mt }
    build_settings[key] = s
  end
  s.null, s.empty_array_mt = F.null, encoder.empty_array_mt
  return s
end

local function materialize_table(t, array_mt, seen)
  local done = seen[t]
  if done ~= nil then
    if done == false then
      -- Met again while its members are copied: a cycle through it, so
      -- the copy must be made (and is filled by the call further up).
      done = {}
      seen[t] = done
    end
    return done
  end
  if rawget(t, DOC) ~= nil then
    error("qjson: cannot materialize a view whose metatable was changed (setmetatable)", 0)
  end
  seen[t] = false
  local copy
  -- (`while` loops over next(), not for loops: a finalizer's materialize
  -- may run them, see qjson.base, ITERN.)
  local k, x = next(t)
  while k ~= nil do
    local m = materialize(x, array_mt, seen)
    if copy == nil and (m ~= x or seen[t]) then
      copy = seen[t] or {}
      local k2, x2 = next(t)
      while k2 ~= nil do
        copy[k2] = x2
        k2, x2 = next(t, k2)
      end
      seen[t] = copy
    end
    if copy ~= nil then
      copy[k] = m
    end
    k, x = next(t, k)
  end
  if copy == nil then
    seen[t] = t
    return t
  end
  local mt = getmetatable(t)
  if type(mt) == "table" then
    setmetatable(copy, mt)
  end
  return copy
end

-- (`in_view`: `v` was read from a view, and so checked with it.)
function materialize(v, array_mt, seen, in_view)
  if not is_view(v) then
    if type(v) == "table" then
      return materialize_table(v, array_mt, seen or {})
    end
    return v
  end
  if not in_view then
    F.check_tree(v)
  end
  if not rawget(v, DIRTY) and rawget(v[DOC], BIG_INT) == nil then
    return tables.from_node(v[DOC][PTR], v[NODE], settings_for(array_mt))
  end
  seen = seen or {}
  local done = seen[v]
  if done ~= nil then
    return done
  end
  if getmetatable(v) == ObjectMT then
    local t = {}
    seen[v] = t
    for k, x in object_pairs(v) do
      t[k] = materialize(x, array_mt, seen, true)
    end
    return t
  end
  local n = array_len(v)
  local t = tnew(n, 0)
  seen[v] = t
  for i = 1, n do
    t[i] = materialize(array_get(v, i), array_mt, seen, true)
  end
  if array_mt ~= nil then
    return setmetatable(t, array_mt)
  elseif n == 0 then
    return setmetatable(t, encoder.empty_array_mt)
  end
  return t
end

return materialize
