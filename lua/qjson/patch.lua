-- qjson.patch(target, ops [, opts]), qjson.merge_patch(target, patch) and
-- qjson.patcher(ops [, opts]): JSON Patch (RFC 6902) and JSON Merge Patch
-- (RFC 7386) applied natively in one call that returns the result's text,
-- every untouched member copied as its bytes (crates/core/src/patch/).
--
-- Finalizer safety (qjson.base): nothing here is shared between calls.
-- Each call takes a record of its own from a pool (qjson.base's pool): an
-- error box and a result (a qjson_bytes, whose buffer the next call
-- reuses; its finalizer frees it when the record is collected). Its
-- per-call values go as one string argument, so a finalizer that patches
-- between a native call and the copy of its result changes nothing this
-- call reads. (A record and its finalizer per call cost a gateway handler
-- what its patch did, and a finalizer that runs while LuaJIT records a
-- trace aborts the trace.)
local ffi = require("ffi")
local base = require("qjson.base")
local fields = require("qjson.view.fields")
local describe = require("qjson.parse.options").describe

local C, arg_error = base.C, base.arg_error
local type, next, error, tonumber, tostring, setmetatable, getmetatable, pcall, floor, concat =
  type, next, error, tonumber, tostring, setmetatable, getmetatable, pcall, math.floor, table.concat
local ffi_string, ffi_gc = ffi.string, ffi.gc

local OK = 1
local patch_ref = ffi.typeof("qjson_patch *[1]")
local bytes_t = ffi.typeof("qjson_bytes")
local ends_t = ffi.typeof("size_t[?]")
local error_t = ffi.typeof("qjson_error")
local bytes_release = C.qjson_bytes_release

local M = {}

-- Set by install: qjson.encode, for tables, edited views and values.
local encode

-- The target: (handle, node) of a document, cursor or unedited view,
-- read where it lies; else (nil, 0, its JSON text).
local function target(v, fname)
  local t = type(v)
  if t == "string" then
    return nil, 0, v
  elseif t == "table" then
    local ptr, node = fields.json_at(v)
    if ptr ~= nil then
      return ptr, node, nil
    end
    return nil, 0, encode(v)
  end
  arg_error(1, fname, "JSON string, document, view or table expected, got " .. t, 3)
end

-- A patch's text: a string as it is, a table encoded (an empty table is
-- an empty list of operations when `empty` is "[]").
local function patch_text(v, fname, empty)
  local t = type(v)
  if t == "string" then
    return v
  elseif t == "table" then
    if empty and next(v) == nil then
      return empty
    end
    return encode(v)
  end
  arg_error(2, fname, "JSON string or table expected, got " .. t, 3)
end

-- opts' max_size (0: the core's default bound), checked.
local function max_size(opts, n, fname)
  if opts == nil then
    return 0
  end
  if type(opts) ~= "table" then
    arg_error(n, fname, "bad options (table expected, got " .. type(opts) .. ")", 3)
  end
  local k, v = next(opts)
  local m = 0
  while k ~= nil do
    if k ~= "max_size" then
      arg_error(n, fname, "unknown option '" .. tostring(k) .. "'", 3)
    end
    if type(v) ~= "number" or v < 1 or v > 2 ^ 52 or floor(v) ~= v then
      arg_error(n, fname, "bad option 'max_size' (positive integer expected, got " .. describe(v) .. ")", 3)
    end
    m = v
    k, v = next(opts, k)
  end
  return m
end

local take, give = base.pool(function()
  return { out = ffi_gc(bytes_t(), bytes_release), err = error_t(), one = ends_t(1) }
end, 4)

-- The most bytes a record's result buffer keeps between calls (the next
-- call writes into it: no fresh pages to fault in for a large result;
-- lua-cjson keeps its encode buffer too); a larger one is freed.
local KEEP_BYTES = 16 * 1024 * 1024

-- The result of a native call that wrote record `r`: its text, or the
-- error raised (a data error: no position, as a parse error).
local function result(rc, r)
  local out = r.out
  if rc == OK then
    local s = ffi_string(out.data, tonumber(out.len))
    if out.cap > KEEP_BYTES then
      bytes_release(out)
    end
    give(r)
    return s
  end
  local msg = ffi_string(r.err.message)
  give(r)
  error("qjson: " .. msg, 0)
end

-- A compiled patch in a ref of its own; raises when `text` does not compile.
local function compile(text, args)
  local err = error_t()
  local ref = base.new_ref(patch_ref, C.qjson_patch_release)
  if C.qjson_patch_new_in(text, #text, args, ref, err) ~= OK then
    error("qjson: " .. ffi_string(err.message), 0)
  end
  return ref
end

-- Applies the compiled patch in `ref` to the target (see `target`) with
-- `n` values, their texts concatenated in `values` and their ends in
-- `ends` (for one value, nil: the record's `one` holds its length).
local function apply(ref, ptr, node, text, values, ends, n, limit)
  local r = take()
  if n == 1 then
    ends = r.one
    ends[0] = #values
  end
  local rc = C.qjson_patch_apply(ref, ptr, node, text, text and #text or 0, values, ends, n, limit, r.out, r.err)
  return result(rc, r)
end

function M.patch(v, ops, opts)
  local text = patch_text(ops, "patch", "[]")
  local limit = max_size(opts, 3, "patch")
  local ptr, node, t = target(v, "patch")
  local ref = compile(text, 0)
  local r = apply(ref, ptr, node, t, nil, nil, 0, limit)
  C.qjson_patch_release(ref)
  return r
end

function M.merge_patch(v, patch, opts)
  if opts ~= nil then
    arg_error(3, "merge_patch", "merge_patch takes no options", 2)
  end
  local text = patch_text(patch, "merge_patch")
  local ptr, node, t = target(v, "merge_patch")
  local r = take()
  local rc = C.qjson_merge_patch(ptr, node, t, t and #t or 0, text, #text, r.out, r.err)
  return result(rc, r)
end

local Patcher = {}
local PatcherMT = { __index = Patcher, __tostring = function() return "qjson.patcher" end }
M.PatcherMT = PatcherMT

-- qjson.patcher(ops [, opts]): `ops` compiled once; an add, replace or
-- test without a `value` takes one of each apply's values, in order.
function M.patcher(ops, opts)
  local text = patch_text(ops, "patcher", "[]")
  local limit = max_size(opts, 2, "patcher")
  local ref = compile(text, 1)
  return setmetatable({ ptr = ref, nvalues = C.qjson_patch_args(ref), max_size = limit }, PatcherMT)
end

-- p:apply(target [, values]): with one value taken per call, `values` is
-- that value; with more, a table of them (values[1] .. values[n], no more);
-- with none, nothing. qjson.null stands for null.
function Patcher:apply(v, values)
  if getmetatable(self) ~= PatcherMT then
    arg_error(1, "apply", "qjson.patcher expected", 2)
  end
  local ptr, node, t = target(v, "apply")
  local n = self.nvalues
  local text, ends = nil, nil
  if n == 1 then
    if values == nil then
      arg_error(2, "apply", "the patch takes a value (qjson.null for null)", 2)
    end
    text = encode(values)
  elseif n > 1 then
    if type(values) ~= "table" then
      arg_error(2, "apply", "the patch takes " .. n .. " values: table expected, got " .. type(values), 2)
    end
    local parts = {}
    ends = ends_t(n)
    local at = 0
    for i = 1, n do
      local x = values[i]
      if x == nil then
        arg_error(2, "apply", "value " .. i .. " of " .. n .. " missing (qjson.null for null)", 2)
      end
      local s = encode(x)
      parts[i] = s
      at = at + #s
      ends[i - 1] = at
    end
    if values[n + 1] ~= nil then
      arg_error(2, "apply", "the patch takes " .. n .. " values, more given", 2)
    end
    text = concat(parts)
  elseif values ~= nil then
    arg_error(2, "apply", "the patch takes no values", 2)
  end
  return apply(self.ptr, ptr, node, t, text, ends, n, self.max_size)
end

-- qjson.safe's: nil and a message where these raise.
local settle = base.settle
local SafePatcher = {}
local SafePatcherMT = { __index = SafePatcher, __tostring = PatcherMT.__tostring }

function SafePatcher:apply(v, values)
  return settle(pcall(Patcher.apply, setmetatable({ ptr = self.ptr, nvalues = self.nvalues,
    max_size = self.max_size }, PatcherMT), v, values))
end

function M.safe_patcher(ops, opts)
  local ok, p = pcall(M.patcher, ops, opts)
  if not ok then
    return nil, p
  end
  return setmetatable({ ptr = p.ptr, nvalues = p.nvalues, max_size = p.max_size }, SafePatcherMT)
end

function M.install(qjson)
  encode = qjson.encode
  qjson.patch = M.patch
  qjson.merge_patch = M.merge_patch
  qjson.patcher = M.patcher
end

return M
