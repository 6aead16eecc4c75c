-- Per-call encode options, the table of `qjson.encode(v, opts)`:
-- checked, and combined with the instance's settings
-- (qjson.encode.settings) into what one call uses. Every option is off by default, so the output is lua-cjson's.
local strings = require("qjson.encode.string")

local type, next, tostring, floor, rep = type, next, tostring, math.floor, string.rep

local M = {}

-- (A number or string as itself, anything else by its type.)
local describe = require("qjson.parse.options").describe

local function bad(name, want, got)
  return ("bad option '%s' (%s expected, got %s)"):format(name, want, describe(got))
end

local function boolean(opts, name)
  local v = opts[name]
  if v ~= nil and type(v) ~= "boolean" then
    return nil, bad(name, "boolean", v)
  end
  return v
end

local FLAG_OPTIONS = {
  ascii = strings.ASCII, html_safe = strings.HTML_SAFE, validate_utf8 = strings.VALIDATE_UTF8,
}

local KNOWN = {
  indent = true, sort_keys = true, escape_slash = true, ascii = true,
  html_safe = true, precision = true, validate_utf8 = true,
}

-- Returns precision (0 = shortest), string flags, indent unit (nil for
-- compact output) and sort_keys for settings `s` and `opts`; or nil and a
-- message.
function M.resolve(s, opts)
  local slash = s.escape_slash
  if opts == nil then
    return s.precision, slash and strings.ESCAPE_SLASH or 0, s.indent, false
  end
  if type(opts) ~= "table" then
    return nil, "bad options (table expected, got " .. type(opts) .. ")"
  end
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local k = next(opts)
  while k ~= nil do
    if not KNOWN[k] then
      return nil, "unknown option '" .. tostring(k) .. "'"
    end
    k = next(opts, k)
  end

  local precision = s.precision
  local p = opts.precision
  if p == "shortest" then
    precision = 0
  elseif p ~= nil then
    if type(p) ~= "number" or p < 1 or p > 17 or floor(p) ~= p then
      return nil, bad("precision", 'integer from 1 to 17 or "shortest"', p)
    end
    precision = p
  end

  local indent = opts.indent
  if indent == nil then
    indent = s.indent -- encode_indent's
  else
    if type(indent) == "number" then
      if indent < 0 or indent > 64 or floor(indent) ~= indent then
        return nil, bad("indent", "0 to 64 spaces or a string", indent)
      end
      indent = rep(" ", indent)
    elseif type(indent) ~= "string" then
      return nil, bad("indent", "number or string", indent)
    elseif indent:find("[^ \t\n\r]") then
      -- Anything else between tokens would not be JSON.
      return nil, bad("indent", "a string of JSON whitespace (space, tab, CR, LF)", indent)
    end
  end

  local flags = 0
  local v, err = boolean(opts, "escape_slash")
  if err then
    return nil, err
  end
  if v == nil then
    v = slash
  end
  if v then
    flags = flags + strings.ESCAPE_SLASH
  end
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local name, bit = next(FLAG_OPTIONS)
  while name ~= nil do
    v, err = boolean(opts, name)
    if err then
      return nil, err
    end
    if v then
      flags = flags + bit
    end
    name, bit = next(FLAG_OPTIONS, name)
  end

  local sort
  sort, err = boolean(opts, "sort_keys")
  if err then
    return nil, err
  end
  return precision, flags, indent, sort or false
end

return M
