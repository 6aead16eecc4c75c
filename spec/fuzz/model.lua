-- A pure-Lua model of strict JSON (RFC 8259) and of qjson's paths: the
-- oracle the Lua-level fuzzer (spec/fuzz_driver.lua) checks qjson against.
-- Written from the RFCs and docs/api.md, not from qjson's code; slow and
-- simple on purpose.
--
-- model.decode(text, opts) returns a tree, or nil and a failure:
--   { kind = "grammar" | "empty" | "deep" | "range" | "duplicate",
--     at = L, token = T, dups = {offsets} }
-- L is the length of the longest prefix of `text` that some continuation
-- could still make valid JSON (ignoring max_depth); T is the start of the
-- string, number or literal in progress at L, else L. A parser that
-- reports the first error in the input reports it at a byte B with
-- T <= B <= L. Duplicate keys are checked once the grammar holds, and B
-- is then the offset of a repeated key.
--
-- Tree nodes (offsets are 0-based; `len` is the byte length of the value):
--   { t = "object", keys = {...}, vals = {...}, len }  every member, in order
--   { t = "array", items = {...}, len }
--   { t = "string", v = decoded, raw }   { t = "number", v, raw }
--   { t = "boolean", v, raw }            { t = "null", raw }
local byte, sub, char = string.byte, string.sub, string.char
local tonumber, error, pcall, type = tonumber, error, pcall, type
local floor = math.floor

local M = {}

local WS = { [0x20] = true, [0x09] = true, [0x0A] = true, [0x0D] = true }
local DELIMITERS = { [0x20] = true, [0x09] = true, [0x0A] = true, [0x0D] = true, [0x2C] = true,
  [0x5D] = true, [0x7D] = true, [0x5B] = true, [0x7B] = true, [0x3A] = true, [0x22] = true }
local ESCAPES = { [0x22] = '"', [0x5C] = "\\", [0x2F] = "/", [0x62] = "\b", [0x66] = "\f",
  [0x6E] = "\n", [0x72] = "\r", [0x74] = "\t" }

local function hex_value(c)
  if c == nil then return nil end
  if c >= 0x30 and c <= 0x39 then return c - 0x30 end
  if c >= 0x41 and c <= 0x46 then return c - 0x37 end
  if c >= 0x61 and c <= 0x66 then return c - 0x57 end
  return nil
end

-- UTF-8 of code point `cp`.
local function utf8(cp)
  if cp < 0x80 then
    return char(cp)
  elseif cp < 0x800 then
    return char(0xC0 + floor(cp / 0x40), 0x80 + cp % 0x40)
  elseif cp < 0x10000 then
    return char(0xE0 + floor(cp / 0x1000), 0x80 + floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
  end
  return char(0xF0 + floor(cp / 0x40000), 0x80 + floor(cp / 0x1000) % 0x40,
    0x80 + floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
end
M.utf8 = utf8

-- Allowed range of the byte after lead byte `c` (RFC 3629), and how many
-- continuation bytes follow; nil for a byte no sequence starts with.
local function utf8_lead(c)
  if c >= 0xC2 and c <= 0xDF then return 1, 0x80, 0xBF end
  if c == 0xE0 then return 2, 0xA0, 0xBF end
  if c == 0xED then return 2, 0x80, 0x9F end
  if c >= 0xE1 and c <= 0xEF then return 2, 0x80, 0xBF end
  if c == 0xF0 then return 3, 0x90, 0xBF end
  if c >= 0xF1 and c <= 0xF3 then return 3, 0x80, 0xBF end
  if c == 0xF4 then return 3, 0x80, 0x8F end
  return nil
end

-- The offset of the first byte of `s` that is not valid UTF-8, or nil.
function M.invalid_utf8_at(s)
  local i, n = 1, #s
  while i <= n do
    local c = byte(s, i)
    if c < 0x80 then
      i = i + 1
    else
      local more, lo, hi = utf8_lead(c)
      if not more then return i - 1 end
      for k = 1, more do
        local d = byte(s, i + k)
        if not d then return i - 1 end
        local a, b = 0x80, 0xBF
        if k == 1 then a, b = lo, hi end
        if d < a or d > b then return i - 1 end
      end
      i = i + more + 1
    end
  end
  return nil
end

-- Whether a \u escape whose first `k` hex digits make `prefix` can still
-- end in the range [lo, hi] (or, with `outside`, outside it).
local function can_reach(prefix, k, lo, hi, outside)
  local span = 16 ^ (4 - k)
  local first, last = prefix * span, prefix * span + span - 1
  if outside then
    return first < lo or last > hi
  end
  return last >= lo and first <= hi
end

-- LuaJIT's tonumber gives up on exponents of many digits; such a number
-- is infinite or zero unless it also has thousands of digits.
local function huge_exponent(raw)
  local sign, mantissa, e = raw:match("^(%-?)([%d%.]+)[eE]([+-]?%d+)$")
  local exp = tonumber(e)
  if not (exp and math.abs(exp) >= 100000 and #mantissa < 10000) then
    error("model: cannot read the number " .. raw, 0)
  end
  local v = (mantissa:find("[1-9]") and exp > 0) and 1 / 0 or 0
  return sign == "-" and -v or v
end

-- 2^53 as digits: I-JSON's integer bound.
local IJSON_INT = "9007199254740992"

function M.decode(text, opts)
  opts = opts or {}
  local max_depth = opts.max_depth or 1000
  local reject_dups = opts.duplicate_keys == "reject" or opts.ijson == true
  local ijson = opts.ijson == true
  local n = #text
  local pos = 0 -- offset of the next byte
  local tok_start, tok_end = -1, -1 -- the last scalar token
  local dups = {}

  local function at(i) return byte(text, i + 1) end
  local function fail(kind, l, t)
    if t == nil then
      t = l
      if l == tok_end then t = tok_start end
    end
    error({ kind = kind, at = l, token = t }, 0)
  end
  local function skip_ws()
    while pos < n and WS[at(pos)] do pos = pos + 1 end
  end

  local function string_value()
    local start = pos
    pos = pos + 1
    local parts = {}
    -- The 4 hex digits of a \u escape at `pos` (after "\u"): the value.
    -- `lo..hi` (or outside it) is the range the value must end up in.
    local function hex4(lo, hi, outside)
      local v = 0
      for k = 1, 4 do
        if pos >= n then fail("grammar", n, start) end
        local d = hex_value(at(pos))
        if not d or not can_reach(v * 16 + d, k, lo, hi, outside) then fail("grammar", pos, start) end
        v = v * 16 + d
        pos = pos + 1
      end
      return v
    end
    while true do
      if pos >= n then fail("grammar", n, start) end
      local c = at(pos)
      if c == 0x22 then
        pos = pos + 1
        return table.concat(parts), start
      elseif c == 0x5C then
        pos = pos + 1
        if pos >= n then fail("grammar", n, start) end
        local e = at(pos)
        if ESCAPES[e] then
          parts[#parts + 1] = ESCAPES[e]
          pos = pos + 1
        elseif e == 0x75 then
          pos = pos + 1
          local cp = hex4(0xDC00, 0xDFFF, true) -- anything but a low surrogate
          if cp >= 0xD800 and cp <= 0xDBFF then
            -- A high surrogate: "\u" and a low one must follow.
            if pos >= n then fail("grammar", n, start) end
            if at(pos) ~= 0x5C then fail("grammar", pos, start) end
            pos = pos + 1
            if pos >= n then fail("grammar", n, start) end
            if at(pos) ~= 0x75 then fail("grammar", pos, start) end
            pos = pos + 1
            local low = hex4(0xDC00, 0xDFFF, false)
            cp = 0x10000 + (cp - 0xD800) * 0x400 + (low - 0xDC00)
          end
          parts[#parts + 1] = utf8(cp)
        else
          fail("grammar", pos, start)
        end
      elseif c < 0x20 then
        fail("grammar", pos, start)
      elseif c < 0x80 then
        local j = pos
        while j < n do
          local d = at(j)
          if d == 0x22 or d == 0x5C or d < 0x20 or d >= 0x80 then break end
          j = j + 1
        end
        parts[#parts + 1] = sub(text, pos + 1, j)
        pos = j
      else
        local more, lo, hi = utf8_lead(c)
        if not more then fail("grammar", pos, start) end
        for k = 1, more do
          local i = pos + k
          if i >= n then fail("grammar", n, start) end
          local d = at(i)
          local a, b = 0x80, 0xBF
          if k == 1 then a, b = lo, hi end
          if d < a or d > b then fail("grammar", i, start) end
        end
        parts[#parts + 1] = sub(text, pos + 1, pos + more + 1)
        pos = pos + more + 1
      end
    end
  end

  local function digits(start)
    local j = pos
    while pos < n do
      local c = at(pos)
      if c < 0x30 or c > 0x39 then break end
      pos = pos + 1
    end
    if pos == j then fail("grammar", pos < n and pos or n, start) end
  end

  local function number_value()
    local start = pos
    if at(pos) == 0x2D then pos = pos + 1 end
    if pos >= n then fail("grammar", n, start) end
    if at(pos) == 0x30 then
      pos = pos + 1
    else
      digits(start)
    end
    local integer = true
    if pos < n and at(pos) == 0x2E then
      integer = false
      pos = pos + 1
      digits(start)
    end
    local c = at(pos)
    if c == 0x65 or c == 0x45 then
      integer = false
      pos = pos + 1
      c = at(pos)
      if c == 0x2B or c == 0x2D then pos = pos + 1 end
      digits(start)
    end
    tok_start, tok_end = start, pos
    -- A number runs to the next delimiter: "1R" is an invalid number, not
    -- an out-of-range one.
    if pos < n and not DELIMITERS[at(pos)] then fail("grammar", pos, start) end
    local raw = sub(text, start + 1, pos)
    local v = tonumber(raw) or huge_exponent(raw)
    if ijson then
      local out
      if integer then
        local d = raw:gsub("^%-", "")
        out = #d > #IJSON_INT or (#d == #IJSON_INT and d > IJSON_INT)
      else
        out = v == 1 / 0 or v == -1 / 0
      end
      if out then fail("range", start, start) end
    end
    return { t = "number", v = v, raw = raw, integer = integer, len = #raw }
  end

  local LITERALS = { [0x74] = { "true", "boolean", true }, [0x66] = { "false", "boolean", false },
    [0x6E] = { "null", "null" } }

  local value
  local function container(close, depth)
    local start = pos
    if depth > max_depth then fail("deep", pos, pos) end
    pos = pos + 1
    local node
    if close == 0x7D then
      node = { t = "object", keys = {}, vals = {} }
    else
      node = { t = "array", items = {} }
    end
    skip_ws()
    if pos < n and at(pos) == close then
      pos = pos + 1
      node.len = pos - start
      return node
    end
    local seen = {}
    while true do
      skip_ws()
      if pos >= n then fail("grammar", n) end
      if close == 0x7D then
        if at(pos) ~= 0x22 then fail("grammar", pos) end
        local key, key_at = string_value()
        if seen[key] then dups[#dups + 1] = key_at end
        seen[key] = true
        skip_ws()
        if pos >= n then fail("grammar", n) end
        if at(pos) ~= 0x3A then fail("grammar", pos) end
        pos = pos + 1
        node.keys[#node.keys + 1] = key
        node.vals[#node.vals + 1] = value(depth)
      else
        node.items[#node.items + 1] = value(depth)
      end
      skip_ws()
      if pos >= n then fail("grammar", n) end
      local c = at(pos)
      pos = pos + 1
      if c == close then
        node.len = pos - start
        return node
      elseif c ~= 0x2C then
        fail("grammar", pos - 1)
      end
    end
  end

  value = function(depth)
    skip_ws()
    if pos >= n then fail("grammar", n) end
    local c = at(pos)
    if c == 0x7B then return container(0x7D, depth + 1) end
    if c == 0x5B then return container(0x5D, depth + 1) end
    if c == 0x22 then
      local start = pos
      local s = string_value()
      tok_start, tok_end = start, pos
      return { t = "string", v = s, raw = sub(text, start + 1, pos), len = pos - start }
    end
    if c == 0x2D or (c >= 0x30 and c <= 0x39) then return number_value() end
    local lit = LITERALS[c]
    if not lit then fail("grammar", pos) end
    local start, word = pos, lit[1]
    for k = 1, #word do
      if pos >= n then fail("grammar", n, start) end
      if at(pos) ~= byte(word, k) then fail("grammar", pos, start) end
      pos = pos + 1
    end
    tok_start, tok_end = start, pos
    return { t = lit[2], v = lit[3], raw = word, len = #word }
  end

  local ok, res = pcall(function()
    skip_ws()
    if pos >= n then fail("empty", n) end
    local v = value(0)
    skip_ws()
    if pos < n then fail("grammar", pos) end
    return v
  end)
  if not ok then
    if type(res) ~= "table" then error(res, 0) end
    return nil, res
  end
  if reject_dups and #dups > 0 then
    return nil, { kind = "duplicate", dups = dups }
  end
  return res
end

-- Node lookups with qjson's semantics: the last of repeated keys wins.
function M.member(node, key)
  if node.t ~= "object" then return nil end
  for i = #node.keys, 1, -1 do
    if node.keys[i] == key then return node.vals[i] end
  end
  return nil
end

-- Each key once, in order of first appearance, with its last value.
function M.unique(node)
  local order, seen = {}, {}
  for _, k in ipairs(node.keys) do
    if not seen[k] then
      seen[k] = true
      order[#order + 1] = k
    end
  end
  return order
end

function M.count(node)
  if node.t == "object" then return #node.keys end
  if node.t == "array" then return #node.items end
  return nil
end

-- RFC 6901 array index: "0" or digits without a leading zero, within
-- 64 bits (past 2^53 the Lua number is inexact, but no array is that long).
local function array_index(tok)
  if tok:match("^0$") or (tok:match("^[1-9]%d*$")
      and (#tok < 20 or (#tok == 20 and tok <= "18446744073709551615"))) then
    return tonumber(tok)
  end
  return nil
end

-- Splits a path string as docs/api.md describes; nil and the offset of
-- the problem for a malformed one. Segments: { "key", k }, { "index", i }
-- and { "token", t } (a pointer token: key or index).
function M.parse_path(p)
  local segs = {}
  if p == "" then return segs end
  if sub(p, 1, 1) == "/" then
    local i = 1
    while i <= #p do
      local j = p:find("/", i + 1, true) or #p + 1
      local raw = sub(p, i + 1, j - 1)
      local k, tok = 1, {}
      while k <= #raw do
        local c = sub(raw, k, k)
        if c == "~" then
          local d = sub(raw, k + 1, k + 1)
          if d == "0" then tok[#tok + 1] = "~"
          elseif d == "1" then tok[#tok + 1] = "/"
          else return nil, i + k - 1 end
          k = k + 2
        else
          tok[#tok + 1] = c
          k = k + 1
        end
      end
      segs[#segs + 1] = { "token", table.concat(tok) }
      i = j
    end
    return segs
  end
  -- Dotted: keys, "[i]" indexes, "." between; the offset of a problem
  -- is where the parse stood, as qjson reports it.
  local i = 1
  while i <= #p do
    if sub(p, i, i) == "[" then
      local close = p:find("]", i, true)
      if not close then return nil, i - 1 end
      local idx = array_index(sub(p, i + 1, close - 1))
      if not idx then return nil, i end
      segs[#segs + 1] = { "index", idx }
      i = close + 1
    else
      local j = i
      while j <= #p and not sub(p, j, j):find("[%.%[%]]") do j = j + 1 end
      if j == i then return nil, i - 1 end
      segs[#segs + 1] = { "key", sub(p, i, j - 1) }
      i = j
    end
    local d = sub(p, i, i)
    if d == "." and i < #p then
      i = i + 1
    elseif d ~= "" and d ~= "[" then
      return nil, i - 1
    end
  end
  return segs
end

-- The node a path's segments lead to from `node`, or nil.
function M.resolve(node, segs)
  for _, s in ipairs(segs) do
    if node == nil then return nil end
    local kind, v = s[1], s[2]
    if kind == "key" then
      node = M.member(node, v)
    elseif kind == "index" then
      node = node.t == "array" and node.items[v + 1] or nil
    elseif node.t == "object" then
      node = M.member(node, v)
    elseif node.t == "array" then
      local idx = array_index(v)
      node = idx and node.items[idx + 1] or nil
    else
      node = nil
    end
  end
  return node
end

-- Whether two trees are the same JSON text up to whitespace: same
-- members in the same order, scalars with the same bytes.
function M.same(a, b)
  if a.t ~= b.t then return false end
  if a.t == "object" then
    if #a.keys ~= #b.keys then return false end
    for i = 1, #a.keys do
      if a.keys[i] ~= b.keys[i] or not M.same(a.vals[i], b.vals[i]) then return false end
    end
    return true
  elseif a.t == "array" then
    if #a.items ~= #b.items then return false end
    for i = 1, #a.items do
      if not M.same(a.items[i], b.items[i]) then return false end
    end
    return true
  end
  return a.raw == b.raw
end

-- The tree as lua-cjson's decode would build it (last value of a
-- repeated key), with `null` for JSON null.
function M.plain(node, null)
  if node.t == "object" then
    local t = {}
    for i = 1, #node.keys do t[node.keys[i]] = M.plain(node.vals[i], null) end
    return t
  elseif node.t == "array" then
    local t = {}
    for i = 1, #node.items do t[i] = M.plain(node.items[i], null) end
    return t
  elseif node.t == "null" then
    return null
  end
  return node.v
end

return M
