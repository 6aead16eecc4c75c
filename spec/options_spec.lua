-- Parse options: mode, max_depth, duplicate_keys, ijson.
local qjson = require("qjson")
local support = require("support")

local error_of = support.error_of

local function nested(depth, open, close)
  return open:rep(depth) .. close:rep(depth)
end

local function parses(s, opts)
  return (pcall(qjson.parse, s, opts))
end

describe("options", function()
  it("accept their defaults spelled out", function()
    local doc = qjson.parse('{"a": 1}', { mode = "strict", max_depth = 1000, duplicate_keys = "last", ijson = false })
    assert.are.equal(1, doc:get_num("a"))
    assert.are.equal(1, qjson.parse('{"a": 1}', {}):get_num("a"))
  end)

  it("do not leak from one parse into the next", function()
    assert.is_false(parses("[[1]]", { max_depth = 1 }))
    assert.is_true(parses("[[1]]"))
    assert.is_false(parses('{"a": 1, "a": 2}', { duplicate_keys = "reject" }))
    assert.is_true(parses('{"a": 1, "a": 2}', {}))
    assert.is_true(parses("[tru]", { mode = "lazy" }))
    assert.is_false(parses("[tru]", { max_depth = 5 }))
  end)
end)

describe("mode = 'lazy'", function()
  local lazy = { mode = "lazy" }

  it("accepts invalid values that strict mode rejects", function()
    for _, s in ipairs({ "[tru]", '{"a":01}', "[nul, fals]", "[-]", "[1.]", "[0x10]", '["a\1b"]', '["\255"]',
      '["\\x"]', '["\\uD800"]', '["\\u12"]', '{"k\1": 1}' }) do
      assert.is_false(parses(s), s)
      assert.is_true(parses(s, lazy), s)
    end
  end)

  it("raises with the position when an invalid value is read", function()
    local doc = qjson.parse('[tru, 01, "a\1b", "\255", nul, "\\x", "\\uD800", 1, "ok"]', lazy)
    assert.are.equal(9, doc:len())
    assert.are.equal("qjson: invalid literal at line 1, column 2 (byte 1)", error_of(doc.get_bool, doc, "[0]"))
    assert.are.equal("qjson: invalid number at line 1, column 8 (byte 7)", error_of(doc.get_num, doc, "[1]"))
    assert.are.equal("qjson: unescaped control character in string at line 1, column 13 (byte 12)",
      error_of(doc.get_str, doc, "[2]"))
    assert.are.equal("qjson: invalid UTF-8 at line 1, column 19 (byte 18)", error_of(doc.get_str, doc, "[3]"))
    assert.are.equal("qjson: invalid literal at line 1, column 23 (byte 22)", error_of(doc.is_null, doc, "[4]"))
    assert.are.equal("qjson: invalid escape in string at line 1, column 29 (byte 28)",
      error_of(doc.get_str, doc, "[5]"))
    assert.are.equal("qjson: lone surrogate in \\u escape at line 1, column 35 (byte 34)",
      error_of(doc.get_str, doc, "[6]"))
    -- The valid values around them read normally.
    assert.are.equal(1, doc:get_num("[7]"))
    assert.are.equal("ok", doc:get_str("[8]"))
  end)

  it("raises from every reader of an invalid value, and from iteration", function()
    local doc = qjson.parse('{"a": tru}', lazy)
    for _, m in ipairs({ "typeof", "get_bool", "get", "is_null", "raw", "open" }) do
      assert.truthy(error_of(doc[m], doc, "a"):find("^qjson: invalid literal at line 1, column 7 %(byte 6%)$"), m)
    end
    assert.truthy(error_of(function()
      for _ in doc:pairs() do end -- luacheck: ignore 512
    end):find("invalid literal", 1, true))
  end)

  it("reads valid documents as strict mode does", function()
    local src = '{"a": [1, 2.5, -3e2], "s": "\\u00e9\\n", "t": true, "n": null, "o": {"x": "y"}}'
    local s, l = qjson.parse(src), qjson.parse(src, lazy)
    assert.are.equal(s:raw(), l:raw())
    assert.are.equal(s:get_num("a[2]"), l:get_num("a[2]"))
    assert.are.equal(s:get_str("s"), l:get_str("s"))
    assert.are.equal(true, l:get_bool("t"))
    assert.are.equal(true, l:is_null("n"))
    assert.are.equal("y", l:get_str("/o/x"))
  end)

  it("still rejects structure errors", function()
    local cases = {
      { "[1,]", "expected a value, found ']'" },
      { "[1 2]", "expected ',' or ']' after array element" },
      { '{"a" 1}', "expected ':' after object key" },
      { '{"a": 1,}', "expected a string key" },
      { "{1: 2}", "expected a string key" },
      { "[1", "unexpected end of input" },
      { '["abc', "unterminated string" },
      { "[1]]", "trailing content after the JSON value" },
      { "", "empty input" },
      { "\239\187\191[]", "byte-order mark is not allowed" },
      { "[}", "expected a value, found '}'" },
    }
    for _, c in ipairs(cases) do
      local err = error_of(qjson.parse, c[1], lazy)
      assert.truthy(err:find("qjson: " .. c[2], 1, true), err)
      assert.truthy(err:match(" at line %d+, column %d+ %(byte %d+%)$"), err)
    end
  end)

  it("still applies max_depth and duplicate_keys", function()
    assert.is_false(parses("[[1]]", { mode = "lazy", max_depth = 1 }))
    assert.is_false(parses('{"a": 1, "a": 2}', { mode = "lazy", duplicate_keys = "reject" }))
  end)
end)

describe("max_depth", function()
  it("defaults to 1000", function()
    assert.is_true(parses(nested(1000, "[", "]")))
    local err = error_of(qjson.parse, nested(1001, "[", "]"))
    assert.are.equal("qjson: nesting deeper than max_depth (1000) at line 1, column 1001 (byte 1000)", err)
    local objects = ('{"a":'):rep(1000) .. "1" .. ("}"):rep(1000)
    assert.is_true(parses(objects))
    assert.truthy(error_of(qjson.parse, '{"a":' .. objects .. "}"):find("max_depth", 1, true))
  end)

  it("reads the deepest value of a document at the limit", function()
    local doc = qjson.parse(("["):rep(1000) .. '"deep"' .. ("]"):rep(1000))
    assert.are.equal("deep", doc:get_str(("[0]"):rep(1000)))
    assert.are.equal("deep", doc:get_str(("/0"):rep(1000)))
    assert.are.equal(1, doc:len(("[0]"):rep(999)))
    assert.are.equal('["deep"]', doc:raw(("[0]"):rep(999)))
  end)

  it("takes custom values", function()
    assert.is_true(parses("1", { max_depth = 1 }))
    assert.is_true(parses("[]", { max_depth = 1 }))
    assert.is_true(parses('{"a": 1, "b": [2]}', { max_depth = 2 }))
    assert.are.equal("qjson: nesting deeper than max_depth (1) at line 1, column 2 (byte 1)",
      error_of(qjson.parse, "[[]]", { max_depth = 1 }))
    assert.is_true(parses(nested(5, "[", "]"), { max_depth = 5 }))
    assert.truthy(error_of(qjson.parse, nested(6, "[", "]"), { max_depth = 5 }):find("max_depth (5)", 1, true))
    assert.is_true(parses(nested(2000, "[", "]"), { max_depth = 2000 }))
    assert.is_true(parses(nested(3000, "[", "]"), { max_depth = 2 ^ 31 - 1 }))
  end)

  it("counts depth, not the number of containers", function()
    assert.is_true(parses("[" .. ("[],"):rep(5000) .. "[]]", { max_depth = 2 }))
  end)
end)

describe("duplicate_keys", function()
  it("reads the last value by default", function()
    local doc = qjson.parse('{"a": 1, "a": 2}')
    assert.are.equal(2, doc:get_num("a"))
    assert.are.equal(2, qjson.parse('{"a": 1, "a": 2}', { duplicate_keys = "last" }):get_num("a"))
  end)

  it("= 'reject' rejects a repeated key at its second occurrence", function()
    local reject = { duplicate_keys = "reject" }
    assert.are.equal("qjson: duplicate key at line 1, column 10 (byte 9)",
      error_of(qjson.parse, '{"a": 1, "a": 2}', reject))
    assert.are.equal("qjson: duplicate key at line 1, column 8 (byte 7)",
      error_of(qjson.parse, '{"a":1,"\\u0061":2}', reject))
    assert.truthy(error_of(qjson.parse, '{"\\u00e9": 1, "é": 2}', reject):find("duplicate key", 1, true))
    assert.truthy(error_of(qjson.parse, '{"x": {"b": 1, "c": 2, "b": 3}}', reject):find("column 24", 1, true))
    assert.truthy(error_of(qjson.parse, '[1, [{"a": [{"k": 1, "k": 1}]}]]', reject):find("duplicate key", 1, true))
  end)

  it("= 'reject' accepts the same key in different objects", function()
    local reject = { duplicate_keys = "reject" }
    assert.is_true(parses('[{"a": 1}, {"a": 2}]', reject))
    assert.is_true(parses('{"a": {"a": {"a": 1}}}', reject))
    assert.is_true(parses('{"a": 1, "A": 2, "a ": 3, "\\u0062": 4}', reject))
  end)

  it("= 'reject' checks documents as deep as max_depth allows", function()
    local deep = ('{"a":'):rep(1000) .. "1" .. ("}"):rep(1000)
    assert.is_true(parses(deep, { duplicate_keys = "reject" }))
    local dup = ('{"a":'):rep(999) .. '{"b":1,"b":2}' .. ("}"):rep(999)
    assert.truthy(error_of(qjson.parse, dup, { duplicate_keys = "reject" }):find("duplicate key", 1, true))
  end)
end)

describe("ijson = true", function()
  local ijson = { ijson = true }

  it("rejects duplicate keys, compared after unescaping", function()
    assert.truthy(error_of(qjson.parse, '{"a": 1, "a": 2}', ijson):find("duplicate key", 1, true))
    assert.truthy(error_of(qjson.parse, '{"a": 1, "\\u0061": 2}', ijson):find("duplicate key", 1, true))
  end)

  it("rejects lone surrogates", function()
    assert.truthy(error_of(qjson.parse, '["\\uD800"]', ijson):find("lone surrogate", 1, true))
    assert.truthy(error_of(qjson.parse, '["\\uDC00\\uD800"]', ijson):find("lone surrogate", 1, true))
  end)

  it("rejects numbers that overflow binary64", function()
    assert.are.equal("qjson: number out of range at line 1, column 2 (byte 1)", error_of(qjson.parse, "[1e400]", ijson))
    assert.truthy(error_of(qjson.parse, "[-1e400]", ijson):find("number out of range", 1, true))
    assert.truthy(error_of(qjson.parse, '{"x": 1.5e309}', ijson):find("number out of range", 1, true))
  end)

  it("rejects integers beyond +-2^53", function()
    assert.are.equal("qjson: number out of range at line 1, column 2 (byte 1)",
      error_of(qjson.parse, "[9007199254740993]", ijson))
    assert.truthy(error_of(qjson.parse, "[-9007199254740993]", ijson):find("number out of range", 1, true))
    assert.truthy(error_of(qjson.parse, "[18446744073709551616]", ijson):find("number out of range", 1, true))
    assert.truthy(error_of(qjson.parse, "[123456789012345678901234567890]", ijson):find("out of range", 1, true))
  end)

  it("accepts what I-JSON allows", function()
    assert.is_true(parses("[9007199254740992, -9007199254740992, 1.5, 1e308, 0.1, -0, 1e-400]", ijson))
    assert.is_true(parses('{"a": 1, "b": {"a": 2}, "s": "\\uD83D\\uDE00"}', ijson))
  end)

  it("leaves the same documents valid without it", function()
    for _, s in ipairs({ "[1e400]", "[9007199254740993]", '{"a": 1, "a": 2}' }) do
      assert.is_true(parses(s), s)
    end
  end)

  -- I-JSON's number limits are about what may be forwarded, so lazy mode
  -- checks them at parse time too.
  it("with mode = 'lazy' still rejects 1e400 and 9007199254740993 at parse", function()
    for _, s in ipairs({ "[1e400]", "[9007199254740993]" }) do
      local ok, err = pcall(qjson.parse, s, { ijson = true, mode = "lazy" })
      assert.is_false(ok, s)
      assert.truthy(err:find("number out of range at line 1, column 2 (byte 1)", 1, true), err)
    end
  end)
end)

describe("qjson.safe's argument errors", function()
  -- Issue 41: on PUC Lua a safe function runs under a wrapper that calls
  -- it, and Lua names no function a C function calls: '?' there.
  it("name the function as qjson's do", function()
    local safe = require("qjson.safe")
    local unpack = rawget(table, "unpack") or unpack
    local bogus = { mode = "bogus" }
    for _, case in ipairs({
      { "parse", 2, "{}", bogus },
      { "parse", 1, 42 },
      { "path", 1, 42 },
      { "select", 2, { "a" }, bogus },
      { "schema", 2, "{}", { draft = 5 } },
      { "patch", 3, "{}", "[]", { colour = true } },
    }) do
      local name, n = case[1], case[2]
      local args = { unpack(case, 3) }
      local v, err = safe[name](unpack(args))
      assert.is_nil(v, name)
      assert.are.equal(1, err:find("bad argument #" .. n .. " to '" .. name .. "' (", 1, true), err)
      local ok, want = pcall(qjson[name], unpack(args))
      assert.is_false(ok)
      assert.are.equal(want, err)
    end
  end)
end)
