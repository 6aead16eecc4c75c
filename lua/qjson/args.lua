-- Argument checks for the configuration functions of qjson and
-- qjson.cjson (qjson.encode.settings, qjson.decode.settings, qjson_strict),
-- with the messages lua-cjson's C functions get from
-- LuaJIT's lauxlib (luaL_argerror, luaL_checkinteger, luaL_checkoption,
-- luaL_checklstring): the function named as the caller's code names it
-- ('?' when called through pcall or from C), `calling 'f' on bad self`
-- for a method call, and the caller's file:line in front.
local type, tonumber, tostring, error, select = type, tonumber, tostring, error, select
local fmod, floor, ceil = math.fmod, math.floor, math.ceil
local getinfo, tobit, format = debug.getinfo, bit.tobit, string.format

local M = {}

-- Raises lua-cjson's message for bad argument `narg` of the API function
-- `level` levels up from the caller of argerror (1: the caller itself).
function M.argerror(level, narg, msg)
  local info = getinfo(level + 1, "n")
  local name = info and info.name or "?"
  if info and info.namewhat == "method" then
    narg = narg - 1
    if narg == 0 then
      error(format("calling '%s' on bad self (%s)", name, msg), level + 2)
    end
  end
  error(format("bad argument #%d to '%s' (%s)", narg, name, msg), level + 2)
end
local argerror = M.argerror

-- json_arg_init: more than `max` arguments is an error on argument max+1.
function M.too_many(level, max, ...)
  if select("#", ...) > max then
    argerror(level + 1, max + 1, "found too many arguments")
  end
end

-- luaL_checkinteger, then a C int: a number or a numeric string, cut
-- toward zero to 64 bits (out of range or NaN: INT64_MIN), then to its
-- low 32 bits, as the C code's `int value = luaL_checkinteger(...)` does.
function M.checkint(level, narg, v)
  local n = type(v) == "number" and v or type(v) == "string" and tonumber(v)
  if not n then
    argerror(level + 1, narg, "number expected, got " .. type(v))
  end
  if n ~= n or n >= 2 ^ 63 or n < -2 ^ 63 then
    return 0
  end
  n = n >= 0 and floor(n) or ceil(n)
  return tobit(fmod(n, 2 ^ 32))
end

-- luaL_checklstring: a string, or a number as its text (LuaJIT's %.14g).
function M.checkstring(level, narg, v)
  local t = type(v)
  if t == "string" then
    return v
  elseif t == "number" then
    return tostring(v)
  end
  argerror(level + 1, narg, "string expected, got " .. t)
end

-- luaL_checkoption over `names` (a list); returns the index from 0. The
-- text is compared as a C string: up to its first NUL.
function M.checkoption(level, narg, v, names)
  local t = type(v)
  local s
  if t == "string" then
    s = v
  elseif t == "number" then
    s = tostring(v)
  else
    argerror(level + 1, narg, "string expected, got " .. t)
  end
  s = s:match("^[^%z]*")
  for i = 1, #names do
    if names[i] == s then
      return i - 1
    end
  end
  argerror(level + 1, narg, "invalid option '" .. s .. "'")
end

-- The settings lua-cjson's configuration functions share (json_integer_option,
-- json_enum_option), for the API function 2 levels up: argument `i`
-- checked, nil leaving `current` unchanged.

-- An integer from `min` to `max`; out of range is an error on argument #1
-- whatever `i` is (as in lua-cjson).
function M.integer_option(i, v, min, max, current)
  if v == nil then
    return current
  end
  local n = M.checkint(2, i, v)
  if n < min or n > max then
    argerror(2, 1, "expected integer between " .. min .. " and " .. max)
  end
  return n
end

-- luaL_checkoption over `names` (values[j-1] for names[j]); booleans are
-- taken as they are.
function M.enum_option(i, v, names, values, current)
  if v == nil then
    return current
  end
  if type(v) == "boolean" then
    return v
  end
  return values[M.checkoption(2, i, v, names)]
end

-- "off" / "on" for enum_option.
M.ON_OFF, M.ON_OFF_VALUES = { "off", "on" }, { [0] = false, true }

return M
