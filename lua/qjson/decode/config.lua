-- lua-cjson's decoder configuration functions, bound to one settings
-- table (an instance's). Same names, arguments, defaults, range checks and
-- return values as OpenResty's lua-cjson: called with no argument they
-- only read; every call returns the setting in force after it. The
-- encoder's are in qjson.encode.config.
local type, tonumber, select, floor, ceil, error, tostring =
  type, tonumber, select, math.floor, math.ceil, error, tostring

local INT_MAX = 2147483647

local M = {}

-- Whether this LuaJIT was built with LUAJIT_ENABLE_LUA52COMPAT (as
-- OpenResty's is): only then do `#`, pairs and ipairs on a table call its
-- __len, __pairs and __ipairs, which lazy views need to read like tables.
M.LUA52COMPAT = #setmetatable({}, {
  __len = function()
    return 1
  end,
}) == 1

-- A fresh settings table with lua-cjson's defaults.
function M.defaults()
  return {
    max_depth = 1000,
    invalid_numbers = true, -- lua-cjson reads NaN, Infinity, hex... by default
    array_with_array_mt = false,
    -- qjson.decode's lazy views, by default where `#` and pairs work on
    -- them (docs/api.md, "Views and LuaJIT builds"); plain tables elsewhere.
    views = M.LUA52COMPAT,
  }
end

local function argerror(name, i, msg)
  error("bad argument #" .. i .. " to '" .. name .. "' (" .. msg .. ")", 4)
end

local function too_many(name, max, ...)
  if select("#", ...) > max then
    argerror(name, max + 1, "found too many arguments")
  end
end

-- luaL_checkinteger, then a range check; nil leaves `current` unchanged.
local function integer(name, v, min, max, current)
  if v == nil then
    return current
  end
  local n = tonumber(v)
  if type(v) ~= "number" and type(v) ~= "string" or n == nil then
    argerror(name, 1, "number expected, got " .. type(v))
  end
  n = n >= 0 and floor(n) or ceil(n)
  if n < min or n > max then
    argerror(name, 1, "expected integer between " .. min .. " and " .. max)
  end
  return n
end

-- luaL_checkoption over "off"/"on", booleans accepted; nil leaves
-- `current` unchanged.
local ON_OFF = { off = false, on = true }

local function on_off(name, v, current)
  if v == nil then
    return current
  end
  if type(v) == "boolean" then
    return v
  end
  if type(v) ~= "string" and type(v) ~= "number" then
    argerror(name, 1, "string expected, got " .. type(v))
  end
  local r = ON_OFF[tostring(v)]
  if r == nil then
    argerror(name, 1, "invalid option '" .. tostring(v) .. "'")
  end
  return r
end

-- Installs the configuration functions for settings `s` into `into`.
function M.install(into, s)
  -- Deepest nesting of arrays and objects decode accepts, 1..2^31-1.
  function into.decode_max_depth(...)
    too_many("decode_max_depth", 1, ...)
    s.max_depth = integer("decode_max_depth", (...), 1, INT_MAX, s.max_depth)
    return s.max_depth
  end

  -- Whether decode reads what C's strtod reads beyond JSON's numbers:
  -- NaN, Infinity, hexadecimal, a leading + or zeros.
  function into.decode_invalid_numbers(...)
    too_many("decode_invalid_numbers", 1, ...)
    s.invalid_numbers = on_off("decode_invalid_numbers", (...), s.invalid_numbers)
    return s.invalid_numbers
  end

  -- Whether qjson.decode returns lazy views (true) or plain tables, as
  -- qjson.cjson.decode builds them (false). Not lua-cjson's: qjson's own.
  function into.decode_views(...)
    too_many("decode_views", 1, ...)
    s.views = on_off("decode_views", (...), s.views)
    return s.views
  end

  -- Whether decoded arrays get array_mt, so they encode back as arrays
  -- even when empty.
  function into.decode_array_with_array_mt(...)
    too_many("decode_array_with_array_mt", 1, ...)
    s.array_with_array_mt = on_off("decode_array_with_array_mt", (...), s.array_with_array_mt)
    return s.array_with_array_mt
  end

  return into
end

return M
