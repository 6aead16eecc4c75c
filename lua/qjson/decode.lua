-- qjson.decode: lua-cjson's decode, lazily (a view for an object or
-- array, qjson.view), with an instance's decoder settings
-- (qjson.decode.settings) and per-call options; and materialize.
local options = require("qjson.parse.options")
local parse = require("qjson.parse")
local view = require("qjson.view")
local materialize = require("qjson.view.materialize")
local array_mt = require("qjson.markers").array_mt
local decode_settings = require("qjson.decode.settings")
local arg_message = require("qjson.base").arg_message

local type, error, next, setmetatable = type, error, next, setmetatable
local open = parse.open
local byte = string.byte

local M = {}

-- decode's own option, beside the parse options.
local BIG_INT = { cdata = true, string = true }

-- What decode returns with decode_views off: the view `v` made plain
-- tables (as qjson.materialize does), or the scalar `v`.
local function tables_of(ds, v)
  if type(v) == "table" and view.is_view(v) then
    return materialize(v, ds.array_with_array_mt and array_mt or nil)
  end
  return v
end

-- Decodes `s` with an instance's decoder settings `ds` (see
-- qjson.decode.settings) and per-call `opts`: returns the view or value, or
-- nil and a message plus whether it is about the caller's arguments.
local function decode_with(ds, s, opts)
  if opts ~= nil and type(opts) ~= "table" then
    return nil, arg_message(2, "decode", "bad options (table expected, got " .. type(opts) .. ")"), true
  end
  -- The settings are defaults the call's options override.
  local o = { max_depth = ds.max_depth, invalid_numbers = ds.invalid_numbers }
  local big
  local iterated = opts or o
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local k, v = next(iterated)
  while k ~= nil do
    if k == "big_int" then
      if not BIG_INT[v] then
        return nil, arg_message(2, "decode", "bad option 'big_int' (\"cdata\" or \"string\" expected, got "
          .. options.describe(v) .. ")"), true
      end
      big = v
    else
      o[k] = v
    end
    k, v = next(iterated, k)
  end
  local d, err, is_arg = parse.document(s, o, nil, "decode")
  if d == nil then
    return nil, err, is_arg
  end
  local root = view.decoded(d.ptr, d.src, nil, big, d.lazy, d.lenient)
  if not ds.views then
    return tables_of(ds, root)
  end
  return root
end

-- decode's form that does not raise for each instance `into` installed
-- (for qjson.safe): the view or value, or nil, a message and whether it
-- is about the caller's arguments.
M.protected = setmetatable({}, { __mode = "k" })

-- Installs decode, materialize and lua-cjson's decoder configuration
-- functions, bound to fresh settings, into `into` (qjson or an instance).
function M.install(into)
  local ds = decode_settings.defaults()
  -- Strict by default, unlike lua-cjson (docs/api.md): NaN, Infinity and
  -- hexadecimal numbers only with decode_invalid_numbers(true).
  ds.invalid_numbers = false
  decode_settings.install(into, ds)

  M.protected[into] = function(s, opts)
    return decode_with(ds, s, opts)
  end

  -- lua-cjson's decode, lazily: a view for an object or array (read it
  -- like the table cjson.decode builds; encode re-emits what was not
  -- changed as the original bytes), the value for a scalar.
  function into.decode(s, opts)
    if opts == nil and type(s) == "string" and ds.max_depth == options.DEFAULT_MAX_DEPTH
      and not ds.invalid_numbers then
      -- The common call, without the checks options need.
      local ptr, err = open(s, nil)
      if ptr == nil then
        error("qjson: " .. err, 0)
      end
      local v = view.decoded(ptr, s, byte(s, 1))
      if not ds.views then
        return tables_of(ds, v)
      end
      return v
    end
    local v, err, is_arg = decode_with(ds, s, opts)
    if v == nil and err ~= nil then
      error(err, is_arg and 2 or 0)
    end
    return v
  end

  -- Plain tables equal to cjson.decode's (arrays carry array_mt with
  -- decode_array_with_array_mt, else empty ones empty_array_mt).
  function into.materialize(v)
    return materialize(v, ds.array_with_array_mt and array_mt or nil)
  end

  return into
end

return M
