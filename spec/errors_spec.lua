-- Error messages (invalid JSON: exact text, no position prefix; bad
-- arguments: pointing at the caller), and lifetimes under the collector.
local qjson = require("qjson")
local C = require("qjson.lib")
local support = require("support")

local error_of, points_at = support.error_of, support.points_at

-- The error `f` raises, and the line `f` is written on (a one-line
-- closure: the line the failing call is made from).
local function caller_error(f)
  return error_of(f), debug.getinfo(f, "S").linedefined
end

describe("invalid JSON", function()
  local cases = {
    { "", "empty input at line 1, column 1 (byte 0)" },
    { " \n ", "empty input at line 2, column 2 (byte 3)" },
    { "[1, 2", "unexpected end of input at line 1, column 6 (byte 5)" },
    { '{"a": [1, 2,, 3]}', "expected a value, found ',' at line 1, column 13 (byte 12)" },
    { '{"a":1} x', "trailing content after the JSON value at line 1, column 9 (byte 8)" },
    { "[1] [2]", "trailing content after the JSON value at line 1, column 5 (byte 4)" },
    { "[01]", "invalid number at line 1, column 3 (byte 2)" },
    { "[-]", "invalid number at line 1, column 3 (byte 2)" },
    { "[1.]", "invalid number at line 1, column 4 (byte 3)" },
    { "[.5]", "unexpected character '.' at line 1, column 2 (byte 1)" },
    { "[0x1F]", "invalid number at line 1, column 3 (byte 2)" },
    { "[NaN]", "unexpected character 'N' at line 1, column 2 (byte 1)" },
    { "[-Infinity]", "invalid number at line 1, column 3 (byte 2)" },
    { "[tru]", "invalid literal at line 1, column 2 (byte 1)" },
    { "[nulls]", "invalid literal at line 1, column 2 (byte 1)" },
    { '["a\tb"]', "unescaped control character in string at line 1, column 4 (byte 3)" },
    { '["\\x"]', "invalid escape in string at line 1, column 3 (byte 2)" },
    { '["\\u12G4"]', "invalid \\u escape in string at line 1, column 3 (byte 2)" },
    { '["\\uD800"]', "lone surrogate in \\u escape at line 1, column 3 (byte 2)" },
    { '["\\uDC00\\uD800"]', "lone surrogate in \\u escape at line 1, column 3 (byte 2)" },
    { '["\255"]', "invalid UTF-8 at line 1, column 3 (byte 2)" },
    { '["abc', "unterminated string at line 1, column 2 (byte 1)" },
    { "[1 2]", "expected ',' or ']' after array element at line 1, column 4 (byte 3)" },
    { '{"a" 1}', "expected ':' after object key at line 1, column 6 (byte 5)" },
    { '{"a":1 "b":2}', "expected ',' or '}' after object member at line 1, column 8 (byte 7)" },
    { "{1: 2}", "expected a string key at line 1, column 2 (byte 1)" },
    { '{"a": 1,}', "expected a string key at line 1, column 9 (byte 8)" },
    { "\239\187\191{}", "byte-order mark is not allowed at line 1, column 1 (byte 0)" },
    { "[\0]", "unexpected character byte 0x00 at line 1, column 2 (byte 1)" },
    -- Columns count characters: multi-byte UTF-8 before the error.
    { '["日本語", x]', "unexpected character 'x' at line 1, column 9 (byte 14)" },
    { '{"é": 1, "😀": [1,,]}', "expected a value, found ',' at line 1, column 18 (byte 21)" },
    -- Lines count '\n'; the column restarts after each.
    { '{\n  "a": 1,\n  "é": [1,\n  2,,]\n}', "expected a value, found ',' at line 4, column 5 (byte 28)" },
    { '{\r\n"a":\r\n tru}', "invalid literal at line 3, column 2 (byte 10)" },
    { "[\n\n\n]]", "trailing content after the JSON value at line 4, column 2 (byte 5)" },
  }

  it("raises 'qjson: <what> at line L, column C (byte B)' exactly", function()
    for _, c in ipairs(cases) do
      assert.are.equal("qjson: " .. c[2], error_of(qjson.parse, c[1]), c[1])
    end
  end)

  it("has no position prefix even when raised from a Lua function", function()
    local err = caller_error(function() qjson.parse("[1,]") end)
    assert.are.equal("qjson: expected a value, found ']' at line 1, column 4 (byte 3)", err)
  end)

  it("reports the first error in the input", function()
    assert.are.equal("qjson: unescaped control character in string at line 1, column 3 (byte 2)",
      error_of(qjson.parse, '["\1", 01, "\255"]'))
    assert.are.equal("qjson: invalid number at line 1, column 3 (byte 2)",
      error_of(qjson.parse, '[01, "\1", "\255"]'))
    assert.are.equal("qjson: invalid UTF-8 at line 1, column 3 (byte 2)",
      error_of(qjson.parse, '["\255", 01, "\1"]'))
  end)

  it("locates errors far into long inputs", function()
    local prefix = "[" .. ('"x",\n'):rep(2000)
    local err = error_of(qjson.parse, prefix .. "]")
    assert.are.equal(("qjson: expected a value, found ']' at line 2001, column 1 (byte %d)"):format(#prefix), err)
  end)
end)

describe("argument errors point at the caller", function()
  local function check(f, want)
    local err, line = caller_error(f)
    assert.truthy(points_at(err, "errors_spec.lua"), err)
    assert.are.equal(tostring(line), err:match("errors_spec%.lua:(%d+): "), err)
    assert.truthy(err:find(want, 1, true), err)
  end
  local doc = qjson.parse('{"a": [1, 2], "s": "x"}')

  it("for non-string input", function()
    check(function() qjson.parse(42) end, "bad argument #1 to 'parse' (string expected, got number)")
    check(function() qjson.parse(nil) end, "bad argument #1 to 'parse' (string expected, got nil)")
    check(function() qjson.parse_file({}) end, "bad argument #1 to 'parse_file' (string expected, got table)")
  end)

  it("for bad options", function()
    check(function() qjson.parse("{}", "strict") end, "bad argument #2 to 'parse' (bad options (table expected")
    check(function() qjson.parse("{}", { speed = 1 }) end, "bad argument #2 to 'parse' (unknown option 'speed')")
    check(function() qjson.parse("{}", { mode = "fast" }) end,
      "bad argument #2 to 'parse' (bad option 'mode' (\"strict\" or \"lazy\" expected, got \"fast\"))")
    check(function() qjson.parse("{}", { max_depth = 0 }) end, "bad option 'max_depth'")
    check(function() qjson.parse("{}", { max_depth = 2.5 }) end, "bad option 'max_depth'")
    check(function() qjson.parse("{}", { max_depth = 2 ^ 31 }) end, "bad option 'max_depth'")
    check(function() qjson.parse("{}", { max_depth = "10" }) end, "bad option 'max_depth'")
    check(function() qjson.parse("{}", { max_depth = 0 / 0 }) end, "bad option 'max_depth'")
    check(function() qjson.parse("{}", { duplicate_keys = "first" }) end,
      "bad option 'duplicate_keys' (\"last\" or \"reject\" expected, got \"first\")")
    check(function() qjson.parse("{}", { ijson = 1 }) end, "bad option 'ijson' (boolean expected, got 1)")
    check(function() qjson.parse("{}", { ijson = "yes" }) end, "bad option 'ijson' (boolean expected, got \"yes\")")
    check(function() qjson.parse_file("/nonexistent", { mode = 1 }) end, "bad argument #2 to 'parse_file'")
  end)

  it("for a bad path type", function()
    check(function() doc:get_num({}) end, "bad argument #1 (path string or qjson.path expected, got table)")
    check(function() doc:typeof(1) end, "got number")
    check(function() doc:is_null(true) end, "got boolean")
    check(function() doc:pairs({}) end, "got table")
    check(function() doc:ipairs(false) end, "got boolean")
    check(function() doc:open("a"):get_num({}) end, "got table")
    check(function() qjson.path(7) end, "bad argument #1 to 'path' (string expected, got number)")
  end)

  it("for malformed path syntax", function()
    check(function() doc:get_num("a..b") end, "qjson: invalid path: empty key at byte 2")
    check(function() doc:get_num("a.") end, "invalid path: path ends with '.'")
    check(function() doc:typeof("a[x]") end, "invalid path: expected an array index in '[]'")
    check(function() doc:get_str("a[01]") end, "invalid path")
    check(function() doc:raw("a[1") end, "invalid path: '[' without ']'")
    check(function() doc:len("a]") end, "invalid path: ']' without '['")
    check(function() doc:open("/a~2") end, "invalid path: '~' must be followed by '0' or '1'")
    check(function() doc:get("a[0]b") end, "invalid path")
    check(function() doc:is_null(".a") end, "invalid path")
    check(function() doc:pairs("a..") end, "invalid path")
    check(function() doc:ipairs("/~") end, "invalid path")
    check(function() qjson.path("a..b") end, "bad argument #1 to 'path' (invalid path: empty key at byte 2)")
  end)

  it("even when the path is missing before the syntax error", function()
    check(function() doc:get_num("zz..b") end, "invalid path: empty key at byte 3")
    check(function() doc:open("a"):get_num("[9].") end, "invalid path")
  end)
end)

describe("garbage collection", function()
  local function full_gc()
    collectgarbage("collect")
    collectgarbage("collect")
  end

  it("keeps the parsed string alive for the document", function()
    local parts = {}
    for i = 1, 200 do
      parts[i] = ('{"id": %d, "name": "item %d", "tags": ["t%d"]}'):format(i, i, i)
    end
    local doc = qjson.parse("[" .. table.concat(parts, ",") .. "]")
    parts = nil -- luacheck: ignore 311
    full_gc()
    -- Fill the heap with other strings where the input used to be.
    local junk = {}
    for i = 1, 2000 do
      junk[i] = ("%d junk %s"):format(i, ("z"):rep(i % 64))
    end
    full_gc()
    assert.are.equal(200, doc:len())
    assert.are.equal(137, doc:get_num("[136].id"))
    assert.are.equal("item 200", doc:get_str("[199].name"))
    assert.are.equal('["t5"]', doc:raw("[4].tags"))
    assert.are.equal(2000, #junk)
  end)

  it("keeps the document alive for its cursors and compiled paths", function()
    local cursor = qjson.parse('{"a": {"b": [1, 2, {"c": "deep"}]}}' .. (" "):rep(100)):open("a.b")
    local path = qjson.path("[2].c")
    full_gc()
    assert.are.equal("deep", cursor:get_str(path))
    local inner = cursor:open("[2]")
    cursor = nil -- luacheck: ignore 311
    full_gc()
    assert.are.equal("deep", inner:get_str("c"))
  end)

  it("survives full collections between any two operations", function()
    local src = '{"k": [' .. ("1,"):rep(99) .. '1], "s": "\\u00e9", "o": {"x": null, "x": true}}'
    local doc = qjson.parse(src)
    src = nil -- luacheck: ignore 311
    local steps = {
      function() return doc:len("k") end,
      function() return doc:get_str("s") end,
      function() return doc:raw("o") end,
      function() return doc:open("o") end,
      function(c) return c:get_bool("x") end,
      function() return doc:typeof("/k/99") end,
      function() return doc:get_i64("k[50]") end,
    }
    local results, c = {}, nil
    for i, step in ipairs(steps) do
      full_gc()
      local r = step(c)
      if i == 4 then
        c = r
        r = c:typeof()
      end
      results[i] = tostring(r)
      full_gc()
    end
    local keys = {}
    for k, v in doc:pairs("o") do
      full_gc()
      keys[#keys + 1] = k .. "=" .. tostring(v)
    end
    for _, v in doc:ipairs("k") do
      full_gc()
      assert.are.equal(1, v)
    end
    assert.are.same({ "100", "é", '{"x": null, "x": true}', "object", "true", "number", "1LL" }, results)
    assert.are.same({ "x=true" }, keys)
  end)

  it("does not grow memory when 10,000 documents are created and dropped", function()
    -- Lua heap via collectgarbage; native documents via the library's
    -- count of live handles.
    local src = '{"a": [' .. ("1, "):rep(99) .. '1], "b": {"c": "' .. ("x"):rep(200) .. '"}}'
    local path = qjson.path("b.c")
    -- Too many values to be placed in Lua memory: a native document.
    local native = "[" .. ("1,"):rep(require("qjson.parse").PLACED_MAX / 4) .. "1]"
    local function churn(n)
      for i = 1, n do
        if i % 10 == 0 then
          assert(qjson.parse(native):len() > 1000)
        end
        local doc = qjson.parse(src .. (" "):rep(i % 7))
        local c = doc:open("b")
        assert(c:get_str("c"):len() == 200)
        assert(doc:len("a") == 100)
        assert(doc:get_str(path):len() == 200)
        pcall(qjson.parse, src .. ",")
      end
    end
    churn(2000)
    full_gc()
    local heap, live = collectgarbage("count"), C.qjson_live_documents()
    churn(10000)
    full_gc()
    local grown = collectgarbage("count") - heap
    assert.is_true(grown < 256, ("Lua heap grew by %.0f KB"):format(grown))
    -- Every native document was freed by its finalizer (the resident set
    -- is no measure: freed memory stays with the allocator, and how much
    -- is in use at the peak depends on when the collector ran).
    assert.are.equal(live, C.qjson_live_documents())
  end)
end)

describe("error messages and finalizers", function()
  -- LuaJIT's FFI runs collector steps, and so finalizers, right after a
  -- call that returns a pointer; a finalizer that parses must not write
  -- over the message of the parse that just failed.
  it("a failed parse keeps its message when finalizers parse meanwhile", function()
    local ffi = require("ffi")
    local ran = 0
    local function finalizer()
      ran = ran + 1
      assert(qjson.parse('{"a": 1}'))
      assert(qjson.decode("[1]"))
      assert(qjson.path("a.b"))
    end
    local pause = collectgarbage("setpause", 10)
    local wrong = {}
    for _ = 1, 500 do
      for _ = 1, 50 do
        ffi.gc(ffi.new("char[1]"), finalizer)
      end
      for _, call in ipairs({
        { qjson.parse, "[1,", "qjson: unexpected end of input at line 1, column 4 (byte 3)" },
        { qjson.decode, '{"a":', "qjson: unexpected end of input at line 1, column 6 (byte 5)" },
        { qjson.path, "a[", "bad argument #1 to 'path'" },
      }) do
        local ok, err = pcall(call[1], call[2])
        if ok or not err:find(call[3], 1, true) then
          wrong[#wrong + 1] = tostring(err)
        end
      end
    end
    collectgarbage("setpause", pause)
    collectgarbage("collect")
    assert.are.same({}, wrong)
    assert.is_true(ran > 1000, "the finalizers did not run")
  end)
end)
