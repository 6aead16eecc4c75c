-- Numbers for the encoder: C's `%.Ng` (lua-cjson's format, N from
-- encode_number_precision), or the shortest text that reads back to the
-- same double, written by the native library into the output buffer.
-- Integer-valued doubles with at most N digits are printed as `%.Ng`
-- would print them, by LuaJIT's `%d` (four times faster than a call).
local ffi = require("ffi")
local C = require("qjson.base").C

local error, floor, tostring, sub = error, math.floor, tostring, string.sub
local ffi_istype = ffi.istype
local qjson_format_number = C.qjson_format_number

local M = {}

-- `precision` 0 means shortest.
M.SHORTEST = 0

-- The most qjson_format_number writes.
local MAX_LEN = C.QJSON_LIMIT_NUMBER_MAX_LEN
M.MAX_LEN = MAX_LEN

-- How NaN and infinities are written, per encode_invalid_numbers.
local INVALID_TEXT = {
  [true] = { nan = "NaN", inf = "Infinity", ninf = "-Infinity" },
  null = { nan = "null", inf = "null", ninf = "null" },
}

-- Below this magnitude an integer-valued double is printed with `%d`:
-- `%.Ng` prints an integer of at most N digits in full, and the shortest
-- text of an integer below 2^53 is all its digits.
function M.int_limit(precision)
  if precision == 0 then
    return 2 ^ 53
  end
  return 10 ^ precision
end

local function invalid_text(v, invalid)
  local t = INVALID_TEXT[invalid]
  if not t then
    error("Cannot serialise number: must not be NaN or Infinity", 0)
  end
  if v ~= v then
    return t.nan
  end
  return v > 0 and t.inf or t.ninf
end

-- Appends the number `v`. `limit` is int_limit(precision); `invalid` is
-- the encode_invalid_numbers setting (false, true or "null").
function M.put(buf, v, precision, limit, invalid)
  if v == floor(v) and v < limit and v > -limit then
    if v ~= 0 then
      buf:putf("%d", v)
    else
      buf:put(v) -- "0" or "-0", as %g
    end
  elseif v - v == 0 then
    local p = buf:reserve(MAX_LEN)
    buf:commit(qjson_format_number(v, precision, p))
  else
    buf:put(invalid_text(v, invalid))
  end
end

local int64_t, uint64_t = ffi.typeof("int64_t"), ffi.typeof("uint64_t")

-- Appends an int64_t / uint64_t cdata as its exact decimal value; returns
-- false for any other cdata.
function M.put_cdata(buf, v)
  if ffi_istype(int64_t, v) then
    local s = tostring(v)
    buf:put(sub(s, 1, -3))
  elseif ffi_istype(uint64_t, v) then
    local s = tostring(v)
    buf:put(sub(s, 1, -4))
  else
    return false
  end
  return true
end

-- A number as text (for object keys, whose text is quoted).
function M.text(v, precision, invalid)
  if v - v ~= 0 then
    return invalid_text(v, invalid)
  end
  local p = M.scratch:reserve(MAX_LEN)
  local n = qjson_format_number(v, precision, p)
  return ffi.string(p, n)
end

M.scratch = require("string.buffer").new()

return M
