-- lua-cjson: the baseline every ratio is taken against (the one OpenResty,
-- Kong and APISIX ship), and Debian's lua-cjson 2.1.0 (2012) as a row of
-- its own beside it.
local jobs = require("jobs")
local table_readers = require("libs.tables")

local A = {}

-- The baseline, in order: OpenResty's lua-cjson 2.1.0.17 built from
-- ../shared/vendor/lua-cjson by tools/lua-cjson.sh (its own Makefile's
-- flags, into .deps/); else an installed OpenResty's; else Debian's 2.1.0.
-- Returns { module, which (what was measured), path, debian (true when it
-- is Debian's) }, made once.
local ROOT = (debug.getinfo(1, "S").source:match("^@(.*)/bench/libs/[^/]*$")) or "."
local DEBIAN_CJSON = "/usr/lib/x86_64-linux-gnu/lua/5.1/cjson.so"
local baseline
function A.baseline()
  if baseline then
    return baseline
  end
  local p = io.popen(ROOT .. "/tools/lua-cjson.sh 2>/dev/null")
  local dir = p:read("*a"):match("([^\n]*)\n?$")
  p:close()
  local candidates = {
    { path = dir .. "/cjson.so", which = "OpenResty's lua-cjson 2.1.0.17, built from ../shared/vendor/lua-cjson" },
    { path = "/usr/local/openresty/lualib/cjson.so",
      which = "OpenResty's lua-cjson, installed (/usr/local/openresty/lualib/cjson.so)" },
  }
  for _, c in ipairs(candidates) do
    local f = io.open(c.path, "rb")
    if f then
      f:close()
      local open = package.loadlib(c.path, "luaopen_cjson")
      if open then
        baseline = { module = open(), which = c.which, path = c.path, debian = false }
        return baseline
      end
    end
  end
  baseline = { module = require("cjson"), which = "Debian's lua-cjson 2.1.0 (no OpenResty lua-cjson found)",
    path = package.searchpath("cjson", package.cpath), debian = true }
  return baseline
end

local function cjson_lib(get, note)
  return {
    note = note,
    kinds = jobs.kinds(jobs.READ_KINDS, jobs.EDIT_KINDS, jobs.STREAM_KINDS, "sse_feed", "encode"),
    encode_check = "bytes", -- the reference
    load = function()
      local cjson = get()
      local r = table_readers(cjson.decode)
      r.mix = jobs.mix_reader(r.chat)
      r.encode = jobs.encoder(cjson.encode)
      return jobs.edit_jobs(r, cjson.decode, cjson.encode)
    end,
    version = function()
      return get()._VERSION
    end,
  }
end

A.baseline_lib = cjson_lib(function()
  return A.baseline().module
end, "cjson.decode + table reads; cjson.encode (the baseline: OpenResty's lua-cjson)")

A.debian_lib = cjson_lib(function()
  return require("cjson")
end, "Debian's lua-cjson 2.1.0: cjson.decode + table reads; cjson.encode")
A.debian_lib.encode_check = "roundtrip"
A.debian_lib.available = function()
  if A.baseline().debian then
    return false, "it is the baseline (no OpenResty lua-cjson found)"
  end
  local ok, cjson = pcall(require, "cjson")
  if not ok or package.searchpath("cjson", package.cpath) ~= DEBIAN_CJSON then
    return false, "Debian's lua-cjson (" .. DEBIAN_CJSON .. ") is not what require(\"cjson\") loads"
  end
  return cjson._VERSION ~= nil
end

return A
