-- qjson: fast, strict JSON for LuaJIT, backed by a SIMD parser in Rust.
-- This module is the public entry point; see docs/api.md.
local ffi = require("ffi")
local base = require("qjson.base")
local options = require("qjson.options")
local doc = require("qjson.doc")
local view = require("qjson.view")
local materialize = require("qjson.view.materialize")
require("qjson.view.write") -- the encoder's hooks for views
local encoder = require("qjson.encode")
local decode_config = require("qjson.decode.config")
local selector = require("qjson.select")

local type, error, pairs, next, tostring, getmetatable, setmetatable =
  type, error, pairs, next, tostring, getmetatable, setmetatable
local C, S = base.C, base.S
local open, DocMT = doc.open, doc.DocMT
local ffi_string, byte = ffi.string, string.byte

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
qjson.empty_array = encoder.empty_array
qjson.array_mt = encoder.array_mt
qjson.empty_array_mt = encoder.empty_array_mt

-- Shared by qjson and qjson.safe: returns a document, or nil and a
-- message plus whether the message is about the caller's arguments
-- (`name`: the function to name in those, "parse" by default).
function qjson._parse(s, opts, mt, name)
  if type(s) ~= "string" then
    return nil, "bad argument #1 to '" .. (name or "parse") .. "' (string expected, got " .. type(s) .. ")", true
  end
  local o, oerr = options.pack(opts)
  if oerr then
    return nil, "bad argument #2 to '" .. (name or "parse") .. "' (" .. oerr .. ")", true
  end
  local ptr, err = open(s, o)
  if ptr == nil then
    return nil, "qjson: " .. err
  end
  return setmetatable({ ptr = ptr, node = 0, src = s, lazy = type(opts) == "table" and opts.mode == "lazy" or nil },
    mt or DocMT)
end

-- `max_size` (parse_file only) and the parse options without it, or nil
-- and a message. Without it, the native side's own limit applies (-1
-- reads as the largest uint64_t, which stands for that limit).
local function file_options(opts)
  if type(opts) ~= "table" or opts.max_size == nil then
    return -1, opts
  end
  local m = opts.max_size
  if type(m) ~= "number" or m < 0 or m ~= m or m % 1 ~= 0 then
    return nil, "bad option 'max_size' (non-negative integer expected, got " .. tostring(m) .. ")"
  end
  -- (Past 2^53 a double is no exact size; any such limit is the native one.)
  m = m < 2 ^ 53 and m or -1
  local rest = {}
  for k, v in pairs(opts) do
    if k ~= "max_size" then
      rest[k] = v
    end
  end
  return m, rest
end

function qjson._parse_file(path, opts, mt)
  if type(path) ~= "string" then
    return nil, "bad argument #1 to 'parse_file' (string expected, got " .. type(path) .. ")", true
  elseif path:find("\0", 1, true) then
    -- (The file system would stop at it, and so would the message.)
    return nil, "bad argument #1 to 'parse_file' (path contains a NUL byte)", true
  end
  local max_size, rest = file_options(opts)
  if not max_size then
    return nil, "bad argument #2 to 'parse_file' (" .. rest .. ")", true
  end
  local o, oerr = options.pack(rest)
  if oerr then
    return nil, "bad argument #2 to 'parse_file' (" .. oerr .. ")", true
  end
  local ptr, err = doc.open_file(path, max_size, o)
  if ptr == nil then
    return nil, "qjson: " .. err
  end
  return doc.wrap(ptr, nil, mt, type(opts) == "table" and opts.mode == "lazy" or nil)
end

-- decode's own option, beside the parse options.
local BIG_INT = { cdata = true, string = true }

-- What decode returns with decode_views off: the view `v` made plain
-- tables (as qjson.materialize does), or the scalar `v`.
local function tables_of(ds, v)
  if type(v) == "table" and view.is_view(v) then
    return materialize(v, ds.array_with_array_mt and encoder.array_mt or nil)
  end
  return v
end

-- Decodes `s` with an instance's decoder settings `ds` (see
-- qjson.decode.config) and per-call `opts`: returns the view or value, or
-- nil and a message plus whether it is about the caller's arguments.
local function decode_with(ds, s, opts)
  if opts ~= nil and type(opts) ~= "table" then
    return nil, "bad argument #2 to 'decode' (bad options (table expected, got " .. type(opts) .. "))", true
  end
  -- The settings are defaults the call's options override.
  local o = { max_depth = ds.max_depth, invalid_numbers = ds.invalid_numbers }
  local big
  for k, v in next, opts or o do
    if k == "big_int" then
      if not BIG_INT[v] then
        return nil, "bad argument #2 to 'decode' (bad option 'big_int' (\"cdata\" or \"string\" expected, got "
          .. options.describe(v) .. "))", true
      end
      big = v
    else
      o[k] = v
    end
  end
  local d, err, is_arg = qjson._parse(s, o, nil, "decode")
  if d == nil then
    return nil, err, is_arg
  end
  local v = view.decoded(d.ptr, d.src, nil, big, d.lazy)
  if not ds.views then
    return tables_of(ds, v)
  end
  return v
end

-- Installs decode, materialize and lua-cjson's decoder configuration
-- functions, bound to fresh settings, into `into` (qjson or an instance).
local function install_decoder(into)
  local ds = decode_config.defaults()
  -- Strict by default, unlike lua-cjson (docs/api.md): NaN, Infinity and
  -- hexadecimal numbers only with decode_invalid_numbers(true).
  ds.invalid_numbers = false
  decode_config.install(into, ds)

  function into._decode(s, opts)
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
    return materialize(v, ds.array_with_array_mt and encoder.array_mt or nil)
  end

  return into
end

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

function qjson._path(s)
  if type(s) ~= "string" then
    return nil, "bad argument #1 to 'path' (string expected, got " .. type(s) .. ")", true
  end
  local t = S.seq + 1
  S.seq = t
  local p = C.qjson_path_compile(s, #s, base.err_box)
  if p == nil then
    local msg
    if S.seq == t then
      msg = base.error_message()
    else
      -- (A pointer result is boxed, an allocation: a finalizer may have
      -- compiled a path since. The message again, into a box of its own.)
      local err = ffi.new("qjson_error")
      C.qjson_path_compile(s, #s, err)
      msg = ffi_string(err.message)
    end
    return nil, "bad argument #1 to 'path' (" .. msg .. ")", true
  end
  p = ffi.gc(p, C.qjson_path_free)
  doc.path_text[p] = s
  return p
end

-- Invalid JSON raises "qjson: <what> at line L, column C (byte B)" with no
-- prefix, as lua-cjson does; a bad argument points at the caller.
local function raising(f)
  return function(a, b)
    local r, err, is_arg = f(a, b)
    if r == nil then
      error(err, is_arg and 2 or 0)
    end
    return r
  end
end

qjson.parse = raising(qjson._parse)
qjson.parse_file = raising(qjson._parse_file)
qjson.path = raising(qjson._path)

-- Batched reads (qjson.select): one native call reads many paths.
qjson._select = selector.new
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

-- The stage 1 implementation chosen for this CPU: "avx512", "avx2",
-- "neon", "neon-nopmull" or "swar" ("scalar", the test oracle, only when
-- forced: QJSON_BACKEND=<name> forces one, for testing).
function qjson.backend()
  return ffi_string(C.qjson_backend())
end

return qjson
