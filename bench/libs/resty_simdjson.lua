-- Kong's lua-resty-simdjson (simdjson's tape, then an eager Lua table).
-- Found as the lua-cjson baseline is: first the one tools/resty-simdjson.sh
-- builds from ../shared/vendor/lua-resty-simdjson into .deps/ (its Lua part
-- loaded from the vendor's lib/), else an installed one (on LUA_PATH and
-- LUA_CPATH); skipped, with the reason, when neither loads.
--
-- Outside nginx it gets what OpenResty would give it: `ngx.null`
-- (lua-cjson's null, which is OpenResty's ngx.null too), resty.core.base's
-- error-message box, and the `array_mt`, `empty_array_mt` and `empty_array`
-- of OpenResty's lua-cjson, which Debian's lua-cjson 2.1.0 lacks and its
-- encoder reads to tell arrays from objects (qjson's: the values qjson
-- takes from OpenResty's lua-cjson).
local ffi = require("ffi")
local jobs = require("jobs")
local table_readers = require("libs.tables")

local ROOT = (debug.getinfo(1, "S").source:match("^@(.*)/bench/libs/[^/]*$")) or "."
local VENDOR_NOTE = "built from ../shared/vendor/lua-resty-simdjson"

-- tools/resty-simdjson.sh's build: { so = folder of libsimdjson_ffi.so,
-- lua = the vendor's lib/ }, or nil and why not (its message), made once.
local build, build_why
local function vendored()
  if build or build_why then
    return build, build_why
  end
  local p = io.popen(ROOT .. "/tools/resty-simdjson.sh 2>&1; echo \"exit $?\"")
  local out = p:read("*a")
  p:close()
  local so, lua = out:match("^([^\n]*)\n([^\n]*)\nexit 0\n$")
  if so then
    build = { so = so, lua = lua }
  else
    build_why = (out:gsub("\nexit %d+\n$", ""):gsub("\n", " "))
  end
  return build, build_why
end

-- The module, and where it came from. What OpenResty gives it (see the
-- top) is set up first: it reads those as it loads. The vendor's folders
-- are on the paths only while it loads (it loads all its parts then; its
-- cdefs.lua reads package.cpath's folders to ffi.load
-- libsimdjson_ffi.so, and nothing else lives in them), so what the other
-- libraries load is unchanged.
local module, origin
local function load_module()
  if module then
    return module, origin
  end
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
  local b, why = vendored()
  if b then
    local path, cpath = package.path, package.cpath
    package.path = b.lua .. "/?.lua;" .. b.lua .. "/?/init.lua;" .. path
    package.cpath = b.so .. "/?.so;" .. cpath
    local ok, m = pcall(require, "resty.simdjson")
    package.path, package.cpath = path, cpath
    if not ok then
      error(m, 0)
    end
    module, origin = m, VENDOR_NOTE .. " into " .. (b.so:match("/(%.deps/resty%-simdjson)$") or b.so)
  else
    local ok, m = pcall(require, "resty.simdjson")
    if not ok then
      error(why .. "; and " .. tostring(m):match("^[^\n]*"), 0)
    end
    module, origin = m, "installed (" .. tostring(package.searchpath("resty.simdjson", package.path)) .. ")"
  end
  return module, origin
end

-- A new parser (errors with why when it cannot load); also the gateway's
-- (bench/gateway/handlers.lua), in nginx and out of it.
local function simdjson_parser()
  return load_module().new()
end

local A = {
  note = "lua-resty-simdjson parser:decode + table reads; parser:encode",
  -- Encoding jobs too when this version has parser:encode (below).
  kinds = jobs.kinds(jobs.READ_KINDS),
  encode_check = "roundtrip",
  -- Its encoder writes numbers with "%.16g" (encode_number_precision
  -- refuses 17): outputs are compared with numbers at 16 significant
  -- digits (bench/verify.lua says so in its report).
  number_digits = 16,
}

A.parser = simdjson_parser

function A.available()
  local ok, parser = pcall(simdjson_parser)
  if not ok then
    return false, "not installed: " .. tostring(parser):match("^[^\n]*"):gsub("^[^:]*:%d+: ", ""):gsub(":$", "")
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

-- The vendored commit (its BUILD.md's first one), or the installed
-- module's _VERSION, and where it came from.
function A.version()
  local ok, m, from = pcall(load_module)
  if not ok then
    return "?"
  end
  local version = m._VERSION
  if not version and from:sub(1, #VENDOR_NOTE) == VENDOR_NOTE then
    local f = io.open(ROOT .. "/../shared/vendor/lua-resty-simdjson/BUILD.md", "rb")
    version = f and f:read("*a"):match(("%x"):rep(40))
    version = version and "commit " .. version:sub(1, 12)
    if f then
      f:close()
    end
  end
  return (version or "?") .. ", " .. from
end

return A
