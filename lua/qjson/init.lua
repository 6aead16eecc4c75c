-- qjson: fast, strict JSON for LuaJIT, backed by a SIMD parser in Rust.
-- This module is the public entry point; see docs/api.md.
local ffi = require("ffi")
local base = require("qjson.base")
local doc = require("qjson.doc")
local parse = require("qjson.parse")
local view = require("qjson.view")
require("qjson.view.write") -- the encoder's hooks for views
local encoder = require("qjson.encode")
local decoder = require("qjson.decode")
local selector = require("qjson.select")

local pairs, getmetatable, setmetatable = pairs, getmetatable, setmetatable
local C, raising = base.C, base.raising
local DocMT = doc.DocMT
local ffi_string = ffi.string

local qjson = {
  _NAME = "qjson",
  _VERSION = ffi_string(C.qjson_version()),
}

-- The value reads return for a JSON null. lua-cjson's own null when
-- lua-cjson is installed, so that `v == cjson.null` holds; otherwise a
-- unique sentinel of the same kind of use.
do
  local ok, cjson = pcall(require, "cjson")
  qjson.null = ok and cjson.null or setmetatable({}, { __tostring = function() return "null" end })
end
doc.null = qjson.null
view.set_null(qjson.null)
encoder.null = qjson.null
selector.null = qjson.null

-- The encoder (docs/encoding.md): qjson.encode and lua-cjson's encoder
-- configuration functions, with settings of this module's own.
encoder.install(qjson)
-- Documents and cursors are not values: encode names what to encode.
encoder.refused[DocMT] = "Cannot serialise a qjson document or cursor: encode doc:get() (a view of it) instead"
require("qjson.schema").install(qjson)
require("qjson.patch").install(qjson)
qjson.empty_array = encoder.empty_array
qjson.array_mt = encoder.array_mt
qjson.empty_array_mt = encoder.empty_array_mt

local install_decoder = decoder.install

install_decoder(qjson)

-- A copy of this module with encoder and decoder settings of its own, as
-- cjson.new().
function qjson.new()
  local inst = {}
  for k, v in pairs(qjson) do
    inst[k] = v
  end
  install_decoder(inst)
  return encoder.install(inst)
end

qjson.parse = raising(parse.document)
qjson.parse_file = raising(parse.file)
qjson.path = raising(parse.path)

-- Batched reads (qjson.select): one native call reads many paths.
qjson.select = raising(selector.new)
-- Streams of values (NDJSON, concatenated JSON, server-sent events).
qjson.stream = require("qjson.stream")

-- Views and plain tables alike, on every LuaJIT build (see qjson.view).
qjson.pairs = view.pairs
qjson.ipairs = view.ipairs
qjson.len = view.length

-- table.insert / table.remove that also work on array views.
function qjson.insert(t, ...)
  if getmetatable(t) == view.ArrayMT then
    return view.insert(t, ...)
  end
  return table.insert(t, ...)
end

function qjson.remove(t, ...)
  if getmetatable(t) == view.ArrayMT then
    return view.remove(t, ...)
  end
  return table.remove(t, ...)
end

-- How many documents are alive in this process (parsed, neither closed
-- nor collected): a gauge for monitoring and leak checks.
function qjson.live_documents()
  return tonumber(C.qjson_live_documents())
end

-- The stage 1 implementation chosen for this CPU: "avx512vbmi", "avx512",
-- "avx2", "neon", "neon-nopmull" or "swar" ("scalar", the test oracle, only when
-- forced: QJSON_BACKEND=<name> forces one, for testing).
function qjson.backend()
  return ffi_string(C.qjson_backend())
end

return qjson
