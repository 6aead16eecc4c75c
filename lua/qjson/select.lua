-- Batched reads: qjson.select(paths [, opts]) compiles a list of paths
-- once; calling the selector on a JSON text or a document reads them all
-- in one native call (crates/core/src/select/, crates/luajit/src/select.rs). See docs/api.md.
--
-- The values cross in an output record (item array + byte area for
-- strings with escapes) taken from a pool for the call and returned after
-- it: a finalizer that runs during the call's allocations and selects
-- too takes another record, so nothing a call is still reading is shared.
-- Records that grew past a small bound are not kept (POOL_ITEMS,
-- POOL_BYTES), nor more than POOL_RECORDS of them: one large call does
-- not keep its memory for the life of the process.
local ffi = require("ffi")
local base = require("qjson.base")
local C = base.C
local doc = require("qjson.doc")
local view = require("qjson.view")
local parse = require("qjson.parse")
local options = require("qjson.parse.options")
local arg_message = require("qjson.base").arg_message

local type, error, next, ipairs, tostring, setmetatable, getmetatable, rawget =
  type, error, next, ipairs, tostring, setmetatable, getmetatable, rawget
local unpack = unpack
local sort, concat = table.sort, table.concat
local ffi_string, ffi_new, ffi_copy = ffi.string, ffi.new, ffi.copy
local tonumber, loadstring, assert = tonumber, loadstring, assert

local MISSING, NULL = C.QJSON_ITEM_TAG_MISSING, C.QJSON_ITEM_TAG_NULL
local FALSE, TRUE = C.QJSON_ITEM_TAG_FALSE, C.QJSON_ITEM_TAG_TRUE
local NUMBER, STRING, RAW = C.QJSON_ITEM_TAG_NUMBER, C.QJSON_ITEM_TAG_STRING, C.QJSON_ITEM_TAG_RAW
local ARRAY, LIST = C.QJSON_ITEM_TAG_ARRAY, C.QJSON_ITEM_TAG_LIST
local KIND_ARRAY, KIND_OBJECT = C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT

local new_tab = (function()
  local ok, f = pcall(require, "table.new")
  return ok and f or function() return {} end
end)()

local M = {}

M.null = require("qjson.markers").null -- what a JSON null reads as

local item_array = ffi.typeof("qjson_item[?]")
local byte_array = ffi.typeof("uint8_t[?]")
local out_type = ffi.typeof("qjson_select_out")
local options_type = ffi.typeof("qjson_options")

-- Output records: { out, items, bytes }, each used by one call at a time
-- (qjson.base's pool; large ones are not kept).
local POOL_RECORDS, POOL_ITEMS, POOL_BYTES = 4, 1024, 65536

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

local take, give = base.pool(function()
  local r = { out = out_type(), cap = 0 }
  grow(r, 32, 256)
  return r
end, POOL_RECORDS, function(r)
  return r.out.cap <= POOL_ITEMS and r.out.bytes_cap <= POOL_BYTES
end)

-- The most paths a selector made from a list alone may have: a call
-- returns its values as that many results, and Lua's unpack stops near
-- 8,000 (a selector with names returns a table, and takes any number).
M.MAX_VALUES = 4096

local selector_ref = ffi.typeof("qjson_selector *[1]")

local Selector = {}
local SelectorMT = { __index = Selector }
M.SelectorMT = SelectorMT

-- The document a container item is opened in: `docobj` when reading a
-- document, else (once per call, kept in `st` for the call's other
-- containers) the text parsed again, which numbers its nodes as the
-- selecting parse did. Returns the view and `st`.
local function container(self, st, node, tag, anchor, ptr, len, docobj)
  if st == nil then
    st = { doc = docobj }
  end
  local d = st.doc
  if d == nil then
    local h, msg = parse.open(ptr, self.opts, len)
    if h == nil then
      error("qjson: " .. msg, 0)
    end
    d = setmetatable({ ptr = h, node = 0, src = anchor }, doc.DocMT)
    st.doc = d
  end
  return view.open(d, node, tag == ARRAY and KIND_ARRAY or KIND_OBJECT), st
end

local value

-- Item `j` of a list: the common scalars inline, the rest through `value`.
-- (Not `value` itself: `value` calling `value` is recursion to LuaJIT,
-- whose recorder then aborts with "loop unroll limit reached".)
local function element(self, st, items, j, anchor, ptr, len, docobj)
  local it = items[j]
  local tag = it.tag
  if tag == STRING then
    return ffi_string(it.v.ptr, it.len), j + 1, st
  elseif tag == NUMBER then
    return tonumber(it.v.num), j + 1, st
  end
  return value(self, st, items, j, anchor, ptr, len, docobj)
end

-- The Lua array of a list's `n` elements, from item `j`. A loop over a
-- few elements is left after a few steps, which aborts the trace that
-- holds it (and in the end blacklists the caller's loop): up to four
-- are read without one.
local function list_value(self, st, items, j, n, anchor, ptr, len, docobj)
  local t = new_tab(n, 0)
  if n <= 4 then
    if n > 0 then
      t[1], j, st = element(self, st, items, j, anchor, ptr, len, docobj)
      if n > 1 then
        t[2], j, st = element(self, st, items, j, anchor, ptr, len, docobj)
        if n > 2 then
          t[3], j, st = element(self, st, items, j, anchor, ptr, len, docobj)
          if n > 3 then
            t[4], j, st = element(self, st, items, j, anchor, ptr, len, docobj)
          end
        end
      end
    end
    return t, j, st
  end
  for i = 1, n do
    t[i], j, st = element(self, st, items, j, anchor, ptr, len, docobj)
  end
  return t, j, st
end

-- The Lua value of item `j`, the index after it (lists: after their
-- elements) and the call's container state `st` (see `container`).
function value(self, st, items, j, anchor, ptr, len, docobj)
  local it = items[j]
  local tag = it.tag
  if tag == STRING or tag == RAW then
    return ffi_string(it.v.ptr, it.len), j + 1, st
  elseif tag == NUMBER then
    return tonumber(it.v.num), j + 1, st
  elseif tag == TRUE then
    return true, j + 1, st
  elseif tag == FALSE then
    return false, j + 1, st
  elseif tag == NULL then
    return M.null, j + 1, st
  elseif tag == MISSING then
    return nil, j + 1, st
  elseif tag == LIST then
    return list_value(self, st, items, j + 1, it.len, anchor, ptr, len, docobj)
  end
  local v
  v, st = container(self, st, it.v.node, tag, anchor, ptr, len, docobj)
  return v, j + 1, st
end

-- Per count of paths n: `fill` sets vals[1..n] from the items;
-- `spread(self, vals)` returns vals[1..n] and, given selector `self`,
-- gives the table back to it emptied after reading it (given back
-- before, a finalizer's call of the same selector could fill it in
-- between; given back full, it would keep the call's values alive). A
-- loop over the paths would be a trace of its own that every call enters
-- and leaves through the interpreter, and unpack is not compiled (the
-- trace stitches around it): for up to UNROLL paths both are generated
-- once per count as straight code, which traces into the caller's loop
-- (the common scalars inline, the rest via `value`).
local UNROLL = 32
local generated = {}

local function fill_loop(self, items, vals, anchor, ptr, len, docobj)
  local j, st = 0, nil
  for i = 1, self.n do
    vals[i], j, st = value(self, st, items, j, anchor, ptr, len, docobj)
  end
end

-- Empties vals[1..n], so that a table kept for reuse keeps no value alive.
local function empty(vals, n)
  for i = 1, n do
    vals[i] = nil
  end
end

local function give_back(self, vals, n, ...)
  if self then
    empty(vals, n)
    self.vals = vals
  end
  return ...
end

local function unroll(n)
  if n > UNROLL then
    return fill_loop, function(self, vals)
      return give_back(self, vals, n, unpack(vals, 1, n))
    end
  end
  local g = generated[n]
  if g then
    return g[1], g[2]
  end
  local code = { "local STRING, NUMBER, ffi_string, tonumber, value = ...\n",
    "local function fill(self, items, vals, anchor, ptr, len, docobj)\n",
    "local j, st, it, tag = 0, nil\n" }
  for i = 1, n do
    code[#code + 1] = ("it = items[j] tag = it.tag\n"
      .. "if tag == STRING then vals[%d] = ffi_string(it.v.ptr, it.len) j = j + 1\n"
      .. "elseif tag == NUMBER then vals[%d] = tonumber(it.v.num) j = j + 1\n"
      .. "else vals[%d], j, st = value(self, st, items, j, anchor, ptr, len, docobj) end\n"):format(i, i, i)
  end
  local names, all, empties = {}, {}, {}
  for i = 1, n do
    names[i], all[i], empties[i] = "v" .. i, "vals[" .. i .. "]", "vals[" .. i .. "] = nil"
  end
  names = concat(names, ", ")
  code[#code + 1] = "end\nlocal function spread(self, vals) local " .. names .. " = " .. concat(all, ", ")
    .. " if self then " .. concat(empties, " ") .. " self.vals = vals end return " .. names .. " end\n"
  code[#code + 1] = "return fill, spread\n"
  local fill, spread = assert(loadstring(concat(code), "=qjson.select (" .. n .. " paths)"))(STRING, NUMBER,
    ffi_string, tonumber, value)
  generated[n] = { fill, spread }
  return fill, spread
end

-- Runs the selector; `vals` gets the values in selector order. `d` is a
-- document's handle (then `node`), or nil and `ptr`/`len` a JSON text
-- that `anchor` keeps alive. Returns nil, or a message and whether it is
-- an input error (raised at level 0) rather than the caller's.
local function run(self, vals, d, node, anchor, ptr, len, docobj)
  local sp = self.ref
  local r = take()
  local out = r.out
  -- A document's strings are read from its memory while Lua strings are
  -- made (allocations, which may run a finalizer that closes it): pinned
  -- meanwhile (qjson.base).
  if d ~= nil and C.qjson_pin(d) ~= 1 then
    give(r)
    return "qjson: " .. base.error_message(d)
  end
  local rc = C.qjson_select(sp, d, node, ptr, len, self.opts, out)
  if rc == 0 then
    grow(r, out.count, out.used)
    rc = C.qjson_select(sp, d, node, ptr, len, self.opts, out)
  end
  if rc ~= 1 then
    if d ~= nil then
      C.qjson_unpin(d)
    end
    local msg = ffi_string(out.err.message)
    give(r)
    return "qjson: " .. msg
  end
  self.fill(self, r.items, vals, anchor, ptr, len, docobj)
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
      vals[i] = nil
    end
    if reuse then
      self.vals = vals
    end
    return out
  end
  return self.spread(self, vals)
end
SelectorMT.__call = call

-- Reads a span of `len` bytes at `ptr` (kept alive by `anchor`) into
-- `vals`: for qjson.stream. Returns nil or the message.
function M.read_span(self, vals, anchor, ptr, len)
  return run(self, vals, nil, 0, anchor, ptr, len, nil)
end

-- Selector `sel` reading texts with packed parse options `o` instead of
-- its own (qjson.stream's options, for the values it hands to `sel`):
-- a copy sharing its compiled paths.
function M.with_options(sel, o)
  local copy = {}
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local k, v = next(sel)
  while k ~= nil do
    copy[k] = v
    k, v = next(sel, k)
  end
  copy.opts, copy.vals = o, nil
  return setmetatable(copy, SelectorMT)
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
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local key = next(specs)
  while key ~= nil do
    if type(key) == "string" then
      names[#names + 1] = key
    elseif not (type(key) == "number" and key >= 1 and key <= npos and key % 1 == 0) then
      return nil, arg_message(1, "select", "keys must be 1..n or names, got " .. tostring(key)), true
    end
    key = next(specs, key)
  end
  sort(names)
  for _, k in ipairs(names) do
    keys[#keys + 1], list[#list + 1] = k, specs[k]
  end
  if #list == 0 then
    return nil, arg_message(1, "select", "no paths"), true
  elseif #names == 0 and npos > M.MAX_VALUES then
    return nil, arg_message(1, "select", "more than " .. M.MAX_VALUES .. " paths in a list (a call returns each "
      .. "as a value); name them to get a table"), true
  end
  local fill, spread = unroll(#list)
  local ref = base.new_ref(selector_ref, C.qjson_selector_release)
  local box = ffi_new("qjson_error")
  if C.qjson_selector_new_in(ref, box) == 0 then
    return nil, "qjson: " .. ffi_string(box.message)
  end
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
    if C.qjson_selector_add(ref, path, #path, ty, ty and #ty or 0, box) == 0 then
      return nil, arg_message(1, "select", ffi_string(box.message)), true
    end
    texts[i] = ty and (path .. ":" .. ty) or path
  end
  return setmetatable({
    ref = ref, opts = o, n = #list, npos = npos, named = #names > 0,
    keys = keys, texts = texts, vals = new_tab(#list, 0), fill = fill,
    spread = spread,
  }, SelectorMT)
end

-- Whether `x` is a selector.
function M.is(x)
  return type(x) == "table" and getmetatable(x) == SelectorMT
end

return M
