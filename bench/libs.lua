-- The libraries the benchmark compares: name -> adapter (bench/libs/*.lua,
-- one file a library: how a user of that library writes each job). The
-- jobs themselves, their checksums and the edits are bench/jobs.lua's.
--
-- An adapter is { note, kinds (set of job kinds), load() (kind -> reader),
-- version(), and optionally available() (true, or false and why not),
-- max_size, encode_check, number_digits (the significant digits its encoder
-- writes, when fewer than 17: its outputs' numbers are checked to those),
-- passthrough, materialize, floor (a reference
-- row, not a library: no answer of its own, unless `verified`, and not
-- among the libraries qjson's rows are compared with) }.
local jobs = require("jobs")
local qjson = require("libs.qjson")
local lua_cjson = require("libs.lua_cjson")

local M = {}

M.libs = {
  ["qjson"] = qjson.lib("paths", "qjson.parse + document reads on compiled paths"),
  ["qjson-cursor"] = qjson.lib("cursor", "qjson.parse + doc:len/doc:open cursors, compiled paths"),
  ["qjson-ipairs"] = qjson.lib("ipairs", "qjson.parse + doc:ipairs cursors, compiled paths"),
  ["qjson.select"] = require("libs.qjson_select"),
  ["qjson.patch"] = require("libs.qjson_patch"),
  ["qjson.decode"] = require("libs.qjson_decode"),
  ["qjson.cjson"] = require("libs.qjson_cjson"),
  ["lua-cjson"] = lua_cjson.baseline_lib,
  ["lua-cjson-2.1.0"] = lua_cjson.debian_lib,
  ["dkjson"] = require("libs.dkjson"),
  ["resty.simdjson"] = require("libs.resty_simdjson"),
  ["memchr"] = require("libs.memchr"),
  ["parse+copy"] = require("libs.parse_copy"),
}

-- The libraries run.lua compares, in table order, and the floors: memchr
-- for the reading jobs, parse+copy for the edit of a top-level field.
M.default = { "qjson", "qjson.select", "qjson.patch", "qjson.decode", "qjson.cjson", "lua-cjson", "lua-cjson-2.1.0",
  "dkjson", "resty.simdjson", "memchr", "parse+copy" }
-- Other ways to write the qjson reader with the document API, timed too
-- (not in --quick) to show what the API style costs.
M.variants = { "qjson-cursor", "qjson-ipairs" }
M.FLOOR = "memchr"
M.BASELINE = "lua-cjson"

M.READ_KINDS, M.EDIT_KINDS, M.STREAM_KINDS, M.EDITS = jobs.READ_KINDS, jobs.EDIT_KINDS, jobs.STREAM_KINDS, jobs.EDITS

-- The lua-cjson every ratio is taken against: { module, which, path,
-- debian }.
M.cjson_baseline = lua_cjson.baseline

-- Does library `name` time this workload (a kind, a size in bytes, and
-- for a mix the size of its largest document)? Ask M.available first.
function M.runs(name, w)
  local lib = M.libs[name]
  if not lib.kinds[w.kind] then
    return false
  end
  return w.kind == "encode" or not lib.max_size or (w.largest or w.size) <= lib.max_size
end

-- Can library `name` be loaded here? true, or false and why not.
function M.available(name)
  local lib = M.libs[name]
  if not lib.available then
    return true
  end
  return lib.available()
end

return M
