-- Batched reads (qjson.select): every tag, wildcards, types, errors, the
-- output record's growth, and calls nested in finalizers. On PUC Lua too
-- (crates/puc/src/select.rs), where objects and arrays are plain tables.
local support = require("support")
local qjson = require("qjson")
local safe = require("qjson.safe")
local cjson = require("cjson")

local BODY = '{"model":"gpt-4o","temperature":0.7,"stream":true,"n":null,"max":4096,'
  .. '"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"caf\\u00e9 \\"x\\""}],'
  .. '"meta":{"a":[1,2]},"grid":[[1,2],[3],[]],"off":false}'

describe("qjson.select", function()
  it("reads every kind of value, in order, as the document API does", function()
    local sel = qjson.select({ "model", "temperature", "stream", "n", "max", "missing", "off",
      "messages[1].content", "grid[0][1]" })
    local m, t, s, n, max, miss, off, c, g = sel(BODY)
    assert.are.equal("gpt-4o", m)
    assert.are.equal(0.7, t)
    assert.are.equal(true, s)
    assert.are.equal(qjson.null, n)
    assert.are.equal(4096, max)
    assert.is_nil(miss)
    assert.are.equal(false, off)
    assert.are.equal('caf\195\169 "x"', c)
    assert.are.equal(2, g)
  end)

  it("gives the same values from a text and from a document or cursor", function()
    local sel = qjson.select({ "role", "content" })
    local d = qjson.parse(BODY)
    local a, b = sel(d:open("messages[1]"))
    assert.are.same({ "user", 'caf\195\169 "x"' }, { a, b })
    local whole = qjson.select({ "model", "messages[0].role" })
    assert.are.same({ "gpt-4o", "system" }, { whole(d) })
    assert.are.same({ "gpt-4o", "system" }, { whole(BODY) })
  end)

  it("returns a Lua array for each [*], nested for nested wildcards", function()
    local sel = qjson.select({ "messages[*].role", "grid[*][*]", "grid[*][0]", "nope[*].x", "n[*]" })
    local roles, grid, firsts, nope, n = sel(BODY)
    assert.are.same({ "system", "user" }, roles)
    assert.are.same({ { 1, 2 }, { 3 }, {} }, grid)
    assert.are.same({ 1, 3 }, firsts) -- (a missing element is nil: a hole at the end)
    assert.is_nil(nope)
    assert.are.equal(qjson.null, n)
  end)

  it("opens objects and arrays (lazy views on LuaJIT, plain tables on PUC Lua)", function()
    local sel = qjson.select({ "meta", "grid" })
    local meta, grid = sel(BODY)
    assert.are.equal(2, meta.a[2])
    assert.are.equal(3, grid[2][1])
    local d = qjson.parse(BODY)
    local meta2 = sel(d)
    assert.are.equal(1, meta2.a[1])
  end)

  it("reads numbers as doc:get does (Lua integers on 5.3 and 5.4), in one pass, from a tape and a document", function()
    local text = '{"i":4096,"f":0.7,"one":1.0,"big":9007199254740993,"neg":-0,"e":1e2,"l":[1,2.5]}'
    local paths = { "i", "f", "one", "big", "neg", "e", "i:integer", "big:integer", "f:number", "i:number" }
    local sel, list = qjson.select(paths), qjson.select({ "l[*]" })
    local d = qjson.parse(text)
    local math_type = rawget(math, "type") -- (5.3 and 5.4)
    -- (Past 1 KB a text is parsed to a tape first.)
    local long = text:sub(1, -2) .. ',"pad":"' .. string.rep("x", 2000) .. '"}'
    for _, src in ipairs({ text, long, d }) do
      local got = { sel(src) }
      for k, p in ipairs(paths) do
        local want = d:get((p:gsub(":.*", "")))
        assert.are.equal(want, got[k], p)
        if math_type then
          assert.are.equal(math_type(want), math_type(got[k]), p)
        end
      end
      local l = list(src)
      assert.are.same({ 1, 2.5 }, l)
      if math_type then
        assert.are.same({ math_type(d:get("l[0]")), "float" }, { math_type(l[1]), math_type(l[2]) })
      end
    end
  end)

  it("reads a key that starts with '/' after a [*] as a key, not a JSON Pointer", function()
    local sel = qjson.select({ "a[*]./b", "a[0]./b" })
    local all, first = sel('{"a":[{"/b":1,"b":9},{"/b":2}]}')
    assert.are.same({ 1, 2 }, all)
    assert.are.equal(1, first)
  end)

  it("opens the containers a [*] lists, from a text as from a document", function()
    local text = '{"a":[{"x":1},[2],"s",{"x":4},[5,6],7]}'
    local sel = qjson.select({ "a[*]" })
    for _, src in ipairs({ text, qjson.parse(text) }) do
      local a = sel(src)
      assert.are.equal(6, #a)
      assert.are.same({ 1, 2, "s", 4, 5, 7 }, { a[1].x, a[2][1], a[3], a[4].x, a[5][1], a[6] })
    end
  end)

  -- Up to 32 paths, and lists up to 4 elements, are read by generated
  -- straight code (qjson.select, `unroll` and `list`): each count of
  -- paths and of elements, past those bounds too, with every tag, in
  -- loops long enough for the JIT to compile them.
  it("gives the same values for every count of paths and list length", function()
    local kinds = { '"s%d"', "%d", "true", "false", "null", '{"k":%d}', "[%d]", '"e\\u00e9%d"' }
    for n = 1, 40, 3 do
      local parts, paths, want = {}, {}, {}
      for i = 1, n do
        local kind = kinds[(i - 1) % #kinds + 1]
        local list = {}
        for e = 1, i % 7 do
          list[e] = kind:format(e)
        end
        parts[i] = ('"v%d":%s,"l%d":[%s]'):format(i, kind:format(i), i, table.concat(list, ","))
        paths[#paths + 1] = "v" .. i
        paths[#paths + 1] = "l" .. i .. "[*]"
        want[#want + 1] = cjson.decode(kind:format(i))
        want[#want + 1] = cjson.decode("[" .. table.concat(list, ",") .. "]")
      end
      local text = "{" .. table.concat(parts, ",") .. "}"
      local sel = qjson.select(paths)
      for _ = 1, 200 do
        local got = { sel(text) }
        assert.are.equal(#paths, select("#", sel(text)))
        for k = 1, #paths do
          local w, g = want[k], got[k]
          if type(w) == "table" then
            -- (Views re-encode as their text, plain values as themselves.)
            assert.are.same(w, cjson.decode(qjson.encode(g)), paths[k])
          else
            assert.are.equal(w, g, paths[k])
          end
        end
      end
    end
  end)

  it("fills a caller's table, by position or by name", function()
    local sel = qjson.select({ "model", "missing" })
    local out = { "old", "old" }
    assert.are.equal(out, sel(BODY, out))
    assert.are.same({ "gpt-4o" }, out) -- the missing value cleared
    local named = qjson.select({ model = "model", roles = "messages[*].role", "stream" })
    local o = named(BODY)
    assert.are.equal("gpt-4o", o.model)
    assert.are.same({ "system", "user" }, o.roles)
    assert.are.equal(true, o[1])
  end)

  it("checks types when asked, and lets null and missing through", function()
    local sel = qjson.select({ "model:string", "temperature:number", "max:integer", "stream:boolean",
      "meta:object", "grid:array", "n:string", "missing:number", { "messages", "raw" } })
    local m, t, max, s, meta, grid, n, miss, raw = sel(BODY)
    assert.are.same({ "gpt-4o", 0.7, 4096, true }, { m, t, max, s })
    assert.are.equal(1, meta.a[1])
    assert.are.equal(3, grid[2][1])
    assert.are.equal(qjson.null, n)
    assert.is_nil(miss)
    assert.are.same(cjson.decode(BODY).messages, cjson.decode(raw))
    for spec, msg in pairs({
      ["model:number"] = "type mismatch at 'model': expected number, got string",
      ["temperature:integer"] = "type mismatch at 'temperature': expected integer",
      ["stream:string"] = "expected string, got boolean",
      ["messages[*].role:boolean"] = "type mismatch at 'messages[*].role': expected boolean, got string",
      ["model[*]"] = "expected array for '[*]', got string",
    }) do
      local ok, err = pcall(qjson.select({ spec }), BODY)
      assert.is_false(ok)
      assert.truthy(err:find(msg, 1, true), err)
    end
  end)

  it("rejects bad selectors with the path named", function()
    for spec, msg in pairs({
      ["model:float"] = "unknown type 'float'",
      ["a[*]x"] = "expected '.' or '[' after '[*]'",
      ["a..b"] = "'a..b': invalid path: empty key",
      ["/a/b"] = "dotted paths",
    }) do
      local ok, err = pcall(qjson.select, { spec })
      assert.is_false(ok)
      assert.truthy(err:find(msg, 1, true), err)
    end
    assert.has_error(function() qjson.select("model") end)
    assert.has_error(function() qjson.select({}) end)
    assert.has_error(function() qjson.select({ 42 }) end)
    local sel, err = safe.select({ "a:nope" })
    assert.is_nil(sel)
    assert.truthy(err:find("unknown type", 1, true))
    assert.truthy(safe.select({ "a" }))
  end)

  it("keeps a key with ':' through the table form", function()
    local a = qjson.select({ { "a:b", "number" } })('{"a:b":5}')
    assert.are.equal(5, a)
  end)

  it("reports invalid JSON with its position, and bad arguments", function()
    local sel = qjson.select({ "a" })
    local ok, err = pcall(sel, '{"a":1,}')
    assert.is_false(ok)
    assert.truthy(err:find("^qjson: .*byte 7%)"), err)
    ok, err = pcall(sel, 42)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to selector", 1, true), err)
    local d = qjson.parse('{"a":1}')
    d:close()
    ok, err = pcall(sel, d)
    assert.is_false(ok)
    assert.truthy(err:find("document is closed", 1, true), err)
  end)

  it("applies its parse options", function()
    local sel = qjson.select({ "a" }, { duplicate_keys = "reject" })
    assert.has_error(function() sel('{"a":1,"a":2}') end)
    assert.are.equal(2, qjson.select({ "a" })('{"a":1,"a":2}'))
    assert.has_error(function() qjson.select({ "a" }, { mode = "nope" }) end)
  end)

  it("grows its output for many values and long escaped strings", function()
    local parts, want = {}, {}
    for i = 1, 300 do
      parts[i] = '"\\u00e9' .. string.rep("x", i) .. '"'
      want[i] = "\195\169" .. string.rep("x", i)
    end
    local text = "[" .. table.concat(parts, ",") .. "]"
    local sel = qjson.select({ "[*]", "[299]" })
    for _ = 1, 3 do
      local all, last = sel(text)
      assert.are.same(want, all)
      assert.are.equal(want[300], last)
    end
  end)

  it("decodes escaped strings in lazy mode, and reports a bad one where it is", function()
    local sel = qjson.select({ "[*]", "k" }, { mode = "lazy" })
    local parts, want = {}, {}
    for i = 1, 40 do
      parts[i] = '"a\\n\\u00e9' .. string.rep("y", i * 7) .. '"'
      want[i] = "a\n\195\169" .. string.rep("y", i * 7)
    end
    for _ = 1, 2 do
      local all = sel("[" .. table.concat(parts, ",") .. "]")
      assert.are.same(want, all)
    end
    local lazy = qjson.select({ "k" }, { mode = "lazy" })
    assert.are.equal('x"y', lazy('{"k":"x\\"y"}'))
    local ok, err = pcall(lazy, '{"k":"ab\\q"}')
    assert.is_false(ok)
    assert.matches("escape.*byte 8", err)
  end)

  it("is safe when a finalizer selects during a call's allocations", function()
    local sel = qjson.select({ "[*]", "model" })
    local inner = qjson.select({ "[*]" })
    local text = '["\\u00e9a","\\u00e9b","\\u00e9c","\\u00e9d"]'
    local other = '["\\u00e9zz","\\u00e9yy"]'
    local bad, runs, stop = 0, 0, false
    local arm
    local function finalizer()
      runs = runs + 1
      local v = inner(other)
      if v[1] ~= "\195\169zz" or v[2] ~= "\195\169yy" then
        bad = bad + 1
      end
      arm()
    end
    -- (A table's __gc runs on Lua 5.2 and later only; LuaJIT and 5.1
    -- finalize a newproxy userdata.)
    function arm()
      if stop then
        return
      end
      if rawget(_G, "newproxy") then
        getmetatable(newproxy(true)).__gc = finalizer
      else
        setmetatable({}, { __gc = finalizer })
      end
    end
    arm()
    for _ = 1, 3000 do
      local v = sel(text)
      assert.are.same({ "\195\169a", "\195\169b", "\195\169c", "\195\169d" }, v)
    end
    stop = true
    collectgarbage()
    assert.is_true(runs > 0, "no finalizer ran")
    assert.are.equal(0, bad)
  end)

  -- A document read from a file owns its bytes, which close frees: a
  -- call either reads them all (LuaJIT reads every value before it
  -- fills the table) or raises. The table's __newindex runs in the call
  -- (on PUC Lua between two values), closes the document and reads
  -- another one of the same size, which may take its memory.
  it("reads right or raises when the document is closed during a call", function()
    local paths, want = {}, {}
    for k, word in ipairs({ "value", "OTHER" }) do
      local parts = {}
      for i = 1, 2000 do
        parts[i] = ("%s number %d of the document"):format(word, i)
      end
      want[k] = parts
      paths[k] = os.tmpname()
      support.write(paths[k], '["' .. table.concat(parts, '","') .. '"]')
    end
    local sel = qjson.select({ "[0]", "[1999]" })
    for _ = 1, 3 do
      local d = qjson.parse_file(paths[1])
      local other
      local out = setmetatable({}, { __newindex = function(t, k, v)
        if other == nil then
          d:close()
          other = qjson.parse_file(paths[2])
        end
        rawset(t, k, v)
      end })
      local ok, err = pcall(sel, d, out)
      assert.truthy(other, "the document was not closed during the call")
      if ok then
        assert.are.same({ want[1][1], want[1][2000] }, { out[1], out[2] })
      else
        assert.truthy(err:find("qjson: document is closed", 1, true), err)
      end
      assert.are.equal(not support.puc, ok)
      other:close()
    end
    os.remove(paths[1])
    os.remove(paths[2])
  end)

  it("takes at most MAX_VALUES paths in a list (a call returns them as values), any number with names", function()
    -- (PUC Lua's module has no qjson.select submodule: the same bound.)
    local MAX = support.puc and 4096 or require("qjson.select").MAX_VALUES
    assert.are.equal(4096, MAX)
    local paths = {}
    for i = 1, MAX do
      paths[i] = "a"
    end
    local sel = qjson.select(paths)
    assert.are.equal(MAX, select("#", sel('{"a":1}')))
    paths[#paths + 1] = "a"
    local s, err = require("qjson.safe").select(paths)
    assert.is_nil(s)
    assert.are.equal("bad argument #1 to 'select' (more than 4096 paths in a list (a call returns each as a value); "
      .. "name them to get a table)", err)
    assert.has_error(function() qjson.select(paths) end)
    paths.name = "a"
    local t = qjson.select(paths)('{"a":7}')
    assert.are.equal(7, t[MAX + 1])
    assert.are.equal(7, t.name)
  end)

  it("keeps no value of a call alive after it returns", function()
    local d = qjson.parse('{"a":{"x":1},"b":[1,2],"c":"s"}')
    for _, paths in ipairs({ { "a", "b" }, { a = "a", b = "b" } }) do
      local sel = qjson.select(paths)
      local seen = setmetatable({}, { __mode = "k" })
      for _ = 1, 2 do
        local r1, r2 = sel(d)
        if type(r1) == "table" and r1.a then
          r1, r2 = r1.a, r1.b
        end
        seen[r1], seen[r2] = true, true
      end
      -- (Views are cached by their document: another one each round.)
      d = qjson.parse('{"a":{"x":1},"b":[1,2],"c":"s"}')
      collectgarbage()
      collectgarbage()
      assert.is_nil(next(seen), "a selector kept a value alive")
    end
  end)

  -- (On PUC Lua the output is Rust memory that collectgarbage does not
  -- count, freed with the call's output userdata.)
  it("gives back the memory of a large call's output #luajit", function()
    local parts = {}
    for i = 1, 200000 do
      parts[i] = '"\\u00e9' .. i .. '"'
    end
    local text = "[" .. table.concat(parts, ",") .. "]"
    local sel = qjson.select({ "[*]" })
    collectgarbage()
    local before = collectgarbage("count")
    local n = #sel(text)
    assert.are.equal(200000, n)
    collectgarbage()
    collectgarbage()
    -- (Before: the pooled output record kept its 200,000 items and their
    -- bytes, about 5 MB. What else the process allocates meanwhile moves
    -- the count by a few hundred KB: 516 KB was seen once.)
    assert.is_true(collectgarbage("count") - before < 1024, collectgarbage("count") - before .. " KB kept")
  end)

  it("reads a lazy document's container without its siblings' errors, the same every time", function()
    local sel = qjson.select({ "b" })
    local text = '{"b":[1],"c":01}'
    for _, x in ipairs({ "doc", "text" }) do
      for _ = 1, 2 do
        local arg = x == "doc" and qjson.parse(text, { mode = "lazy" }) or text
        local s = x == "doc" and sel or qjson.select({ "b" }, { mode = "lazy" })
        local b = s(arg)
        assert.are.equal(1, b[1], x)
      end
    end
    local c = qjson.select({ "c" })
    assert.has_error(function() c(qjson.parse(text, { mode = "lazy" })) end)
  end)
end)
