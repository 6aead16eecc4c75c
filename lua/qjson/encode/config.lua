-- lua-cjson's encoder configuration functions, bound to one settings
-- table (an instance's). Same names, arguments, defaults, range checks and
-- return values as OpenResty's lua-cjson: called with no argument they
-- only read; every call returns the settings in force after it.
local type, tonumber, select, floor, ceil, error, tostring =
  type, tonumber, select, math.floor, math.ceil, error, tostring

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
    -- Bumped by every configuration call, so an encoder that copied the
    -- settings knows to copy them again.
    version = 0,
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
local function integer(name, i, v, min, max, current)
  if v == nil then
    return current
  end
  local n = tonumber(v)
  if type(v) ~= "number" and type(v) ~= "string" or n == nil then
    argerror(name, i, "number expected, got " .. type(v))
  end
  n = n >= 0 and floor(n) or ceil(n)
  if n < min or n > max then
    argerror(name, i, "expected integer between " .. min .. " and " .. max)
  end
  return n
end

-- luaL_checkoption over `names` (value i-1 for names[i]), with booleans
-- accepted for options that are on/off; nil leaves `current` unchanged.
local ON_OFF = { off = false, on = true }
local INVALID = { off = false, on = true, null = "null" }

local function enum(name, i, v, values, current)
  if v == nil then
    return current
  end
  if type(v) == "boolean" then
    return v
  end
  if type(v) ~= "string" and type(v) ~= "number" then
    argerror(name, i, "string expected, got " .. type(v))
  end
  local r = values[tostring(v)]
  if r == nil then
    argerror(name, i, "invalid option '" .. tostring(v) .. "'")
  end
  return r
end

-- Installs the configuration functions for settings `s` into `into`.
function M.install(into, s)
  function into.encode_sparse_array(...)
    s.version = s.version + 1
    local convert, ratio, safe = ...
    too_many("encode_sparse_array", 3, ...)
    s.sparse_convert = enum("encode_sparse_array", 1, convert, ON_OFF, s.sparse_convert)
    s.sparse_ratio = integer("encode_sparse_array", 2, ratio, 0, INT_MAX, s.sparse_ratio)
    s.sparse_safe = integer("encode_sparse_array", 3, safe, 0, INT_MAX, s.sparse_safe)
    return s.sparse_convert, s.sparse_ratio, s.sparse_safe
  end

  function into.encode_max_depth(...)
    s.version = s.version + 1
    too_many("encode_max_depth", 1, ...)
    s.max_depth = integer("encode_max_depth", 1, (...), 1, INT_MAX, s.max_depth)
    return s.max_depth
  end

  function into.encode_number_precision(...)
    s.version = s.version + 1
    too_many("encode_number_precision", 1, ...)
    s.precision = integer("encode_number_precision", 1, (...), 1, 16, s.precision)
    return s.precision
  end

  function into.encode_keep_buffer(...)
    s.version = s.version + 1
    too_many("encode_keep_buffer", 1, ...)
    s.keep_buffer = enum("encode_keep_buffer", 1, (...), ON_OFF, s.keep_buffer)
    return s.keep_buffer
  end

  function into.encode_invalid_numbers(...)
    s.version = s.version + 1
    too_many("encode_invalid_numbers", 1, ...)
    s.invalid_numbers = enum("encode_invalid_numbers", 1, (...), INVALID, s.invalid_numbers)
    return s.invalid_numbers
  end

  function into.encode_empty_table_as_object(...)
    s.version = s.version + 1
    too_many("encode_empty_table_as_object", 1, ...)
    s.empty_table_as_object =
      enum("encode_empty_table_as_object", 1, (...), ON_OFF, s.empty_table_as_object)
    return s.empty_table_as_object
  end

  function into.encode_escape_forward_slash(...)
    s.version = s.version + 1
    too_many("encode_escape_forward_slash", 1, ...)
    s.escape_slash = enum("encode_escape_forward_slash", 1, (...), ON_OFF, s.escape_slash)
    return s.escape_slash
  end

  function into.encode_skip_unsupported_value_types(...)
    s.version = s.version + 1
    too_many("encode_skip_unsupported_value_types", 1, ...)
    s.skip_unsupported =
      enum("encode_skip_unsupported_value_types", 1, (...), ON_OFF, s.skip_unsupported)
    return s.skip_unsupported
  end
end

return M
