-- The Lua-level fuzzer: seeded random sequences of calls through
-- qjson.safe, each result checked against an oracle, with a full garbage
-- collection between steps and every input string dropped as soon as it
-- is parsed (a document must keep its own source alive).
--
-- Oracles: spec/fuzz/model.lua (a pure-Lua strict JSON parser and path
-- resolver: accept/reject, error positions, every value), lua-cjson (the
-- model's values on every accepted text, the encoder's bytes, what
-- qjson.cjson decodes), and a plain-table shadow of every edited view.
--
-- The operations are a table (M.ops): each has a name, a weight and a
-- function of the fuzzer state. A failure raises with the seed and the
-- step, so that `make fuzz-lua SEED=<seed> STEPS=<step>` replays it.
--   local driver = require("fuzz.driver")
--   local stats = driver.run(seed, steps [, { light = true, log = print }])
local ffi = require("ffi")
local cjson = require("cjson")
local model = require("fuzz.model")
local util = require("fuzz.util")
local gen = require("fuzz.gen")
local encode = require("fuzz.encode")
local views = require("fuzz.views")
local dropin = require("fuzz.dropin")
local select_ops = require("fuzz.select")
local support = require("support")

local byte, sub, format = string.byte, string.sub, string.format
local show, show_opts, deep_equal, at_most = util.show, util.show_opts, util.deep_equal, util.at_most

local M = {}

-- The fuzzer's state; its methods come from this file and the modules
-- above (generators; encoder, view and qjson.cjson operations).
local F = {}
F.__index = F
for _, mixin in ipairs({ gen, encode, views, dropin, select_ops }) do
  for name, f in pairs(mixin) do
    if type(f) == "function" then F[name] = f end
  end
end

-- Raises a failure of the current step unless `cond` holds.
function F.check(_, cond, fmt, ...)
  if not cond then error(format(fmt, ...), 2) end
end

---------------------------------------------------------------------------
-- Checking a parse against the model.

-- Line and column of byte offset `b` of `text`, as docs/api.md defines
-- them (column in characters); nil when the text before is not UTF-8.
local function locate(text, b)
  local before = sub(text, 1, b)
  if model.invalid_utf8_at(before) then return nil end
  local line = 1
  for _ in before:gmatch("\n") do line = line + 1 end
  local last = before:match("[^\n]*$")
  local col = 1
  for k = 1, #last do
    local c = byte(last, k)
    if c < 0x80 or c >= 0xC0 then col = col + 1 end
  end
  return line, col
end

-- Checks a parse error message: its form, and that its position is
-- consistent with itself; returns what went wrong and the byte offset.
function F:check_position(err, text)
  self:check(type(err) == "string", "parse error is %s, not a string", type(err))
  local what, line, col, b = err:match("^qjson: (.-) at line (%d+), column (%d+) %(byte (%d+)%)$")
  self:check(what, "parse error without a position: %s", show(err))
  b = tonumber(b)
  self:check(b <= #text, "error at byte %d of a %d-byte input: %s", b, #text, err)
  local l, c = locate(text, b)
  if l then
    self:check(tonumber(line) == l and tonumber(col) == c,
      "error at byte %d should be at line %d, column %d: %s", b, l, c, err)
  end
  return what, b
end

local MODEL_WHAT = { deep = "^nesting deeper than max_depth %((%d+)%)$", range = "^number out of range$",
  empty = "^empty input$", duplicate = "^duplicate key$" }

-- Checks a strict-mode error against the model's failure `f`.
function F:check_failure(err, text, f, opts)
  local what, b = self:check_position(err, text)
  local want = MODEL_WHAT[f.kind]
  if f.kind == "duplicate" then
    local found = false
    for _, d in ipairs(f.dups) do found = found or d == b end
    self:check(what == "duplicate key" and found, "want a duplicate key at one of the model's, got %s", err)
  elseif want then
    self:check(what:match(want) and b == f.at, "model: %s at byte %d; qjson: %s", f.kind, f.at, err)
    if f.kind == "deep" then
      self:check(tonumber(what:match(want)) == (opts and opts.max_depth or 1000), "wrong max_depth: %s", err)
    end
  else
    for _, pattern in pairs(MODEL_WHAT) do
      self:check(not what:match(pattern), "model: bad grammar at bytes %d..%d; qjson: %s", f.token, f.at, err)
    end
    self:check(b >= f.token and b <= f.at,
      "the error should be between bytes %d and %d (the model's), got %s", f.token, f.at, err)
  end
end

-- The model's tree agrees with lua-cjson's decode of the same text (so a
-- mistake in the model shows up here rather than as a qjson failure).
function F:check_model_with_cjson(tree, text)
  local ok, v = pcall(cjson.decode, text)
  self:check(ok, "the model accepts what lua-cjson rejects (%s): %s", tostring(v), show(text))
  self:check(deep_equal(model.plain(tree, cjson.null), v),
    "the model and lua-cjson read different values: %s", show(text))
end

---------------------------------------------------------------------------
-- The pool of live documents and cursors.

function F:add(h, node, doc)
  if #self.entries >= 24 then
    table.remove(self.entries, self:int(1, #self.entries))
  end
  self.entries[#self.entries + 1] = { h = h, node = node, doc = doc }
end

function F:count(what)
  self.stats[what] = (self.stats[what] or 0) + 1
end

-- Parses a fresh text with `parse` (qjson.safe's parse or parse_file) and
-- checks the outcome; the text is not kept.
function F:parse_and_check(parse, label)
  local text, origin = self:gen_text()
  local opts = self:gen_opts()
  local tree, f = model.decode(text, opts)
  local cjson_options = opts == nil
    or (not opts.ijson and opts.duplicate_keys ~= "reject" and (opts.max_depth or 1000) >= 1000)
  if tree and cjson_options then
    self:check_model_with_cjson(tree, text)
  end
  local lazy = opts and opts.mode == "lazy"
  local h, err = parse(text, opts)
  local context = format("%s of %s text %s, opts %s", label, origin, show(text), show_opts(opts))
  if tree then
    self:check(h ~= nil, "%s: rejected valid JSON: %s", context, tostring(err))
    self:count(label .. ": accepted")
  elseif not lazy then
    self:check(h == nil, "%s: accepted invalid JSON (model: %s at byte %s)", context, f.kind, tostring(f.at))
    local ok, e = pcall(self.check_failure, self, err, text, f, opts)
    self:check(ok, "%s: %s", context, tostring(e))
    self:count(label .. ": rejected")
  else
    -- Lazy mode defers value errors; what it checks at parse time must
    -- still be reported as in strict mode.
    if f.kind ~= "grammar" then
      self:check(h == nil, "%s: lazy mode accepted input with a %s error", context, f.kind)
    end
    if h == nil then
      local ok, e = pcall(self.check_position, self, err, text)
      self:check(ok, "%s: %s", context, tostring(e))
      if f.kind ~= "grammar" then
        ok, e = pcall(self.check_failure, self, err, text, f, opts)
        self:check(ok, "%s: %s", context, tostring(e))
      else
        -- Lazy mode checks repeated keys once the structure holds, so one
        -- may come before a value error strict mode stops at.
        local what, b = self:check_position(err, text)
        self:check(b >= f.token or what == "duplicate key", "%s: lazy error before the first error: %s", context, err)
      end
      self:count(label .. ": lazy rejected")
    else
      self:count(label .. ": lazy accepted invalid")
    end
  end
  if h then
    self:add(h, tree, { lazy = lazy, closed = false })
  end
end

---------------------------------------------------------------------------
-- Paths.

-- A path argument for a read: the string, a compiled path, or nil (the
-- root); with what the model makes of it.
function F:path_arg(node)
  local str = self:gen_path(node)
  local segs, bad_at = model.parse_path(str)
  if str == "" and self:chance(0.3) then return nil, "", segs end
  if self:chance(0.3) then
    local p, err = self.safe.path(str)
    if segs then
      self:check(p ~= nil, "qjson.path(%s) failed: %s", show(str), tostring(err))
      self:count("compiled paths")
      return p, str, segs
    end
    self:check(p == nil and type(err) == "string", "qjson.path accepted malformed path %s", show(str))
    local at = err:match("^bad argument #1 to 'path' %(invalid path: .- at byte (%d+)%)$")
    self:check(tonumber(at) == bad_at, "qjson.path(%s): want an error at byte %d, got %s", show(str), bad_at, err)
    self:count("malformed paths")
  end
  return str, str, segs, bad_at
end

---------------------------------------------------------------------------
-- Reads.

local function describe(str)
  if str == nil or str == "" then return "the root" end
  return "'" .. str .. "'"
end

local function mismatch(str, want, got)
  return "qjson: type mismatch at " .. describe(str) .. ": expected " .. want .. ", got " .. got
end

local CONTAINER = { object = true, array = true }
-- Values this long (bytes) are not compared in full on every read.
local BIG = 50000

-- The exact integer text of a number node, or nil when it has a fraction
-- or exponent (qjson's integer reads accept only integer syntax).
local function integer_text(node)
  if not node.raw:match("^%-?%d+$") then return nil end
  local neg, digits = node.raw:match("^(%-?)(%d+)$")
  if digits == "0" then neg = "" end
  return neg, digits
end

function F:check_scalar(got, node, context)
  if node.t == "null" then
    self:check(got == self.safe.null, "%s: want null, got %s", context, tostring(got))
  elseif node.t == "number" then
    self:check(type(got) == "number" and got == node.v and (got ~= 0 or 1 / got == 1 / node.v),
      "%s: want %s (%.17g), got %s", context, node.raw, node.v, tostring(got))
  else
    self:check(got == node.v, "%s: want %s, got %s", context, show(node.v), show(got))
  end
end

-- A value an iterator or get() returned for `node`: scalars as Lua
-- values, containers as cursors (documents) or views.
function F:check_value(got, node, context, doc)
  if not CONTAINER[node.t] then
    return self:check_scalar(got, node, context)
  end
  self:check(type(got) == "table", "%s: want a cursor, got %s", context, tostring(got))
  self:check(got:typeof() == node.t and got:len() == model.count(node),
    "%s: cursor of the wrong value (%s, %s)", context, tostring(got:typeof()), tostring(got:len()))
  if self:chance(0.2) then self:add(got, node, doc) end
end

function F:check_iteration(e, method, str, m, res)
  local context = format("%s(%s)", method, show(str))
  local want = method == "ipairs" and "array" or "object or array"
  if m == nil then
    self:check(res[1] == nil and res[2] == "qjson: nothing at " .. describe(str) .. " to iterate",
      "%s of a missing value: %s", context, tostring(res[2]))
    return
  end
  if m.t ~= "array" and (method == "ipairs" or m.t ~= "object") then
    self:check(res[1] == nil and res[2] == mismatch(str, want, m.t), "%s of a %s: %s", context, m.t, tostring(res[2]))
    return
  end
  self:check(type(res[1]) == "function", "%s returned %s, %s", context, tostring(res[1]), tostring(res[2]))
  local got = {}
  local ok, err = pcall(function()
    for k, v in res[1], res[2], res[3] do got[#got + 1] = { k, v } end
  end)
  self:check(ok, "%s raised: %s", context, tostring(err))
  if m.t == "array" then
    self:check(#got == #m.items, "%s: %d elements, want %d", context, #got, #m.items)
    for i, kv in ipairs(got) do
      self:check(kv[1] == i, "%s: index %s at step %d", context, tostring(kv[1]), i)
      self:check_value(kv[2], m.items[i], context .. "[" .. i .. "]", e.doc)
    end
  else
    local keys = model.unique(m)
    self:check(#got == #keys, "%s: %d members, want %d", context, #got, #keys)
    for i, kv in ipairs(got) do
      self:check(kv[1] == keys[i], "%s: key %d is %s, want %s", context, i, show(kv[1]), show(keys[i]))
      self:check_value(kv[2], model.member(m, keys[i]), context .. "." .. keys[i], e.doc)
    end
  end
  self:count("iterations")
end

local METHODS = { "typeof", "len", "get_str", "get_num", "get_i64", "get_u64", "get_bool", "is_null",
  "get", "raw", "open", "pairs", "ipairs" }

local WANT = { get_str = "string", get_num = "number", get_i64 = "number", get_u64 = "number",
  get_bool = "boolean", len = "array or object" }

-- Reads from a random document or cursor, with a random path and method.
function F:read(e)
  local pathv, str, segs, bad_at = self:path_arg(e.node)
  local method = self:pick(METHODS)
  local h = e.h
  local res = { h[method](h, pathv) }
  local context = format("%s(%s) on %s", method, show(str), e.node and e.node.t or "an unchecked lazy document")
  if (method == "pairs" or method == "ipairs") and type(res[2]) == "string" then
    -- qjson.safe's iterators fail as an iterator that raises the message
    -- (a generic for cannot take nil and a message): checked as nil, msg.
    local ok, err = pcall(res[1])
    self:check(not ok and err == res[2], "%s: the failed iterator raised %s, want %s", context, tostring(err),
      show(res[2]))
    res = { nil, res[2] }
  end
  local r1, r2 = res[1], res[2]
  self:count("reads")
  if e.doc.closed then
    local closed = r1 == nil and r2 == "qjson: document is closed"
    local bad_path = bad_at and r1 == nil and type(r2) == "string" and r2:find("^qjson: invalid path")
    self:check(closed or bad_path, "%s on a closed document: %s, %s", context, tostring(r1), tostring(r2))
    self:count("reads after close")
    return
  end
  if bad_at then
    local at = type(r2) == "string" and r2:match("^qjson: invalid path: .- at byte (%d+)$")
    self:check(r1 == nil and tonumber(at) == bad_at, "%s: want an invalid path error at byte %d, got %s, %s",
      context, bad_at, tostring(r1), tostring(r2))
    return
  end
  if e.node == nil then
    -- A lazy document the model rejects: reads either work or raise a
    -- positioned error or a type mismatch; never anything else.
    if r1 == nil and r2 ~= nil then
      self:check(type(r2) == "string" and (r2:find(" at line %d+, column %d+ %(byte %d+%)$")
        or r2:find("^qjson: type mismatch") or r2:find("^qjson: nothing at")),
        "%s: unexpected error %s", context, show(r2))
    elseif (method == "pairs" or method == "ipairs") and type(r1) == "function" then
      local ok, err = pcall(function() for _ in r1, r2, res[3] do end end)
      self:check(ok or tostring(err):find(" at line %d+, column %d+ %(byte %d+%)$"),
        "%s: iteration raised %s", context, tostring(err))
    end
    return
  end

  local m = model.resolve(e.node, segs)
  if method == "pairs" or method == "ipairs" then
    return self:check_iteration(e, method, str, m, res)
  end
  if m == nil then
    self:check(r1 == nil and r2 == nil, "%s of a missing value: %s, %s", context, tostring(r1), tostring(r2))
    return
  end
  local want = WANT[method]
  if method == "typeof" then
    self:check(r1 == m.t, "%s: want %s, got %s", context, m.t, tostring(r1))
  elseif method == "is_null" then
    self:check(r1 == (m.t == "null"), "%s: got %s", context, tostring(r1))
  elseif method == "len" then
    if CONTAINER[m.t] then
      self:check(r1 == model.count(m), "%s: want %d, got %s (%s)", context, model.count(m), tostring(r1), tostring(r2))
    else
      self:check(r1 == nil and r2 == mismatch(str, want, m.t), "%s: got %s", context, tostring(r2))
    end
  elseif method == "raw" then
    self:check(type(r1) == "string" and #r1 == m.len, "%s: want %d bytes, got %s", context, m.len, show(r1))
    if m.len < BIG then
      local t = model.decode(r1, { max_depth = 1e9 })
      self:check(t and model.same(t, m), "%s: raw text is not the value's: %s", context, show(r1))
    end
  elseif method == "open" then
    self:check(type(r1) == "table", "%s: want a cursor, got %s, %s", context, tostring(r1), tostring(r2))
    self:check(r1:typeof() == m.t, "%s: cursor at a %s", context, tostring(r1:typeof()))
    if self:chance(0.5) then self:add(r1, m, e.doc) end
  elseif method == "get" then
    if CONTAINER[m.t] then
      self:check_view(r1, r2, m, context, e.doc)
    else
      self:check_scalar(r1, m, context)
    end
  elseif m.t ~= want then
    self:check(r1 == nil and r2 == mismatch(str, want, m.t), "%s: got %s, %s", context, tostring(r1), tostring(r2))
  elseif method == "get_i64" or method == "get_u64" then
    local neg, digits = integer_text(m)
    local fits
    if method == "get_i64" then
      fits = neg and at_most(digits, neg == "-" and "9223372036854775808" or "9223372036854775807")
    else
      fits = neg == "" and at_most(digits, "18446744073709551615")
    end
    if fits then
      local suffix = method == "get_i64" and "LL" or "ULL"
      self:check(tostring(r1) == neg .. digits .. suffix, "%s: want %s, got %s", context, m.raw, tostring(r1))
    else
      local range = method == "get_i64" and "int64" or "uint64"
      self:check(r1 == nil and type(r2) == "string"
        and r2:find("^qjson: number is not an integer within " .. range .. " range at line"),
        "%s of %s: got %s, %s", context, m.raw, tostring(r1), tostring(r2))
    end
  else
    self:check_scalar(r1, m, context)
  end
end

-- get() of a container: a lazy view reading the same values.
function F:check_view(r1, r2, m, context, doc)
  local q = self.qjson
  self:check(type(r1) == "table", "%s: want a view, got %s, %s", context, tostring(r1), tostring(r2))
  if m.len < BIG then
    self:check(deep_equal(q.materialize(r1), model.plain(m, q.null)), "%s: view reads other values", context)
  end
  if self:chance(0.3) then self:add_doc_view(r1, m, doc) end
end

---------------------------------------------------------------------------
-- The operations.

M.ops = {
  { name = "parse", weight = 14, fn = function(self)
    self:parse_and_check(self.safe.parse, "parse")
  end },
  { name = "parse_file", weight = 3, fn = function(self)
    self:parse_and_check(function(text, opts)
      support.write(self.tmp, text)
      local h, err = self.safe.parse_file(self.tmp, opts)
      support.write(self.tmp, "overwritten") -- the document owns its bytes
      return h, err
    end, "parse_file")
  end },
  { name = "read", weight = 40, fn = function(self)
    if #self.entries > 0 then self:read(self:pick(self.entries)) end
  end },
  { name = "close", weight = 2, fn = function(self)
    if #self.entries == 0 then return end
    local e = self:pick(self.entries)
    local r1, r2 = e.h:close()
    self:check(r1 == nil and r2 == nil, "close() returned %s, %s", tostring(r1), tostring(r2))
    e.doc.closed = true
    self:count("closes")
  end },
  { name = "drop", weight = 5, fn = function(self)
    if #self.entries > 0 then table.remove(self.entries, self:int(1, #self.entries)) end
  end },
  { name = "bad call", weight = 2, fn = function(self)
    local s = self.safe
    local cases = {
      { s.parse, { 42 }, "^bad argument #1 to 'parse' %(string expected, got number%)$" },
      { s.parse, { "[]", { mode = "fast" } }, "^bad argument #2 to 'parse' %(bad option 'mode'" },
      { s.parse, { "[]", { nope = 1 } }, "unknown option 'nope'" },
      { s.parse, { "[]", { max_depth = 0 } }, "^bad argument #2 to 'parse' %(bad option 'max_depth'" },
      { s.parse_file, { false }, "^bad argument #1 to 'parse_file'" },
      { s.parse_file, { "/nonexistent/qjson-fuzz" }, "^qjson: cannot read file '/nonexistent/qjson%-fuzz'" },
      { s.path, { {} }, "^bad argument #1 to 'path' %(string expected, got table%)$" },
    }
    if #self.entries > 0 then
      local h = self:pick(self.entries).h
      local arg = self:pick({ 42, {}, true, ffi.new("int[1]") })
      cases[#cases + 1] = { h.get_str, { h, arg }, "path string or qjson.path expected" }
    end
    local c = self:pick(cases)
    local r1, r2 = c[1](unpack(c[2], 1, 2))
    self:check(r1 == nil and type(r2) == "string" and r2:find(c[3]), "bad call: want %s, got %s, %s", c[3],
      tostring(r1), tostring(r2))
    self:count("bad calls")
  end },
}

for _, mixin in ipairs({ encode, views, dropin, select_ops }) do
  for _, op in ipairs(mixin.ops) do M.ops[#M.ops + 1] = op end
end

---------------------------------------------------------------------------

function M.new(seed, opts)
  opts = opts or {}
  local self = setmetatable({
    seed = seed, rand = gen.new_rng(seed), stats = {}, entries = {}, views = {},
    qjson = require("qjson"), safe = require("qjson.safe"),
    tmp = os.tmpname(), log = opts.log or function() end,
  }, F)
  self.qj = self.safe.new()
  -- Views on every build (see spec/support.lua).
  self.qjson.decode_views(true)
  self.qj.decode_views(true)
  self.cj = cjson.new()
  self.qc = require("qjson.cjson").new()
  self.qc_safe = require("qjson.cjson.safe").new()
  self.cj_decoder = cjson.new()
  self.suite = gen.suite_files()
  if not opts.light then self.corpus = gen.corpus_files() end
  local total = 0
  for _, op in ipairs(M.ops) do total = total + op.weight end
  self.total_weight = total
  return self
end

function F:pick_op()
  local w = self:int(1, self.total_weight)
  for _, op in ipairs(M.ops) do
    w = w - op.weight
    if w <= 0 then return op end
  end
end

-- Runs `steps` operations from `seed`; returns the statistics. Raises on
-- the first failure, naming the seed and the step.
function M.run(seed, steps, opts)
  local self = M.new(seed, opts)
  collectgarbage("collect")
  collectgarbage("collect")
  local live = self.qjson.live_documents()
  local ok, err = true, nil
  for step = 1, steps do
    local op = self:pick_op()
    self.step = step
    ok, err = xpcall(op.fn, debug.traceback, self)
    if not ok then
      err = format("fuzz-lua: seed %d, step %d (%s): %s\nreplay: make fuzz-lua SEED=%d STEPS=%d",
        seed, step, op.name, tostring(err), seed, step)
      break
    end
    self.stats.steps = step
    if step % 1000 == 0 then self.log(format("fuzz-lua: seed %d: %d steps", seed, step)) end
    collectgarbage("collect")
  end
  os.remove(self.tmp)
  if not ok then error(err, 0) end
  -- Everything dropped and collected: no document may stay alive. (A
  -- compiled trace can hold an object it saw as a constant: flush them.)
  self.entries, self.views = {}, {}
  jit.flush()
  collectgarbage("collect")
  collectgarbage("collect")
  local now = self.qjson.live_documents()
  if now ~= live then
    error(format("fuzz-lua: seed %d: %d documents alive after the run, %d before", seed, now, live), 0)
  end
  return self.stats
end

return M
