-- qjson.encode(v, opts): every option, its errors, and round trips
-- (lua-cjson's decoder reads the output back; qjson has no decoder of
-- plain tables yet).
local qjson = require("qjson")
local cjson = require("cjson")
local support = require("support")
local gen = require("encode_support")

-- Leave no large buffer or garbage behind for the specs that follow
-- (errors_spec measures the resident set).
teardown(gen.release)

local decode = cjson.decode

-- What the default encoding means, read back: the reference a round trip
-- with an option that keeps meaning must reproduce.
local function meaning(v)
  return decode(cjson.encode(v))
end

local function round_trips(opts, count, utf8)
  math.randomseed(99)
  for _ = 1, count or 300 do
    local v = gen.random_json(1, utf8)
    local out = qjson.encode(v, opts)
    assert.is_true((support.deep_equal(meaning(v), decode(out))), out)
  end
end

describe("encode options", function()
  it("are all off by default: lua-cjson's bytes", function()
    math.randomseed(5)
    for _ = 1, 200 do
      local v = gen.random_value(qjson.null)
      local ok, a = pcall(cjson.encode, v)
      if ok then
        assert.are.equal(a, qjson.encode(v, {}))
      end
    end
  end)

  it("reject unknown options and bad values", function()
    local cases = {
      { 1, "bad argument #2 to 'encode' (bad options (table expected, got number))" },
      { { bogus = 1 }, "unknown option 'bogus'" },
      { { indent = -1 }, "bad option 'indent'" },
      { { indent = 2.5 }, "bad option 'indent'" },
      { { indent = true }, "bad option 'indent' (number or string expected, got boolean)" },
      { { precision = 0 }, "bad option 'precision'" },
      { { precision = 18 }, "bad option 'precision'" },
      { { precision = "short" }, "bad option 'precision'" },
      { { sort_keys = 1 }, "bad option 'sort_keys' (boolean expected, got 1)" },
      { { ascii = "yes" }, "bad option 'ascii'" },
      { { html_safe = 1 }, "bad option 'html_safe'" },
      { { escape_slash = "no" }, "bad option 'escape_slash'" },
      { { validate_utf8 = 0 }, "bad option 'validate_utf8'" },
    }
    for _, case in ipairs(cases) do
      local err = support.error_of(qjson.encode, {}, case[1])
      assert.is_truthy(err:find(case[2], 1, true), err)
    end
    assert.matches("^spec/encode_options_spec.lua:%d+: bad argument #2",
      support.error_of(function() qjson.encode({}, { bogus = 1 }) end))
  end)

  describe("indent", function()
    it("pretty-prints with a number of spaces", function()
      local v = { a = { 1, 2, { b = true } }, e = {}, f = qjson.empty_array }
      assert.are.equal(
        '{\n  "a": [\n    1,\n    2,\n    {\n      "b": true\n    }\n  ],\n  "e": {},\n  "f": []\n}',
        qjson.encode(v, { indent = 2, sort_keys = true }))
    end)

    it("pretty-prints with a string", function()
      assert.are.equal('[\n\t1,\n\t[\n\t\t"x"\n\t]\n]', qjson.encode({ 1, { "x" } }, { indent = "\t" }))
      assert.are.equal("[\n1,\n2\n]", qjson.encode({ 1, 2 }, { indent = 0 }))
      assert.are.equal("{}", qjson.encode({}, { indent = 2 }))
      assert.are.equal("[]", qjson.encode(qjson.empty_array, { indent = 2 }))
      assert.are.equal('"x"', qjson.encode("x", { indent = 2 }))
    end)

    it("keeps meaning", function()
      round_trips({ indent = 3 })
      round_trips({ indent = "  ", sort_keys = true })
    end)
  end)

  describe("sort_keys", function()
    it("orders keys: numbers numerically, then strings bytewise", function()
      local t = { b = 1, a = 2, ["B"] = 3, [10] = 4, [2] = 5, [""] = 6, ["é"] = 7 }
      assert.are.equal('{"2":5,"10":4,"":6,"B":3,"a":2,"b":1,"é":7}', qjson.encode(t, { sort_keys = true }))
    end)

    it("is deterministic whatever the insertion order", function()
      math.randomseed(3)
      for _ = 1, 100 do
        local keys = {}
        for i = 1, math.random(1, 30) do
          keys[i] = gen.random_string(6)
        end
        local a, b = {}, {}
        for i = 1, #keys do
          a[keys[i]] = i
        end
        for i = #keys, 1, -1 do
          if b[keys[i]] == nil then
            b[keys[i]] = a[keys[i]]
          end
        end
        assert.are.equal(qjson.encode(a, { sort_keys = true }), qjson.encode(b, { sort_keys = true }))
      end
    end)

    it("keeps meaning", function()
      round_trips({ sort_keys = true })
    end)
  end)

  describe("escape_slash", function()
    it("overrides encode_escape_forward_slash for one call", function()
      assert.are.equal('"a/b"', qjson.encode("a/b", { escape_slash = false }))
      assert.are.equal('"a\\/b"', qjson.encode("a/b", { escape_slash = true }))
      local q = qjson.new()
      q.encode_escape_forward_slash(false)
      assert.are.equal('"a\\/b"', q.encode("a/b", { escape_slash = true }))
      assert.are.equal('"a/b"', q.encode("a/b", {}))
    end)

    it("keeps meaning", function()
      round_trips({ escape_slash = false })
    end)
  end)

  describe("ascii", function()
    it("writes non-ASCII as \\u escapes, surrogate pairs above U+FFFF", function()
      assert.are.equal('"\\u00e9\\u20ac\\ud83d\\ude00 x"', qjson.encode("é€😀 x", { ascii = true }))
      assert.are.equal('{"\\u00e9":"\\u00e9"}', qjson.encode({ ["é"] = "é" }, { ascii = true }))
    end)

    it("rejects invalid UTF-8 with its position", function()
      assert.are.equal("Cannot serialise string: invalid UTF-8 at byte 3",
        support.error_of(qjson.encode, { "abc\255" }, { ascii = true }))
    end)

    it("keeps meaning, and the output is ASCII", function()
      round_trips({ ascii = true }, 300, true)
      math.randomseed(4)
      for _ = 1, 200 do
        local out = qjson.encode(gen.random_json(1, true), { ascii = true })
        assert.is_nil(out:find("[\128-\255]"))
      end
    end)
  end)

  describe("html_safe", function()
    it("escapes < > & U+2028 U+2029", function()
      assert.are.equal('"\\u003c/script\\u003e \\u0026 \\u2028\\u2029"',
        qjson.encode("</script> & \226\128\168\226\128\169", { html_safe = true, escape_slash = false }))
      assert.are.equal('"\226\128\167"', qjson.encode("\226\128\167", { html_safe = true }))
    end)

    it("keeps meaning", function()
      round_trips({ html_safe = true })
      round_trips({ html_safe = true, ascii = true }, 200, true)
    end)
  end)

  describe("validate_utf8", function()
    it("rejects invalid UTF-8 in values and keys with its position", function()
      local bad = { "\255", "a\192\128", "\237\160\128", "\244\144\128\128", "ab\226\130", "\128" }
      for _, s in ipairs(bad) do
        local err = support.error_of(qjson.encode, { s }, { validate_utf8 = true })
        assert.matches("^Cannot serialise string: invalid UTF%-8 at byte %d+$", err)
        assert.has_error(function() qjson.encode({ [s] = 1 }, { validate_utf8 = true }) end)
      end
      assert.are.equal("Cannot serialise string: invalid UTF-8 at byte 2",
        support.error_of(qjson.encode, "ab\226\130", { validate_utf8 = true }))
    end)

    it("finds the position in a long string", function()
      local s = string.rep("a", 300000) .. "\255"
      assert.are.equal("Cannot serialise string: invalid UTF-8 at byte 300000",
        support.error_of(qjson.encode, s, { validate_utf8 = true }))
      local ok = string.rep("é", 200000)
      assert.are.equal('"' .. ok .. '"', qjson.encode(ok, { validate_utf8 = true }))
    end)

    it("passes valid UTF-8 through unchanged", function()
      round_trips({ validate_utf8 = true }, 300, true)
    end)

    it("is off by default: bytes are copied as they are", function()
      assert.are.equal('"\255"', qjson.encode("\255"))
    end)
  end)

  describe("precision", function()
    it("prints C's %.Ng for 1 to 17", function()
      math.randomseed(17)
      for p = 1, 17 do
        for _ = 1, 2000 do
          local x = gen.random_number()
          assert.are.equal(gen.printf_g(p, x), qjson.encode(x, { precision = p }))
        end
      end
      -- Ties on the exact binary value go to even, as in C.
      assert.are.equal("6e+02", qjson.encode(650, { precision = 1 }))
      assert.are.equal("0.12", qjson.encode(0.125, { precision = 2 }))
    end)

    it("17 round-trips every double", function()
      math.randomseed(18)
      for _ = 1, 20000 do
        local x = gen.random_double()
        assert.are.equal(x, decode(qjson.encode({ x }, { precision = 17 }))[1])
      end
    end)

    it('"shortest" reads back to the same double with the fewest digits', function()
      math.randomseed(19)
      local cases = { 0.1, 0.3, 1 / 3, 2 / 3, 1e21, 1e22, 1e-7, 5e-324, 2.2250738585072014e-308,
        2.225073858507201e-308, 1.7976931348623157e308, 2 ^ 53, 2 ^ 53 + 2, 2 ^ 63, 123456789012345680, 0.5, 100 }
      for _ = 1, 30000 do
        cases[#cases + 1] = gen.random_double()
      end
      for i = 1, 3000 do
        cases[#cases + 1] = gen.random_number()
        cases[#cases + 1] = i / 1000
      end
      for _, x in ipairs(cases) do
        local s = qjson.encode(x, { precision = "shortest" })
        assert.are.equal(x, tonumber(s), s)
        assert.are.equal(x, decode("[" .. s .. "]")[1], s)
        -- No %.Ng with fewer significant digits reads back as x.
        local digits = #(s:gsub("e.*$", ""):gsub("[-.]", ""):gsub("^0+", ""):gsub("0+$", ""))
        if digits > 1 then
          local fewer = ("%." .. (digits - 1) .. "g"):format(x)
          assert.are_not.equal(x, tonumber(fewer), s .. " vs " .. fewer)
        end
      end
      assert.are.equal("[0.1,-0,1e+21,5e-324,9007199254740992]",
        qjson.encode({ 0.1, -0.0, 1e21, 5e-324, 2 ^ 53 }, { precision = "shortest" }))
    end)

    it("overrides encode_number_precision for one call", function()
      assert.are.equal("0.33", qjson.encode(1 / 3, { precision = 2 }))
      assert.are.equal("0.33333333333333", qjson.encode(1 / 3))
      assert.are.equal('{"0.33":1}', qjson.encode({ [1 / 3] = 1 }, { precision = 2 }))
    end)

    it("keeps meaning with 17 and shortest (numbers exactly)", function()
      math.randomseed(21)
      for _ = 1, 300 do
        local v = gen.random_json(1)
        for _, p in ipairs({ 17, "shortest" }) do
          assert.is_true((support.deep_equal(v, decode(qjson.encode(v, { precision = p })))))
        end
      end
    end)
  end)
end)
