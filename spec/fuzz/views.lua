-- Lazy-view operations of the Lua-level fuzzer: qjson.decode, reads by
-- indexing, qjson.pairs / ipairs / len, edits (set, add, delete, append,
-- insert, remove; values that are scalars, plain tables or views of
-- other documents), encode and materialize. Each view is checked against
-- a shadow: plain Lua tables built from the model's tree and edited the
-- same way.
local ffi = require("ffi")
local bit = require("bit")
local model = require("fuzz.model")
local util = require("fuzz.util")
local qjson_view = require("qjson.view")
local known = require("fuzz.known")

local format = string.format
local show, deep_equal = util.show, util.deep_equal

local V = {}

-- FNV-1a of `s`: an untouched root must encode to the very bytes decoded,
-- which are not kept (the view must keep them alive itself).
local function hash(s)
  local h = 0x811C9DC5
  for i = 1, #s do
    -- x * 0x01000193 mod 2^32 with every step exact: a product past 2^53
    -- makes bit.tobit differ between arm64's interpreter and JIT.
    local x = bit.bxor(h, s:byte(i))
    h = bit.tobit(x * 0x193 + bit.lshift(x, 24))
  end
  return h
end

local BIG_INT = 2 ^ 53 - 1

-- The value of a string of decimal digits, exactly, as uint64_t.
local function u64(digits)
  local x = ffi.new("uint64_t", 0)
  for i = 1, #digits do x = x * 10 + (digits:byte(i) - 48) end
  return x
end

-- A number node as decode reads it with the `big_int` option.
local function number_value(node, big_int)
  if big_int and node.integer and math.abs(node.v) > BIG_INT then
    if big_int == "string" then return node.raw end
    local neg, digits = node.raw:match("^(%-?)(%d+)$")
    if neg == "-" and util.at_most(digits, "9223372036854775808") then
      return ffi.new("int64_t", -u64(digits))
    elseif neg == "" and util.at_most(digits, "9223372036854775807") then
      return ffi.new("int64_t", u64(digits))
    elseif neg == "" and util.at_most(digits, "18446744073709551615") then
      return u64(digits)
    end
  end
  return node.v
end

-- The shadow of a tree: plain tables, each container's kind (and an
-- object's key order) noted in `kinds`.
local function shadow_of(node, kinds, null, big_int)
  if node.t == "object" then
    local t = {}
    for i = 1, #node.keys do t[node.keys[i]] = shadow_of(node.vals[i], kinds, null, big_int) end
    kinds[t] = { kind = "object", order = model.unique(node) }
    return t
  elseif node.t == "array" then
    local t = {}
    for i = 1, #node.items do t[i] = shadow_of(node.items[i], kinds, null, big_int) end
    kinds[t] = { kind = "array" }
    return t
  elseif node.t == "null" then
    return null
  elseif node.t == "number" then
    return number_value(node, big_int)
  end
  return node.v
end

-- A copy of a plain value assigned into a view, for the shadow.
local function copy(v, kinds, from_kinds)
  if type(v) ~= "table" or v == util.null then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = copy(x, kinds, from_kinds) end
  local info = from_kinds and from_kinds[v]
  kinds[t] = { kind = info and info.kind or (#v > 0 and "array" or "object") }
  return t
end

function V:add_view(v, shadow, kinds, doc, root)
  if #self.views >= 16 then table.remove(self.views, self:int(1, #self.views)) end
  self.views[#self.views + 1] = { v = v, shadow = shadow, kinds = kinds, doc = doc, root = root }
end

-- A value to assign: a scalar that encodes exactly, a small plain table,
-- or the view of a freshly decoded document (whose source only the new
-- parent keeps alive).
function V:gen_assigned(kinds, big_int, allow_view)
  local r = self:int(1, allow_view and 10 or 7)
  if r <= 4 then
    return self:pick({ self:gen_str_value(), self:int(-1e6, 1e6), self:int(-1e6, 1e6) + 0.5, true, false,
      self.qjson.null })
  elseif r <= 7 then
    local t = {}
    if self:chance(0.5) then
      for i = 1, self:int(1, 4) do t[i] = self:gen_str_value() end
    else
      for _ = 1, self:int(0, 3) do t[self:gen_str_value()] = self:int(0, 100) end
    end
    return t, copy(t, kinds)
  end
  local text = self:gen_value(3)
  local tree = model.decode(text)
  if not tree or (tree.t ~= "object" and tree.t ~= "array") then return self:int(0, 9) end
  local v = assert(self.safe.decode(text, { big_int = big_int }))
  self:count("views assigned")
  return v, shadow_of(tree, kinds, self.qjson.null, big_int)
end

-- Walks down from a view entry: the view and shadow of a random
-- container at most `depth` levels below the root.
function V:descend(e, depth)
  local v, s = e.v, e.shadow
  for _ = 1, depth do
    local info = e.kinds[s]
    local keys = {}
    if info.kind == "array" then
      for i = 1, #s do if type(s[i]) == "table" and s[i] ~= self.qjson.null then keys[#keys + 1] = i end end
    else
      for k, x in pairs(s) do if type(x) == "table" and x ~= self.qjson.null then keys[#keys + 1] = k end end
      table.sort(keys)
    end
    if #keys == 0 or self:chance(0.3) then break end
    local k = self:pick(keys)
    v, s = v[k], s[k]
  end
  return v, s
end

-- Compares a value read from a view with the shadow's.
function V:check_read(got, want, kinds, context)
  if type(want) == "table" and want ~= self.qjson.null then
    self:check(type(got) == "table", "%s: want a view, got %s", context, tostring(got))
    local n = kinds[want].kind == "array" and #want or 0
    self:check(self.qjson.len(got) == n, "%s: qjson.len %s, want %d", context, tostring(self.qjson.len(got)), n)
  elseif type(want) == "cdata" then
    self:check(tostring(got) == tostring(want), "%s: want %s, got %s", context, tostring(want), tostring(got))
  else
    self:check(deep_equal(got, want), "%s: want %s, got %s", context, show(want), show(got))
  end
end

-- Reads a random path down a view, every step against the shadow.
function V:view_read(e)
  local v, s = e.v, e.shadow
  local context = "view"
  for _ = 1, self:int(1, 4) do
    local info = e.kinds[s]
    local k
    if info.kind == "array" then
      k = self:int(0, #s + 1)
    else
      local keys = {}
      for key in pairs(s) do keys[#keys + 1] = key end
      table.sort(keys)
      k = (#keys > 0 and self:chance(0.9)) and self:pick(keys) or self:pick({ "nope", "_doc", "__index", "n" })
    end
    context = context .. "[" .. show(k) .. "]"
    local got = v[k]
    self:check_read(got, s[k], e.kinds, context)
    if type(s[k]) ~= "table" or s[k] == self.qjson.null then return end
    self:check(v[k] == got, "%s: a second read gives another view", context)
    v, s = got, s[k]
  end
end

-- qjson.pairs / ipairs over a container of the view.
function V:view_iterate(e)
  local v, s = self:descend(e, self:int(0, 3))
  local info = e.kinds[s]
  local got = {}
  if info.kind == "array" and self:chance(0.5) then
    for i, x in self.qjson.ipairs(v) do got[#got + 1] = { i, x } end
    self:check(#got == #s, "qjson.ipairs: %d elements, want %d", #got, #s)
    for i, kv in ipairs(got) do
      self:check(kv[1] == i, "qjson.ipairs: index %s at %d", tostring(kv[1]), i)
      self:check_read(kv[2], s[i], e.kinds, "qjson.ipairs [" .. i .. "]")
    end
    return
  end
  local seen = {}
  for k, x in self.qjson.pairs(v) do
    self:check(not seen[k], "qjson.pairs: key %s twice", show(k))
    seen[k] = true
    got[#got + 1] = k
    self:check_read(x, s[k], e.kinds, "qjson.pairs " .. show(k))
  end
  local n = 0
  for _ in pairs(s) do n = n + 1 end
  self:check(#got == n, "qjson.pairs: %d members, want %d", #got, n)
  if info.order then
    self:check(deep_equal(got, info.order), "qjson.pairs of an unedited object: keys out of source order")
  end
  self:count("view iterations")
end

-- One random edit at a random depth, on the view and on the shadow.
function V:view_edit(e)
  local depth = self:int(0, 3)
  local v, s = self:descend(e, depth)
  local info = e.kinds[s]
  local q = self.qjson
  -- (While the bug is there, no view goes into a plain table.)
  local allow_view = qjson_view.is_view(v) or not known.present("materialize_nested_view")
  local x, sx = self:gen_assigned(e.kinds, e.big_int, allow_view)
  if sx == nil then sx = x end
  info.order = nil -- edited: added keys go last, order is not checked
  e.root = nil
  local what
  if info.kind == "object" then
    local keys = {}
    for k in pairs(s) do keys[#keys + 1] = k end
    table.sort(keys)
    local r = self:int(1, 3)
    local k
    if #keys > 0 and r <= 2 then
      k = self:pick(keys)
    else
      k = self:chance(0.5) and self:pick(util.KEYS) or self:gen_str_value()
    end
    if r == 2 and #keys > 0 then x, sx = nil, nil end
    v[k], s[k] = x, sx
    what = format("[%s] = %s", show(k), tostring(x))
  else
    local n = #s
    -- (While the bug is there, no insert or remove shifts elements.)
    local r = self:int(1, known.present("stale_child_view") and 3 or 6)
    if r == 1 and n > 0 then
      local i = self:int(1, n)
      v[i], s[i] = x, sx
      what = format("[%d] = %s", i, tostring(x))
    elseif r == 2 then
      v[n + 1], s[n + 1] = x, sx
      what = format("[%d] = %s (append)", n + 1, tostring(x))
    elseif r == 3 and n > 0 then
      v[n], s[n] = nil, nil
      what = format("[%d] = nil (last)", n)
    elseif r == 4 then
      local pos = self:int(1, n + 1)
      q.insert(v, pos, x)
      table.insert(s, pos, sx)
      what = format("insert(%d, %s)", pos, tostring(x))
    elseif r == 5 and n > 0 then
      local pos = self:int(1, n)
      local got = q.remove(v, pos)
      local want = table.remove(s, pos)
      self:check_read(got, want, e.kinds, "qjson.remove(a, " .. pos .. ")")
      what = format("remove(%d)", pos)
    else
      q.insert(v, x)
      s[n + 1] = sx
      what = format("insert(%s)", tostring(x))
    end
  end
  -- What was done to this view, for the failure message of a later step.
  e.log = e.log or {}
  if #e.log >= 30 then table.remove(e.log, 1) end
  e.log[#e.log + 1] = format("step %d: %s at depth %d: %s", self.step, info.kind, depth, what)
  self:count("view edits")
end

local function has_infinity(x)
  if type(x) == "number" then return x == 1 / 0 or x == -1 / 0 end
  if type(x) ~= "table" then return false end
  for _, y in pairs(x) do
    if has_infinity(y) then return true end
  end
  return false
end

-- encode and materialize of a view against its shadow; an untouched
-- root encodes to the very text decoded.
function V:view_encode(e)
  local q = self.qjson
  local opts = self:chance(0.2) and { indent = 2, sort_keys = true } or nil
  local out, err = self.safe.encode(e.v, opts)
  if out == nil and has_infinity(e.shadow) then
    -- A number of the document keeps its text (1e400), but ±inf assigned
    -- by an edit cannot be written.
    self:check(err == "Cannot serialise number: must not be NaN or Infinity",
      "encode of a view holding inf: %s, %s", show(out), tostring(err))
    return
  end
  self:check(type(out) == "string", "encode of a view: %s", tostring(err))
  if e.root and not opts then
    self:check(#out == e.root.len and hash(out) == e.root.hash,
      "encode of an untouched view is not the text decoded (%d bytes, want %d)", #out, e.root.len)
  end
  local tree = model.decode(out, { max_depth = 1e9 })
  self:check(tree, "encode of a view wrote invalid JSON: %s", show(out))
  -- (Numbers compared as %.14g with options: assigned ones are written so.)
  local function norm(x)
    if not opts then return x end
    if type(x) == "number" then return util.g14(x) end
    if type(x) ~= "table" or x == q.null then return x end
    local t = {}
    for k, y in pairs(x) do t[k] = norm(y) end
    return t
  end
  local back = norm(shadow_of(tree, {}, q.null, e.big_int))
  self:check(deep_equal(back, norm(e.shadow)), "encode of a view reads back differently at %s: %s",
    util.diff(back, norm(e.shadow)), show(out))
  local m = q.materialize(e.v)
  self:check(deep_equal(m, e.shadow), "materialize of a view differs from the shadow at %s", util.diff(m, e.shadow))
  self:count("view encodes")
end

-- qjson.decode of a fresh text: outcome as parse's; views into the pool.
function V:decode_and_check()
  local text, origin = self:gen_text()
  local opts = self:gen_opts()
  if self:chance(0.2) then
    opts = opts or {}
    opts.big_int = self:pick({ "cdata", "string" })
  end
  local tree, f = model.decode(text, opts)
  local v, err
  if known.present("safe_decode_raises") then
    local ok
    ok, v, err = pcall(self.safe.decode, text, opts)
    if not ok then v, err = nil, v end
  else
    v, err = self.safe.decode(text, opts)
  end
  local context = format("decode of %s text %s, opts %s", origin, show(text), util.show_opts(opts))
  local lazy = opts and opts.mode == "lazy"
  self:count("decodes")
  if not tree then
    if lazy then
      if v == nil then
        local ok, e = pcall(self.check_position, self, err, text)
        self:check(ok, "%s: %s", context, tostring(e))
      end
      return
    end
    self:check(v == nil, "%s: accepted invalid JSON (model: %s)", context, f.kind)
    local ok, e = pcall(self.check_failure, self, err, text, f, opts)
    self:check(ok, "%s: %s", context, tostring(e))
    return
  end
  self:check(err == nil, "%s: rejected valid JSON: %s", context, tostring(err))
  local kinds = {}
  local shadow = shadow_of(tree, kinds, self.qjson.null, opts and opts.big_int)
  if tree.t ~= "object" and tree.t ~= "array" then
    self:check_read(v, shadow, kinds, context)
    return
  end
  self:check(type(v) == "table", "%s: want a view, got %s", context, tostring(v))
  local e = { v = v, shadow = shadow, kinds = kinds, big_int = opts and opts.big_int,
    root = { len = #text, hash = hash(text) } }
  if #self.views >= 16 then table.remove(self.views, self:int(1, #self.views)) end
  self.views[#self.views + 1] = e
end

-- A view from doc:get (read-only here: the document's cursors read the
-- original values, and get() gives the same view back).
function V:add_doc_view(v, node, doc)
  local kinds = {}
  local e = { v = v, shadow = shadow_of(node, kinds, self.qjson.null), kinds = kinds, doc = doc, readonly = true }
  if #self.views >= 16 then table.remove(self.views, self:int(1, #self.views)) end
  self.views[#self.views + 1] = e
end

-- Runs `fn` on a random view; views of a closed document must raise
-- "document is closed" on every read that reaches the document.
function V:with_view(fn, editing)
  if #self.views == 0 then return end
  local e = self:pick(self.views)
  if editing and e.readonly then return end
  if e.doc and e.doc.closed then
    local ok, err = pcall(fn, self, e)
    self:check(ok or tostring(err):find("qjson: document is closed", 1, true),
      "a view of a closed document raised %s", tostring(err))
    self:count("view reads after close")
    return
  end
  local ok, err = pcall(fn, self, e)
  if not ok then
    error(tostring(err) .. "\nedits of this view:\n  " .. table.concat(e.log or { "none" }, "\n  "), 0)
  end
end

V.ops = {
  { name = "decode", weight = 8, fn = function(self) self:decode_and_check() end },
  { name = "view read", weight = 12, fn = function(self) self:with_view(self.view_read) end },
  { name = "view iterate", weight = 4, fn = function(self) self:with_view(self.view_iterate) end },
  { name = "view edit", weight = 8, fn = function(self) self:with_view(self.view_edit, true) end },
  { name = "view encode", weight = 4, fn = function(self) self:with_view(self.view_encode) end },
  { name = "view drop", weight = 2, fn = function(self)
    if #self.views > 0 then table.remove(self.views, self:int(1, #self.views)) end
  end },
}

return V
