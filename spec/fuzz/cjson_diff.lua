-- The differential between OpenResty's lua-cjson 2.1.0.17 (built by
-- tools/lua-cjson.sh into .deps/lua-cjson/) and qjson.cjson: seeded random
-- and mutated documents (truncations, byte flips, comments, invalid
-- numbers, bad UTF-8, NULs, deep nesting) decoded by both, under random
-- settings of every configuration function, with cjson.safe beside; Lua
-- values encoded by both under random encoder settings; configuration
-- calls with good and bad arguments. Every answer must be the same: the
-- value (numbers to the bit, NaN as NaN, null, array_mt), or the message
-- word for word.
--   local diff = require("fuzz.cjson_diff")
--   local real, why = diff.openresty()        -- nil and why when not built
--   local stats = diff.run(real, seed, steps)  -- raises on the first difference
local ffi = require("ffi")
local gen = require("fuzz.gen")
local support = require("support")

local format, char, byte, sub, concat = string.format, string.char, string.byte, string.sub, table.concat
-- (`#` calls __len on a LUA52COMPAT build, and some tables here have one.)
local rawlen = rawget(_G, "rawlen") or function(t)
  return #t
end

local M = {}

-- OpenResty's lua-cjson and its cjson.safe, built (or found built) by
-- tools/lua-cjson.sh; nil and the reason when ../shared is absent.
function M.openresty()
  local p = io.popen(support.root .. "/tools/lua-cjson.sh 2>&1")
  local out = p:read("*a")
  p:close() -- (its exit status: not in plain LuaJIT's io.popen)
  local path = out:match("([^\n]*)\n?$") .. "/cjson.so"
  if not support.exists(path) then
    return nil, (out:gsub("\n$", ""))
  end
  local open, err = package.loadlib(path, "luaopen_cjson")
  if not open then
    return nil, "cannot load " .. path .. ": " .. tostring(err)
  end
  local open_safe = assert(package.loadlib(path, "luaopen_cjson_safe"))
  return { cjson = open(), safe = open_safe() }
end

-- A value as exact text: numbers to the bit (the sign of zero too), NaN
-- as "nan", null, tables with sorted keys and whether array_mt is set.
local function render(v, array_mt, seen)
  local t = type(v)
  if t == "number" then
    if v ~= v then
      return "nan"
    end
    if v == 0 then
      return 1 / v < 0 and "-0" or "0"
    end
    return format("%.17g", v)
  elseif t == "string" then
    return format("%q", v)
  elseif t == "table" then
    seen = seen or {}
    if seen[v] then
      return "<cycle>"
    end
    seen[v] = true
    local keys = {}
    for k in pairs(v) do
      keys[#keys + 1] = k
    end
    table.sort(keys, function(a, b)
      if type(a) ~= type(b) then
        return type(a) < type(b)
      end
      return a < b
    end)
    local parts = {}
    for i, k in ipairs(keys) do
      parts[i] = render(k) .. "=" .. render(v[k], array_mt, seen)
    end
    seen[v] = nil
    local mt = getmetatable(v)
    local tag = mt == nil and "" or mt == array_mt and "array_mt" or "mt?"
    return tag .. "{" .. concat(parts, ",") .. "}"
  elseif t == "userdata" then
    return "null?" .. tostring(v == nil)
  end
  return tostring(v)
end
M.render = render

-- An outcome of a call: "ok: <values>" or "error: <message>".
local function outcome(array_mt, ok, ...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == "userdata" then
      parts[i] = "null"
    else
      parts[i] = render(v, array_mt)
    end
  end
  return (ok and "ok: " or "error: ") .. concat(parts, ", ")
end

---------------------------------------------------------------------------
-- Documents.

local D = setmetatable({}, { __index = gen })
D.__index = D

local NUMBERS = {
  "0", "-0", "1", "-1", "12", "-0.0", "0.5", "1e5", "1E+5", "1e-5", "-1.5e-300", "1e400", "-1e400", "1e-400",
  "123456789012345678", "9007199254740993", "9223372036854775807", "9223372036854775808",
  "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "-99999999999999999999",
  "18446744073709551616", "0.1", "3.141592653589793238462643383279", "NaN", "nan", "-nan", "Infinity",
  "-Infinity", "inf", "-inf", "INF", "Inf", "infinity", "Infinit", "infinityx", "nan(123)", "nan(", "0x1F",
  "0X1F", "-0x10", "0x1p4", "0x1.8", "0x", "+1", "+", "-", "01", "-01", "00", "1.", "-.5", ".5", "1e",
  "1e+", "1.e3", "-a", "0e", "1x", "2.5E", "1_0", "٣",
}

local function digits(self, n)
  local t = {}
  for i = 1, n do
    t[i] = char(48 + self:int(0, 9))
  end
  return concat(t)
end

function D:number()
  if self:chance(0.5) then
    return self:pick(NUMBERS)
  end
  local s = (self:chance(0.3) and "-" or "") .. digits(self, self:int(1, 22))
  if self:chance(0.3) then
    s = s .. "." .. digits(self, self:int(1, 5))
  end
  if self:chance(0.2) then
    s = s .. self:pick({ "e", "E" }) .. self:pick({ "", "+", "-" }) .. digits(self, self:int(1, 3))
  end
  return s
end

local ESCAPES = {
  "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\u0041", "\\u00e9", "\\u20AC", "\\u0000",
  "\\ud83d\\ude00", "\\uD800\\uDC00", "\\uDBFF\\uDFFF", "\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800x",
  "\\uDB00\\uDB00", "\\u12", "\\u12G4", "\\x", "\\", "\\U0041", "\\'", "\\ud800\\udc0",
}

function D:string()
  local parts = { '"' }
  for _ = 1, self:int(0, 6) do
    local r = self:int(1, 10)
    if r <= 4 then
      parts[#parts + 1] = self:pick({ "a", "key", "hello world", "é", "日本", "😀", " ", "/", "//", "/*x*/" })
    elseif r <= 6 then
      parts[#parts + 1] = self:pick(ESCAPES)
    elseif r <= 8 then
      parts[#parts + 1] = char(self:int(128, 255)) -- not UTF-8, or part of it
    elseif r == 9 then
      parts[#parts + 1] = char(self:int(1, 31)) -- a raw control byte
    else
      parts[#parts + 1] = self:pick({ "\0", "\127", "\192\128", "\237\160\128", "\244\144\128\128" })
    end
  end
  if self:chance(0.97) then
    parts[#parts + 1] = '"'
  end
  return concat(parts)
end

local LITERALS = { "true", "false", "null", "tru", "nul", "True", "NULL", "t", "nulll", "falsey", "n" }

function D:ws()
  if not self:chance(0.3) then
    return ""
  end
  local r = self:int(1, 10)
  if r <= 5 then
    return self:pick({ " ", "\n", "\t", "\r\n", "  " })
  elseif r <= 8 then
    return self:pick({ "/* c */", "//line\n", "/**/", "// x\r\n", "/* a\n b */", "/*/ */" })
  end
  return self:pick({ "\f", "\v", "/", "/*", "//", "\0", "\194\160" })
end

function D:value(depth)
  local r = self:int(1, 12)
  if depth > 0 and r <= 3 then
    local parts = { "[" }
    for i = 1, self:int(0, 4) do
      if i > 1 then
        parts[#parts + 1] = self:chance(0.97) and "," or self:pick({ "", ",,", ";", ":" })
      end
      parts[#parts + 1] = self:ws() .. self:value(depth - 1) .. self:ws()
    end
    if self:chance(0.05) then
      parts[#parts + 1] = ","
    end
    parts[#parts + 1] = self:chance(0.97) and "]" or "}"
    return concat(parts)
  elseif depth > 0 and r <= 6 then
    local parts = { "{" }
    for i = 1, self:int(0, 4) do
      if i > 1 then
        parts[#parts + 1] = self:chance(0.97) and "," or self:pick({ "", ",," })
      end
      local key = self:chance(0.95) and self:string() or self:pick({ "a", "1", "null", "'k'" })
      parts[#parts + 1] = self:ws() .. key .. self:ws() .. (self:chance(0.97) and ":" or "=") .. self:ws()
        .. self:value(depth - 1) .. self:ws()
    end
    parts[#parts + 1] = self:chance(0.97) and "}" or "]"
    return concat(parts)
  elseif r <= 8 then
    return self:number()
  elseif r <= 10 then
    return self:string()
  end
  return self:pick(LITERALS)
end

-- Nested arrays and objects `n` deep around a value.
function D:nested(n)
  local open, close = {}, {}
  for i = 1, n do
    if self:chance(0.5) then
      open[i], close[n + 1 - i] = "[", "]"
    else
      open[i], close[n + 1 - i] = '{"k":', "}"
    end
  end
  return concat(open) .. self:value(0) .. concat(close)
end

function D:mutate(text)
  local n = #text
  local r = self:int(1, 9)
  local at = self:int(0, n)
  if r == 1 then
    return sub(text, 1, at) -- truncated
  elseif r == 2 and n > 0 then
    local i = self:int(1, n)
    return sub(text, 1, i - 1) .. char(self:int(0, 255)) .. sub(text, i + 1) -- a byte changed
  elseif r == 3 and n > 0 then
    local i = self:int(1, n)
    return sub(text, 1, i - 1) .. sub(text, i + 1) -- a byte deleted
  elseif r == 4 then
    return sub(text, 1, at) .. self:pick({ "\0", "/*", "//", "\255", ",", "]", "}", '"', "\\", "-", "0x" })
      .. sub(text, at + 1)
  elseif r == 5 then
    return text .. self:pick({ "\0junk", " ", "x", "//c", "/*c*/", "/*c", ",1", "\n" })
  elseif r == 6 then
    return self:pick({ "\0", "\0\0\0", "\239\187\191", " \0" }) .. text -- UTF-16/32, a BOM
  elseif r == 7 and n > 1 then
    local i = self:int(1, n - 1)
    return sub(text, 1, i) .. sub(text, i, n) -- a byte doubled
  end
  return text
end

function D:document()
  local r = self:int(1, 20)
  local text
  if r <= 2 then
    text = self:nested(self:int(1, 12))
  elseif r == 3 then
    text = self:nested(self:pick({ 999, 1000, 1001, 3999, 4000, 7998, 7999, 8000, 9000 }))
  else
    text = self:ws() .. self:value(self:int(0, 4)) .. self:ws()
  end
  if self:chance(0.35) then
    text = self:mutate(text)
  end
  return text
end

---------------------------------------------------------------------------
-- Settings and configuration calls.

local function on_off(self)
  return self:pick({ true, false, "on", "off", nil })
end

-- A decoder configuration: the same calls made on both instances.
function D:decoder_settings()
  local calls = {}
  if self:chance(0.4) then
    local d = self:pick({ 1, 2, 3, 5, 10, 1000, 3000, 3999, 4000, 7999, 8000, 100000, 2147483647 })
    calls[#calls + 1] = { "decode_max_depth", d }
  end
  if self:chance(0.5) then
    calls[#calls + 1] = { "decode_invalid_numbers", on_off(self) }
  end
  if self:chance(0.5) then
    calls[#calls + 1] = { "decode_allow_comment", on_off(self) }
  end
  if self:chance(0.3) then
    calls[#calls + 1] = { "decode_array_with_array_mt", on_off(self) }
  end
  return calls
end

local BAD_ARGS = {
  {}, { 0 }, { -1 }, { 1.5 }, { "7" }, { " 0x10 " }, { "five" }, { {} }, { true }, { 2 ^ 31 }, { 2 ^ 32 + 5 },
  { 1e20 }, { 0 / 0 }, { "on" }, { "off" }, { "null" }, { "On" }, { "on\0x" }, { "" }, { nil, true }, { 1, 2 },
  { false }, { 1, 2, 3, 4 }, { "on", -1 }, { "on", 5, "x" }, { "  " }, { "abc" }, { 12 },
}
local CONFIG_FUNCTIONS = {
  "decode_max_depth", "decode_invalid_numbers", "decode_allow_comment", "decode_array_with_array_mt",
  "encode_max_depth", "encode_number_precision", "encode_keep_buffer", "encode_invalid_numbers",
  "encode_sparse_array", "encode_empty_table_as_object", "encode_escape_forward_slash",
  "encode_skip_unsupported_value_types", "encode_indent",
}

-- An encoder configuration.
function D:encoder_settings()
  local calls = {}
  local function maybe(p, name, ...)
    if self:chance(p) then
      calls[#calls + 1] = { name, ... }
    end
  end
  maybe(0.3, "encode_sparse_array", on_off(self), self:pick({ nil, 0, 1, 2, 3 }), self:pick({ nil, 0, 5, 10 }))
  maybe(0.3, "encode_max_depth", self:pick({ 1, 2, 3, 5, 1000 }))
  maybe(0.3, "encode_number_precision", self:int(1, 16))
  maybe(0.3, "encode_invalid_numbers", self:pick({ true, false, "on", "off", "null" }))
  maybe(0.3, "encode_empty_table_as_object", on_off(self))
  maybe(0.3, "encode_escape_forward_slash", on_off(self))
  maybe(0.3, "encode_skip_unsupported_value_types", on_off(self))
  maybe(0.3, "encode_indent", self:pick({ "", "  ", "\t", "abc" }))
  maybe(0.2, "encode_keep_buffer", on_off(self))
  return calls
end

-- A Lua value to encode.
function D:lua_value(depth, null)
  local r = self:int(1, 14)
  if depth > 0 and r <= 4 then
    local t = {}
    local shape = self:int(1, 5)
    local n = self:int(0, 6)
    for i = 1, n do
      if shape == 1 then
        t[i] = self:lua_value(depth - 1, null)
      elseif shape == 2 then
        t[self:int(1, 30)] = self:lua_value(depth - 1, null) -- maybe sparse
      elseif shape == 3 then
        t[self:pick({ "a", "b", "/", "é", "\255", "k\0", 1, 2, 0, -1, 1.5, 2 ^ 53, 1e300 })] =
          self:lua_value(depth - 1, null)
      elseif shape == 4 then
        t[self:pick({ "x", "y", "z" }) .. i] = self:lua_value(depth - 1, null)
      else
        t[i] = self:lua_value(depth - 1, null)
        t.extra = i
      end
    end
    if self:chance(0.05) then
      t[self:pick({ true, print })] = 1 -- a key of a type encode refuses
    end
    if self:chance(0.05) then
      -- A length of its own: lua-cjson calls __len, and reads the
      -- elements with t[i], so through __index.
      local len = self:pick({ 0, 1, 3, 2.5, -1, "2", "x", 1e10, 0 / 0 })
      local mt = { __len = function()
        return len
      end }
      if self:chance(0.5) then
        mt.__index = function(_, i)
          return i * 2
        end
      end
      setmetatable(t, mt)
    end
    return t
  elseif r <= 6 then
    return self:pick({ 0, -0.0, 1, -1, 0.1, 1 / 3, 1e15, 123456789012345, 2 ^ 53, 2 ^ 63, -2 ^ 63, 1e300, 1e-300,
      5e-324, 1 / 0, -1 / 0, 0 / 0, 3.14159265358979, 100, 1e16, 12345.678 })
  elseif r <= 9 then
    return self:pick({ "", "a", "/", "\"", "\\", "\n\r\t\b\f", "\0", "\1\31", "\127", "é", "\255", "</script>",
      "\226\128\168", "😀", "a/b" })
  elseif r <= 11 then
    return self:pick({ true, false, null })
  end
  return self:pick({ print, coroutine.create(print), io.stdout, null, 1LL, 2ULL, ffi.new("int[1]"),
    ffi.cast("void *", 0) })
end

---------------------------------------------------------------------------
-- The run.

-- Applies `calls` to instances a (qjson.cjson) and b (lua-cjson): every
-- call's answer must be the same.
local function configure(self, a, b, calls)
  for _, c in ipairs(calls) do
    local name, n = c[1], table.maxn(c)
    local fa, fb = a[name], b[name]
    local ra = outcome(nil, pcall(fa, unpack(c, 2, n)))
    local rb = outcome(nil, pcall(fb, unpack(c, 2, n)))
    self:same(ra, rb, "%s(%s)", name, render({ unpack(c, 2, n) }))
  end
end

function D:same(a, b, what, ...)
  self.stats.checks = self.stats.checks + 1
  if a ~= b then
    error(format("seed %d step %d: %s:\n  qjson.cjson: %s\n  lua-cjson:   %s", self.seed, self.step,
      format(what, ...), a:sub(1, 2000), b:sub(1, 2000)), 0)
  end
end

-- One call `f(x)` of each module, the same way: a non-tail call from this
-- line (so an argument error names the same function and position).
local function call(f, ...)
  local r = { pcall(f, ...) }
  return r
end

local function show(text)
  local s = format("%q", #text > 300 and sub(text, 1, 300) .. "..." or text)
  return (s:gsub("[%z\1-\31\127-\255]", function(c)
    return format("\\%d", byte(c))
  end))
end

function D:decode_step(qc, real)
  local a, b = qc.cjson.new(), real.cjson.new()
  local safe = self:chance(0.3)
  if safe then
    a, b = qc.safe.new(), real.safe.new()
  end
  local calls = self:decoder_settings()
  configure(self, a, b, calls)
  local text = self:document()
  local ra = call(a.decode, text)
  local rb = call(b.decode, text)
  local oa = outcome(a.array_mt, unpack(ra, 1, table.maxn(ra)))
  local ob = outcome(b.array_mt, unpack(rb, 1, table.maxn(rb)))
  self:same(oa, ob, "%sdecode of %s (settings %s)", safe and "safe." or "", show(text), render(calls))
  self.stats[rb[1] and (rb[2] ~= nil and "decodes accepted" or "decodes rejected (safe)") or "decodes rejected"] =
    (self.stats[rb[1] and (rb[2] ~= nil and "decodes accepted" or "decodes rejected (safe)")
      or "decodes rejected"] or 0) + 1
  -- The same text straight through the Lua call site (names the function
  -- as the caller's code does).
  if self:chance(0.1) then
    local qa = { pcall(function(x) local v = a.decode(x) return v end, text) }
    local qb = { pcall(function(x) local v = b.decode(x) return v end, text) }
    self:same(outcome(a.array_mt, unpack(qa, 1, 2)):gsub("^(error: \")[^:]*:%d+: ", "%1"),
      outcome(b.array_mt, unpack(qb, 1, 2)):gsub("^(error: \")[^:]*:%d+: ", "%1"), "decode of %s", show(text))
  end
end

function D:encode_step(qc, real)
  local a, b = qc.cjson.new(), real.cjson.new()
  local safe = self:chance(0.2)
  if safe then
    a, b = qc.safe.new(), real.safe.new()
  end
  local calls = self:encoder_settings()
  configure(self, a, b, calls)
  local v
  if self:chance(0.3) then
    -- A table lua-cjson decoded.
    local ok, t = pcall(real.cjson.decode, self:document())
    v = ok and t or {}
  else
    v = self:lua_value(self:int(0, 5), real.cjson.null)
  end
  if type(v) == "table" and self:chance(0.05) then
    v[rawlen(v) + 1] = v -- a cycle
  end
  local ra = outcome(nil, pcall(a.encode, v))
  local rb = outcome(nil, pcall(b.encode, v))
  self:same(ra, rb, "%sencode of %s (settings %s)", safe and "safe." or "", render(v), render(calls))
  self.stats.encodes = self.stats.encodes + 1
end

function D:config_step(qc, real)
  local name = self:pick(CONFIG_FUNCTIONS)
  local args = self:pick(BAD_ARGS)
  local a, b = qc.cjson.new(), real.cjson.new()
  if self:chance(0.3) then
    a, b = qc.safe.new(), real.safe.new()
  end
  local n = table.maxn(args)
  local fa, fb = a[name], b[name]
  -- Through pcall (named '?'), and from a Lua call site (named "f").
  local ra = outcome(nil, pcall(fa, unpack(args, 1, n)))
  local rb = outcome(nil, pcall(fb, unpack(args, 1, n)))
  self:same(ra, rb, "%s(%s)", name, render(args))
  local function via(f)
    return outcome(nil, pcall(function()
      local x, y, z = f(unpack(args, 1, n))
      return x, y, z
    end))
  end
  self:same(via(fa):gsub(":%d+: ", ": "), via(fb):gsub(":%d+: ", ": "), "%s(%s) from Lua", name, render(args))
  -- The call count decode and encode insist on.
  local which = self:pick({ "decode", "encode" })
  local ea = outcome(nil, pcall(a[which], unpack(args, 1, n)))
  local eb = outcome(nil, pcall(b[which], unpack(args, 1, n)))
  self:same(ea, eb, "%s(%s)", which, render(args))
  self.stats.configs = self.stats.configs + 1
end

-- Runs `steps` steps from `seed`; `real` is M.openresty()'s answer.
function M.run(real, seed, steps)
  local qc = { cjson = require("qjson.cjson"), safe = require("qjson.cjson.safe") }
  local self = setmetatable({ seed = seed, rand = gen.new_rng(seed), stats = { checks = 0, encodes = 0, configs = 0 } },
    D)
  for step = 1, steps do
    self.step = step
    local r = self:int(1, 10)
    if r <= 6 then
      self:decode_step(qc, real)
    elseif r <= 9 then
      self:encode_step(qc, real)
    else
      self:config_step(qc, real)
    end
  end
  self.stats.steps = steps
  return self.stats
end

return M
