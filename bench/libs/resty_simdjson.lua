-- Kong's lua-resty-simdjson (simdjson's tape, then an eager Lua table),
-- when it is installed (it is not packaged in Debian). Outside nginx it
-- gets what OpenResty would give it: `ngx.null` (lua-cjson's null, which
-- is OpenResty's ngx.null too), resty.core.base's error-message box, and
-- the `array_mt`, `empty_array_mt` and `empty_array` of OpenResty's
-- lua-cjson, which Debian's lua-cjson 2.1.0 lacks and its encoder reads to
-- tell arrays from objects (qjson's: the values qjson takes from
-- OpenResty's lua-cjson).
local ffi = require("ffi")
local jobs = require("jobs")
local table_readers = require("libs.tables")

local function simdjson_parser()
  if rawget(_G, "ngx") == nil then
    _G.ngx = { null = require("cjson").null, sleep = function() end }
  end
  if not pcall(require, "resty.core.base") then
    local errmsg = ffi.new("char *[1]")
    package.loaded["resty.core.base"] = { get_errmsg_ptr = function() return errmsg end }
  end
  local cjson, qjson = require("cjson"), require("qjson")
  for _, k in ipairs({ "array_mt", "empty_array_mt", "empty_array" }) do
    if cjson[k] == nil then
      cjson[k] = qjson[k]
    end
  end
  return require("resty.simdjson").new()
end

local A = {
  note = "lua-resty-simdjson parser:decode + table reads; parser:encode",
  -- Encoding jobs too when this version has parser:encode (below).
  kinds = jobs.kinds(jobs.READ_KINDS),
  encode_check = "roundtrip",
}

function A.available()
  local ok, parser = pcall(simdjson_parser)
  if not ok then
    return false, "require(\"resty.simdjson\") failed: "
      .. tostring(parser):match("^[^\n]*"):gsub("^[^:]*:%d+: ", ""):gsub(":$", "")
  end
  if parser.encode then
    A.kinds = jobs.kinds(jobs.READ_KINDS, jobs.EDIT_KINDS, "encode")
  end
  return true
end

function A.load()
  local parser = simdjson_parser()
  local function decode(s)
    return parser:decode(s)
  end
  local r = table_readers(decode)
  r.mix = jobs.mix_reader(r.chat)
  if parser.encode then
    local function encode(t)
      return parser:encode(t)
    end
    r.encode = jobs.encoder(encode)
    jobs.edit_jobs(r, decode, encode)
  end
  return r
end

function A.version()
  local ok, m = pcall(require, "resty.simdjson")
  if not ok then
    return "?"
  end
  -- (Not every version has _VERSION: then where it was loaded from.)
  return tostring(m._VERSION or package.searchpath("resty.simdjson", package.path) or "installed")
end

return A
