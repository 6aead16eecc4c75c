-- lua-cjson's encoder configuration functions on qjson: compared with an
-- instance of Debian's lua-cjson (upstream 2.1.0) set the same way where
-- it has the setting, and with OpenResty's manual where only OpenResty's
-- fork has it.
local qjson = require("qjson")
local cjson = require("cjson")
local ffi = require("ffi")
local support = require("support")
local gen = require("encode_support")

-- Leave no large buffer or garbage behind for the specs that follow
-- (errors_spec measures the resident set).
teardown(gen.release)

-- Random tables encode the same with both instances (or fail the same).
local function agree(q, c, count, seed)
  math.randomseed(seed or 1)
  for _ = 1, count or 500 do
    local v = gen.random_value(qjson.null)
    local ok1, a = pcall(c.encode, v)
    local ok2, b = pcall(q.encode, v)
    assert.are.equal(ok1, ok2, tostring(a) .. " / " .. tostring(b))
    assert.are.equal(a, b)
  end
end

describe("encoder configuration", function()
  it("has lua-cjson's defaults", function()
    local q = qjson.new()
    assert.are.same({ false, 2, 10 }, { q.encode_sparse_array() })
    assert.are.equal(1000, q.encode_max_depth())
    assert.are.equal(14, q.encode_number_precision())
    assert.are.equal(true, q.encode_keep_buffer())
    assert.are.equal(false, q.encode_invalid_numbers())
    assert.are.equal(true, q.encode_empty_table_as_object())
    assert.are.equal(true, q.encode_escape_forward_slash())
    assert.are.equal(false, q.encode_skip_unsupported_value_types())
  end)

  it("returns the settings in force, and nil arguments leave them", function()
    local q = qjson.new()
    assert.are.same({ true, 3, 7 }, { q.encode_sparse_array(true, 3, 7) })
    assert.are.same({ false, 3, 7 }, { q.encode_sparse_array("off") })
    assert.are.same({ false, 0, 7 }, { q.encode_sparse_array(nil, 0) })
    assert.are.equal(5, q.encode_max_depth(5))
    assert.are.equal(5, q.encode_max_depth())
    assert.are.equal(3, q.encode_number_precision("3"))
    assert.are.equal(2, q.encode_number_precision(2.7))
    assert.are.equal(false, q.encode_keep_buffer("off"))
    assert.are.equal(true, q.encode_keep_buffer(true))
    assert.are.equal("null", q.encode_invalid_numbers("null"))
    assert.are.equal(true, q.encode_invalid_numbers("on"))
    assert.are.equal(false, q.encode_invalid_numbers(false))
    assert.are.equal(false, q.encode_empty_table_as_object("off"))
    assert.are.equal(false, q.encode_escape_forward_slash(false))
    assert.are.equal(true, q.encode_skip_unsupported_value_types("on"))
  end)

  it("checks arguments as lua-cjson does", function()
    local q = qjson.new()
    local cases = {
      { q.encode_number_precision, { 0 },
        "bad argument #1 to '?' (expected integer between 1 and 16)" },
      { q.encode_number_precision, { 17 }, "(expected integer between 1 and 16)" },
      { q.encode_number_precision, { "x" },
        "bad argument #1 to '?' (number expected, got string)" },
      { q.encode_number_precision, { 14, 1 },
        "bad argument #2 to '?' (found too many arguments)" },
      { q.encode_max_depth, { 0 }, "(expected integer between 1 and 2147483647)" },
      { q.encode_sparse_array, { true, -1 },
        "bad argument #1 to '?' (expected integer between 0 and" },
      { q.encode_sparse_array, { 1, 2, 3, 4 }, "bad argument #4 to '?' (found too many arguments)" },
      { q.encode_sparse_array, { "yes" }, "(invalid option 'yes')" },
      { q.encode_keep_buffer, { 1 }, "bad argument #1 to '?' (invalid option '1')" },
      { q.encode_keep_buffer, { {} }, "bad argument #1 to '?' (string expected, got table)" },
      { q.encode_invalid_numbers, { "nan" }, "(invalid option 'nan')" },
      { q.encode_empty_table_as_object, { "x" }, "(invalid option 'x')" },
      { q.encode_escape_forward_slash, { "x" }, "(invalid option 'x')" },
      { q.encode_skip_unsupported_value_types, { 0 }, "(invalid option '0')" },
    }
    for _, case in ipairs(cases) do
      local err = support.error_of(case[1], unpack(case[2]))
      assert.is_truthy(err:find(case[3], 1, true), err)
    end
    -- Through pcall the function is '?' (as lua-cjson's C functions are);
    -- a range error is on argument #1 whichever argument it is (lua-cjson's
    -- json_integer_option). Argument errors point at the caller, and name
    -- the function as it calls it.
    assert.matches("^spec/encode_config_spec.lua:%d+: bad argument #1 to 'encode_max_depth'",
      support.error_of(function() q.encode_max_depth(0) end))
    assert.matches("^spec/encode_config_spec.lua:%d+: bad argument",
      support.error_of(function() q.encode_max_depth(0) end))
  end)

  it("keeps settings per instance", function()
    local a, b = qjson.new(), qjson.new()
    a.encode_number_precision(3)
    assert.are.equal("0.333", a.encode(1 / 3))
    assert.are.equal("0.33333333333333", b.encode(1 / 3))
    assert.are.equal("0.33333333333333", qjson.encode(1 / 3))
    assert.are.equal(14, qjson.encode_number_precision())
    -- An instance still has the rest of the API.
    assert.are.equal("table", type(a.parse("[1]")))
    assert.are.equal(qjson.null, a.null)
  end)

  describe("matches lua-cjson with", function()
    local sparse = { { true, 2, 10 }, { false, 0, 0 }, { true, 1, 0 }, { false, 3, 5 }, { "on", 2, 1 } }
    for _, args in ipairs(sparse) do
      it("encode_sparse_array(" .. table.concat({ tostring(args[1]), args[2], args[3] }, ", ") .. ")", function()
        local q, c = qjson.new(), cjson.new()
        q.encode_sparse_array(unpack(args))
        c.encode_sparse_array(unpack(args))
        agree(q, c, 400, args[2] * 10 + args[3])
        for _, t in ipairs({ { [1] = 1, [20] = 2 }, { [2] = 1 }, { [1] = 1, [3] = 3, [4] = 4 } }) do
          local ok1, x = pcall(c.encode, t)
          local ok2, y = pcall(q.encode, t)
          assert.are.equal(ok1, ok2)
          assert.are.equal(x, y)
        end
      end)
    end

    for _, depth in ipairs({ 1, 2, 3, 5 }) do
      it("encode_max_depth(" .. depth .. ")", function()
        local q, c = qjson.new(), cjson.new()
        q.encode_max_depth(depth)
        c.encode_max_depth(depth)
        agree(q, c, 300, depth)
      end)
    end

    it("encode_number_precision(1 .. 14)", function()
      for p = 1, 14 do
        local q, c = qjson.new(), cjson.new()
        q.encode_number_precision(p)
        c.encode_number_precision(p)
        math.randomseed(p)
        for _ = 1, 3000 do
          local x = gen.random_number()
          assert.are.equal(c.encode(x), q.encode(x))
        end
        agree(q, c, 100, p)
      end
    end)

    it("encode_keep_buffer(false)", function()
      local q, c = qjson.new(), cjson.new()
      q.encode_keep_buffer(false)
      c.encode_keep_buffer(false)
      agree(q, c, 200)
    end)

    it('encode_invalid_numbers("null")', function()
      local q, c = qjson.new(), cjson.new()
      q.encode_invalid_numbers("null")
      c.encode_invalid_numbers("null")
      for _, v in ipairs({ 0 / 0, math.huge, -math.huge, { 1, 0 / 0, -math.huge }, { [math.huge] = 1 } }) do
        assert.are.equal(c.encode(v), q.encode(v))
      end
      agree(q, c, 100)
    end)
  end)

  describe("as OpenResty's manual describes", function()
    it("encode_number_precision(15, 16)", function()
      local q = qjson.new()
      math.randomseed(16)
      for p = 15, 16 do
        q.encode_number_precision(p)
        for _ = 1, 5000 do
          local x = gen.random_number()
          assert.are.equal(gen.printf_g(p, x), q.encode(x))
        end
      end
    end)

    it("encode_invalid_numbers(true): NaN, Infinity, -Infinity", function()
      local q = qjson.new()
      q.encode_invalid_numbers(true)
      assert.are.equal('[NaN,Infinity,-Infinity]', q.encode({ 0 / 0, math.huge, -math.huge }))
      assert.are.equal('{"Infinity":1}', q.encode({ [math.huge] = 1 }))
    end)

    it("encode_empty_table_as_object", function()
      local q = qjson.new()
      assert.are.equal('{"dogs":{}}', q.encode({ dogs = {} }))
      q.encode_empty_table_as_object(false)
      assert.are.equal("[]", q.encode({}))
      assert.are.equal('{"dogs":[]}', q.encode({ dogs = {} }))
      q.encode_empty_table_as_object("on")
      assert.are.equal("{}", q.encode({}))
    end)

    it("empty_array", function()
      local out = qjson.encode({ foo = "bar", some_object = {}, some_array = qjson.empty_array })
      assert.are.same({ foo = "bar", some_object = {}, some_array = {} }, cjson.decode(out))
      assert.is_truthy(out:find('"some_array":[]', 1, true))
      assert.is_truthy(out:find('"some_object":{}', 1, true))
      assert.are.equal("[]", qjson.encode(qjson.empty_array))
    end)

    it("array_mt", function()
      assert.are.equal('["hello","world"]', qjson.encode(setmetatable({ "hello", "world" }, qjson.array_mt)))
      local t = {}
      t[1] = "one"
      t[2] = "two"
      t[4] = "three"
      t.foo = "bar"
      setmetatable(t, qjson.array_mt)
      assert.are.equal('["one","two",null,"three"]', qjson.encode(t))
      assert.are.equal("[]", qjson.encode(setmetatable({}, qjson.array_mt)))
      assert.are.equal("[]", qjson.encode(setmetatable({ x = 1 }, qjson.array_mt)))
    end)

    it("a metatable with __len makes an array, as OpenResty's lua-cjson", function()
      local mt = { __len = function() return 0 end }
      assert.are.equal("[1,2]", qjson.encode(setmetatable({ 1, 2, a = 1 }, mt)))
    end)

    it("empty_array_mt", function()
      local function serialize(arr)
        setmetatable(arr, qjson.empty_array_mt)
        return qjson.encode({ some_array = arr })
      end
      assert.are.equal('{"some_array":[]}', serialize({}))
      assert.are.equal('{"some_array":[1,2]}', serialize({ 1, 2 }))
    end)

    it("encode_escape_forward_slash", function()
      local q = qjson.new()
      assert.are.equal('"a\\/b"', q.encode("a/b"))
      q.encode_escape_forward_slash(false)
      assert.are.equal('"a/b"', q.encode("a/b"))
      assert.are.equal('{"a/b":"c/d"}', q.encode({ ["a/b"] = "c/d" }))
      assert.are.equal('"a\\/b"', qjson.encode("a/b"))
    end)

    it("encode_skip_unsupported_value_types", function()
      local q = qjson.new()
      q.encode_skip_unsupported_value_types(true)
      local t = { key = "val" }
      t.cdata = ffi.new("char[?]", 100)
      assert.are.equal('{"key":"val"}', q.encode(t))
      assert.are.equal('["a","b"]', q.encode({ "a", print, "b", coroutine.create(print) }))
      assert.are.equal('[1]', q.encode({ print, 1 }))
      assert.are.equal("", q.encode(print))
      assert.are.equal('{"k":[]}', q.encode({ k = { print }, f = print }))
      -- Keys of a type JSON cannot have still raise.
      assert.has_error(function() q.encode({ [true] = print }) end)
      assert.has_error(function() qjson.encode({ print }) end)
    end)

    it("encode_keep_buffer is accepted and only changes memory use", function()
      local q = qjson.new()
      q.encode_keep_buffer(false)
      assert.are.equal('[1,"a"]', q.encode({ 1, "a" }))
      assert.are.equal('[1,"a"]', q.encode({ 1, "a" }))
    end)
  end)
end)

describe("qjson.safe encode", function()
  local safe = require("qjson.safe")

  it("returns nil and the message instead of raising", function()
    local v, err = safe.encode({ print })
    assert.is_nil(v)
    assert.are.equal("Cannot serialise function: type not supported", err)
    assert.are.equal("[1]", safe.encode({ 1 }))
    v, err = safe.encode(1, { bogus = true })
    assert.is_nil(v)
    assert.matches("unknown option 'bogus'", err)
    v, err = safe.encode_number_precision(99)
    assert.is_nil(v)
    assert.matches("expected integer between 1 and 16", err)
  end)

  it("has instances with settings of their own", function()
    local s = safe.new()
    assert.are.equal(3, s.encode_number_precision(3))
    assert.are.equal("0.333", s.encode(1 / 3))
    assert.are.equal("0.33333333333333", safe.encode(1 / 3))
    local v, err = s.encode(0 / 0)
    assert.is_nil(v)
    assert.matches("NaN", err)
    assert.is_nil((s.parse("[")))
  end)
end)
