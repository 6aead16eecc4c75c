-- Output that holds bytes copied from views (their untouched parts):
-- escaped as the call's string flags ask, and, when some came from a
-- document parsed in lazy mode (whose bytes were never checked), checked
-- as strict JSON. In JSON text, bytes above 0x7F and `<`, `>`, `&` occur
-- only inside strings, so they are escaped wherever they are; what the
-- encoder escaped itself has none left. See docs/encoding.md.
local strings = require("qjson.encode.string")

local band, rshift, bor, lshift = require("bit").band, require("bit").rshift, require("bit").bor, require("bit").lshift
local byte, format, gsub, error, max = string.byte, string.format, string.gsub, error, math.max

local M = {}

local HTML = { ["<"] = "\\u003c", [">"] = "\\u003e", ["&"] = "\\u0026" }

local function invalid()
  error("Cannot serialise string: invalid UTF-8 in text copied from a view", 0)
end

-- One UTF-8 sequence as \uXXXX (two for a code point past U+FFFF).
local function to_ascii(seq)
  local n = #seq
  local c = byte(seq, 1)
  local cp
  if n == 2 and c >= 0xC2 and c <= 0xDF then
    cp = band(c, 0x1F)
  elseif n == 3 and c >= 0xE0 and c <= 0xEF then
    cp = band(c, 0x0F)
  elseif n == 4 and c >= 0xF0 and c <= 0xF4 then
    cp = band(c, 0x07)
  else
    invalid()
  end
  for i = 2, n do
    cp = bor(lshift(cp, 6), band(byte(seq, i), 0x3F))
  end
  if (n == 3 and (cp < 0x800 or (cp >= 0xD800 and cp <= 0xDFFF))) or (n == 4 and (cp < 0x10000 or cp > 0x10FFFF)) then
    invalid()
  end
  if cp < 0x10000 then
    return format("\\u%04x", cp)
  end
  cp = cp - 0x10000
  return format("\\u%04x\\u%04x", 0xD800 + rshift(cp, 10), 0xDC00 + band(cp, 0x3FF))
end

local SEPARATORS = { ["\226\128\168"] = "\\u2028", ["\226\128\169"] = "\\u2029" }

-- Checks `out` as strict JSON (raises with the parser's message).
local function check(out, invalid_numbers, max_depth)
  local options, parse = require("qjson.parse.options"), require("qjson.parse")
  local o, err = options.pack({ invalid_numbers = invalid_numbers or nil, max_depth = max(max_depth, 1000) })
  if o == nil then
    error("qjson: " .. err, 0)
  end
  local h, msg = parse.open(out, o)
  if h == nil then
    error("Cannot serialise view: invalid JSON copied from a document parsed in lazy mode: " .. msg, 0)
  end
end

-- `out` escaped per `flags` (see qjson.encode.string); checked first when
-- `lazy` (settings `invalid_numbers`, `max_depth` of the encode).
function M.fix(out, flags, lazy, invalid_numbers, max_depth)
  if lazy then
    check(out, invalid_numbers, max_depth)
  end
  if band(flags, strings.ASCII) ~= 0 then
    out = gsub(out, "[\128-\255][\128-\191]*", to_ascii)
  elseif band(flags, strings.HTML_SAFE) ~= 0 then
    out = gsub(out, "\226\128[\168\169]", SEPARATORS)
  end
  if band(flags, strings.HTML_SAFE) ~= 0 then
    out = gsub(out, "[<>&]", HTML)
  end
  return out
end

return M
