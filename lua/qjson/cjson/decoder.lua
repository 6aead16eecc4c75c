-- qjson.cjson.decoder: a port of OpenResty's lua-cjson 2.1.0.17 decoder
-- (lua_cjson.c, json_decode and what it calls), statement for statement,
-- so that it accepts what lua-cjson accepts, builds the same values and
-- raises the same messages at the same character positions. qjson.cjson
-- runs it when qjson's strict parser rejects a text (lua-cjson accepts
-- more: bytes that are not UTF-8, control bytes, NaN, hex, comments...)
-- to give lua-cjson's answer, value or message. Numbers are read by the C
-- library's strtoll and strtod, as lua-cjson reads them.
--
-- lua-cjson reads the text as a C string: a NUL byte ends it (the text
-- after it is never read). Lua strings end with a NUL too, so reading one
-- byte past the end, as the C code does, is safe here.
local ffi = require("ffi")

local cdefs = {
  "long long strtoll(const char *nptr, char **endptr, int base);",
  "double strtod(const char *nptr, char **endptr);",
  "typedef struct __locale_struct *locale_t;",
  "locale_t newlocale(int category_mask, const char *locale, locale_t base);",
  "double strtod_l(const char *nptr, char **endptr, locale_t loc);",
  "size_t strcspn(const char *s, const char *reject);",
  "size_t strspn(const char *s, const char *accept);",
}
for _, d in ipairs(cdefs) do
  pcall(ffi.cdef, d) -- (already declared by another module: fine)
end
local C = ffi.C

local cast, tonumber, setmetatable, error, format = ffi.cast, tonumber, setmetatable, error, string.format
local sub, lower, concat, char = string.sub, string.lower, table.concat, string.char
local band, bor, lshift, rshift = bit.band, bit.bor, bit.lshift, bit.rshift

-- lua-cjson reads numbers with the C locale's decimal point (its fpconv
-- swaps in the locale's); strtod_l with a "C" locale does the same
-- whatever the process locale.
local strtod
do
  local ok, c_locale = pcall(function()
    return C.newlocale(8127, "C", nil) -- LC_ALL_MASK (glibc)
  end)
  if ok and c_locale ~= nil and pcall(function() return C.strtod_l end) then
    strtod = function(p, endp)
      return C.strtod_l(p, endp, c_locale)
    end
  else
    strtod = C.strtod
  end
end

local M = {}

-- Token types, in lua-cjson's order (json_token_type_name).
local T_OBJ_BEGIN, T_OBJ_END, T_ARR_BEGIN, T_ARR_END, T_STRING, T_NUMBER, T_INTEGER = 1, 2, 3, 4, 5, 6, 7
local T_BOOLEAN, T_NULL, T_COLON, T_COMMA, T_END, T_WHITESPACE, T_ERROR, T_UNKNOWN = 8, 9, 10, 11, 12, 13, 14, 15
local TOKEN_NAME = {
  "T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER", "T_INTEGER",
  "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

-- ch2token and escape2char of json_create_config.
local ch2token, escape2char = {}, {}
for i = 0, 255 do
  ch2token[i], escape2char[i] = T_ERROR, false
end
for c, t in pairs({
  ["{"] = T_OBJ_BEGIN, ["}"] = T_OBJ_END, ["["] = T_ARR_BEGIN, ["]"] = T_ARR_END,
  [","] = T_COMMA, [":"] = T_COLON, ["\0"] = T_END,
  [" "] = T_WHITESPACE, ["\t"] = T_WHITESPACE, ["\n"] = T_WHITESPACE, ["\r"] = T_WHITESPACE,
}) do
  ch2token[c:byte()] = t
end
for c in ("fiInNt\"+-0123456789"):gmatch(".") do
  ch2token[c:byte()] = T_UNKNOWN
end
for c, v in pairs({
  ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", t = "\t", n = "\n", f = "\f", r = "\r", u = "u",
}) do
  escape2char[c:byte()] = v
end

-- lua_checkstack's limit in LuaJIT (LUAI_MAXCSTACK): lua-cjson's decoder
-- fails past it with its nesting message whatever decode_max_depth says.
local MAXCSTACK = 8000

local u8p, charp = ffi.typeof("const uint8_t *"), ffi.typeof("const char *")
local QUOTE_BACKSLASH = '"\\' -- (a quote and a backslash)
local WHITESPACE = " \t\n\r" -- (ch2token's T_WHITESPACE)
local endp_t = ffi.typeof("char *[1]")

local function hexdigit(b)
  if b >= 48 and b <= 57 then
    return b - 48
  end
  b = bor(b, 0x20)
  if b >= 97 and b <= 102 then
    return b - 87
  end
  return -1
end

-- decode_hex4 at p[i..i+3]: the code unit, or -1.
local function hex4(p, i)
  local v = 0
  for k = 0, 3 do
    local d = hexdigit(p[i + k]) -- stops at the NUL ending the text
    if d < 0 then
      return -1
    end
    v = v * 16 + d
  end
  return v
end

local function utf8(cp)
  if cp <= 0x7F then
    return char(cp)
  elseif cp <= 0x7FF then
    return char(bor(rshift(cp, 6), 0xC0), bor(band(cp, 0x3F), 0x80))
  elseif cp <= 0xFFFF then
    return char(bor(rshift(cp, 12), 0xE0), bor(band(rshift(cp, 6), 0x3F), 0x80), bor(band(cp, 0x3F), 0x80))
  end
  return char(bor(rshift(cp, 18), 0xF0), bor(band(rshift(cp, 12), 0x3F), 0x80),
    bor(band(rshift(cp, 6), 0x3F), 0x80), bor(band(cp, 0x3F), 0x80))
end

-- The decoder state of one call (a decode never yields, so one is enough;
-- a nested decode from a finalizer saves and restores it). `endp` is the
-- call's own strtod/strtoll out-parameter: a finalizer's decode may run
-- between a call and the read of its box (the boxed int64 result allocates).
local s, p, pos, cfg, endp

-- json_append_unicode_escape at pos (a backslash): the UTF-8 text and the
-- escape's length, or nil.
local function unicode_escape()
  local cp = hex4(p, pos + 2)
  if cp < 0 then
    return nil
  end
  local len = 6
  if band(cp, 0xF800) == 0xD800 then
    if band(cp, 0x400) ~= 0 then
      return nil
    end
    if p[pos + 6] ~= 92 or p[pos + 7] ~= 117 then -- "\u"
      return nil
    end
    local low = hex4(p, pos + 8)
    if low < 0 or band(low, 0xFC00) ~= 0xDC00 then
      return nil
    end
    cp = bor(lshift(band(cp, 0x3FF), 10), band(low, 0x3FF)) + 0x10000
    len = 12
  end
  return utf8(cp), len
end

-- json_next_string_token, pos at the opening quote: T_STRING and the
-- string, or T_ERROR, the position and the message.
local function string_token()
  pos = pos + 1
  local parts, n, from = nil, 0, pos
  while true do
    -- The next quote, backslash or NUL (strcspn stops at the NUL ending
    -- the text, as lua-cjson's loop does).
    pos = pos + tonumber(C.strcspn(cast(charp, p) + pos, QUOTE_BACKSLASH))
    local c = p[pos]
    if c == 34 then -- '"'
      break
    end
    if c == 0 then
      return T_ERROR, pos, "unexpected end of string"
    end
    if c == 92 then -- '\\'
      local e = escape2char[p[pos + 1]]
      if not e then
        return T_ERROR, pos, "invalid escape code"
      end
      parts = parts or {}
      n = n + 1
      parts[n] = sub(s, from + 1, pos)
      if e == "u" then
        local text, len = unicode_escape()
        if not text then
          return T_ERROR, pos, "invalid unicode escape code"
        end
        n = n + 1
        parts[n] = text
        pos = pos + len
      else
        n = n + 1
        parts[n] = e
        pos = pos + 2
      end
      from = pos
    end
  end
  local str = sub(s, from + 1, pos)
  pos = pos + 1
  if parts then
    n = n + 1
    parts[n] = str
    str = concat(parts, "", 1, n)
  end
  return T_STRING, nil, str
end

-- json_is_invalid_number at pos (bytes compared as C's signed chars).
local function is_invalid_number()
  local i = pos
  local c = p[i]
  if c == 43 then -- '+'
    return true
  end
  if c == 45 then -- '-'
    i = i + 1
    c = p[i]
  end
  if c == 48 then -- '0'
    local c2 = p[i + 1]
    return bor(c2, 0x20) == 120 or (c2 >= 48 and c2 <= 57)
  elseif c <= 57 or c >= 128 then
    return false
  end
  local word = lower(sub(s, i + 1, i + 3))
  return word == "inf" or word == "nan"
end

-- json_next_number_token: strtoll, and strtod when the text goes on with
-- a point, an exponent or an x (or strtoll read nothing).
local function number_token()
  local at = cast("const char *", p) + pos
  local v = C.strtoll(at, endp, 10)
  local stop = ffi.cast(u8p, endp[0]) - p
  local c = p[stop]
  if stop == pos or c == 46 or c == 101 or c == 69 or c == 120 then
    local d = strtod(at, endp)
    stop = ffi.cast(u8p, endp[0]) - p
    if stop == pos then
      return T_ERROR, pos, "invalid number"
    end
    pos = stop
    return T_NUMBER, nil, d
  end
  pos = stop
  return T_INTEGER, nil, tonumber(v)
end

-- json_next_token: the type, the position of an error or of the token,
-- and the value (a string, number or boolean; the message of an error).
local function next_token()
  local t
  while true do
    t = ch2token[p[pos]]
    if t == T_WHITESPACE then
      pos = pos + tonumber(C.strspn(cast(charp, p) + pos, WHITESPACE))
      t = ch2token[p[pos]]
    end
    if not cfg.allow_comment then
      break
    end
    if p[pos] ~= 47 or (p[pos + 1] ~= 47 and p[pos + 1] ~= 42) then -- "//", "/*"
      break
    end
    if p[pos + 1] == 47 then
      pos = pos + 2
      while p[pos] ~= 0 and p[pos] ~= 10 do
        pos = pos + 1
      end
    else
      pos = pos + 2
      while true do
        if p[pos] == 0 then
          return T_ERROR, pos, "unclosed multi-line comment"
        end
        if p[pos] == 42 and p[pos + 1] == 47 then
          pos = pos + 2
          break
        end
        pos = pos + 1
      end
    end
  end
  local at = pos
  if t == T_ERROR then
    return T_ERROR, at, "invalid token"
  elseif t == T_END then
    return T_END, at
  elseif t ~= T_UNKNOWN then
    pos = pos + 1
    return t, at
  end
  local c = p[pos]
  local tt, epos, v
  if c == 34 then
    tt, epos, v = string_token()
  elseif c == 45 or (c >= 48 and c <= 57) then
    if not cfg.invalid_numbers and is_invalid_number() then
      return T_ERROR, pos, "invalid number"
    end
    tt, epos, v = number_token()
  elseif c == 116 and p[pos + 1] == 114 and p[pos + 2] == 117 and p[pos + 3] == 101 then -- strncmp "true"
    pos = pos + 4
    return T_BOOLEAN, at, true
  elseif c == 102 and p[pos + 1] == 97 and p[pos + 2] == 108 and p[pos + 3] == 115 and p[pos + 4] == 101 then
    pos = pos + 5
    return T_BOOLEAN, at, false
  elseif c == 110 and p[pos + 1] == 117 and p[pos + 2] == 108 and p[pos + 3] == 108 then
    pos = pos + 4
    return T_NULL, at
  elseif cfg.invalid_numbers and is_invalid_number() then
    tt, epos, v = number_token()
  else
    return T_ERROR, pos, "invalid token"
  end
  return tt, epos or at, v
end

-- json_throw_parse_error.
local function parse_error(expected, t, at, v)
  local found = t == T_ERROR and v or TOKEN_NAME[t]
  error(format("Expected %s but found %s at character %d", expected, found, at + 1), 0)
end

-- An object member's key (token `t`) and its colon: the key, and the
-- token after the colon.
local function member_key(t, at, v)
  if t ~= T_STRING then
    parse_error("object key string", t, at, v)
  end
  local key = v
  t, at, v = next_token()
  if t ~= T_COLON then
    parse_error("colon", t, at, v)
  end
  t, at, v = next_token()
  return key, t, at, v
end

local function decode(text, settings)
  local len = #text
  if len >= 2 then
    local a, b = text:byte(1, 2)
    if a == 0 or b == 0 then
      error("JSON parser does not support UTF-16 or UTF-32", 0)
    end
  end
  s, p, pos, cfg, endp = text, cast(u8p, text), 0, settings, endp_t()
  local max_depth, array_mt, null = settings.max_depth, settings.array_mt, settings.null
  -- Open containers: frames[d] the table, keys[d] the pending key of an
  -- object (nil for an array), index[d] the next array index.
  local frames, keys, index = {}, {}, {}
  local depth, used = 0, 1 -- lua-cjson's Lua stack: the text, then per level
  local t, at, v = next_token()
  local value
  while true do
    -- json_process_value
    if t == T_OBJ_BEGIN or t == T_ARR_BEGIN then
      local object = t == T_OBJ_BEGIN
      depth = depth + 1
      if depth > max_depth or used + (object and 3 or 2) > MAXCSTACK then
        error(format("Found too many nested data structures (%d) at character %d", depth, pos), 0)
      end
      local tbl = {}
      if not object and array_mt then
        setmetatable(tbl, array_mt)
      end
      t, at, v = next_token()
      if t == (object and T_OBJ_END or T_ARR_END) then
        depth = depth - 1
        value = tbl
      else
        frames[depth] = tbl
        if object then
          keys[depth], t, at, v = member_key(t, at, v)
          used = used + 2
        else
          keys[depth] = nil
          index[depth] = 1
          used = used + 1
        end
        goto continue -- the first member's value
      end
    elseif t == T_STRING or t == T_NUMBER or t == T_INTEGER or t == T_BOOLEAN then
      value = v
    elseif t == T_NULL then
      value = null
    else
      parse_error("value", t, at, v)
    end
    -- A value is complete: store it into its container, and close every
    -- container that ends after it.
    while depth > 0 do
      local tbl, key = frames[depth], keys[depth]
      if key ~= nil then
        tbl[key] = value
        t, at, v = next_token()
        if t == T_OBJ_END then
          frames[depth], keys[depth] = nil, nil
          depth, used, value = depth - 1, used - 2, tbl
        else
          if t ~= T_COMMA then
            parse_error("comma or object end", t, at, v)
          end
          keys[depth], t, at, v = member_key(next_token())
          goto continue
        end
      else
        local i = index[depth]
        tbl[i] = value
        t, at, v = next_token()
        if t == T_ARR_END then
          frames[depth] = nil
          depth, used, value = depth - 1, used - 1, tbl
        else
          if t ~= T_COMMA then
            parse_error("comma or array end", t, at, v)
          end
          index[depth] = i + 1
          t, at, v = next_token()
          goto continue
        end
      end
    end
    do
      break
    end
    ::continue::
  end
  t, at, v = next_token()
  if t ~= T_END then
    parse_error("the end", t, at, v)
  end
  return value
end

-- The value lua-cjson's decode gives for `text` (a string), or raises
-- its message. `settings`: max_depth, allow_comment, invalid_numbers,
-- array_mt (set on every array, or nil), null.
function M.decode(text, settings)
  local saved_s, saved_p, saved_pos, saved_cfg, saved_endp = s, p, pos, cfg, endp
  local ok, v = pcall(decode, text, settings)
  s, p, pos, cfg, endp = saved_s, saved_p, saved_pos, saved_cfg, saved_endp
  if not ok then
    error(v, 0)
  end
  return v
end

return M
