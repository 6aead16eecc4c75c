-- qjson.cjson: a drop-in for lua-cjson. decode builds plain Lua tables
-- (from qjson's parser, in one native call per document); encode is
-- qjson's encoder, which writes lua-cjson's bytes. Every configuration
-- function of OpenResty's lua-cjson is here, per instance.
--
--   package.loaded.cjson = require("qjson.cjson")
--
-- See docs/api.md ("qjson.cjson") for where it differs from lua-cjson.
local qjson = require("qjson")
local encoder = require("qjson.encode")
local decode_config = require("qjson.decode.config")
local tables = require("qjson.tables")

local select, type, error, pcall, require = select, type, error, pcall, require
local from_string, check_string = tables.from_string, tables.check_string

-- The name and version of the lua-cjson installed beside, when there is
-- one (the interface followed is that version's); else the upstream
-- release this module's interface matches.
local NAME, VERSION = "cjson", "2.1.0"
do
  local ok, real = pcall(require, "cjson")
  if ok and type(real) == "table" and real._VERSION then
    NAME, VERSION = real._NAME or NAME, real._VERSION
  end
end

local function new()
  local m = {
    _NAME = NAME,
    _VERSION = VERSION,
    -- lua-cjson's own values when it is installed (see qjson.encode).
    null = qjson.null,
    empty_array = qjson.empty_array,
    array_mt = qjson.array_mt,
    empty_array_mt = qjson.empty_array_mt,
    new = new,
  }
  encoder.install(m)
  -- The decoder's settings double as the builder's (qjson.tables).
  local s = decode_config.defaults()
  s.null = qjson.null
  decode_config.install(m, s)
  local array_mt = qjson.array_mt

  function m.decode(...)
    if select("#", ...) ~= 1 then
      error("bad argument #1 to 'decode' (expected 1 argument)", 2)
    end
    local str = ...
    if type(str) ~= "string" then
      str = check_string(str, "decode")
    end
    s.array_mt = s.array_with_array_mt and array_mt or nil
    return from_string(str, s)
  end

  return m
end

return new()
