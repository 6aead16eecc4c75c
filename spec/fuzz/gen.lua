-- Random inputs for the Lua-level fuzzer (spec/fuzz/driver.lua): JSON
-- texts written with random whitespace and escapes, mutations of them,
-- slices of real documents, parse options, paths, and Lua values to
-- encode. Every choice comes from the fuzzer's seeded generator, so a
-- seed replays the same run. What a text means is for the model
-- (spec/fuzz/model.lua) to say, not for the generator.
local ffi = require("ffi")
local bit = require("bit")
local model = require("fuzz.model")
local util = require("fuzz.util")
local support = require("support")

local byte, char, sub, format = string.byte, string.char, string.sub, string.format
local concat = table.concat
local floor = math.floor

local G = {}

-- xorshift32: the same sequence on every LuaJIT build, whatever else
-- calls math.random.
function G.new_rng(seed)
  local x = bit.tobit(seed % 4294967296)
  if x == 0 then x = 0x2545F491 end
  return function()
    x = bit.bxor(x, bit.lshift(x, 13))
    x = bit.bxor(x, bit.rshift(x, 17))
    x = bit.bxor(x, bit.lshift(x, 5))
    return x % 4294967296
  end
end

-- A whole number in [a, b]; true with probability p; an element.
function G:int(a, b) return a + self.rand() % (b - a + 1) end
function G:chance(p) return self.rand() < p * 4294967296 end
function G:pick(list) return list[self:int(1, #list)] end

-- JSON texts.

local KEYS = util.KEYS

local NUMBERS = { "0", "-0", "1", "-1", "0.5", "1.0", "1e2", "1E+2", "-1e-2", "0.1", "123.456e-789",
  "1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308", "2.2250738585072014e-308",
  "9007199254740992", "9007199254740993", "-9007199254740993", "9223372036854775807",
  "-9223372036854775808", "9223372036854775808", "-9223372036854775809", "18446744073709551615",
  "18446744073709551616", "100000000000000000000", "0.30000000000000004", "5e-324" }

function G:digits(n, first)
  local t = { first and tostring(self:int(1, 9)) or tostring(self:int(0, 9)) }
  for i = 2, n do t[i] = tostring(self:int(0, 9)) end
  return concat(t)
end

function G:gen_number()
  local r = self:int(1, 10)
  if r <= 3 then return tostring(self:int(-1000, 1000)) end
  if r <= 5 then return self:pick(NUMBERS) end
  local s = (self:chance(0.3) and "-" or "") .. (self:chance(0.2) and "0" or self:digits(self:int(1, 25), true))
  if self:chance(0.4) then s = s .. "." .. self:digits(self:int(1, 20)) end
  if self:chance(0.3) then
    s = s .. self:pick({ "e", "E" }) .. self:pick({ "", "+", "-" }) .. self:digits(self:int(1, 3))
  end
  return s
end

-- A random valid UTF-8 string: ASCII (quotes, backslashes and control
-- bytes included), path punctuation, and 2-, 3- and 4-byte characters.
function G:gen_str_value()
  local parts = {}
  for i = 1, self:int(0, 6) do
    local r = self:int(1, 10)
    if r <= 4 then
      local t = {}
      for k = 1, self:int(1, 8) do t[k] = char(self:int(0x20, 0x7E)) end
      parts[i] = concat(t)
    elseif r <= 5 then
      parts[i] = char(self:int(0, 0x1F)) .. self:pick({ '"', "\\", "/", "\127" })
    elseif r <= 6 then
      parts[i] = self:pick({ ".", "[", "]", "/", "~", "~0", "~1", "[0]" })
    else
      local cp
      local range = self:int(1, 3)
      if range == 1 then cp = self:int(0x80, 0x7FF)
      elseif range == 2 then
        cp = self:int(0x800, 0xFFFF)
        if cp >= 0xD800 and cp <= 0xDFFF then cp = cp + 0x800 end
      else cp = self:int(0x10000, 0x10FFFF) end
      parts[i] = model.utf8(cp)
    end
  end
  return concat(parts)
end

local SHORT = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n",
  ["\r"] = "\\r", ["\t"] = "\\t" }

-- `s` (valid UTF-8) as a JSON string literal, each character written
-- plainly or as an escape, at random.
function G:write_string(s)
  local out, i = { '"' }, 1
  local hex = self:chance(0.5) and "%04X" or "%04x"
  while i <= #s do
    local c = byte(s, i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    local ch = sub(s, i, i + len - 1)
    local escape = self:chance(0.1)
    if c < 0x20 or c == 0x22 or c == 0x5C then
      escape = true
    end
    if not escape then
      out[#out + 1] = (c == 0x2F and self:chance(0.3)) and "\\/" or ch
    elseif SHORT[ch] and self:chance(0.7) then
      out[#out + 1] = SHORT[ch]
    else
      local cp = c
      if len == 2 then cp = (c - 0xC0) * 0x40 + byte(s, i + 1) - 0x80
      elseif len == 3 then cp = ((c - 0xE0) * 0x40 + byte(s, i + 1) - 0x80) * 0x40 + byte(s, i + 2) - 0x80
      elseif len == 4 then
        cp = (((c - 0xF0) * 0x40 + byte(s, i + 1) - 0x80) * 0x40 + byte(s, i + 2) - 0x80) * 0x40 + byte(s, i + 3) - 0x80
      end
      if cp >= 0x10000 then
        cp = cp - 0x10000
        out[#out + 1] = "\\u" .. format(hex, 0xD800 + floor(cp / 0x400)) .. "\\u" .. format(hex, 0xDC00 + cp % 0x400)
      else
        out[#out + 1] = "\\u" .. format(hex, cp)
      end
    end
    i = i + len
  end
  out[#out + 1] = '"'
  return concat(out)
end

function G:ws()
  if self:chance(0.6) then return "" end
  return self:pick({ " ", "\n", "\t", "  ", "\r\n", " \n  " })
end

function G:gen_value(depth)
  local r = self:int(1, 100)
  if depth < 6 and r <= 20 then
    local parts, keys = {}, {}
    for i = 1, self:int(0, 6) do
      local key
      if #keys > 0 and self:chance(0.15) then
        key = self:pick(keys) -- a repeated key, perhaps escaped differently
      elseif self:chance(0.6) then
        key = self:pick(KEYS)
      else
        key = self:gen_str_value()
      end
      keys[#keys + 1] = key
      parts[i] = self:ws() .. self:write_string(key) .. self:ws() .. ":" .. self:gen_value(depth + 1)
    end
    return self:ws() .. "{" .. (#parts > 0 and concat(parts, ",") or self:ws()) .. "}" .. self:ws()
  elseif depth < 6 and r <= 38 then
    local parts = {}
    for i = 1, self:int(0, 6) do parts[i] = self:gen_value(depth + 1) end
    return self:ws() .. "[" .. (#parts > 0 and concat(parts, ",") or self:ws()) .. "]" .. self:ws()
  end
  local v
  if r <= 62 then v = self:write_string(self:gen_str_value())
  elseif r <= 88 then v = self:gen_number()
  else v = self:pick({ "true", "false", "null" }) end
  return self:ws() .. v .. self:ws()
end

-- A value, sometimes inside a deep chain of containers (max_depth).
function G:gen_document()
  local v = self:gen_value(0)
  if self:chance(0.05) then
    local open, close = {}, {}
    for i = 1, self:int(2, 40) do
      if self:chance(0.5) then open[i], close[i] = "[", "]" else open[i], close[i] = '{"k":', "}" end
    end
    v = concat(open) .. v .. concat(close):reverse()
  end
  return v
end

-- Pieces a mutation inserts: structure, escapes gone wrong, bytes that are
-- never valid UTF-8, surrogates, a byte-order mark, NaN and friends.
local PIECES = { '"', "\\", "{", "}", "[", "]", ",", ":", "\0", "\255", "\195", "\237\160\128",
  "\\uD800", "\\uDC00", "\\u00", "\\uD83D\\uDE00", "e", "-", ".", "0", " ", "tru", "nul", "1e400",
  "\239\187\191", "\t", "\31", "NaN", "Infinity", "\192\128", "\244\144\128\128", '"a":1,"a":2' }

function G:mutate(text)
  for _ = 1, self:int(1, 3) do
    local n = #text
    local at = self:int(0, n)
    local r = self:int(1, 10)
    if r <= 3 and n > 0 then
      at = self:int(1, n)
      local b = self:chance(0.5) and char(self:int(0, 255)) or sub(self:pick(PIECES), 1, 1)
      text = sub(text, 1, at - 1) .. b .. sub(text, at + 1)
    elseif r <= 5 and n > 0 then
      at = self:int(1, n)
      text = sub(text, 1, at - 1) .. sub(text, at + 1)
    elseif r <= 8 then
      text = sub(text, 1, at) .. self:pick(PIECES) .. sub(text, at + 1)
    elseif r <= 9 then
      text = sub(text, 1, at)
    else
      local b = self:int(0, n)
      text = sub(text, 1, at) .. sub(text, at + 1, b) .. sub(text, at + 1)
    end
  end
  return text
end

local SUITE = support.data .. "/JSONTestSuite/test_parsing"
local CORPUS = support.data .. "/corpus"

-- The shared data the texts may come from (nil when it is absent).
function G.suite_files() return support.list(SUITE) end
function G.corpus_files()
  if support.exists(CORPUS .. "/twitter.json") then
    return { "twitter.json", "citm_catalog.json", "canada.json" }
  end
end

-- A value of at most a few kilobytes from a real document, found by a
-- random walk down from its root (whole documents would make the model
-- and the collection after every step slow).
function G:corpus_slice()
  local name = self:pick(self.corpus)
  local doc = self.qjson.parse(assert(support.read(CORPUS .. "/" .. name)))
  local cur, path = doc, name
  for _ = 1, 12 do
    local t = cur:typeof()
    if (t ~= "array" and t ~= "object") or cur:len() == 0 or #cur:raw() < 20000 then break end
    local n = cur:len()
    if t == "array" then
      local i = self:int(0, n - 1)
      cur, path = cur:open("[" .. i .. "]"), path .. "[" .. i .. "]"
    else
      local keys = {}
      for k in cur:pairs() do keys[#keys + 1] = k end
      local k = self:pick(keys)
      cur, path = cur:open("/" .. k:gsub("~", "~0"):gsub("/", "~1")), path .. "/" .. k
    end
  end
  local text = cur:raw()
  doc:close()
  return text, path
end

-- A text to parse and where it came from. Each call builds a new string.
function G:gen_text()
  local r = self:int(1, 100)
  if r <= 8 and self.suite then
    local name = self:pick(self.suite)
    local text = assert(support.read(SUITE .. "/" .. name))
    if self:chance(0.3) then return self:mutate(text), "mutated " .. name end
    return text, name
  elseif r <= 12 and self.corpus then
    local text, where = self:corpus_slice()
    if self:chance(0.3) then return self:mutate(text), "mutated " .. where end
    return text, where
  end
  local text = self:gen_document()
  if r <= 35 then return self:mutate(text), "mutated" end
  return text, "generated"
end

function G:gen_opts()
  if self:chance(0.4) then return nil end
  local o = {}
  if self:chance(0.3) then o.mode = self:pick({ "strict", "lazy" }) end
  if self:chance(0.3) then o.max_depth = self:pick({ 1, 2, 3, 4, 8, 32, 1000, 2000 }) end
  if self:chance(0.3) then o.duplicate_keys = self:pick({ "last", "reject" }) end
  if self:chance(0.2) then o.ijson = self:pick({ true, false }) end
  return o
end

-- Paths.

-- A random path from `node`: usually one that exists, written as a
-- pointer or dotted; sometimes one step too far, garbage, or malformed.
local MALFORMED = { "a..b", "a[x]", "/a~2", "a.", ".a", "a[", "a]", "a[1]b", "[-1]", "a[01]", "[0]x",
  "[99999999999999999999]", "/~", "a[1].", "]" }
local PATH_CHARS = { "a", "b", "0", "1", ".", "[", "]", "/", "~", "~0", "~1", "_doc", "é" }

function G:gen_path(node)
  local r = self:int(1, 100)
  if r <= 10 then return self:pick(MALFORMED) end
  if r <= 20 then
    local t = {}
    for i = 1, self:int(0, 6) do t[i] = self:pick(PATH_CHARS) end
    return concat(t)
  end
  local segs = {}
  for _ = 1, self:int(0, 4) do
    if node == nil then break end
    if node.t == "object" and #node.keys > 0 then
      local key = self:pick(node.keys)
      segs[#segs + 1] = { "key", key }
      node = model.member(node, key)
    elseif node.t == "array" and #node.items > 0 then
      local i = self:int(0, #node.items - 1)
      segs[#segs + 1] = { "index", i }
      node = node.items[i + 1]
    else
      break
    end
  end
  if r <= 30 then
    segs[#segs + 1] = self:chance(0.5) and { "index", self:int(0, 9) } or { "key", self:pick(KEYS) }
  end
  local dotted = self:chance(0.5)
  for k, s in ipairs(segs) do
    if s[1] == "key" and not util.dotted_key(s[2], k == 1) then
      dotted = false
    end
  end
  local t = {}
  for k, s in ipairs(segs) do
    if not dotted then
      t[k] = "/" .. (s[1] == "index" and tostring(s[2]) or s[2]:gsub("~", "~0"):gsub("/", "~1"))
    elseif s[1] == "index" then
      t[k] = "[" .. s[2] .. "]"
    else
      t[k] = (k > 1 and "." or "") .. s[2]
    end
  end
  return concat(t)
end

-- Lua values to encode.

function G:gen_lua(depth)
  local r = self:int(1, 100)
  if depth < 5 and r <= 25 then
    local t = {}
    local kind = self:int(1, 5)
    local n = self:int(0, 6)
    if kind <= 2 then
      for i = 1, n do t[i] = self:gen_lua(depth + 1) end
    elseif kind == 3 then
      for _ = 1, n do t[self:gen_str_value()] = self:gen_lua(depth + 1) end
    elseif kind == 4 then
      -- Sparse or mixed keys.
      for _ = 1, n do
        local k = self:pick({ self:int(1, 30), self:int(-3, 3), self:gen_str_value(), 1.5 })
        t[k] = self:gen_lua(depth + 1)
      end
    else
      for i = 1, n do t[i] = self:gen_lua(depth + 1) end
      if n > 0 then t[self:int(1, n)] = nil end
    end
    if depth > 0 and self:chance(0.03) then
      t[#t + 1] = t -- a reference cycle
    end
    return t
  end
  if r <= 45 then
    local s = self:gen_str_value()
    if self:chance(0.1) then
      s = s .. char(self:int(0x80, 0xFF)) -- not UTF-8
    end
    return s
  end
  if r <= 75 then
    local x = self:pick({ self:int(-1000, 1000), self:int(0, 2 ^ 31) * 2 ^ self:int(0, 40),
      (self.rand() - 2 ^ 31) / self:int(1, 1000), 0.1, 1 / 3, -0.0, 1e15, 1e16, 2 ^ 53 + 1, 1e300, 5e-324 })
    if self:chance(0.02) then
      x = self:pick({ 0 / 0, 1 / 0, -1 / 0 })
    end
    return x
  end
  if r <= 85 then return self:chance(0.5) end
  if r <= 95 then return self.safe.null end
  return self:pick({ print, coroutine.create(print), io.stdout, ffi.new("int[1]") })
end

-- Deep nesting past encode_max_depth (1000), which both must refuse.
function G.deep_lua(_, n)
  local v = {}
  for _ = 1, n do v = { v } end
  return v
end

return G
