-- An instance's encoder settings (qjson, each qjson.new(), qjson.cjson):
-- the table, and lua-cjson's configuration functions that set it, bound to
-- it. Per-call options are qjson.encode.options'. Same names,
-- arguments, defaults, range checks and return values as OpenResty's
-- lua-cjson: called with no argument they only read; every call returns
-- the settings in force after it.
local args = require("qjson.args")

local too_many, checkstring = args.too_many, args.checkstring

local INT_MAX = 2147483647

local M = {}

-- A fresh settings table with lua-cjson's defaults.
function M.defaults()
  return {
    sparse_convert = false,
    sparse_ratio = 2,
    sparse_safe = 10,
    max_depth = 1000,
    invalid_numbers = false, -- false, true or "null"
    precision = 14,
    keep_buffer = true,
    empty_table_as_object = true,
    escape_slash = true,
    skip_unsupported = false,
    indent = nil, -- encode_indent's unit, nil for none
    -- Bumped by every configuration call, so an encoder that copied the
    -- settings knows to copy them again.
    version = 0,
  }
end

-- The checks shared with the decoder's configuration (qjson.args).
local integer, enum = args.integer_option, args.enum_option
local ON_OFF, ON_OFF_VALUES = args.ON_OFF, args.ON_OFF_VALUES
local INVALID = { "off", "on", "null" }
local INVALID_VALUES = { [0] = false, true, "null" }

-- Installs the configuration functions for settings `s` into `into`.
function M.install(into, s)
  function into.encode_sparse_array(...)
    s.version = s.version + 1
    local convert, ratio, safe = ...
    too_many(1, 3, ...)
    s.sparse_convert = enum(1, convert, ON_OFF, ON_OFF_VALUES, s.sparse_convert)
    s.sparse_ratio = integer(2, ratio, 0, INT_MAX, s.sparse_ratio)
    s.sparse_safe = integer(3, safe, 0, INT_MAX, s.sparse_safe)
    return s.sparse_convert, s.sparse_ratio, s.sparse_safe
  end

  function into.encode_max_depth(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.max_depth = integer(1, (...), 1, INT_MAX, s.max_depth)
    return s.max_depth
  end

  function into.encode_number_precision(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.precision = integer(1, (...), 1, 16, s.precision)
    return s.precision
  end

  function into.encode_keep_buffer(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.keep_buffer = enum(1, (...), ON_OFF, ON_OFF_VALUES, s.keep_buffer)
    return s.keep_buffer
  end

  function into.encode_invalid_numbers(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.invalid_numbers = enum(1, (...), INVALID, INVALID_VALUES, s.invalid_numbers)
    return s.invalid_numbers
  end

  function into.encode_empty_table_as_object(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.empty_table_as_object =
      enum(1, (...), ON_OFF, ON_OFF_VALUES, s.empty_table_as_object)
    return s.empty_table_as_object
  end

  function into.encode_escape_forward_slash(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.escape_slash = enum(1, (...), ON_OFF, ON_OFF_VALUES, s.escape_slash)
    return s.escape_slash
  end

  function into.encode_skip_unsupported_value_types(...)
    s.version = s.version + 1
    too_many(1, 1, ...)
    s.skip_unsupported =
      enum(1, (...), ON_OFF, ON_OFF_VALUES, s.skip_unsupported)
    return s.skip_unsupported
  end

  -- The indentation unit: encode then writes one member per line,
  -- indented by the unit once per level, with ": " after keys; "" turns
  -- it off. Returns the unit in force ("" for none).
  function into.encode_indent(...)
    too_many(1, 1, ...)
    local v = ...
    if v ~= nil then
      s.version = s.version + 1
      local unit = checkstring(1, 1, v)
      -- lua-cjson keeps a C string: up to the first NUL ("\0" gives new
      -- lines without indentation); "" is none.
      s.indent = unit ~= "" and unit:match("^[^%z]*") or nil
    end
    return s.indent or ""
  end
end

return M
