-- qjson.cjson against the real lua-cjson, side by side: decoded values,
-- configuration functions, errors, and code written for lua-cjson running
-- on the drop-in. The reference is OpenResty's lua-cjson 2.1.0.17 (built
-- by tools/lua-cjson.sh from ../shared/vendor/lua-cjson); without
-- ../shared, Debian's 2.1.0, and the checks only OpenResty's can answer
-- (its integers, comments, messages of inputs 2.1.0 reads otherwise) are
-- pending.
local ffi = require("ffi")
local openresty = require("fuzz.cjson_diff").openresty()
local cjson = openresty and openresty.cjson or require("cjson")
local cjson_safe = openresty and openresty.safe or require("cjson.safe")
local qcjson = require("qjson.cjson")
local qsafe = require("qjson.cjson.safe")
local qjson = require("qjson")
local tables = require("qjson.plain_tables")
local support = require("support")

local SUITE = support.data .. "/JSONTestSuite/test_parsing"
local CORPUS = support.data .. "/corpus"

local same = support.deep_equal

local function assert_same(a, b, what)
  local ok, where = same(a, b)
  assert(ok, (what or "value") .. " differs at " .. tostring(where))
end

-- An argument error without what differs by design: the location prefix
-- (ours points at the caller) and the function's name (lua-cjson's C
-- functions show as '?' when called through pcall).
local function arg_error(err)
  return (tostring(err):gsub("^[^:]*:%d+: ", ""):gsub("to '[^']*'", "to '?'"))
end

-- Calls f on both with the same arguments; both must return the same
-- values or raise the same argument error.
local function agree(name, real, ours, ...)
  local r = { pcall(real[name], ...) }
  local o = { pcall(ours[name], ...) }
  local args = {}
  for i = 1, select("#", ...) do
    args[i] = tostring((select(i, ...)))
  end
  local call = name .. "(" .. table.concat(args, ", ") .. ")"
  assert.are.equal(r[1], o[1], call .. ": " .. tostring(r[2]) .. " / " .. tostring(o[2]))
  if r[1] then
    assert.are.same(r, o, call)
  else
    assert.are.equal(arg_error(r[2]), arg_error(o[2]), call)
  end
end

local POSITIONED = "^qjson: .+ at line %d+, column %d+ %(byte %d+%)$"

-- Marks the calling test pending (and says why) without OpenResty's build.
local function needs_openresty()
  if not openresty then
    pending("OpenResty's lua-cjson not built (../shared absent)")
    return true
  end
end

describe("qjson.cjson decode", function()
  it("builds the tables lua-cjson builds for the corpus", function()
    local names = support.list(CORPUS)
    if not names then
      print("skipped: ../shared/data/corpus not found")
      pending("skipped: ../shared/data/corpus not found")
      return
    end
    local compared = 0
    for _, name in ipairs(names) do
      if name:match("%.json$") then
        local s = assert(support.read(CORPUS .. "/" .. name))
        assert_same(qcjson.decode(s), cjson.decode(s), name)
        compared = compared + 1
      end
    end
    assert.are.equal(3, compared)
  end)

  describe("on JSONTestSuite", function()
    local names = support.list(SUITE)
    if not names then
      it("is skipped", function()
        print("skipped: ../shared/data/JSONTestSuite not found")
        pending("skipped: ../shared/data/JSONTestSuite not found")
      end)
      return
    end
    -- name -> { cjson ok, cjson value, ours ok, ours value or error }
    local results, by = {}, { y_ = {}, n_ = {}, i_ = {} }
    for _, name in ipairs(names) do
      local s = assert(support.read(SUITE .. "/" .. name))
      local okc, vc = pcall(cjson.decode, s)
      local okq, vq = pcall(qcjson.decode, s)
      results[name] = { okc, vc, okq, vq }
      local list = by[name:sub(1, 2)]
      if list then
        list[#list + 1] = name
      end
    end

    -- Every file lua-cjson accepts and qjson.cjson accepts too decodes to
    -- the same value; returns how many were compared.
    local function compare(list)
      local n = 0
      for _, name in ipairs(list) do
        local okc, vc, okq, vq = unpack(results[name])
        if okc and okq then
          assert_same(vq, vc, name)
          n = n + 1
        end
      end
      return n
    end

    it("decodes the 95 y_ files lua-cjson accepts to the same values", function()
      local accepted_by_cjson = 0
      for _, name in ipairs(by.y_) do
        local okc, _, okq, vq = unpack(results[name])
        if okc then
          accepted_by_cjson = accepted_by_cjson + 1
          assert(okq, name .. ": " .. tostring(vq))
        end
      end
      assert.are.equal(95, accepted_by_cjson)
      assert.are.equal(95, compare(by.y_))
    end)

    it("gives lua-cjson's answer for every n_ and i_ file: the same value or the same message", function()
      if needs_openresty() then
        return
      end
      local accepted, rejected = 0, 0
      for _, list in ipairs({ by.n_, by.i_ }) do
        for _, name in ipairs(list) do
          local okc, vc, okq, vq = unpack(results[name])
          assert.are.equal(okc, okq, name .. ": " .. tostring(vq))
          if okc then
            assert_same(vq, vc, name)
            accepted = accepted + 1
          else
            assert.are.equal(vc, vq, name)
            rejected = rejected + 1
          end
        end
      end
      -- lua-cjson reads many n_ files (NaN, hex, bytes that are not UTF-8...).
      assert.is_true(accepted > 30 and rejected > 100, accepted .. " / " .. rejected)
    end)
  end)

  it("decodes scalars, nulls, empty containers and repeated keys as lua-cjson", function()
    for _, s in ipairs({
      "0", "1e400", "-1e400", "0.1", "5e-324", '"a\\u0000b"',
      '"\\ud83d\\ude00"', "true", "false", "null", "[]", "{}", "[null,null]", '{"a":null}', '{"a":1,"a":2}',
      '{"a":{"b":[1,{"c":[]}]},"a":[3]}', "[[[[[]]]]]", ' \t\n[1 , 2]\r\n', "123",
    }) do
      assert_same(qcjson.decode(s), cjson.decode(s), s)
    end
    assert.are.equal(cjson.null, qcjson.decode("null"))
    -- Integers as OpenResty's lua-cjson reads them (strtoll): -0 is 0, and
    -- past 2^63 they stop there.
    assert.are.equal(math.huge, 1 / qcjson.decode("-0"))
    assert.are.equal(-math.huge, 1 / qcjson.decode("-0.0"))
    assert.are.equal(2 ^ 63, qcjson.decode("123456789012345678901234567890"))
    assert.are.equal(-2 ^ 63, qcjson.decode("-123456789012345678901234567890"))
    if openresty then
      for _, t in ipairs({ "-0", "123456789012345678901234567890", "[-99999999999999999999]" }) do
        assert_same(qcjson.decode(t), cjson.decode(t), t)
      end
    end
  end)

  it("builds objects of a shape seen before (copies of a template) as lua-cjson", function()
    -- Objects with the same keys get one shape; from the second, the
    -- builder keeps a template of the keys, and from the third copies it.
    -- Values of every kind, nulls, repeats, nesting of a shape in itself,
    -- and results changed by the caller between decodes.
    local docs = {
      '[{"a":1,"b":"x"},{"a":null,"b":[1]},{"a":{"a":{"a":2}},"b":{}},{"a":true,"b":false,"a":3}]',
      '{"a":{"a":1,"b":2},"b":{"a":{"a":1,"b":2},"b":null}}',
      '[{"b":1,"a":2},{"a":1},{"a":1,"b":2,"c":3},{"a":null,"b":null}]',
    }
    for _ = 1, 3 do
      for _, s in ipairs(docs) do
        local got = qcjson.decode(s)
        assert_same(got, cjson.decode(s), s)
        -- What the caller does to a result must not reach later ones.
        if type(got[1]) == "table" then
          got[1].a, got[1].z = nil, "added"
        end
        if got.a then
          got.a.b, got.a.y = nil, 1
        end
      end
    end
    -- The shapes of a real document, decoded again and again.
    local f = io.open(CORPUS .. "/twitter.json", "rb")
    if f then
      local s = f:read("*a")
      f:close()
      local want = cjson.decode(s)
      for _ = 1, 3 do
        assert_same(qcjson.decode(s), want, "twitter.json")
      end
    end
  end)

  it("takes a number as a string, as lua_tolstring does", function()
    assert.are.equal(123, qcjson.decode(123))
    assert.are.equal(cjson.decode(1.5e300), qcjson.decode(1.5e300))
  end)

  it("raises lua-cjson's messages for invalid input, at its character positions", function()
    -- (OpenResty's lua-cjson 2.1.0.17's messages, taken from it)
    for s, want in pairs({
      [""] = "Expected value but found T_END at character 1",
      ["[1,2"] = "Expected comma or array end but found T_END at character 5",
      ['{"a" 1}'] = "Expected colon but found T_INTEGER at character 6",
      ["[1] x"] = "Expected the end but found invalid token at character 5",
      ["[.5]"] = "Expected value but found invalid token at character 2",
      ['{"a": [1, 2,, 3]}'] = "Expected value but found T_COMMA at character 13",
      ["{"] = "Expected object key string but found T_END at character 2",
      ["\0["] = "JSON parser does not support UTF-16 or UTF-32",
    }) do
      local ok, err = pcall(qcjson.decode, s)
      assert.is_false(ok, s)
      assert.are.equal(want, err)
      if openresty then
        assert.are.equal(select(2, pcall(cjson.decode, s)), err)
      end
    end
  end)

  it("gives qjson's checks and positioned messages with qjson_strict(true)", function()
    local q = qcjson.new()
    assert.are.equal(false, q.qjson_strict())
    assert.are.equal(true, q.qjson_strict(true))
    for _, s in ipairs({ "", "[1,2", "[1] x", '"\1"', "[\"\255\"]", "[.5]", "[1]\0x" }) do
      local ok, err = pcall(q.decode, s)
      assert.is_false(ok, s)
      assert.truthy(err:match(POSITIONED), err)
    end
    q.decode_invalid_numbers(true)
    assert.are.equal(16, q.decode("0x10"))
    assert.are.equal(false, q.qjson_strict("off"))
    assert.are.equal("\255", q.decode('"\255"'))
  end)

  it("checks its argument as lua-cjson does, naming the function", function()
    for _, args in ipairs({ {}, { "1", "2" }, { {} }, { nil }, { true } }) do
      local _, real = pcall(cjson.decode, unpack(args, 1, table.maxn(args)))
      local _, ours = pcall(qcjson.decode, unpack(args, 1, table.maxn(args)))
      if select("#", unpack(args, 1, table.maxn(args))) == 0 then
        _, real = pcall(cjson.decode)
        _, ours = pcall(qcjson.decode)
      end
      assert.are.equal(arg_error(real), arg_error(ours))
      if openresty then
        assert.are.equal(real, ours) -- through pcall: named '?', no position
      end
    end
    -- Called from Lua code, the function has the name the caller uses.
    local err = support.error_of(function()
      local v = qcjson.decode()
      return v
    end)
    assert.matches("^spec/cjson_dropin_spec.lua:%d+: bad argument #1 to 'decode' %(expected 1 argument%)$", err)
    err = support.error_of(function()
      local v = qcjson:decode()
      return v
    end)
    assert.matches("calling 'decode' on bad self %(string expected, got table%)$", err)
  end)

  it("reads what lua-cjson reads beyond JSON", function()
    -- Control bytes and bytes that are not UTF-8 pass through, a NUL ends
    -- the text, "1." is read even with decode_invalid_numbers off.
    for _, s in ipairs({ '"a\1b"', '"\255"', "[1]\0x", "[1.]", "[-.5]", "[NaN, 0x10, 012, +1]" }) do
      assert.is_true((pcall(cjson.decode, s)), s)
      assert_same(qcjson.decode(s), cjson.decode(s), s)
    end
    local q, c = qcjson.new(), cjson.new()
    q.decode_invalid_numbers(false)
    c.decode_invalid_numbers(false)
    assert_same(q.decode("[1., -.5]"), c.decode("[1., -.5]"))
    assert.are.equal(select(2, pcall(c.decode, "[01]")), select(2, pcall(q.decode, "[01]")))
  end)

  it("skips comments with decode_allow_comment(true), as OpenResty's lua-cjson", function()
    local q = qcjson.new()
    assert.are.equal(false, q.decode_allow_comment())
    assert.are.equal("Expected value but found invalid token at character 1", select(2, pcall(q.decode, "/**/1")))
    assert.are.equal(true, q.decode_allow_comment(true))
    assert_same({ a = 1 }, q.decode('{"a" /* c */ : // x\n 1}'))
    assert.are.equal("Expected the end but found unclosed multi-line comment at character 13",
      select(2, pcall(q.decode, "{}/*Unclosed")))
  end)
end)

describe("qjson.cjson configuration", function()
  local OPENRESTY = {
    "encode_sparse_array", "encode_max_depth", "decode_max_depth", "encode_number_precision",
    "encode_keep_buffer", "encode_invalid_numbers", "decode_invalid_numbers",
    "encode_empty_table_as_object", "decode_array_with_array_mt", "encode_escape_forward_slash",
    "encode_skip_unsupported_value_types", "decode_allow_comment", "encode_indent",
  }

  it("has every function and field of lua-cjson", function()
    for k, v in pairs(cjson) do
      -- (empty_array: lua-cjson's is a lightuserdata, which LuaJIT's FFI
      -- cannot make; see docs/migrating-from-cjson.md)
      if k ~= "empty_array" then
        assert.are.equal(type(v), type(qcjson[k]), k)
      end
    end
    for _, name in ipairs(OPENRESTY) do
      assert.are.equal("function", type(qcjson[name]), name)
    end
    assert.are.equal("cjson", qcjson._NAME)
    -- OpenResty's 2.1.0.17 still says 2.1.0.11 (its C source).
    assert.are.equal("2.1.0.11", qcjson._VERSION)
    if openresty then
      assert.are.equal(cjson._VERSION, qcjson._VERSION)
    end
    assert.are.equal(cjson.null, qcjson.null)
    assert.are.equal(qjson.empty_array, qcjson.empty_array)
    assert.are.equal(qjson.array_mt, qcjson.array_mt)
    assert.are.equal(qjson.empty_array_mt, qcjson.empty_array_mt)
  end)

  it("has lua-cjson's defaults", function()
    local q, c = qcjson.new(), cjson.new()
    for name in pairs(c) do
      if name:match("^[de][en]code_") then
        agree(name, c, q)
      end
    end
    assert.are.equal(false, q.decode_array_with_array_mt())
  end)

  it("returns and raises what lua-cjson does for the same calls", function()
    local q, c = qcjson.new(), cjson.new()
    local calls = {
      { "decode_max_depth", 5 }, { "decode_max_depth" }, { "decode_max_depth", "7" }, { "decode_max_depth", 2.7 },
      { "decode_max_depth", 0 }, { "decode_max_depth", 2147483648 }, { "decode_max_depth", "x" },
      { "decode_max_depth", {} }, { "decode_max_depth", 1, 2 }, { "decode_max_depth", nil },
      { "decode_invalid_numbers", false }, { "decode_invalid_numbers" }, { "decode_invalid_numbers", "on" },
      { "decode_invalid_numbers", "off" }, { "decode_invalid_numbers", true }, { "decode_invalid_numbers", 1 },
      { "decode_invalid_numbers", "x" }, { "decode_invalid_numbers", {} }, { "decode_invalid_numbers", true, 1 },
      -- (encode_number_precision's range is OpenResty's 1..16, not 1..14:
      -- see docs/encoding.md.)
      { "encode_max_depth", 3 }, { "encode_number_precision", 12 }, { "encode_sparse_array", true, 3, 7 },
      { "encode_keep_buffer", "off" }, { "encode_invalid_numbers", "null" }, { "encode_invalid_numbers", "x" },
    }
    for _, call in ipairs(calls) do
      agree(call[1], c, q, unpack(call, 2, table.maxn(call)))
    end
  end)

  it("checks decode_array_with_array_mt's argument as OpenResty's manual says", function()
    local q = qcjson.new()
    assert.are.equal(true, q.decode_array_with_array_mt(true))
    assert.are.equal(true, q.decode_array_with_array_mt())
    assert.are.equal(false, q.decode_array_with_array_mt("off"))
    assert.are.equal(true, q.decode_array_with_array_mt("on"))
    local _, err = pcall(q.decode_array_with_array_mt, "x")
    assert.are.equal("bad argument #1 to '?' (invalid option 'x')", arg_error(err))
    _, err = pcall(function()
      q.decode_array_with_array_mt(true, 1)
    end)
    assert.are.equal("bad argument #2 to '?' (found too many arguments)", arg_error(err))
    assert.truthy(support.points_at(err, "cjson_dropin_spec.lua"), err)
  end)

  it("limits nesting where lua-cjson does (decode_max_depth)", function()
    local q, c = qcjson.new(), cjson.new()
    for _, depth in ipairs({ 1, 3, 1000 }) do
      q.decode_max_depth(depth)
      c.decode_max_depth(depth)
      for _, d in ipairs({ depth - 1, depth, depth + 1 }) do
        for _, s in ipairs({ ("["):rep(d) .. ("]"):rep(d), ('{"a":'):rep(d) .. "1" .. ("}"):rep(d) }) do
          local okc = pcall(c.decode, s)
          local okq, err = pcall(q.decode, s)
          assert.are.equal(okc, okq, depth .. " / " .. d .. ": " .. tostring(err))
          if d > depth then
            assert.are.equal(select(2, pcall(c.decode, s)), err)
            assert.truthy(err:match("^Found too many nested data structures %(" .. (depth + 1) .. "%) at "), err)
          end
        end
      end
    end
  end)

  it("reads invalid numbers as lua-cjson does, on and off (decode_invalid_numbers)", function()
    if needs_openresty() then
      return
    end
    local tokens = {
      "NaN", "nan", "-nan", "+nan", "NAN", "nan(123)", "nan(", "Infinity", "-Infinity", "+Infinity", "inf",
      "-inf", "INF", "infinity", "infinit", "iNf", "0x10", "0X1F", "-0x10", "0x1.8p1", "0x", "0x1p", "0x.8",
      "+1", "01", "-01", "00", "1.5", "+.5", "1e", "1E+", "-", "+", "0x1g", "1e400", "-0", "1_0",
      "0x7fffffffffffffffff", "0x1p-1074", "0x1p-1075", "0x1.fffffffffffff8p1023", "nul", "Nan",
      "12345678901234567890", "0.1e-2",
    }
    for _, on in ipairs({ true, false }) do
      local q, c = qcjson.new(), cjson.new()
      assert.are.equal(on, q.decode_invalid_numbers(on))
      c.decode_invalid_numbers(on)
      for _, t in ipairs(tokens) do
        local s = "[" .. t .. "]"
        local okc, vc = pcall(c.decode, s)
        local okq, vq = pcall(q.decode, s)
        assert.are.equal(okc, okq, t .. " (" .. tostring(on) .. "): " .. tostring(vq))
        if okq then
          assert_same(vq, vc, t)
        else
          assert.are.equal(vc, vq, t)
        end
      end
    end
  end)

  it("tags decoded arrays with array_mt when asked (decode_array_with_array_mt)", function()
    local q = qcjson.new()
    local t = q.decode('{"a":[],"b":[1,[2]],"c":{}}')
    assert.is_nil(getmetatable(t.a))
    assert.are.equal('{"a":{}}', q.encode({ a = t.a }))
    q.decode_array_with_array_mt(true)
    t = q.decode('{"a":[],"b":[1,[2]],"c":{}}')
    assert.are.equal(q.array_mt, getmetatable(t.a))
    assert.are.equal(q.array_mt, getmetatable(t.b))
    assert.are.equal(q.array_mt, getmetatable(t.b[2]))
    assert.is_nil(getmetatable(t.c))
    assert.is_nil(getmetatable(t))
    -- The manual's example: the empty array encodes back as an array.
    assert.are.equal('{"my_array":[]}', q.encode(q.decode('{"my_array":[]}')))
    assert.are.equal(q.array_mt, getmetatable(q.decode("[]")))
  end)

  it("keeps each instance's settings apart", function()
    local a, b = qcjson.new(), qcjson.new()
    a.decode_max_depth(2)
    a.decode_invalid_numbers(false)
    a.encode_number_precision(3)
    assert.are.equal(1000, b.decode_max_depth())
    assert.are.equal(true, b.decode_invalid_numbers())
    assert.is_false((pcall(a.decode, "[[[1]]]")))
    assert.is_false((pcall(a.decode, "[NaN]")))
    assert.are.equal(1, #b.decode("[[[1]]]"))
    assert.are.equal("3.14", a.encode(3.14159))
    assert.are.equal("3.14159", b.encode(3.14159))
    assert.are.equal(1000, qcjson.decode_max_depth())
  end)
end)

describe("qjson.cjson encode, where lua-cjson calls or recurses", function()
  -- OpenResty's lua-cjson 2.1.0.17's output (literal below, and side by
  -- side when it is built; Debian's 2.1.0 has neither behaviour).
  it("writes a table whose metatable has __len as lua-cjson: __len's length, elements through __index", function()
    -- (Issue 39, item 21: it wrote the raw length, [1,2] for the first.)
    local function idx(_, i)
      return i * 10
    end
    local cases = {
      { setmetatable({ 1, 2 }, { __len = function() return 5 end }), "[1,2,null,null,null]" },
      { setmetatable({}, { __len = function() return 2.7 end, __index = idx }), "[10,20]" },
      { setmetatable({ 1, 2, 3 }, { __len = function() return 2 end, __index = idx }), "[1,2]" },
      { setmetatable({ a = 1 }, { __len = function() return 1 end }), "[null]" },
      { setmetatable({}, { __len = function() return "3" end }), "[null,null,null]" },
      { setmetatable({}, { __len = function() return -3 end }), "[]" },
      { setmetatable({}, { __len = function() return "x" end }), "[]" },
      { setmetatable({}, { __len = function() return 1e10 end }), "[]" },
      { setmetatable({}, { __len = function() return 0 / 0 end }), "[]" },
      { setmetatable({}, { __len = function() end }), "[]" },
      { setmetatable({}, { __len = setmetatable({}, { __call = function() return 2 end }) }), "[null,null]" },
      { { a = setmetatable({ 1 }, { __len = function() return 2 end }) }, '{"a":[1,null]}' },
    }
    for i, case in ipairs(cases) do
      assert.are.equal(case[2], qcjson.encode(case[1]), "case " .. i)
      if openresty then
        assert.are.equal(cjson.encode(case[1]), qcjson.encode(case[1]), "case " .. i)
      end
    end
    local q = qcjson.new()
    q.encode_indent(" ")
    assert.are.equal("[\n 10,\n 20\n]", q.encode(cases[2][1]))
    -- (qjson.encode reads such a table raw: docs/encoding.md.)
    assert.are.equal("[1,2]", qjson.encode(cases[1][1]))
  end)

  it("passes __len's errors on as lua-cjson does, and can encode from it", function()
    local raising = setmetatable({}, { __len = function() error("boom") end })
    local err = support.error_of(qcjson.encode, { raising })
    assert.matches("^.*cjson_dropin_spec%.lua:%d+: boom$", err)
    local not_callable = setmetatable({}, { __len = true })
    assert.are.equal("attempt to call a boolean value", support.error_of(qcjson.encode, not_callable))
    if openresty then
      assert.are.equal(support.error_of(cjson.encode, { raising }), err)
      assert.are.equal("attempt to call a boolean value", support.error_of(cjson.encode, not_callable))
    end
    -- An encode from __len, in the middle of this one: a walker of its own.
    local inner
    local t = setmetatable({}, { __len = function()
      inner = qcjson.encode({ 1, { a = { 2 } } })
      return 1
    end })
    assert.are.equal("[[null],[null]]", qcjson.encode({ t, t }))
    assert.are.equal('[1,{"a":[2]}]', inner)
    -- A __len that yields suspends the encode with its coroutine, except
    -- where the encoder runs the walk in a coroutine of its own (past
    -- 500 levels, or with the collector stopped): then it raises.
    local yielding = setmetatable({}, { __len = function()
      coroutine.yield("paused")
      return 1
    end })
    local co = coroutine.create(qcjson.encode)
    assert.are.same({ true, "paused" }, { coroutine.resume(co, { yielding }) })
    assert.are.same({ true, "[[null]]" }, { coroutine.resume(co) })
    local q = qcjson.new()
    q.encode_max_depth(5000)
    local deep = {}
    local at = deep
    for _ = 1, 1500 do
      at[1] = {}
      at = at[1]
    end
    at[1] = yielding
    local YIELDED = "Cannot serialise: a coroutine yielded in the middle of the encode (from __len or __index)"
    assert.are.same({ false, YIELDED }, { coroutine.resume(coroutine.create(q.encode), deep) })
    assert.are.equal("[3]", qcjson.encode({ 3 }))
  end)

  it("stops deep nesting where lua-cjson's Lua stack does (encode_max_depth raised)", function()
    -- (Issue 39, item 20: it raised ".../qjson/encode/walk.lua:NNN: stack
    -- overflow" past about 6,500 levels of arrays, and wrote objects
    -- deeper than lua-cjson.) lua-cjson stops where its Lua stack cannot
    -- grow: an array level takes one slot, an object level two.
    local q = qcjson.new()
    q.encode_max_depth(100000)
    local function nest(n, kinds)
      local t = {}
      local inner = t
      for d = 1, n - 1 do
        local x = {}
        if kinds:sub((d - 1) % #kinds + 1, (d - 1) % #kinds + 1) == "o" then
          inner.k = x
        else
          inner[1] = x
        end
        inner = x
      end
      return t
    end
    for _, case in ipairs({ { "a", 7997, 7998 }, { "o", 3999, 4000 }, { "ao", 5332, 5333 }, { "aao", 5998, 5999 } }) do
      local kinds, fits, stops = case[1], case[2], case[3]
      assert.is_true(#q.encode(nest(fits, kinds)) >= 2 * fits, kinds)
      local msg = "Cannot serialise, excessive nesting (" .. stops .. ")"
      assert.are.equal(msg, support.error_of(q.encode, nest(stops, kinds)), kinds)
      assert.are.equal(msg, support.error_of(q.encode, nest(stops + 1000, kinds)), kinds)
      if openresty then
        local real = cjson.new()
        real.encode_max_depth(100000)
        assert.are.equal(real.encode(nest(fits, kinds)), q.encode(nest(fits, kinds)), kinds)
        assert.are.equal(msg, support.error_of(real.encode, nest(stops, kinds)), kinds)
      end
    end
    -- lua-cjson goes round a cycle until its stack stops it.
    local c = {}
    c[1] = c
    assert.are.equal("Cannot serialise, excessive nesting (7998)", support.error_of(q.encode, c))
    c = {}
    c.k = c
    assert.are.equal("Cannot serialise, excessive nesting (4000)", support.error_of(q.encode, c))
    q.encode_max_depth(5000)
    assert.are.equal("Cannot serialise, excessive nesting (4000)", support.error_of(q.encode, c))
    assert.are.equal("Cannot serialise, excessive nesting (5001)", support.error_of(q.encode, nest(6000, "a")))
  end)
end)

describe("qjson.cjson kept differences (docs/migrating-from-cjson.md)", function()
  it("empty_array is lua-cjson's when installed, else a frozen table that encodes as []", function()
    local installed = require("cjson").empty_array
    if installed ~= nil then
      assert.are.equal(installed, qcjson.empty_array)
    else
      assert.are.equal("table", type(qcjson.empty_array))
      assert.is_false((pcall(function() qcjson.empty_array[1] = 1 end)))
    end
    assert.are.equal('{"a":[]}', qcjson.encode({ a = qcjson.empty_array }))
  end)

  it("refuses a lightuserdata other than NULL (lua-cjson writes nothing: [1,])", function()
    local x = 1
    local function f()
      return x
    end
    local lud = debug.upvalueid(f, 1) -- (a lightuserdata in LuaJIT)
    assert.are.equal("userdata", type(lud))
    assert.are.same({ false, "Cannot serialise userdata: type not supported" }, { pcall(qcjson.encode, { 1, lud }) })
  end)

  it("makes an object of integer keys past 2^31-1 (lua-cjson's C int loses members: [1])", function()
    local q = qcjson.new()
    q.encode_sparse_array(true, 0)
    assert.are.same({ ["1"] = 1, ["1099511627776"] = 1 }, cjson.decode(q.encode({ [1] = 1, [2 ^ 40] = 1 })))
  end)

  it("encodes a qjson view as the view's JSON", function()
    local q = qjson.new()
    q.decode_views(true) -- (a view on every build)
    local v = q.decode('{"a": [1, 2], "b": "x"}')
    assert.are.equal('{"a": [1, 2], "b": "x"}', qcjson.encode(v))
    v.b = "y"
    assert.are.equal('{"a": [1, 2], "b": "y"}', qcjson.encode(v))
  end)
end)

describe("qjson.cjson.safe", function()
  it("returns nil and the message instead of raising", function()
    local v, err = qsafe.decode("[1,")
    assert.is_nil(v)
    assert.are.equal("Expected value but found T_END at character 4", err)
    v, err = qsafe.decode({})
    assert.is_nil(v)
    -- (as from lua-cjson's C pcall: no position, the function named '?')
    assert.are.equal("bad argument #1 to '?' (string expected, got table)", err)
    v, err = qsafe.encode(function() end)
    assert.is_nil(v)
    assert.are.equal("Cannot serialise function: type not supported", err)
    assert.are.same({ 1 }, qsafe.decode("[1]"))
    assert.are.equal("[1]", qsafe.encode({ 1 }))
  end)

  it("still raises for a missing argument and bad settings, as cjson.safe", function()
    local real = cjson_safe
    local _, e1 = pcall(real.decode)
    local _, e2 = pcall(qsafe.decode)
    assert.are.equal(arg_error(e1), arg_error(e2))
    _, e1 = pcall(real.decode_max_depth, 0)
    _, e2 = pcall(qsafe.decode_max_depth, 0)
    assert.are.equal(arg_error(e1), arg_error(e2))
  end)

  it("has settings of its own, and new() makes safe instances", function()
    qsafe.decode_max_depth(2)
    assert.are.equal(1000, qcjson.decode_max_depth())
    local v, err = qsafe.decode("[[[1]]]")
    assert.is_nil(v)
    assert.are.equal("Found too many nested data structures (3) at character 3", err)
    qsafe.decode_max_depth(1000)
    local inst = qsafe.new()
    assert.is_nil((inst.decode("{")))
    assert.are.equal("function", type(inst.new))
    assert.are.equal(qcjson.null, inst.null)
  end)
end)

describe("code written for lua-cjson", function()
  -- A typical gateway module, written against lua-cjson.
  local SOURCE = [[
    local cjson = require("cjson")
    local cjson_safe = require("cjson.safe")
    cjson.encode_sparse_array(true)
    local M = {}
    function M.handle(body)
      local req, err = cjson_safe.decode(body)
      if not req then
        return nil, "bad request: " .. err
      end
      local out = { model = req.model, n = #req.messages, roles = {} }
      for i, msg in ipairs(req.messages) do
        out.roles[i] = msg.role
        if msg.name == cjson.null then
          out.unnamed = (out.unnamed or 0) + 1
        end
      end
      if req.tools == nil then
        out.tools = cjson.empty_array or {}
      end
      out.temperature = req.temperature or 1
      local copy = cjson.new()
      copy.encode_number_precision(4)
      return cjson.decode(cjson.encode(out)), copy.encode(math.pi), cjson.encode({})
    end
    return M
  ]]

  local function load_with(module, safe_module)
    local saved, saved_safe = package.loaded.cjson, package.loaded["cjson.safe"]
    package.loaded.cjson, package.loaded["cjson.safe"] = module, safe_module
    local ok, m = pcall(function()
      return assert(loadstring(SOURCE))()
    end)
    package.loaded.cjson, package.loaded["cjson.safe"] = saved, saved_safe
    assert(ok, m)
    return m
  end

  it("runs unchanged on qjson.cjson, with the same results", function()
    local real = load_with(cjson.new(), cjson_safe.new())
    local ours = load_with(qcjson.new(), qsafe.new())
    local body = '{"model":"m","temperature":0.5,"messages":[{"role":"user","name":null},{"role":"system"}]}'
    local r1, r2, r3 = real.handle(body)
    local o1, o2, o3 = ours.handle(body)
    assert_same(o1, r1)
    assert.are.equal(r2, o2)
    assert.are.equal(r3, o3)
    local _, rerr = real.handle("{")
    local none, oerr = ours.handle("{")
    assert.is_nil(none)
    assert.are.equal(rerr, oerr)
  end)
end)

describe("qjson.plain_tables", function()
  it("builds the value at a node of a parsed document", function()
    local s = '{"a":[1,{"b":"c\\"d"}],"e":[]}'
    local d = qjson.parse(s)
    local settings = { null = qjson.null, empty_array_mt = qjson.empty_array_mt }
    local whole = tables.from_node(d.ptr, 0, settings)
    assert_same(whole, cjson.decode(s))
    assert.are.equal(qjson.empty_array_mt, getmetatable(whole.e))
    assert.are.same({ 1, { b = 'c"d' } }, tables.from_node(d.ptr, d:open("a").node, settings))
    d:close()
    local ok, err = pcall(tables.from_node, d.ptr, 0, settings)
    assert.is_false(ok)
    assert.are.equal("qjson: document is closed", err)
  end)

  it("checks values of lazy documents as it builds", function()
    local d = qjson.parse('[1, "ok", tru]', { mode = "lazy" })
    local ok, err = pcall(tables.from_node, d.ptr, 0, { null = qjson.null })
    assert.is_false(ok)
    assert.are.equal("qjson: invalid literal at line 1, column 11 (byte 10)", err)
  end)

  it("is right when a finalizer decodes in the middle of a decode", function()
    -- Finalizers run by the collector while tables are being built call
    -- decode themselves: the nested decodes must use other buffers. The
    -- results are compared once no finalizer is pending: comparing while
    -- finalizers run more code hangs LuaJIT's compiled compare even with
    -- lua-cjson on both sides.
    local doc = support.read(CORPUS .. "/citm_catalog.json")
      or ("[" .. ('{"k":"v\\n","n":[1,2,{"x":null}]},'):rep(20000) .. "1]")
    local want = cjson.decode(doc)
    local small = '{"a":["x\\ty",1.5,{"b":[true]}]}'
    local inner, nested = {}, 0
    local function finalizer()
      if debug.traceback():find("qjson/plain_tables.lua", 1, true) then
        nested = nested + 1
      end
      local ok, v = pcall(qcjson.decode, small)
      inner[#inner + 1] = ok and v or tostring(v)
    end
    local outer = {}
    local pause = collectgarbage("setpause", 10)
    -- (Where the collector runs the finalizers depends on the heap the
    -- specs before left: rounds go on until some ran inside a build.)
    for round = 1, 40 do
      for _ = 1, 2000 do
        ffi.gc(ffi.new("char[1]"), finalizer)
      end
      outer[round] = qcjson.decode(doc)
      if round >= 5 and nested > 0 then
        break
      end
    end
    collectgarbage("setpause", pause)
    collectgarbage("collect")
    collectgarbage("collect")
    for round = 1, #outer do
      assert_same(outer[round], want, "outer decode " .. round)
    end
    local small_want = cjson.decode(small)
    for i = 1, #inner do
      assert_same(inner[i], small_want, "nested decode " .. i)
    end
    assert.are.equal(2000 * #outer, #inner)
    assert.is_true(nested > 0, "no finalizer ran during a build; the test did not test it")
  end)

  it("reads its own results when a finalizer decodes right after the native call", function()
    -- LuaJIT's FFI runs collector steps after a call that returns a
    -- pointer, before the caller reads what the call wrote: a decode in a
    -- finalizer there must not overwrite the count or error of this one.
    local inner_doc = '{"x":[1,2,3],"y":"z"}'
    local inner_wrong = 0
    local function finalizer()
      if qcjson.decode(inner_doc).y ~= "z" then
        inner_wrong = inner_wrong + 1
      end
      pcall(qcjson.decode, "[1,")
    end
    local doc = '{"a":[1,2,{"b":"c"}],"d":"e","f":[true,false,null]}'
    local want = cjson.decode(doc)
    local wrong = {}
    local pause = collectgarbage("setpause", 10)
    for _ = 1, 3000 do
      for _ = 1, 20 do
        ffi.gc(ffi.new("char[1]"), finalizer)
      end
      local ok, where = same(qcjson.decode(doc), want)
      if not ok then
        wrong[#wrong + 1] = where
      end
      local bad, err = pcall(qcjson.decode, '{"a":')
      if bad or err ~= "Expected value but found T_END at character 6" then
        wrong[#wrong + 1] = tostring(err)
      end
    end
    collectgarbage("setpause", pause)
    collectgarbage("collect")
    assert.are.same({}, wrong)
    assert.are.equal(0, inner_wrong)
  end)

  it("stays right when the key cache renews", function()
    -- More distinct keys than the cache holds, decoded until it renews.
    local parts = {}
    for i = 1, 70000 do
      parts[i] = '"key' .. i .. '":' .. i
    end
    local many = "{" .. table.concat(parts, ",") .. "}"
    local small = '{"model":"m","messages":[{"role":"user"}],"key5":5}'
    for _ = 1, 3 do
      local t = qcjson.decode(many)
      assert.are.equal(70000, t.key70000)
      assert.are.equal(1, t.key1)
      assert_same(qcjson.decode(small), cjson.decode(small))
    end
  end)
end)
