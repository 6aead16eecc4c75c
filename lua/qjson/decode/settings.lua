-- An instance's decoder settings (qjson, each qjson.new(), qjson.cjson):
-- the table, and lua-cjson's configuration functions that set it, bound to
-- it. Per-call options are qjson.parse.options'. Same names,
-- arguments, defaults, range checks and return values as OpenResty's
-- lua-cjson: called with no argument they only read; every call returns
-- the setting in force after it. The encoder's are qjson.encode.settings.
local args = require("qjson.args")
local DEFAULT_MAX_DEPTH = require("qjson.parse.options").DEFAULT_MAX_DEPTH

local too_many = args.too_many

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

-- The checks shared with the encoder's configuration (qjson.args).
local integer, enum = args.integer_option, args.enum_option
local ON_OFF, ON_OFF_VALUES = args.ON_OFF, args.ON_OFF_VALUES
-- Installs the configuration functions for settings `s` into `into`:
-- qjson.cjson's (`dropin`) have decode_allow_comment, qjson's decode_views.
function M.install(into, s, dropin)
  -- Deepest nesting of arrays and objects decode accepts, 1..2^31-1.
  function into.decode_max_depth(...)
    too_many(1, 1, ...)
    s.max_depth = integer(1, (...), 1, INT_MAX, s.max_depth)
    return s.max_depth
  end

  -- Whether decode reads what C's strtod reads beyond JSON's numbers:
  -- NaN, Infinity, hexadecimal, a leading + or zeros.
  function into.decode_invalid_numbers(...)
    too_many(1, 1, ...)
    s.invalid_numbers = enum(1, (...), ON_OFF, ON_OFF_VALUES, s.invalid_numbers)
    return s.invalid_numbers
  end

  -- Whether decoded arrays get array_mt, so they encode back as arrays
  -- even when empty.
  function into.decode_array_with_array_mt(...)
    too_many(1, 1, ...)
    s.array_with_array_mt = enum(1, (...), ON_OFF, ON_OFF_VALUES, s.array_with_array_mt)
    return s.array_with_array_mt
  end

  if dropin then
    -- Whether decode skips // and /* */ comments where whitespace may be.
    function into.decode_allow_comment(...)
      too_many(1, 1, ...)
      s.allow_comment = enum(1, (...), ON_OFF, ON_OFF_VALUES, s.allow_comment)
      return s.allow_comment
    end
  else
    -- Whether qjson.decode returns lazy views (true) or plain tables, as
    -- qjson.materialize builds them (false). qjson's own, not lua-cjson's:
    -- the drop-in's decode always builds plain tables, so it has none.
    function into.decode_views(...)
      too_many(1, 1, ...)
      s.views = enum(1, (...), ON_OFF, ON_OFF_VALUES, s.views)
      return s.views
    end
  end

  return into
end

return M
