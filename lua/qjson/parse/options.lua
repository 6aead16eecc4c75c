-- Per-call parse options (qjson.parse, decode, select, stream): a Lua
-- table checked and packed into `qjson_options`. An instance's settings
-- are qjson.decode.settings'.
local base = require("qjson.base")
local C, new_options = base.C, base.new_options

local type, next, tostring, floor = type, next, tostring, math.floor

local M = {}

M.MODES = { strict = C.QJSON_MODE_STRICT, lazy = C.QJSON_MODE_LAZY }
M.DUPLICATES = { last = C.QJSON_DUPLICATES_LAST, reject = C.QJSON_DUPLICATES_REJECT }
M.DEFAULT_MAX_DEPTH = C.QJSON_LIMIT_DEFAULT_MAX_DEPTH

-- What a bad value was: a number or string as itself (strings quoted),
-- anything else by its type.
local function describe(v)
  if type(v) == "string" then
    return ("%q"):format(v)
  elseif type(v) == "number" then
    return tostring(v)
  end
  return type(v)
end
M.describe = describe

local function bad(name, want, got)
  return ("bad option '%s' (%s expected, got %s)"):format(name, want, describe(got))
end

-- The options that name a value: the values, and what the message says.
local ENUMS = {
  mode = { M.MODES, '"strict" or "lazy"' },
  duplicate_keys = { M.DUPLICATES, '"last" or "reject"' },
}

-- Returns a `qjson_options` for `opts` (nil for the defaults), or nil and
-- a message. The box is the call's own: a parse reads it after allocating
-- (qjson.parse.open), when a finalizer may have parsed with options of its own.
function M.pack(opts)
  if opts == nil then
    return nil
  end
  if type(opts) ~= "table" then
    return nil, "bad options (table expected, got " .. type(opts) .. ")"
  end
  local box = new_options()
  box.mode, box.max_depth, box.duplicate_keys, box.ijson = M.MODES.strict, M.DEFAULT_MAX_DEPTH, M.DUPLICATES.last, 0
  box.invalid_numbers = 0
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local k, v = next(opts)
  while k ~= nil do
    local enum = ENUMS[k]
    if enum then
      local x = enum[1][v]
      if x == nil then
        return nil, bad(k, enum[2], v)
      end
      box[k] = x
    elseif k == "ijson" or k == "invalid_numbers" then
      if type(v) ~= "boolean" then
        return nil, bad(k, "boolean", v)
      end
      box[k] = v and 1 or 0
    elseif k == "max_depth" then
      if type(v) ~= "number" or v < 1 or v > 2147483647 or floor(v) ~= v then
        return nil, bad(k, "integer from 1 to 2^31-1", v)
      end
      box.max_depth = v
    else
      return nil, "unknown option '" .. tostring(k) .. "'"
    end
    k, v = next(opts, k)
  end
  return box
end

return M
