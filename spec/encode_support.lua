-- Helpers for the encoder specs: seeded random Lua values (the deep
-- comparison is spec/support.lua's). Not a spec itself (busted runs *_spec.lua).
local ffi = require("ffi")

local random, char = math.random, string.char

local M = {}

local bits = ffi.new("union { uint64_t u; double d; }")

-- A double from random bits: normals, subnormals, zeros, huge and tiny;
-- never NaN or an infinity.
-- (The exponent is checked on the integer side: reading a NaN with an
-- arbitrary payload through the FFI can yield a bogus Lua value.)
function M.random_double()
  local hi
  repeat
    hi = random(0, 0xffffffff)
  until math.floor(hi / 2 ^ 20) % 2048 ~= 2047
  bits.u = ffi.cast("uint64_t", hi) * 0x100000000ULL + random(0, 0xffffffff)
  return bits.d
end

-- Numbers at the edges of %.14g: integers just under and over 10^14,
-- around 2^53, short decimals, and random doubles of every magnitude.
function M.random_number()
  local r = random(1, 10)
  if r == 1 then
    return random(-1000, 1000)
  elseif r == 2 then
    return (random(0, 1) * 2 - 1) * (1e14 + random(-3, 3))
  elseif r == 3 then
    return 2 ^ 53 + random(-4, 4) * 2
  elseif r == 4 then
    return random(-99999, 99999) / 100
  elseif r == 5 then
    return ({ 0, -0.0, 0.1, 1 / 3, 2 / 3, 1e-5, 1e-4, 123456789012345, 5e-324, 1.7976931348623157e308 })[random(1, 10)]
  elseif r == 6 then
    return random() * 10 ^ random(-30, 30)
  elseif r == 7 then
    return random(-2147483648, 2147483647)
  else
    return M.random_double()
  end
end

-- Every byte that lua-cjson escapes, plus UTF-8 (2-, 3- and 4-byte,
-- U+2028) and stray bytes it passes through.
local PIECES = { '"', "\\", "/", "\127", "\b", "\f", "\n", "\r", "\t", "\0", "é", "€", "😀", "\226\128\168",
  "\255", "\192", "<", ">", "&", "'" }
for b = 0, 31 do
  PIECES[#PIECES + 1] = char(b)
end

local VALID = {}
for _, p in ipairs(PIECES) do
  if p ~= "\255" and p ~= "\192" then
    VALID[#VALID + 1] = p
  end
end

local function random_text(pieces, max)
  local n = random(0, max or 12)
  local out = {}
  for i = 1, n do
    if random(1, 3) == 1 then
      out[i] = pieces[random(1, #pieces)]
    else
      out[i] = char(random(32, 126))
    end
  end
  return table.concat(out)
end

function M.random_string(max)
  return random_text(PIECES, max)
end

-- A valid UTF-8 string (for options that require it).
function M.random_utf8(max)
  return random_text(VALID, max)
end

local function random_key()
  local r = random(1, 6)
  if r == 1 then
    return random(-5, 40)
  elseif r == 2 then
    return random(-1000, 1000) / 8
  end
  return M.random_string(8)
end

local random_value

-- Tables lua-cjson encodes: dense arrays, arrays with holes (some
-- excessively sparse), objects with string, number and mixed keys, empty.
local function random_table(depth)
  local t = {}
  local r = random(1, 6)
  if r == 1 then
    for i = 1, random(1, 8) do
      t[i] = random_value(depth)
    end
  elseif r == 2 then
    for _ = 1, random(1, 6) do
      t[random(1, 24)] = random_value(depth)
    end
  elseif r <= 4 then
    for _ = 1, random(1, 6) do
      t[M.random_string(8)] = random_value(depth)
    end
  elseif r == 5 then
    for _ = 1, random(1, 6) do
      t[random_key()] = random_value(depth)
    end
  end
  return t
end

random_value = function(depth, null)
  local r = random(1, depth > 4 and 4 or 7)
  if r == 1 then
    return M.random_number()
  elseif r == 2 then
    return M.random_string()
  elseif r == 3 then
    return random(0, 1) == 1
  elseif r == 4 then
    return null or M.null
  end
  return random_table(depth + 1)
end

-- A random value (mostly a table) with `null` as the JSON null.
function M.random_value(null)
  M.null = null
  return random_table(1)
end

ffi.cdef("int snprintf(char *str, size_t size, const char *format, ...);")
local printf_buf = ffi.new("char[64]")

-- C's printf("%.*g", p, x): what lua-cjson prints (LuaJIT's own
-- string.format rounds exact ties differently).
function M.printf_g(p, x)
  local n = ffi.C.snprintf(printf_buf, 64, "%.*g", ffi.new("int", p), ffi.new("double", x))
  return ffi.string(printf_buf, n)
end

-- Frees the encoder's kept buffer and collects garbage, so a spec leaves
-- the heap as it found it.
function M.release()
  local qjson = require("qjson")
  local keep = qjson.encode_keep_buffer()
  qjson.encode_keep_buffer(false)
  qjson.encode(1)
  qjson.encode_keep_buffer(keep)
  -- Random values compile many traces; they live on the Lua heap.
  require("jit").flush()
  -- Each full cycle also halves an oversized string table.
  for _ = 1, 6 do
    collectgarbage()
  end
end

-- A value made only of what JSON keeps: string keys, dense arrays, no
-- nulls in arrays, finite numbers; for round trips.
function M.random_json(depth, utf8)
  depth = depth or 1
  local r = random(1, depth > 4 and 3 or 5)
  if r == 1 then
    return M.random_number()
  elseif r == 2 then
    return utf8 and M.random_utf8() or M.random_string()
  elseif r == 3 then
    return random(0, 1) == 1
  elseif r == 4 then
    local t = {}
    for i = 1, random(1, 6) do
      t[i] = M.random_json(depth + 1, utf8)
    end
    return t
  end
  local t = {}
  for _ = 1, random(1, 6) do
    t["k" .. (utf8 and M.random_utf8(6) or M.random_string(6))] = M.random_json(depth + 1, utf8)
  end
  return t
end

return M
