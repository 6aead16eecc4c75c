-- The document API: every reader on objects, arrays, nested data and
-- cursors, with dotted paths, JSON Pointers and compiled paths.
local qjson = require("qjson")
local cjson = require("cjson")
local support = require("support")

local error_of = support.error_of

local SRC = [=[
{
  "name": "qjson",
  "version": 1.5,
  "count": 42,
  "neg": -7,
  "ok": true,
  "no": false,
  "nothing": null,
  "tags": ["a", "b", "c"],
  "nested": {"list": [10, {"deep": "x"}, [1, 2]], "empty_obj": {}, "empty_arr": []},
  "a/b": "slash",
  "~": "tilde",
  "m~n": "tilde-key",
  "": "empty key",
  "0": "zero key",
  "sp ace": "space"
}
]=]

-- Every reader, for checks that must hold for all of them.
local READERS = { "typeof", "len", "get_str", "get_num", "get_i64", "get_u64", "get_bool",
  "is_null", "raw", "get", "open" }

describe("document", function()
  local doc = qjson.parse(SRC)

  describe("typeof", function()
    it("names all six kinds", function()
      assert.are.equal("object", doc:typeof())
      assert.are.equal("object", doc:typeof(""))
      assert.are.equal("array", doc:typeof("tags"))
      assert.are.equal("string", doc:typeof("name"))
      assert.are.equal("number", doc:typeof("version"))
      assert.are.equal("boolean", doc:typeof("ok"))
      assert.are.equal("boolean", doc:typeof("no"))
      assert.are.equal("null", doc:typeof("nothing"))
    end)

    it("works on scalar documents", function()
      assert.are.equal("string", qjson.parse('"s"'):typeof())
      assert.are.equal("number", qjson.parse(" -0.5e3 "):typeof())
      assert.are.equal("boolean", qjson.parse("false"):typeof())
      assert.are.equal("null", qjson.parse("null"):typeof())
      assert.are.equal("array", qjson.parse("[]"):typeof())
    end)
  end)

  describe("len", function()
    it("counts object members and array elements", function()
      assert.are.equal(15, doc:len())
      assert.are.equal(3, doc:len("tags"))
      assert.are.equal(3, doc:len("nested"))
      assert.are.equal(3, doc:len("nested.list"))
      assert.are.equal(1, doc:len("nested.list[1]"))
      assert.are.equal(2, doc:len("nested.list[2]"))
      assert.are.equal(0, doc:len("nested.empty_obj"))
      assert.are.equal(0, doc:len("nested.empty_arr"))
    end)

    it("counts every occurrence of a repeated key", function()
      assert.are.equal(3, qjson.parse('{"a": 1, "a": 2, "b": 3}'):len())
    end)

    it("counts large containers", function()
      local parts = {}
      for i = 1, 5000 do
        parts[i] = i % 3 == 0 and "[" .. i .. "]" or tostring(i)
      end
      assert.are.equal(5000, qjson.parse("[" .. table.concat(parts, ",") .. "]"):len())
    end)

    it("raises on a scalar", function()
      assert.are.equal("qjson: type mismatch at 'name': expected array or object, got string",
        error_of(doc.len, doc, "name"))
    end)
  end)

  describe("scalar readers", function()
    it("read strings, numbers, booleans and null", function()
      assert.are.equal("qjson", doc:get_str("name"))
      assert.are.equal(1.5, doc:get_num("version"))
      assert.are.equal(42, doc:get_num("count"))
      assert.are.equal(-7, doc:get_num("neg"))
      assert.are.equal(true, doc:get_bool("ok"))
      assert.are.equal(false, doc:get_bool("no"))
      assert.are.equal(true, doc:is_null("nothing"))
      assert.are.equal(false, doc:is_null("name"))
      assert.are.equal(false, doc:is_null("tags"))
      assert.is_nil(doc:is_null("missing"))
    end)

    it("read the root of scalar documents", function()
      assert.are.equal("hi", qjson.parse('  "hi"  '):get_str())
      assert.are.equal(12.5, qjson.parse("12.5"):get_num())
      assert.are.equal(true, qjson.parse("true"):get_bool())
      assert.are.equal(true, qjson.parse("null"):is_null())
      assert.are.equal(-0.0, qjson.parse("-0"):get_num())
      assert.are.equal(-math.huge, 1 / qjson.parse("-0"):get_num())
    end)

    it("read numbers as the nearest double", function()
      local d = qjson.parse("[0.1, 1e-7, 2.5E+3, 1.7976931348623157e308, 5e-324, 123456789012345678901234567890]")
      assert.are.equal(0.1, d:get_num("[0]"))
      assert.are.equal(1e-7, d:get_num("[1]"))
      assert.are.equal(2500, d:get_num("[2]"))
      assert.are.equal(1.7976931348623157e308, d:get_num("[3]"))
      assert.are.equal(5e-324, d:get_num("[4]"))
      assert.are.equal(1.2345678901234568e29, d:get_num("[5]"))
    end)
  end)

  describe("get", function()
    it("returns scalars as Lua values", function()
      assert.are.equal("qjson", doc:get("name"))
      assert.are.equal(1.5, doc:get("version"))
      assert.are.equal(true, doc:get("ok"))
      assert.are.equal(false, doc:get("no"))
      assert.are.equal("x", doc:get("nested.list[1].deep"))
    end)

    it("returns qjson.null for null, which is cjson.null", function()
      assert.are.equal(qjson.null, doc:get("nothing"))
      assert.are.equal(cjson.null, doc:get("nothing"))
      assert.are.equal(cjson.null, qjson.null)
      assert.are.equal(qjson.null, qjson.parse("null"):get())
    end)

    it("returns a lazy view for a container, the same view each time #luajit", function()
      local tags = doc:get("tags")
      assert.are.equal("table", type(tags))
      assert.are.equal(tags, doc:get("tags"))
      assert.are.equal(doc:get_str("tags[0]"), tags[1])
      assert.are.equal(doc:len("tags"), qjson.len(tags))
      local root = doc:get()
      -- An untouched root encodes as the whole text, whitespace included.
      assert.are.equal(SRC, qjson.encode(root))
      assert.are.equal(doc:raw("nested"), qjson.encode(doc:get("nested")))
      assert.are.equal(doc:get_num("nested.list[0]"), doc:get("nested").list[1])
    end)

    it("in lazy mode, reports the errors of what it reads, not its siblings', the same on every call", function()
      for _, text in ipairs({ '{"b":[1],"c":01}', '{"a":tru,"b":{"x":[2]},"c":-}', '[01,[3],1.]' }) do
        local lazy = qjson.parse(text, { mode = "lazy" })
        local path = text:sub(1, 1) == "[" and "[1]" or "b"
        for _ = 1, 2 do
          local v = lazy:get(path)
          assert.are.equal("table", type(v), text)
          assert.are.equal(lazy:raw(path), qjson.encode(v), text)
        end
        if text:sub(1, 1) == "{" then
          assert.has_error(function() lazy:get("c") end)
        end
      end
      local lazy = qjson.parse('{"b":{"x":[2]},"c":01}', { mode = "lazy" })
      assert.are.equal(2, lazy:get("b.x")[1])
    end)
  end)

  describe("missing paths", function()
    local missing = { "missing", "nested.nope", "tags[3]", "tags[99].x", "name.x", "tags.x",
      "nested[0]", "/missing", "/tags/3", "/tags/-", "/tags/01", "/nested/list/1/deep/x", "/name/0" }

    it("read as nil from every reader", function()
      for _, path in ipairs(missing) do
        for _, m in ipairs(READERS) do
          local v = doc[m](doc, path)
          assert.is_nil(v, m .. "(" .. path .. ")")
        end
      end
    end)

    it("read as nil through compiled paths and cursors too", function()
      local nested = doc:open("nested")
      for _, path in ipairs(missing) do
        local p = qjson.path(path)
        for _, m in ipairs(READERS) do
          assert.is_nil(doc[m](doc, p), m .. "(" .. path .. ")")
        end
      end
      assert.is_nil(nested:get("name"))
      assert.is_nil(nested:open("list[3]"))
    end)

    it("cannot be iterated", function()
      assert.are.equal("qjson: nothing at 'missing' to iterate", error_of(doc.pairs, doc, "missing"))
      assert.are.equal("qjson: nothing at 'tags[5]' to iterate", error_of(doc.ipairs, doc, "tags[5]"))
    end)
  end)

  describe("dotted paths", function()
    it("walk keys and indexes", function()
      assert.are.equal("b", doc:get_str("tags[1]"))
      assert.are.equal(10, doc:get_num("nested.list[0]"))
      assert.are.equal("x", doc:get_str("nested.list[1].deep"))
      assert.are.equal(2, doc:get_num("nested.list[2][1]"))
      assert.are.equal("space", doc:get_str("sp ace"))
      assert.are.equal("zero key", doc:get_str("0"))
      assert.are.equal("tilde-key", doc:get_str("m~n"))
    end)

    it("start with an index on a root array", function()
      local d = qjson.parse('[{"id": 1}, {"id": 2}, [3, [4]]]')
      assert.are.equal(2, d:get_num("[1].id"))
      assert.are.equal(4, d:get_num("[2][1][0]"))
    end)

    it("reach any element of a long array, in any order", function()
      local parts = {}
      for i = 1, 1000 do
        parts[i] = '{"v":' .. i .. "}"
      end
      local d = qjson.parse("[" .. table.concat(parts, ",") .. "]")
      for _, i in ipairs({ 0, 999, 500, 1, 998, 0, 250, 251, 249 }) do
        assert.are.equal(i + 1, d:get_num("[" .. i .. "].v"))
      end
    end)
  end)

  describe("JSON Pointers", function()
    it("walk keys and indexes", function()
      assert.are.equal("b", doc:get_str("/tags/1"))
      assert.are.equal("x", doc:get_str("/nested/list/1/deep"))
      assert.are.equal(2, doc:get_num("/nested/list/2/1"))
    end)

    it("unescape ~1 and ~0", function()
      assert.are.equal("slash", doc:get_str("/a~1b"))
      assert.are.equal("tilde", doc:get_str("/~0"))
      assert.are.equal("tilde-key", doc:get_str("/m~0n"))
    end)

    it("read '/' as the empty key and '/0' as a key of an object", function()
      assert.are.equal("empty key", doc:get_str("/"))
      assert.are.equal("zero key", doc:get_str("/0"))
    end)

    it("read '/0' as an index of an array", function()
      local d = qjson.parse('[["x", "y"], {"0": "key"}]')
      assert.are.equal("x", d:get_str("/0/0"))
      assert.are.equal("y", d:get_str("/0/1"))
      assert.are.equal("key", d:get_str("/1/0"))
    end)

    it("match keys written with escapes", function()
      local d = qjson.parse([[{"a\"b": 1, "\u00e9t\u00e9": 2, "x\/y": 3, "t\\u": 4}]])
      assert.are.equal(1, d:get_num('/a"b'))
      assert.are.equal(1, d:get_num('a"b'))
      assert.are.equal(2, d:get_num("été"))
      assert.are.equal(3, d:get_num("/x~1y"))
      assert.are.equal(4, d:get_num("t\\u"))
      assert.is_nil(d:get_num("a\\\"b"))
    end)
  end)

  describe("compiled paths", function()
    local paths = { "name", "version", "count", "ok", "nothing", "tags", "tags[2]",
      "nested.list[1].deep", "nested.list[2]", "/a~1b", "/~0", "/", "/0", "/nested/list/0", "" }

    it("read the same as path strings, in every reader #luajit", function()
      for _, s in ipairs(paths) do
        local p = qjson.path(s)
        for _, m in ipairs(READERS) do
          local ok1, v1 = pcall(doc[m], doc, s)
          local ok2, v2 = pcall(doc[m], doc, p)
          assert.are.equal(ok1, ok2, m .. "(" .. s .. ")")
          if m == "open" and ok1 then
            assert.are.equal(v1:raw(), v2:raw())
          elseif ok1 then
            assert.are.equal(v1, v2, m .. "(" .. s .. ")")
          else
            assert.are.equal(v1, v2, m .. "(" .. s .. ")")
          end
        end
      end
    end)

    it("work with pairs, ipairs and cursors", function()
      local n = 0
      for i, v in doc:ipairs(qjson.path("tags")) do
        n = n + 1
        assert.are.equal(doc:get_str("tags[" .. (i - 1) .. "]"), v)
      end
      assert.are.equal(3, n)
      local keys = {}
      for k in doc:pairs(qjson.path("/nested")) do
        keys[#keys + 1] = k
      end
      assert.are.same({ "list", "empty_obj", "empty_arr" }, keys)
      local list = doc:open(qjson.path("nested.list"))
      assert.are.equal("x", list:get_str(qjson.path("[1].deep")))
    end)

    it("are reusable across documents and relative to cursors", function()
      local p = qjson.path("a.b")
      assert.are.equal(1, qjson.parse('{"a": {"b": 1}}'):get_num(p))
      assert.are.equal(2, qjson.parse('{"a": {"b": 2}}'):get_num(p))
      assert.are.equal(3, qjson.parse('[{"a": {"b": 3}}]'):open("[0]"):get_num(p))
      assert.is_nil(qjson.parse("[]"):get_num(p))
    end)

    it("are named by their text in type mismatch errors", function()
      assert.are.equal("qjson: type mismatch at 'nested.list[1].deep': expected number, got string",
        error_of(doc.get_num, doc, qjson.path("nested.list[1].deep")))
    end)
  end)

  describe("cursors", function()
    it("read with paths relative to them", function()
      local nested = doc:open("nested")
      assert.are.equal("object", nested:typeof())
      assert.are.equal(3, nested:len())
      assert.are.equal(10, nested:get_num("list[0]"))
      assert.are.equal("x", nested:get_str("/list/1/deep"))
      assert.are.equal('{"deep": "x"}', nested:raw("list[1]"))
    end)

    it("open cursors of cursors", function()
      local list = doc:open("nested"):open("list")
      local deep = list:open("[1]")
      assert.are.equal("x", deep:get_str("deep"))
      assert.are.equal("x", deep:open("deep"):get_str())
      assert.are.equal(2, list:open("[2]"):get_num("[1]"))
      assert.are.equal(3, list:len())
    end)

    it("sit on scalars too", function()
      local c = doc:open("count")
      assert.are.equal("number", c:typeof())
      assert.are.equal(42, c:get_num())
      assert.are.equal("42", c:raw())
      assert.is_nil(c:get_num("x"))
      assert.are.equal(true, doc:open("nothing"):is_null())
    end)

    it("are independent of one another", function()
      local a, b = doc:open("tags"), doc:open("nested.list")
      assert.are.equal("a", a:get_str("[0]"))
      assert.are.equal(10, b:get_num("[0]"))
      assert.are.equal("c", a:get_str("[2]"))
      assert.are.equal("x", b:get_str("[1].deep"))
    end)

    it("have every document method", function()
      local c = doc:open("nested")
      for _, m in ipairs(READERS) do
        assert.are.equal("function", type(c[m]), m)
      end
      assert.are.equal("function", type(c.pairs))
      assert.are.equal("function", type(c.ipairs))
    end)

    it("print as what they are", function()
      assert.are.equal("qjson.document", tostring(doc))
      assert.are.equal("qjson.cursor (array)", tostring(doc:open("tags")))
      assert.are.equal("qjson.cursor (string)", tostring(doc:open("name")))
    end)
  end)

  describe("type mismatches", function()
    it("name the path and both types", function()
      local cases = {
        { "get_str", "count", "expected string, got number" },
        { "get_num", "name", "expected number, got string" },
        { "get_bool", "nothing", "expected boolean, got null" },
        { "get_i64", "ok", "expected number, got boolean" },
        { "get_u64", "tags", "expected number, got array" },
        { "get_str", "nested", "expected string, got object" },
        { "get_num", "/nested/list/1", "expected number, got object" },
        { "get_str", "nested.list[0]", "expected string, got number" },
      }
      for _, c in ipairs(cases) do
        local m, path, what = c[1], c[2], c[3]
        assert.are.equal("qjson: type mismatch at '" .. path .. "': " .. what, error_of(doc[m], doc, path))
      end
    end)

    it("follow the documented format exactly", function()
      local d = qjson.parse('{"a": 1}')
      assert.are.equal("qjson: type mismatch at 'a': expected string, got number", error_of(d.get_str, d, "a"))
    end)

    it("name the root when there is no path", function()
      assert.are.equal("qjson: type mismatch at the root: expected string, got object", error_of(doc.get_str, doc))
      assert.are.equal("qjson: type mismatch at the root: expected number, got string",
        error_of(function() doc:open("name"):get_num() end))
    end)

    it("apply to iteration", function()
      assert.are.equal("qjson: type mismatch at 'nested': expected array, got object",
        error_of(doc.ipairs, doc, "nested"))
      assert.are.equal("qjson: type mismatch at 'count': expected object or array, got number",
        error_of(doc.pairs, doc, "count"))
    end)
  end)

  describe("get_i64 and get_u64", function()
    local d = qjson.parse([[{"big": 9007199254740993, "max": 18446744073709551615,
      "imin": -9223372036854775808, "imax": 9223372036854775807, "over": 9223372036854775808,
      "neg": -1, "frac": 1.5, "exp": 1e2, "small": 42, "zero": 0}]])

    it("read integers exactly #luajit", function()
      assert.are.equal("9007199254740993LL", tostring(d:get_i64("big")))
      assert.are.equal("9007199254740993ULL", tostring(d:get_u64("big")))
      assert.are.equal("18446744073709551615ULL", tostring(d:get_u64("max")))
      assert.are.equal("-9223372036854775808LL", tostring(d:get_i64("imin")))
      assert.are.equal("9223372036854775807LL", tostring(d:get_i64("imax")))
      assert.are.equal("9223372036854775808ULL", tostring(d:get_u64("over")))
      assert.are.equal("-1LL", tostring(d:get_i64("neg")))
      assert.are.equal("42LL", tostring(d:get_i64("small")))
      assert.are.equal("0ULL", tostring(d:get_u64("zero")))
      -- (Read as two 32-bit halves: the values around the halves' edges.)
      for _, n in ipairs({ "4294967295", "4294967296", "2147483648", "-2147483648", "-2147483649",
        "-4294967296", "-4294967297", "-9223372032559808513" }) do
        assert.are.equal(n .. "LL", tostring(qjson.parse(n):get_i64()))
        if n:sub(1, 1) ~= "-" then
          assert.are.equal(n .. "ULL", tostring(qjson.parse(n):get_u64()))
        end
      end
    end)

    it("return fresh cdata, not a shared box #luajit", function()
      local a, b = d:get_i64("small"), d:get_i64("neg")
      assert.are.equal("42LL", tostring(a))
      assert.are.equal("-1LL", tostring(b))
    end)

    it("raise, with the position, on integers out of range", function()
      local err = error_of(d.get_i64, d, "over")
      local want = "^qjson: number is not an integer within int64 range at line 2, column %d+ %(byte %d+%)$"
      assert.truthy(err:match(want), err)
      assert.truthy(error_of(d.get_i64, d, "max"):find("int64 range", 1, true))
      assert.truthy(error_of(d.get_u64, d, "neg"):find("uint64 range", 1, true))
      assert.truthy(error_of(d.get_u64, d, "imin"):find("uint64 range", 1, true))
      local big = qjson.parse("[18446744073709551616, -9223372036854775809]")
      assert.truthy(error_of(big.get_u64, big, "[0]"):find("uint64 range", 1, true))
      assert.truthy(error_of(big.get_i64, big, "[1]"):find("int64 range", 1, true))
    end)

    it("raise on numbers written with a fraction or an exponent", function()
      assert.truthy(error_of(d.get_i64, d, "frac"):find("not an integer", 1, true))
      assert.truthy(error_of(d.get_u64, d, "exp"):find("not an integer", 1, true))
    end)

    it("read -0 as integer zero with get_i64 #luajit", function()
      assert.are.equal("0LL", tostring(qjson.parse("-0"):get_i64()))
    end)

    -- Rust bug: number::to_u64 uses u64::from_str, which rejects a leading
    -- '-', so the integer -0 (zero, within uint64 range) raises "number is
    -- not an integer within uint64 range" while get_i64 reads it as 0.
    it("read -0 as integer zero with get_u64 #luajit", function()
      assert.are.equal("0ULL", tostring(qjson.parse("-0"):get_u64()))
    end)

    it("give the position of the number in the message", function()
      local e = qjson.parse('[1, 2, 1.5]')
      assert.are.equal("qjson: number is not an integer within int64 range at line 1, column 8 (byte 7)",
        error_of(e.get_i64, e, "[2]"))
    end)
  end)

  describe("get_num of big numbers", function()
    it("rounds to the nearest double", function()
      local d = qjson.parse("[9007199254740993, 18446744073709551615, -9223372036854775809]")
      assert.are.equal(9007199254740992, d:get_num("[0]"))
      assert.are.equal(2 ^ 64, d:get_num("[1]"))
      assert.are.equal(-(2 ^ 63), d:get_num("[2]"))
    end)

    it("reads huge exponents as infinity or zero", function()
      local d = qjson.parse("[1e400, -1e400, 1e-400, -1e-400, 123e-999999999]")
      assert.are.equal(math.huge, d:get_num("[0]"))
      assert.are.equal(-math.huge, d:get_num("[1]"))
      assert.are.equal(0, d:get_num("[2]"))
      assert.are.equal(-math.huge, 1 / d:get_num("[3]"))
      assert.are.equal(0, d:get_num("[4]"))
    end)
  end)

  describe("strings", function()
    it("decode every escape", function()
      local d = qjson.parse([=[["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20AC", "\ud83d\ude00", "\uD834\uDD1E",
        "a\u0000b", "\u007f", "plain"]]=])
      assert.are.equal("\"\\/\b\f\n\r\t", d:get_str("[0]"))
      assert.are.equal("Aé€", d:get_str("[1]"))
      assert.are.equal("😀", d:get_str("[2]"))
      assert.are.equal("\240\157\132\158", d:get_str("[3]"))
      assert.are.equal("a\0b", d:get_str("[4]"))
      assert.are.equal("\127", d:get_str("[5]"))
      assert.are.equal("plain", d:get_str("[6]"))
    end)

    it("pass UTF-8 through unchanged", function()
      local s = "日本語 ünïcödé 😀 \239\191\191"
      assert.are.equal(s, qjson.parse('"' .. s .. '"'):get_str())
    end)

    it("keep earlier results when later reads decode other strings", function()
      local d = qjson.parse([=[["\u00e9a", "\u00e9b"]]=])
      local a = d:get_str("[0]")
      local b = d:get_str("[1]")
      assert.are.equal("éa", a)
      assert.are.equal("éb", b)
    end)

    it("read long strings, with and without escapes, across 64-byte blocks", function()
      for _, n in ipairs({ 63, 64, 65, 127, 128, 129, 1000, 70000 }) do
        local plain = ("x"):rep(n)
        local escaped = ('ab\\"\\\\'):rep(n)
        local d = qjson.parse('["' .. plain .. '", "' .. escaped .. '"]')
        assert.are.equal(plain, d:get_str("[0]"))
        assert.are.equal(('ab"\\'):rep(n), d:get_str("[1]"))
      end
    end)
  end)

  describe("raw", function()
    it("returns the exact source text, whitespace inside included", function()
      local src = '  { "a" : [ 1 ,2 , { "b" :null } ] ,\n\t"s": "x\\"y\\u0041" , "n": 1.50E+2, "e": {  } }  '
      local d = qjson.parse(src)
      assert.are.equal('{ "a" : [ 1 ,2 , { "b" :null } ] ,\n\t"s": "x\\"y\\u0041" , "n": 1.50E+2, "e": {  } }',
        d:raw())
      assert.are.equal('[ 1 ,2 , { "b" :null } ]', d:raw("a"))
      assert.are.equal('{ "b" :null }', d:raw("a[2]"))
      assert.are.equal("null", d:raw("a[2].b"))
      assert.are.equal('"x\\"y\\u0041"', d:raw("s"))
      assert.are.equal("1.50E+2", d:raw("n"))
      assert.are.equal("{  }", d:raw("e"))
    end)

    it("returns scalars at the root without surrounding whitespace", function()
      assert.are.equal("-12.5e3", qjson.parse(" \n-12.5e3\t "):raw())
      assert.are.equal("true", qjson.parse("true"):raw())
      assert.are.equal('"]"', qjson.parse('  "]"  '):raw())
    end)

    it("handles nested containers closing together", function()
      local d = qjson.parse('[[[ ]\n] ,{"a":{"b":[ ]} } ]')
      assert.are.equal('[[[ ]\n] ,{"a":{"b":[ ]} } ]', d:raw())
      assert.are.equal("[[ ]\n]", d:raw("[0]"))
      assert.are.equal('{"a":{"b":[ ]} }', d:raw("[1]"))
      assert.are.equal('{"b":[ ]}', d:raw("[1].a"))
    end)

    it("is what cjson decodes to the same value", function()
      local t = cjson.decode(doc:raw("nested"))
      assert.are.equal("x", t.list[2].deep)
    end)
  end)

  describe("pairs", function()
    it("yields each key once, in source order", function()
      local keys, values = {}, {}
      for k, v in doc:pairs() do
        keys[#keys + 1] = k
        values[k] = v
      end
      assert.are.same({ "name", "version", "count", "neg", "ok", "no", "nothing", "tags", "nested",
        "a/b", "~", "m~n", "", "0", "sp ace" }, keys)
      assert.are.equal("qjson", values.name)
      assert.are.equal(1.5, values.version)
      assert.are.equal(true, values.ok)
      assert.are.equal(false, values.no)
      assert.are.equal(qjson.null, values.nothing)
      assert.are.equal("qjson.cursor (array)", tostring(values.tags))
      assert.are.equal("c", values.tags:get_str("[2]"))
      assert.are.equal("x", values.nested:get_str("list[1].deep"))
    end)

    it("yields the last value of a repeated key, at the key's first place", function()
      local d = qjson.parse([[{"a": 1, "b": 2, "a": 3, "c": {"x": 1}, "\u0061": 4, "c": [5], "b\u0000": 6}]])
      local got = {}
      for k, v in d:pairs() do
        got[#got + 1] = { k, type(v) == "table" and v:raw() or v }
      end
      assert.are.same({ { "a", 4 }, { "b", 2 }, { "c", "[5]" }, { "b\0", 6 } }, got)
      assert.are.equal(4, d:get_num("a"))
      assert.are.equal("[5]", d:raw("c"))
    end)

    it("agrees with cjson on repeated keys", function()
      local src = '{"k": 1, "j": 0, "k": 2, "k": 3}'
      local t, got = cjson.decode(src), {}
      for k, v in qjson.parse(src):pairs() do
        got[k] = v
      end
      assert.are.same(t, got)
    end)

    it("iterates arrays as ipairs does", function()
      local got = {}
      for i, v in doc:pairs("tags") do
        got[i] = v
      end
      assert.are.same({ "a", "b", "c" }, got)
    end)

    it("yields nothing for empty containers", function()
      for _, path in ipairs({ "nested.empty_obj", "nested.empty_arr" }) do
        for _ in doc:pairs(path) do
          error("yielded from " .. path)
        end
      end
    end)

    it("iterates cursors and nests", function()
      local d = qjson.parse('{"x": {"p": {"q": 1, "r": 2}, "s": {"t": 3}}}')
      local got = {}
      for k, v in d:open("x"):pairs() do
        for k2, v2 in v:pairs() do
          got[#got + 1] = k .. "." .. k2 .. "=" .. v2
        end
      end
      assert.are.same({ "p.q=1", "p.r=2", "s.t=3" }, got)
    end)
  end)

  describe("ipairs", function()
    it("yields 1-based indexes and values", function()
      local d = qjson.parse('[10, "s", true, null, [1], {"a": 2}, false]')
      local got = {}
      for i, v in d:ipairs() do
        got[i] = v
      end
      assert.are.equal(7, #got)
      assert.are.equal(10, got[1])
      assert.are.equal("s", got[2])
      assert.are.equal(true, got[3])
      assert.are.equal(qjson.null, got[4])
      assert.are.equal(1, got[5]:get_num("[0]"))
      assert.are.equal(2, got[6]:get_num("a"))
      assert.are.equal(false, got[7])
    end)

    it("takes a path", function()
      local kinds = {}
      for i, v in doc:ipairs("nested.list") do
        kinds[i] = type(v) == "table" and v:typeof() or type(v)
      end
      assert.are.same({ "number", "object", "array" }, kinds)
    end)

    it("iterates large arrays in order", function()
      local parts = {}
      for i = 1, 3000 do
        parts[i] = tostring(i * 2)
      end
      local n = 0
      for i, v in qjson.parse("[" .. table.concat(parts, ", ") .. "]"):ipairs() do
        n = n + 1
        assert.are.equal(n, i)
        assert.are.equal(i * 2, v)
      end
      assert.are.equal(3000, n)
    end)
  end)
end)

describe("where documents live #luajit", function()
  local doc_module = require("qjson.parse")
  local MAX = doc_module.PLACED_MAX

  local function full_gc()
    collectgarbage()
    collectgarbage()
  end

  it("places documents that need up to PLACED_MAX bytes in Lua memory, and keeps larger ones native", function()
    local C = require("qjson.lib")
    local ffi = require("ffi")
    -- What a document needs follows its structure (4 bytes a value), not
    -- its length: a long string needs no more than a short one.
    local many = "[" .. ("1,"):rep(MAX / 4) .. "1]"
    local long = '{"s": "' .. ("x"):rep(4 * MAX) .. '", "n": [10, 20]}'
    local err = ffi.new("qjson_error")
    assert.is_true(C.qjson_parse_size(many, #many, nil, err) > MAX)
    assert.is_true(C.qjson_parse_size(long, #long, nil, err) <= MAX)
    full_gc()
    local live = qjson.live_documents()
    local small, large, view = qjson.parse(long), qjson.parse(many), qjson.decode(long)
    -- Only the native one is counted: the collector frees the others
    -- like any Lua object, without a finalizer.
    assert.are.equal(live + 1, qjson.live_documents())
    assert.are.equal(4 * MAX, #small:get_str("s"))
    assert.are.equal(20, small:get_num("n[1]"))
    assert.are.equal(MAX / 4 + 1, large:len())
    assert.are.equal(20, view.n[2])
    small, large, view = nil, nil, nil -- luacheck: ignore 311
    full_gc()
    assert.are.equal(live, qjson.live_documents())
  end)

  it("keeps a placed document alive through its cursors and views alone", function()
    local s = '{"a": {"b": "caf\\u00e9 \\"ok\\"", "n": [1, 2.5]}}'
    local c = qjson.parse(s .. " "):open("a")
    local v = qjson.decode(s).a
    s = nil -- luacheck: ignore 311
    full_gc()
    -- Allocate over the memory a freed document would have had.
    for i = 1, 2000 do
      qjson.parse('{"junk": "' .. ("\\u0041"):rep(i % 50) .. '"}')
    end
    full_gc()
    assert.are.equal('café "ok"', c:get_str("b"))
    assert.are.equal(2.5, c:get_num("n[1]"))
    assert.are.equal('café "ok"', v.b)
    assert.are.equal(2.5, v.n[2])
  end)

  it("closes a placed document like a native one", function()
    local d = qjson.parse('{"a": 1}')
    d:close()
    d:close()
    assert.are.equal("qjson: document is closed", error_of(d.get_num, d, "a"))
  end)

  it("raises for the length of an array view of a closed document, read first then", function()
    local d = qjson.parse('{"a": [1, 2, 3]}')
    local a = d:get("a")
    -- Another document's length read last (the native call that fails
    -- below writes nothing).
    assert.are.equal(7, qjson.len(qjson.decode("[1, 2, 3, 4, 5, 6, 7]")))
    d:close()
    assert.are.equal("qjson: document is closed", error_of(qjson.len, a))
  end)
end)
