-- qjson.cjson: a drop-in for OpenResty's lua-cjson 2.1.0.17. decode
-- builds plain Lua tables from qjson's strict parser (one native call per
-- document); a text that parser rejects is decoded again by a port of
-- lua-cjson's decoder (qjson.cjson.decoder), which gives lua-cjson's value
-- or message: lua-cjson accepts more than JSON (NaN, hex, bytes that are
-- not UTF-8, comments...). encode is qjson's encoder, which writes
-- lua-cjson's bytes. Every configuration function of OpenResty's
-- lua-cjson is here, per instance.
--
--   package.loaded.cjson = require("qjson.cjson")
--
-- See docs/migrating-from-cjson.md for what differs, and docs/api.md for
-- qjson_strict, the opt-in for qjson's stricter checks.
local markers = require("qjson.markers")
local encoder = require("qjson.encode")
local decode_settings = require("qjson.decode.settings")
local plain_tables = require("qjson.plain_tables")
local decoder = require("qjson.cjson.decoder")
local args = require("qjson.args")

local select, type, min = select, type, math.min
local from_string = plain_tables.from_string
local argerror, checkstring = args.argerror, args.checkstring
local port_decode = decoder.decode

-- What OpenResty's lua-cjson 2.1.0.17 reports (its C source was not
-- bumped past 2.1.0.11).
local NAME, VERSION = "cjson", "2.1.0.11"

-- The strict parser's depth limit: below every depth at which lua-cjson
-- runs out of Lua stack (see qjson.cjson.decoder), so what the strict
-- parser accepts lua-cjson accepts too; deeper texts go to the port.
local FAST_MAX_DEPTH = 3000

local function new()
  local m = {
    _NAME = NAME,
    _VERSION = VERSION,
    -- lua-cjson's own values when it is installed (qjson.markers).
    null = markers.null,
    empty_array = markers.empty_array,
    array_mt = markers.array_mt,
    empty_array_mt = markers.empty_array_mt,
    new = new,
  }
  encoder.install(m, true)
  local s = decode_settings.defaults()
  s.null = markers.null
  decode_settings.install(m, s, true)
  local array_mt = markers.array_mt
  -- The strict parser's settings: lua-cjson's integers, no invalid
  -- numbers (the port reads those as strtod does).
  local fast = { null = markers.null, invalid_numbers = false, cjson_integers = true }

  -- A text the strict parser rejected: lua-cjson's answer.
  local function fallback(str)
    s.array_mt = fast.array_mt
    return port_decode(str, s)
  end

  -- qjson_strict(on): qjson's own checks and messages (nothing beyond
  -- JSON, messages with line and column); off: lua-cjson's behaviour.
  local strict = false
  function m.qjson_strict(...)
    args.too_many(1, 1, ...)
    strict = args.enum_option(1, (...), args.ON_OFF, args.ON_OFF_VALUES, strict)
    return strict
  end

  function m.decode(...)
    if select("#", ...) ~= 1 then
      argerror(1, 1, "expected 1 argument")
    end
    local str = ...
    if type(str) ~= "string" then
      str = checkstring(1, 1, str)
    end
    local amt = s.array_with_array_mt and array_mt or nil
    if strict then
      s.array_mt = amt
      return from_string(str, s)
    end
    fast.array_mt = amt
    fast.max_depth = min(s.max_depth, FAST_MAX_DEPTH)
    return from_string(str, fast, fallback)
  end

  return m
end

return new()
