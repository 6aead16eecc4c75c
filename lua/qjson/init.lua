-- qjson: fast, strict JSON for LuaJIT, backed by a SIMD parser in Rust.
-- This module is the public entry point; see docs/api.md.
local ffi = require("ffi")
local base = require("qjson.base")
local markers = require("qjson.markers")
local parse = require("qjson.parse")
local view = require("qjson.view")
require("qjson.view.write") -- the encoder's hooks for views
local encoder = require("qjson.encode")
local decoder = require("qjson.decode")
local selector = require("qjson.select")

local pairs, getmetatable = pairs, getmetatable
local C, raising = base.C, base.raising
local ffi_string = ffi.string

local qjson = {
  _NAME = "qjson",
  _VERSION = ffi_string(C.qjson_version()),
  -- lua-cjson's own values when it is installed (qjson.markers).
  null = markers.null,
  empty_array = markers.empty_array,
  array_mt = markers.array_mt,
  empty_array_mt = markers.empty_array_mt,
}

-- The encoder (docs/encoding.md): qjson.encode and lua-cjson's encoder
-- configuration functions, with settings of this module's own.
encoder.install(qjson)
require("qjson.schema").install(qjson)
require("qjson.patch").install(qjson)

local install_decoder = decoder.install

install_decoder(qjson)
-- OpenAPI request validation (after the decoder: it decodes path parameters).
require("qjson.openapi").install(qjson)

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
