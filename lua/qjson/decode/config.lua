-- lua-cjson's decoder configuration functions, bound to one settings
-- table (an instance's). Same names, arguments, defaults, range checks and
-- return values as OpenResty's lua-cjson: called with no argument they
-- only read; every call returns the setting in force after it. The
-- encoder's are in qjson.encode.config.
local args = require("qjson.cjson.args")
local DEFAULT_MAX_DEPTH = require("qjson.options").DEFAULT_MAX_DEPTH

local too_many, checkint, checkoption, argerror = args.too_many, args.checkint, args.checkoption, args.argerror
local type = type

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
    max_depth = DEFAULT_MAX_DEPTH, -- lua-cjson's too
    invalid_numbers = true, -- lua-cjson reads NaN, Infinity, hex... by default
    array_with_array_mt = false,
    allow_comment = false,
    -- qjson.decode's lazy views, by default where `#` and pairs work on
    -- them (docs/api.md, "Views and LuaJIT builds"); plain tables elsewhere.
    views = M.LUA52COMPAT,
  }
end

-- json_integer_option for the API function 2 levels up: nil leaves
-- `current`; out of range is an error on argument #1 whatever the
-- argument (as in lua-cjson).
local function integer(v, min, max, current)
  if v == nil then
    return current
  end
  local n = checkint(2, 1, v)
  if n < min or n > max then
    argerror(2, 1, "expected integer between " .. min .. " and " .. max)
  end
  return n
end
M.integer = integer

-- json_enum_option over "off"/"on" (booleans too) for the API function 2
-- levels up; nil leaves `current`.
local ON_OFF = { "off", "on" }

local function on_off(v, current)
  if v == nil then
    return current
  end
  if type(v) == "boolean" then
    return v
  end
  return checkoption(2, 1, v, ON_OFF) == 1
end
M.on_off = on_off

-- Installs the configuration functions for settings `s` into `into`;
-- `dropin` (qjson.cjson) adds decode_allow_comment.
function M.install(into, s, dropin)
  -- Deepest nesting of arrays and objects decode accepts, 1..2^31-1.
  function into.decode_max_depth(...)
    too_many(1, 1, ...)
    s.max_depth = integer((...), 1, INT_MAX, s.max_depth)
    return s.max_depth
  end

  -- Whether decode reads what C's strtod reads beyond JSON's numbers:
  -- NaN, Infinity, hexadecimal, a leading + or zeros.
  function into.decode_invalid_numbers(...)
    too_many(1, 1, ...)
    s.invalid_numbers = on_off((...), s.invalid_numbers)
    return s.invalid_numbers
  end

  -- Whether qjson.decode returns lazy views (true) or plain tables, as
  -- qjson.cjson.decode builds them (false). Not lua-cjson's: qjson's own.
  function into.decode_views(...)
    too_many(1, 1, ...)
    s.views = on_off((...), s.views)
    return s.views
  end

  -- Whether decoded arrays get array_mt, so they encode back as arrays
  -- even when empty.
  function into.decode_array_with_array_mt(...)
    too_many(1, 1, ...)
    s.array_with_array_mt = on_off((...), s.array_with_array_mt)
    return s.array_with_array_mt
  end

  if dropin then
    -- Whether decode skips // and /* */ comments where whitespace may be.
    function into.decode_allow_comment(...)
      too_many(1, 1, ...)
      s.allow_comment = on_off((...), s.allow_comment)
      return s.allow_comment
    end
  end

  return into
end

return M
