-- qjson.safe: the same API, with nil, message instead of errors.
local qjson = require("qjson")
local safe = require("qjson.safe")
qjson.decode_views(true) -- views on every build (see spec/support.lua)

local SRC = '{"s": "x", "n": 1.5, "b": true, "z": null, "a": [1, {"k": "v"}], "big": 18446744073709551615}'

describe("qjson.safe", function()
  it("shares qjson's null, path and backend", function()
    assert.are.equal(qjson.null, safe.null)
    assert.are.equal(qjson.backend(), safe.backend())
    assert.are.equal(qjson._VERSION, safe._VERSION)
  end)

  describe("parse", function()
    it("returns nil and the message for invalid JSON", function()
      local doc, err = safe.parse('{"a": [1, 2,, 3]}')
      assert.is_nil(doc)
      assert.are.equal("qjson: expected a value, found ',' at line 1, column 13 (byte 12)", err)
      doc, err = safe.parse("")
      assert.is_nil(doc)
      assert.are.equal("qjson: empty input at line 1, column 1 (byte 0)", err)
    end)

    it("returns nil and the message for bad arguments", function()
      local doc, err = safe.parse(42)
      assert.is_nil(doc)
      assert.are.equal("bad argument #1 to 'parse' (string expected, got number)", err)
      doc, err = safe.parse("{}", { mode = "fast" })
      assert.is_nil(doc)
      assert.truthy(err:find("bad option 'mode'", 1, true), err)
      doc, err = safe.parse("{}", { nope = true })
      assert.is_nil(doc)
      assert.truthy(err:find("unknown option 'nope'", 1, true), err)
    end)

    it("honours options", function()
      local doc, err = safe.parse('{"a": 1, "a": 2}', { duplicate_keys = "reject" })
      assert.is_nil(doc)
      assert.truthy(err:find("duplicate key", 1, true), err)
      assert.is_not_nil(safe.parse("[tru]", { mode = "lazy" }))
    end)
  end)

  describe("parse_file", function()
    it("returns nil and the message for a missing file", function()
      local doc, err = safe.parse_file("/nonexistent/qjson-safe.json")
      assert.is_nil(doc)
      assert.truthy(err:find("^qjson: cannot read file '/nonexistent/qjson%-safe%.json'"), err)
      doc, err = safe.parse_file(false)
      assert.is_nil(doc)
      assert.are.equal("bad argument #1 to 'parse_file' (string expected, got boolean)", err)
    end)

    it("returns a safe document", function()
      local name = os.tmpname()
      local f = assert(io.open(name, "wb"))
      f:write('{"a": "s"}')
      f:close()
      local doc = assert(safe.parse_file(name))
      os.remove(name)
      local v, err = doc:get_num("a")
      assert.is_nil(v)
      assert.are.equal("qjson: type mismatch at 'a': expected number, got string", err)
    end)
  end)

  describe("path", function()
    it("returns nil and the message for a malformed path", function()
      local p, err = safe.path("a..b")
      assert.is_nil(p)
      assert.are.equal("bad argument #1 to 'path' (invalid path: empty key at byte 2)", err)
      p, err = safe.path({})
      assert.is_nil(p)
      assert.are.equal("bad argument #1 to 'path' (string expected, got table)", err)
    end)

    it("returns a compiled path both APIs accept", function()
      local p = assert(safe.path("a[1].k"))
      assert.are.equal("v", qjson.parse(SRC):get_str(p))
      assert.are.equal("v", safe.parse(SRC):get_str(p))
    end)
  end)

  describe("documents", function()
    local doc = assert(safe.parse(SRC))

    it("return nil, message on a type mismatch", function()
      local v, err = doc:get_num("s")
      assert.is_nil(v)
      assert.are.equal("qjson: type mismatch at 's': expected number, got string", err)
      v, err = doc:len("n")
      assert.is_nil(v)
      assert.are.equal("qjson: type mismatch at 'n': expected array or object, got number", err)
      -- pairs and ipairs: an iterator that raises the message, and it.
      local it
      it, err = doc:ipairs("z")
      assert.are.equal("qjson: type mismatch at 'z': expected array, got null", err)
      assert.are.same({ false, err }, { pcall(it) })
    end)

    it("fail pairs and ipairs with an iterator a generic for raises from, with the message", function()
      for _, method in ipairs({ "pairs", "ipairs" }) do
        local ok, err = pcall(function()
          for _ in doc[method](doc, "missing") do
            error("iterated")
          end
        end)
        assert.is_false(ok)
        -- (It used to be "attempt to call a nil value".)
        assert.are.equal("qjson: nothing at 'missing' to iterate", err)
      end
    end)

    it("return nil, message on other failures", function()
      local cases = {
        { "get", "a..b", "invalid path: empty key" },
        { "get_i64", "big", "int64 range" },
        { "get_num", "a..b", "invalid path: empty key" },
        { "get_num", {}, "path string or qjson.path expected" },
        { "is_null", {}, "path string or qjson.path expected" },
        { "pairs", "missing", "nothing at 'missing' to iterate" },
      }
      for _, c in ipairs(cases) do
        local v, err = doc[c[1]](doc, c[2])
        if c[1] == "pairs" then
          assert.is_function(v) -- raising err when called
        else
          assert.is_nil(v)
        end
        assert.truthy(err:find(c[3], 1, true), err)
      end
    end)

    it("return nil, message for invalid values in lazy mode", function()
      local lazy = assert(safe.parse("[tru, nul]", { mode = "lazy" }))
      local v, err = lazy:get_bool("[0]")
      assert.is_nil(v)
      assert.are.equal("qjson: invalid literal at line 1, column 2 (byte 1)", err)
      v, err = lazy:is_null("[1]")
      assert.is_nil(v)
      assert.are.equal("qjson: invalid literal at line 1, column 7 (byte 6)", err)
    end)

    it("return nil and no message for a missing path", function()
      local v, err = doc:get_str("nope")
      assert.is_nil(v)
      assert.is_nil(err)
    end)

    it("read the same values as qjson's", function()
      local plain = qjson.parse(SRC)
      for _, m in ipairs({ "typeof", "len", "get_str", "get_num", "get_bool", "is_null", "raw", "get" }) do
        for _, path in ipairs({ "s", "n", "b", "z", "a[1].k", "/a/0", "" }) do
          local ok, want = pcall(plain[m], plain, path)
          if ok then
            local got = doc[m](doc, path)
            if type(want) == "table" then
              -- Views of two documents: equal by their JSON text.
              want, got = qjson.encode(want), qjson.encode(got)
            end
            assert.are.equal(want, got, m .. "(" .. path .. ")")
          end
        end
      end
      assert.are.equal(tostring(plain:get_u64("big")), tostring(doc:get_u64("big")))
      local keys = {}
      for k, v in doc:pairs() do
        keys[#keys + 1] = k .. "=" .. (type(v) == "table" and v:raw() or v == safe.null and "null" or tostring(v))
      end
      assert.are.same({ "s=x", "n=1.5", "b=true", "z=null", 'a=[1, {"k": "v"}]', "big=1.844674407371e+19" }, keys)
    end)
  end)

  describe("cursors", function()
    local doc = assert(safe.parse(SRC))

    it("from open are safe too", function()
      local c = assert(doc:open("a"))
      local v, err = c:get_str("[0]")
      assert.is_nil(v)
      assert.are.equal("qjson: type mismatch at '[0]': expected string, got number", err)
      local inner = assert(c:open("[1]"))
      v, err = inner:get_bool("k")
      assert.is_nil(v)
      assert.are.equal("qjson: type mismatch at 'k': expected boolean, got string", err)
      assert.are.equal("v", inner:get_str("k"))
    end)

    it("from iteration are safe too", function()
      for _, v in doc:ipairs("a") do
        if type(v) == "table" then
          local s, err = v:get_num("k")
          assert.is_nil(s)
          assert.are.equal("qjson: type mismatch at 'k': expected number, got string", err)
        end
      end
    end)

    it("print as qjson's do", function()
      assert.are.equal("qjson.document", tostring(doc))
      assert.are.equal("qjson.cursor (array)", tostring(doc:open("a")))
    end)
  end)

  it("decode returns nil, message for a lazy-mode scalar whose value is invalid", function()
    local v, err = safe.decode("tru", { mode = "lazy" })
    assert.is_nil(v)
    assert.matches("^qjson: .*line 1, column 1", err)
    assert.are.equal(1, safe.decode("[1]", { mode = "lazy" })[1])
  end)

  it("new() decodes with the instance's settings", function()
    local inst = safe.new()
    assert.are.equal(1000, qjson.decode_max_depth())
    inst.decode_max_depth(2)
    local v, err = inst.decode("[[[1]]]")
    assert.is_nil(v)
    assert.matches("depth", err)
    assert.are.equal(1, safe.decode("[[[1]]]")[1][1][1])
  end)

  it("does not make qjson's own documents safe", function()
    local doc = qjson.parse(SRC)
    assert.is_false(pcall(doc.get_num, doc, "s"))
  end)
end)
