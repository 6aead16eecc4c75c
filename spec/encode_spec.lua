-- qjson.encode with the default settings: byte for byte lua-cjson's output
-- (Debian's lua-cjson, upstream 2.1.0, is the oracle), the same errors,
-- and what qjson adds (int64 cdata, reference cycles).
local qjson = require("qjson")
local cjson = require("cjson")
local ffi = require("ffi")
local support = require("support")
qjson.decode_views(true) -- views on every build (see spec/support.lua)
local view = require("qjson.view")
local gen = require("encode_support")

local function both(v)
  local ok1, a = pcall(cjson.encode, v)
  local ok2, b = pcall(qjson.encode, v)
  return ok1, a, ok2, b
end

local function same_as_cjson(v)
  local ok1, a, ok2, b = both(v)
  assert.are.equal(ok1, ok2, "cjson: " .. tostring(a) .. "\nqjson: " .. tostring(b))
  assert.are.equal(a, b)
end

describe("encode matches lua-cjson", function()
  describe("on the corpus", function()
    local dir = support.data .. "/corpus"
    local names = support.list(dir) or {}
    local found = 0
    for _, name in ipairs(names) do
      if name:match("%.json$") then
        found = found + 1
        it("on " .. name, function()
          local text = support.read(dir .. "/" .. name)
          assert.is_string(text)
          local t = cjson.decode(text)
          local out = qjson.encode(t)
          assert.are.equal(cjson.encode(t), out)
          assert.is_true(#out > 1000)
        end)
      end
    end
    if found == 0 then
      pending("no corpus at " .. dir .. " (../shared/data/corpus): corpus differential tests skipped")
    end
  end)

  it("on scalars", function()
    for _, v in ipairs({ true, false, 0, -0.0, 1, -1, 0.5, 0.1, 1 / 3, 1e14 - 1, 1e14, 1e15, 2 ^ 31, -2 ^ 31 - 1,
      2 ^ 53, 2 ^ 63, 1e300, 5e-324, 1e-5, 1e-4, 123456.789, "", "a", "a/b", 'q"q', "\\", "\0\1\31\127",
      "é€😀", "\255\254", qjson.null }) do
      same_as_cjson(v)
    end
    assert.are.equal("null", qjson.encode(nil))
  end)

  it("on exact ties at the 14th digit (C rounds them to even; LuaJIT's tostring does not)", function()
    for _, x in ipairs({ 1234567890123.25, 1234567890123.75, -9876543210987.25, 0.5, 2.5 }) do
      same_as_cjson(x)
      same_as_cjson({ [x] = x })
    end
    assert.are.equal("1234567890123.2", qjson.encode(1234567890123.25))
  end)

  it("on every byte in a string", function()
    for b = 0, 255 do
      same_as_cjson(string.char(b))
      same_as_cjson("ab" .. string.char(b) .. "cdefghijklmnopqrstuvwxyz0123456789" .. string.char(b))
    end
  end)

  it("on 3000 seeded random tables", function()
    math.randomseed(20240601)
    for _ = 1, 3000 do
      same_as_cjson(gen.random_value(qjson.null))
    end
  end)

  it("on random doubles", function()
    math.randomseed(7)
    for _ = 1, 20000 do
      local x = gen.random_number()
      assert.are.equal(cjson.encode(x), qjson.encode(x))
    end
  end)

  it("on arrays, holes and sparse arrays", function()
    same_as_cjson({ 1, nil, 3 })
    same_as_cjson({ [1] = 1, [10] = 10 })
    same_as_cjson({ [11] = 1 })
    same_as_cjson({ [3] = 1, [2] = 2, [1] = 3 })
    same_as_cjson({ [1] = 1, [2.5] = 2 })
    same_as_cjson({ [0] = 1, [1] = 2 })
    same_as_cjson({ [-1] = 1 })
    same_as_cjson({ [1] = 1, x = 2 })
    same_as_cjson({ {}, { {} }, { a = {} } })
    assert.are.equal("Cannot serialise table: excessively sparse array",
      support.error_of(qjson.encode, { [1] = 1, [20] = 2 }))
  end)

  it("on number keys", function()
    same_as_cjson({ [1.5] = 1, [-0.25] = 2 })
    same_as_cjson({ [1e20] = 1 })
    same_as_cjson({ [1 / 3] = 1, a = 1 })
  end)

  it("raises lua-cjson's errors", function()
    for _, v in ipairs({ print, coroutine.create(print), io.stdout, { f = print }, { [true] = 1 },
      { [{}] = 1 }, ffi.new("int[1]") }) do
      local ok1, a, ok2, b = both(v)
      assert.is_false(ok1)
      assert.is_false(ok2)
      assert.are.equal(a, b)
    end
  end)

  it("raises for NaN and infinities, as OpenResty's lua-cjson words it", function()
    for _, v in ipairs({ 0 / 0, math.huge, -math.huge, { 1, 0 / 0 }, { [math.huge] = 1 } }) do
      assert.are.equal("Cannot serialise number: must not be NaN or Infinity", support.error_of(qjson.encode, v))
    end
  end)

  it("raises for excessive nesting as lua-cjson", function()
    local t = {}
    local inner = t
    for _ = 1, 1000 do
      inner[1] = {}
      inner = inner[1]
    end
    local ok1, a, ok2, b = both(t)
    assert.is_false(ok1)
    assert.is_false(ok2)
    assert.are.equal("Cannot serialise, excessive nesting (1001)", b)
    assert.are.equal(a, b)
    local ok = pcall(qjson.encode, t[1])
    assert.is_true(ok)
  end)

  it("checks its argument count", function()
    assert.matches("bad argument #1 to 'encode' %(expected 1 argument%)", support.error_of(qjson.encode))
  end)
end)

describe("encode beyond lua-cjson", function()
  it("writes int64_t and uint64_t cdata exactly", function()
    assert.are.equal("9007199254740993", qjson.encode(ffi.new("int64_t", 9007199254740992LL + 1)))
    assert.are.equal("-9223372036854775808", qjson.encode(-9223372036854775807LL - 1))
    assert.are.equal("18446744073709551615", qjson.encode(0xffffffffffffffffULL))
    assert.are.equal('{"id":505874924095815681}', qjson.encode({ id = 505874924095815681LL }))
    assert.are.equal("[0,-1]", qjson.encode({ 0LL, -1LL }))
  end)

  it("names a reference cycle", function()
    local t = {}
    t.self = t
    assert.are.equal("Cannot serialise table: reference cycle", support.error_of(qjson.encode, t))
    local a, b = {}, {}
    a[1], b[1] = b, a
    assert.are.equal("Cannot serialise table: reference cycle", support.error_of(qjson.encode, { x = a }))
    -- A table seen twice but not inside itself is no cycle.
    local shared = { 1 }
    assert.are.equal("[[1],[1]]", qjson.encode({ shared, shared }))
  end)

  it("writes NULL lightuserdata as null", function()
    assert.are.equal("[null]", qjson.encode({ cjson.null }))
  end)

  it("can be called again after an error, with the same results", function()
    assert.has_error(function()
      qjson.encode({ a = { b = print } })
    end)
    assert.are.equal('{"a":[1,2]}', qjson.encode({ a = { 1, 2 } }))
    -- An error inside a view's writer, with part of the view written.
    local v = qjson.decode('{"a": [1, 2], "b": {"c": 2}, "d": 4}')
    v.b.c = print
    assert.are.equal("Cannot serialise function: type not supported", support.error_of(qjson.encode, v))
    assert.are.equal("Cannot serialise function: type not supported", support.error_of(qjson.encode, v))
    v.b.c = 3
    assert.are.equal('{"a":[1, 2],"b":{"c": 3},"d":4}', qjson.encode(v))
    assert.are.equal("[true]", qjson.encode({ true }))
  end)

  it("can be called again after an error in another coroutine", function()
    local co = coroutine.create(function()
      qjson.encode({ a = { 1, print } })
    end)
    local ok, err = coroutine.resume(co)
    assert.is_false(ok)
    assert.are.equal("Cannot serialise function: type not supported", err)
    assert.are.equal('{"a":[1,2]}', qjson.encode({ a = { 1, 2 } }))
    assert.are.equal("[3]", coroutine.wrap(function()
      return qjson.encode({ 3 })
    end)())
  end)

  it("can be called while an encode is writing (by a finalizer)", function()
    -- The view writer's hook stands in for a finalizer that the walk's
    -- allocations ran and that encodes.
    -- It counts only the writes of this encode's own views: under
    -- make test-gc, finalizers encode views of their own meanwhile.
    local hooks = require("qjson.encode").views[view.ObjectMT]
    local put = hooks.put
    local inner = {}
    local v = qjson.decode('{"a": 1, "b": {"c": 2}}')
    local mine = { [v] = true, [v.b] = true }
    hooks.put = function(buf, t, ...)
      if mine[t] then
        inner[#inner + 1] = qjson.encode({ #inner + 1, { 1, 2 } })
      end
      return put(buf, t, ...)
    end
    local ok, out = pcall(function()
      v.b.c = { 3 }
      return qjson.encode({ x = v })
    end)
    hooks.put = put
    assert(ok, out)
    assert.are.equal('{"x":{"a":1,"b":{"c": [3]}}}', out)
    assert.are.same({ "[1,[1,2]]", "[2,[1,2]]" }, inner)
    assert.are.equal('{"y":1}', qjson.encode({ y = 1 }))
  end)
end)

describe("qjson.collector (which walkers encode takes)", function()
  local collector = require("qjson.collector")

  it("tells a finalizer by the stopped collector, through the FFI", function()
    -- (Through collectgarbage("isrunning") instead, every encode would
    -- cut its caller's trace in two: docs/security.md, guarantee 11.)
    assert.is_true(collector.THROUGH_FFI, "lua_gc not found: the slow fallback is in use")
    assert.is_true(collector.running())
    local seen
    local p = newproxy(true)
    getmetatable(p).__gc = function()
      seen = collector.running()
    end
    p = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.is_false(seen)
    collectgarbage("stop")
    local stopped = collector.running()
    collectgarbage("restart")
    assert.is_false(stopped)
    assert.is_true(collector.running())
  end)

  it("encodes with the collector stopped as with it running", function()
    local v = { a = { 1, 2.5, "x" }, b = { c = true }, [1.5] = "k" }
    local q = qjson.new()
    local want = q.encode(v, { sort_keys = true })
    collectgarbage("stop")
    local ok, got = pcall(q.encode, v, { sort_keys = true })
    local ok2, compact = pcall(q.encode, v)
    collectgarbage("restart")
    assert(ok, got)
    assert.are.equal(want, got)
    assert(ok2, compact)
    assert.are.equal(#want, #compact)
    assert.are.equal(q.encode(v), compact)
  end)
end)

describe("encode of large values", function()
  -- Leave no large buffer or garbage behind for the specs that follow
  -- (errors_spec measures the resident set).
  teardown(gen.release)

  it("writes a 10 MB string", function()
    local s = string.rep("abcdefghij", 1024 * 1024)
    local out = qjson.encode(s)
    assert.are.equal(#s + 2, #out)
    assert.are.equal('"' .. s .. '"', out)
    local esc = string.rep('a/"\n', 2 * 1024 * 1024 + 7)
    assert.are.equal(cjson.encode(esc), qjson.encode(esc))
  end)

  it("writes a 1,000,000-element array", function()
    local t = {}
    for i = 1, 1000000 do
      t[i] = i % 7 == 0 and "x" or i
    end
    local out = qjson.encode(t)
    assert.are.equal(cjson.encode(t), out)
    local holes = {}
    for i = 1, 1000000, 2 do
      holes[i] = i
    end
    assert.are.equal(cjson.encode(holes), qjson.encode(holes))
  end)

  it("writes a 100,000-key object", function()
    local t = {}
    for i = 1, 100000 do
      t["key" .. i] = i
    end
    local out = qjson.encode(t)
    assert.are.equal(cjson.encode(t), out)
    local back = cjson.decode(out)
    for i = 1, 100000, 997 do
      assert.are.equal(i, back["key" .. i])
    end
  end)

  it("writes nesting as deep as encode_max_depth allows, and refuses deeper with its message", function()
    -- (Issue 39, item 20: past about 6,500 levels of arrays, 4,300 of
    -- objects and 4,000 with indent, it raised LuaJIT's
    -- ".../qjson/encode/walk.lua:NNN: stack overflow".)
    local q = qjson.new()
    q.encode_max_depth(30000)
    local N = 20000
    local function nest(n, object)
      local t = {}
      local inner = t
      for _ = 2, n do
        local x = {}
        if object then
          inner.k = x
        else
          inner[1] = x
        end
        inner = x
      end
      return t
    end
    assert.are.equal(("["):rep(N - 1) .. "{}" .. ("]"):rep(N - 1), q.encode(nest(N)))
    assert.are.equal(('{"k":'):rep(N - 1) .. "{}" .. ("}"):rep(N - 1), q.encode(nest(N, true)))
    assert.are.equal(("[\n"):rep(N - 1) .. "{}" .. ("\n]"):rep(N - 1), q.encode(nest(N), { indent = "" }))
    assert.are.equal(('{\n"k": '):rep(N - 1) .. "{}" .. ("\n}"):rep(N - 1),
      q.encode(nest(N, true), { indent = "", sort_keys = true }))
    for _, object in ipairs({ false, true }) do
      assert.are.equal("Cannot serialise, excessive nesting (30001)", support.error_of(q.encode, nest(30001, object)))
      assert.are.equal("Cannot serialise, excessive nesting (30001)",
        support.error_of(q.encode, nest(30001, object), { indent = 1 }))
    end
    -- A view as deep, edited at the bottom: its writer goes down too.
    local v = qjson.decode(("["):rep(N) .. "1" .. ("]"):rep(N), { max_depth = N })
    local inner = v
    for _ = 2, N do
      inner = inner[1]
    end
    inner[1] = 2
    assert.are.equal(("["):rep(N) .. "2" .. ("]"):rep(N), q.encode(v))
    assert.are.equal(("[\n"):rep(N) .. "2" .. ("\n]"):rep(N), q.encode(v, { indent = "" }))
    -- A cycle is still named as one.
    local c = {}
    c.k = { c }
    assert.are.equal("Cannot serialise table: reference cycle", support.error_of(q.encode, c))
  end)

  it("writes nesting up to the limit", function()
    local t = {}
    local inner = t
    for _ = 1, 999 do
      inner.a = {}
      inner = inner.a
    end
    local out = qjson.encode(t)
    assert.are.equal(cjson.encode(t), out)
  end)
end)
