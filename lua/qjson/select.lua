-- Batched reads: qjson.select(paths [, opts]) compiles a list of paths
-- once; calling the selector on a JSON text or a document reads them all
-- in one native call (src/select/, src/ffi/select.rs). See docs/api.md.
--
-- The values cross in an output record (item array + byte area for
-- strings with escapes) taken from a pool for the call and returned after
-- it: a finalizer that runs during the call's allocations and selects
-- too takes another record, so nothing a call is still reading is shared.
local ffi = require("ffi")
local base = require("qjson.base")
local C = base.C
local doc = require("qjson.doc")
local view = require("qjson.view")
local parse = require("qjson.parse")
local options = require("qjson.options")
local arg_message = require("qjson.base").arg_message

local type, error, pairs, ipairs, tostring, setmetatable, getmetatable, rawget =
  type, error, pairs, ipairs, tostring, setmetatable, getmetatable, rawget
local unpack = unpack
local sort, concat = table.sort, table.concat
local ffi_string, ffi_new, ffi_gc, ffi_copy = ffi.string, ffi.new, ffi.gc, ffi.copy
local tonumber = tonumber

local MISSING, NULL = C.QJSON_ITEM_TAG_MISSING, C.QJSON_ITEM_TAG_NULL
local FALSE, TRUE = C.QJSON_ITEM_TAG_FALSE, C.QJSON_ITEM_TAG_TRUE
local NUMBER, STRING, RAW = C.QJSON_ITEM_TAG_NUMBER, C.QJSON_ITEM_TAG_STRING, C.QJSON_ITEM_TAG_RAW
local ARRAY, OBJECT, LIST = C.QJSON_ITEM_TAG_ARRAY, C.QJSON_ITEM_TAG_OBJECT, C.QJSON_ITEM_TAG_LIST
local KIND_ARRAY, KIND_OBJECT = C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT

local new_tab = (function()
  local ok, f = pcall(require, "table.new")
  return ok and f or function() return {} end
end)()

local M = {}

-- Set by qjson.init: the value a JSON null reads as.
M.null = nil

local item_array = ffi.typeof("qjson_item[?]")
local byte_array = ffi.typeof("uint8_t[?]")
local out_type = ffi.typeof("qjson_select_out")
local options_type = ffi.typeof("qjson_options")

-- Output records: { out, items, bytes }, each used by one call at a time.
local pool, pooled = {}, 0

local function grow(r, items, bytes)
  if items > r.out.cap then
    r.items = item_array(items)
    r.out.items, r.out.cap = r.items, items
  end
  if bytes > r.out.bytes_cap then
    r.bytes = byte_array(bytes)
    r.out.bytes, r.out.bytes_cap = r.bytes, bytes
  end
end

local function take()
  if pooled > 0 then
    local r = pool[pooled]
    pool[pooled] = nil
    pooled = pooled - 1
    return r
  end
  local r = { out = out_type(), cap = 0 }
  grow(r, 32, 256)
  return r
end

local function give(r)
  pooled = pooled + 1
  pool[pooled] = r
end

local Selector = {}
local SelectorMT = { __index = Selector }
M.SelectorMT = SelectorMT

-- The document a container item is opened in: `d` when reading a
-- document, else (once per call) the text parsed again, which numbers
-- its nodes as the selecting parse did.
local function container(self, st, node, tag)
  local d = st.doc
  if d == nil then
    local h, msg = parse.open(st.ptr, self.opts, st.len)
    if h == nil then
      error("qjson: " .. msg, 0)
    end
    d = setmetatable({ ptr = h, node = 0, src = st.anchor }, doc.DocMT)
    st.doc = d
  end
  return view.open(d, node, tag == ARRAY and KIND_ARRAY or KIND_OBJECT)
end

-- The Lua value of item `j` and the index after it (lists: after their
-- elements).
local function value(self, st, items, j)
  local it = items[j]
  local tag = it.tag
  if tag == STRING or tag == RAW then
    return ffi_string(it.v.ptr, it.len), j + 1
  elseif tag == NUMBER then
    return tonumber(it.v.num), j + 1
  elseif tag == TRUE then
    return true, j + 1
  elseif tag == FALSE then
    return false, j + 1
  elseif tag == NULL then
    return M.null, j + 1
  elseif tag == MISSING then
    return nil, j + 1
  elseif tag == LIST then
    local n = it.len
    local t = new_tab(n, 0)
    j = j + 1
    for i = 1, n do
      t[i], j = value(self, st, items, j)
    end
    return t, j
  end
  return container(self, st, it.v.node, tag), j + 1
end

-- Runs the selector; `vals` gets the values in selector order. `d` is a
-- document's handle (then `node`), or nil and `ptr`/`len` a JSON text
-- that `anchor` keeps alive. Returns nil, or a message and whether it is
-- an input error (raised at level 0) rather than the caller's.
local function run(self, vals, d, node, anchor, ptr, len, docobj)
  local r = take()
  local out = r.out
  -- A document's strings are read from its memory while Lua strings are
  -- made (allocations, which may run a finalizer that closes it): pinned
  -- meanwhile (qjson.base).
  if d ~= nil and C.qjson_pin(d) ~= 1 then
    give(r)
    return "qjson: " .. base.error_message(d)
  end
  local rc = C.qjson_select(self.ptr, d, node, ptr, len, self.opts, out)
  if rc == 0 then
    grow(r, out.count, out.used)
    rc = C.qjson_select(self.ptr, d, node, ptr, len, self.opts, out)
  end
  if rc ~= 1 then
    if d ~= nil then
      C.qjson_unpin(d)
    end
    local msg = ffi_string(out.err.message)
    give(r)
    return "qjson: " .. msg
  end
  local items = r.items
  -- Per call state for containers (rare): the document to open them in.
  local st = docobj and { doc = docobj } or nil
  local j = 0
  for i = 1, self.n do
    local it = items[j]
    local tag = it.tag
    -- The common scalars inline; lists and containers through `value`.
    if tag == STRING then
      vals[i] = ffi_string(it.v.ptr, it.len)
      j = j + 1
    elseif tag == NUMBER then
      vals[i] = tonumber(it.v.num)
      j = j + 1
    else
      if (tag == ARRAY or tag == OBJECT) and st == nil then
        st = { anchor = anchor, ptr = ptr, len = len }
      end
      vals[i], j = value(self, st, items, j)
    end
  end
  if d ~= nil then
    C.qjson_unpin(d)
  end
  give(r)
  return nil
end
M.run = run

-- What the call reads: a document or cursor's handle and node, or a text.
local function target(x)
  local t = type(x)
  if t == "string" then
    return nil, 0, x, x, #x
  elseif t == "table" then
    local h, node = rawget(x, "ptr"), rawget(x, "node")
    if type(h) == "cdata" and type(node) == "number" then
      return h, node, x
    end
  end
  return false, t
end

-- Reuse per selector of the values table for positional calls (a call
-- inside a finalizer, on the same selector, takes a fresh one).
local function call(self, x, out)
  local h, node, anchor, ptr, len = target(x)
  if h == false then
    error("bad argument #1 to selector (string or qjson document expected, got " .. node .. ")", 2)
  end
  local vals = self.vals
  local reuse = vals ~= nil
  if reuse then
    self.vals = nil
  else
    vals = new_tab(self.n, 0)
  end
  local err
  if h then
    err = run(self, vals, h, node, nil, nil, 0, anchor)
  else
    err = run(self, vals, nil, 0, anchor, ptr, len, nil)
  end
  if err then
    if reuse then
      self.vals = vals
    end
    error(err, 0)
  end
  local keys = self.keys
  if out ~= nil or self.named then
    if out == nil then
      out = new_tab(self.npos, self.n - self.npos)
    elseif type(out) ~= "table" then
      error("bad argument #2 to selector (table expected, got " .. type(out) .. ")", 2)
    end
    for i = 1, self.n do
      out[keys[i]] = vals[i]
    end
    if reuse then
      self.vals = vals
    end
    return out
  end
  if reuse then
    self.vals = vals
  end
  local n = self.n
  if n <= 4 then
    if n == 1 then
      return vals[1]
    elseif n == 2 then
      return vals[1], vals[2]
    elseif n == 3 then
      return vals[1], vals[2], vals[3]
    end
    return vals[1], vals[2], vals[3], vals[4]
  end
  return unpack(vals, 1, n)
end
SelectorMT.__call = call

-- Reads a span of `len` bytes at `ptr` (kept alive by `anchor`) into
-- `vals`: for qjson.stream. Returns nil or the message.
function M.read_span(self, vals, anchor, ptr, len)
  return run(self, vals, nil, 0, anchor, ptr, len, nil)
end

function SelectorMT:__tostring()
  return "qjson.selector (" .. concat(self.texts, ", ") .. ")"
end

-- The paths, in the order values come out.
function Selector:paths()
  local t = {}
  for i = 1, self.n do
    t[i] = self.texts[i]
  end
  return t
end

-- Compiles `specs`: a list of paths (values come out in that order), or
-- a table of name = path (values go to out[name]), or both. A path is
-- "a.b[0].c", "a[*].b" (a Lua array of every element's b), optionally
-- with ":type" after it, or { path, type } for keys holding a ':'.
-- Returns the selector, or nil and a message.
function M.new(specs, opts)
  if type(specs) ~= "table" then
    return nil, arg_message(1, "select", "table of paths expected, got " .. type(specs)), true
  end
  local packed, oerr = options.pack(opts)
  if oerr then
    return nil, arg_message(2, "select", oerr), true
  end
  local o = nil
  if packed ~= nil then
    o = options_type()
    ffi_copy(o, packed, ffi.sizeof(options_type))
  end
  local keys, list = {}, {}
  local npos = #specs
  for i = 1, npos do
    keys[i], list[i] = i, specs[i]
  end
  local names = {}
  for k in pairs(specs) do
    if type(k) == "string" then
      names[#names + 1] = k
    elseif not (type(k) == "number" and k >= 1 and k <= npos and k % 1 == 0) then
      return nil, arg_message(1, "select", "keys must be 1..n or names, got " .. tostring(k)), true
    end
  end
  sort(names)
  for _, k in ipairs(names) do
    keys[#keys + 1], list[#list + 1] = k, specs[k]
  end
  if #list == 0 then
    return nil, arg_message(1, "select", "no paths"), true
  end
  local ptr = ffi_gc(C.qjson_selector_new(), C.qjson_selector_free)
  local box = ffi_new("qjson_error")
  local texts = {}
  for i, spec in ipairs(list) do
    local path, ty = spec, nil
    if type(spec) == "table" then
      path, ty = spec[1], spec[2]
      if type(ty) ~= "string" then
        return nil, arg_message(1, "select", "path #" .. i .. ": type name expected, got " .. type(ty)), true
      end
    end
    if type(path) ~= "string" then
      return nil, arg_message(1, "select", "path #" .. i .. ": string expected, got " .. type(path)), true
    end
    if C.qjson_selector_add(ptr, path, #path, ty, ty and #ty or 0, box) == 0 then
      return nil, arg_message(1, "select", ffi_string(box.message)), true
    end
    texts[i] = ty and (path .. ":" .. ty) or path
  end
  return setmetatable({
    ptr = ptr, opts = o, n = #list, npos = npos, named = #names > 0,
    keys = keys, texts = texts, vals = new_tab(#list, 0),
  }, SelectorMT)
end

-- Whether `x` is a selector.
function M.is(x)
  return type(x) == "table" and getmetatable(x) == SelectorMT
end

return M
