-- The PUC Lua module (crates/puc, target/lua/5.X/qjson.so): what differs
-- from the LuaJIT binding (plain tables, integers on 5.3 and 5.4, cursors
-- and documents as userdata-backed values) and its safety: finalizers
-- that call qjson in the middle of a decode, an encode or a read, and
-- documents used after close. `make test-puc` runs it on every PUC Lua;
-- on LuaJIT it is pending.
local support = require("support")

if not support.puc then
  describe("PUC Lua module", function()
    pending("PUC Lua only (make test-puc)")
  end)
  return
end

local qjson = require("qjson")
local cjson = require("qjson.cjson")
local integers = support.integers
local mtype = math.type or function()
  return nil
end

local function error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return err
end

-- A finalizer that runs `f` when the collector frees a fresh object: a
-- table with __gc on 5.2+, a newproxy on 5.1.
local function on_gc(f)
  if rawget(_G, "newproxy") then
    local p = newproxy(true)
    getmetatable(p).__gc = f
  else
    setmetatable({}, { __gc = f })
  end
end

describe("decode", function()
  it("builds plain tables", function()
    local t = qjson.decode('{"a":[1,2.5,"x\\u00e9y",true,null,{}],"b":{"c":"d"}}')
    assert.are.equal("table", type(t))
    assert.is_nil(getmetatable(t))
    assert.are.equal(2.5, t.a[2])
    assert.are.equal("x\195\169y", t.a[3])
    assert.are.equal(true, t.a[4])
    assert.are.equal(qjson.null, t.a[5])
    assert.are.equal("d", t.b.c)
    assert.are.equal(6, #t.a)
  end)

  it("gives empty arrays empty_array_mt, so that they encode back as []", function()
    local t = qjson.decode('{"a":[],"b":{}}')
    assert.are.equal(qjson.empty_array_mt, getmetatable(t.a))
    assert.are.equal('{"a":[],"b":{}}', qjson.encode(t, { sort_keys = true }))
    -- (lua-cjson's decode gives plain tables, as cjson does.)
    assert.is_nil(getmetatable(cjson.decode("[]")))
  end)

  it("reads integers exactly on 5.3 and 5.4, floats stay floats", function()
    local t = qjson.decode("[1, -0, 1.0, 9007199254740993, 9223372036854775807, -9223372036854775808, "
      .. "9223372036854775808, 1e2, 2.5]")
    if integers then
      assert.are.equal("integer", mtype(t[1]))
      assert.are.equal("integer", mtype(t[2]))
      assert.are.equal("float", mtype(t[3]))
      assert.are.equal(9007199254740993, t[4])
      assert.are.equal(math.maxinteger, t[5])
      assert.are.equal(math.mininteger, t[6])
      assert.are.equal("float", mtype(t[7])) -- past int64: the nearest double
      assert.are.equal(9223372036854775808.0, t[7])
      assert.are.equal("float", mtype(t[8]))
      assert.are.equal('[1,0,1,9007199254740993,9223372036854775807,-9223372036854775808,9.2233720368548e+18,100,2.5]',
        qjson.encode(t))
    else
      assert.are.equal(9007199254740992, t[4]) -- the nearest double, as LuaJIT
      assert.are.equal(1, t[3])
    end
  end)

  it("raises qjson's positioned message, and takes the parse options", function()
    assert.are.equal("qjson: expected a value, found ',' at line 1, column 13 (byte 12)",
      error_of(qjson.decode, '{"a": [1, 2,, 3]}'))
    assert.truthy(error_of(qjson.decode, "[[1]]", { max_depth = 1 }):find("nesting deeper than max_depth (1)", 1, true))
    assert.truthy(error_of(qjson.decode, '{"a":1,"a":2}', { duplicate_keys = "reject" }):find("duplicate key", 1, true))
    assert.truthy(error_of(qjson.decode, "[1]", { nope = 1 }):find("unknown option 'nope'", 1, true))
    assert.are.same({ 1 }, qjson.decode("[1]", { mode = "lazy" }))
  end)

  it("decodes on after an error, each decode function with its decoder back in place", function()
    for _, decode in ipairs({ qjson.decode, cjson.decode }) do
      for _ = 1, 3 do
        assert.is_false(pcall(decode, '{"k": [1, 2,, 3]}'))
        local text = '{"k":[1,2,3],"s":{"a":"x","b":false}}'
        assert.are.same({ k = { 1, 2, 3 }, s = { a = "x", b = false } }, decode(text))
      end
    end
  end)

  it("checks string text at every length around the two-word check's (16 bytes)", function()
    for n = 0, 20 do
      for at = 1, n do
        local plain = string.rep("a", n)
        local function with(b)
          return plain:sub(1, at - 1) .. b .. plain:sub(at + 1)
        end
        assert.is_false(pcall(qjson.decode, '"' .. with("\1") .. '"'), "control byte in " .. n)
        assert.is_false(pcall(qjson.decode, '{"' .. with("\31") .. '":1}'), "control byte in a key of " .. n)
        assert.is_false(pcall(qjson.decode, '"' .. with("\195") .. '"'), "cut character in " .. n)
        if at < n then
          local s = plain:sub(1, at - 1) .. "\195\169" .. plain:sub(at + 2)
          assert.are.equal(s, qjson.decode('"' .. s .. '"'))
          assert.are.same({ [s] = 1 }, cjson.decode('{"' .. s .. '":1}'))
        end
      end
      assert.are.equal(string.rep("a", n), qjson.decode('"' .. string.rep("a", n) .. '"'))
    end
  end)

  it("decodes deep documents up to max_depth", function()
    local deep = string.rep("[", 1000) .. string.rep("]", 1000)
    local t = qjson.decode(deep)
    for _ = 1, 999 do
      t = t[1]
    end
    assert.are.equal("table", type(t))
    assert.truthy(error_of(qjson.decode, "[" .. deep .. "]"):find("max_depth", 1, true))
  end)
end)

describe("encode", function()
  it("writes lua-cjson's bytes by default", function()
    assert.are.equal('[1,2.5,"a\\/b",true,null,{}]', qjson.encode({ 1, 2.5, "a/b", true, qjson.null, {} }))
    assert.are.equal("0.1", qjson.encode(0.1))
    assert.are.equal("3.1415926535898", qjson.encode(math.pi))
    assert.are.equal('[1,null,3]', qjson.encode({ 1, nil, 3 }))
    assert.are.equal("Cannot serialise function: type not supported", error_of(qjson.encode, print))
    assert.are.equal("Cannot serialise table: excessively sparse array", error_of(qjson.encode, { [1] = 1, [30] = 1 }))
  end)

  it("writes integers exactly on 5.3 and 5.4, floats as %.14g", function()
    if integers then
      assert.are.equal("[9007199254740993,-9223372036854775808,1,1e+15]",
        qjson.encode({ 9007199254740993, math.mininteger, 1.0, 1e15 }))
    else
      assert.are.equal("[1,1e+15]", qjson.encode({ 1.0, 1e15 }))
    end
  end)

  it("takes qjson's options", function()
    assert.are.equal('{\n  "a": [\n    1\n  ],\n  "b": 2\n}',
      qjson.encode({ b = 2, a = { 1 } }, { indent = 2, sort_keys = true }))
    -- (Number keys first, in numeric order, then strings in byte order.)
    assert.are.equal('{"1":1,"2":2,"a":3,"b":4}',
      qjson.encode({ b = 4, a = 3, [2] = 2, [1] = 1 }, { sort_keys = true }))
    assert.are.equal('"\\u00e9\\u003c/script\\u003e"',
      qjson.encode("é</script>", { ascii = true, html_safe = true, escape_slash = false }))
    assert.are.equal("0.30000000000000004", qjson.encode(0.1 + 0.2, { precision = "shortest" }))
    assert.are.equal("Cannot serialise string: invalid UTF-8 at byte 1",
      error_of(qjson.encode, "a\255", { validate_utf8 = true }))
    assert.truthy(error_of(qjson.encode, {}, { precision = 20 }):find("bad option 'precision'", 1, true))
  end)

  it("names a cycle (qjson) or reports excessive nesting (qjson.cjson)", function()
    local t = {}
    t.self = t
    assert.are.equal("Cannot serialise table: reference cycle", error_of(qjson.encode, t))
    assert.truthy(error_of(cjson.encode, t):find("Cannot serialise, excessive nesting (1001)", 1, true))
  end)

  it("has instances with settings of their own", function()
    local i = qjson.new()
    i.encode_number_precision(6)
    assert.are.equal("3.14159", i.encode(math.pi))
    assert.are.equal("3.1415926535898", qjson.encode(math.pi))
  end)
end)

describe("qjson.cjson", function()
  it("reads integers as OpenResty's lua-cjson does on this Lua", function()
    local t = cjson.decode("[12345678901234567890, -0, 3]")
    if integers then
      assert.are.equal(math.maxinteger, t[1]) -- strtoll saturates
      assert.are.equal("integer", mtype(t[3]))
    else
      assert.are.equal(9223372036854775807, t[1])
    end
    assert.are.equal(0, t[2])
  end)

  it("gives lua-cjson's value or message for what is not JSON", function()
    local t = cjson.decode('[NaN, 0x10, "\1"]')
    assert.are_not.equal(t[1], t[1])
    assert.are.equal(16, t[2])
    assert.are.equal("\1", t[3])
    local err = error_of(function()
      return cjson.decode("{'a':1}")
    end)
    assert.truthy(err:find("Expected object key string but found invalid token at character 2$"), err)
    local safe = require("qjson.cjson.safe")
    local v, msg = safe.decode("[1,")
    assert.is_nil(v)
    assert.are.equal("Expected value but found T_END at character 4", msg)
  end)
end)

describe("documents", function()
  local src = '{"a":{"b":[1,2,{"c":"h\\u00e9llo"}]},"s":"plain","n":9007199254740993,"f":1.5}'

  it("read by path, pointer and compiled path", function()
    local d = qjson.parse(src)
    local p = qjson.path("a.b[2].c")
    assert.are.equal("h\195\169llo", d:get_str("a.b[2].c"))
    assert.are.equal("h\195\169llo", d:get_str("/a/b/2/c"))
    assert.are.equal("h\195\169llo", d:get_str(p))
    assert.are.equal(3, d:len("a.b"))
    assert.are.equal('[1,2,{"c":"h\\u00e9llo"}]', d:raw("a.b"))
    assert.are.same({ 1, 2, { c = "h\195\169llo" } }, d:get("a.b"))
    assert.are.equal("qjson.cursor (array)", tostring(d:open("a.b")))
  end)

  it("read integers as Lua integers on 5.3 and 5.4", function()
    local d = qjson.parse(src)
    if integers then
      assert.are.equal(9007199254740993, d:get_i64("n"))
      assert.are.equal("integer", mtype(d:get_i64("n")))
      assert.are.equal(-1, qjson.parse("18446744073709551615"):get_u64()) -- (Lua's unsigned wrap)
    else
      assert.truthy(error_of(d.get_i64, d, "n"):find("beyond 2^53", 1, true))
      assert.are.equal(2, qjson.parse("2"):get_i64())
    end
    assert.are.equal("qjson: number is not an integer within int64 range at line 1, column 74 (byte 73)",
      error_of(d.get_i64, d, "f"))
  end)

  it("raise after close, from the document and its cursors", function()
    local d = qjson.parse(src)
    local c = d:open("a")
    d:close()
    assert.are.equal("qjson: document is closed", error_of(d.get_str, d, "s"))
    assert.are.equal("qjson: document is closed", error_of(c.len, c))
    d:close() -- twice: harmless
  end)

  it("iterate with pairs and ipairs, containers as cursors", function()
    local d = qjson.parse('{"k":1,"j":[true],"k":2}')
    local got = {}
    for k, v in d:pairs() do
      got[#got + 1] = k .. "=" .. (type(v) == "table" and v:raw() or tostring(v))
    end
    assert.are.same({ "k=2", "j=[true]" }, got)
    local n = 0
    for i, v in qjson.parse("[5,6]"):ipairs() do
      n = n + i * v
    end
    assert.are.equal(17, n)
  end)

  -- (Issue 41's read paths: iterators keep their state in upvalues; short
  -- decoded strings are copied through the stack, longer ones through a
  -- userdata; methods check self against their upvalues' metatables.)
  it("iterate with iterators of their own, which raise once the document is closed", function()
    local d = qjson.parse('{"a":[1,[2],3],"o":{"x":1,"y":{}}}')
    local i1, i2 = d:ipairs("a"), d:ipairs("a")
    local _, v1 = i1()
    local _, c = i1()
    local k2, v2 = i2()
    assert.are.same({ 1, 1, 1 }, { v1, k2, v2 })
    assert.are.equal("qjson.cursor (array)", tostring(c))
    assert.are.equal(2, c:get_num("[0]"))
    local k3, v3 = i1()
    assert.are.same({ 3, 3 }, { k3, v3 })
    assert.is_nil(i1())
    assert.is_nil(i1())
    local p = d:open("o"):pairs()
    assert.are.equal("x", (p()))
    local k, o = p()
    assert.are.same({ "y", "qjson.cursor (object)" }, { k, tostring(o) })
    d:close()
    assert.are.equal("qjson: document is closed", error_of(i2))
  end)

  -- (An iterator counts an array's index in the upvalue that marks an
  -- object's iteration; a method takes self by its type's metatable
  -- alone; a plain key is looked up without the path parser.)
  it("iterate nested arrays and objects, keeping every cursor given valid", function()
    local d = qjson.parse('{"m":[{"c":[{"t":"a"},{"t":"b"}]},{"c":[]},{"c":[{"t":"c"}]}],"o":{"x":[7,8],"y":[9]}}')
    local got, kept = {}, {}
    for i, m in d:ipairs("m") do
      for j, part in m:ipairs("c") do
        got[#got + 1] = i .. "." .. j .. "=" .. part:get_str("t")
        kept[#kept + 1] = part
      end
    end
    for k, arr in d:pairs("o") do
      for i, v in arr:ipairs() do
        got[#got + 1] = k .. i .. "=" .. v
      end
    end
    assert.are.same({ "1.1=a", "1.2=b", "3.1=c", "x1=7", "x2=8", "y1=9" }, got)
    d = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.are.same({ "a", "b", "c" }, { kept[1]:get_str("t"), kept[2]:get_str("t"), kept[3]:get_str("t") })
    -- Plain keys: none reaches into an array or a scalar.
    local a = qjson.parse('{"0":{"1":"k"},"a":["x"]}')
    assert.are.equal("k", a:open("0"):get_str("1"))
    assert.is_nil(a:get("a.0"))
    assert.is_nil(a:open("a"):get("0"))
    assert.is_nil(a:get("0.1.x"))
    assert.are.equal("x", a:open("a"):get_str("[0]"))
    -- A table with the document's metatable is no document; a cursor's
    -- node may be a float.
    local doc_mt = debug.getmetatable(a)
    local forged = setmetatable({ a, 1 }, doc_mt)
    assert.truthy(error_of(a.len, forged):find("document or cursor expected, got table", 1, true))
    local c = a:open("a")
    assert.are.equal("x", c.get_str(setmetatable({ a, c[2] + 0.0 }, debug.getmetatable(c)), "[0]"))
  end)

  it("read decoded strings of every length around the stack copy's", function()
    for _, n in ipairs({ 1, 254, 255, 256, 1000 }) do -- (decoded: n + 1 bytes)
      local text = ("x"):rep(n - 1) .. "\\u00e9"
      local want = ("x"):rep(n - 1) .. "\195\169"
      local d = qjson.parse('{"' .. text .. '":["' .. text .. '"]}')
      assert.are.equal(want, d:get_str("/" .. want .. "/0"))
      assert.are.same({ want }, d:get(want))
      local k, c = d:pairs()()
      assert.are.equal(want, k)
      assert.are.equal(want, c:get_str("[0]"))
    end
  end)

  it("count each document's tape for the collector, which then collects unclosed ones (5.2+)", function()
    if _VERSION == "Lua 5.1" then
      pending("Lua 5.1 has no step: it would restart a collector the program stopped")
      return
    end
    local text = "[" .. ("[1,2,3,4,5,6,7,8],"):rep(5000) .. "0]"
    -- Whether a cycle ended during 100 parses of `text`.
    local function collected_while_parsing()
      local collected = false
      on_gc(function()
        collected = true
      end)
      for _ = 1, 100 do
        qjson.parse(text)
      end
      return collected
    end
    collectgarbage()
    assert.is_true(collected_while_parsing())
    -- (A stopped collector stays stopped.)
    collectgarbage()
    collectgarbage("stop")
    assert.is_false(collected_while_parsing())
    collectgarbage("restart")
  end)

  it("take self only from a document or a cursor", function()
    local d = qjson.parse('{"a":[1],"o":{"x":1}}')
    local c = d:open("a")
    assert.are.equal(1, d.get_num(c, "[0]"))
    assert.are.equal(1, c.get_num(setmetatable({ d, c[2] }, debug.getmetatable(c)), "[0]"))
    local forged = { d, c[2] }
    assert.truthy(error_of(c.get_num, forged, "[0]"):find("qjson document or cursor expected, got table", 1, true))
    assert.truthy(error_of(d.len, io.stdout):find("qjson document or cursor expected, got userdata", 1, true))
    -- (Functions that take a document or a cursor as an argument.)
    assert.are.equal('{"x":1,"y":2}', qjson.merge_patch(d:open("o"), { y = 2 }))
    assert.are.equal('{"a":[1]}', qjson.merge_patch(d, { o = qjson.null }))
  end)
end)

describe("finalizers that call qjson", function()
  -- Each finalizer decodes, encodes and reads a document of its own, and
  -- closes the document the interrupted call is reading.
  local function busy(shared)
    return function()
      local t = qjson.decode('{"x":[1,2,3],"y":"z\\u00e9"}')
      assert(t.x[3] == 3 and t.y == "z\195\169")
      assert(qjson.encode({ t.x }) == "[[1,2,3]]")
      local d = qjson.parse('["a\\u00e9b"]')
      assert(d:get_str("[0]") == "a\195\169b")
      if shared then
        shared:close()
      end
    end
  end

  it("cannot corrupt a decode, an encode or a read in progress", function()
    local parts = {}
    for i = 1, 300 do
      parts[i] = ('{"id":%d,"name":"n\\u00e9%d","tags":["a","b"]}'):format(i, i)
    end
    local text = "[" .. table.concat(parts, ",") .. "]"
    local want = cjson.decode(text)
    for _ = 1, 20 do
      for _ = 1, 50 do
        on_gc(busy())
      end
      collectgarbage("step", 0)
      local t = qjson.decode(text)
      assert.are.same(want, t)
      assert.are.same(want, qjson.decode(qjson.encode(t)))
      local d = qjson.parse(text)
      for i = 1, 300, 37 do
        assert.are.equal("n\195\169" .. i, d:get_str(("[%d].name"):format(i - 1)))
      end
    end
  end)

  -- (A document that needs up to 16 KB is built in its userdata; a
  -- larger one, or one from more than 256 KB of text, beside it. The
  -- userdata's allocation may run a finalizer that parses.)
  it("cannot corrupt a document built in its userdata or beside it", function()
    local long = ("x"):rep(300) .. "\\u00e9" -- (decoded through a userdata)
    local function text_of(n)
      local parts = {}
      for i = 1, n do
        local l = i % 50 == 1 and long or ""
        parts[i] = ('{"id":%d,"name":"n\\u00e9%d","tags":["a","b"],"long":"%s"}'):format(i, i, l)
      end
      return "[" .. table.concat(parts, ",") .. "]"
    end
    for _, n in ipairs({ 3, 40, 400, 5000 }) do
      local text = text_of(n)
      local want = cjson.decode(text)
      for _ = 1, 4 do
        for _ = 1, 30 do
          on_gc(busy())
        end
        collectgarbage("step", 0)
        local docs = { qjson.parse(text), qjson.parse(text) }
        docs[1]:close()
        collectgarbage()
        assert.are.equal("qjson: document is closed", error_of(docs[1].len, docs[1]))
        local d = docs[2]
        assert.are.equal(n, d:len())
        for i, item in d:ipairs() do
          assert.are.equal(want[i].name, item:get_str("name"))
          assert.are.equal(want[i].long, item:get_str("long"))
          assert.are.equal(want[i].id, item:get_num("id"))
        end
        assert.are.same(want, d:get())
      end
    end
    -- Rejected repeats, built in the userdata or beside it.
    local big = '{"a":1,' .. ('"p":"' .. ("y"):rep(300 * 1024) .. '",') .. '"a":2}'
    for _, t in ipairs({ '{"a":1,"a":2}', big }) do
      local e = error_of(qjson.parse, t, { duplicate_keys = "reject" })
      assert.truthy(e:find("duplicate key", 1, true), e)
    end
  end)

  it("may close the document being read: the read raises 'document is closed' or completes", function()
    for _ = 1, 200 do
      local d = qjson.parse('{"s":"esc\\u00e9aped","t":[1,2,3]}')
      on_gc(busy(d))
      local ok, v = pcall(d.get_str, d, "s")
      assert.is_true(ok and v == "esc\195\169aped" or v == "qjson: document is closed", tostring(v))
      collectgarbage()
      assert.are.equal("qjson: document is closed", error_of(d.get_str, d, "s"))
    end
  end)
end)

describe("lua_close", function()
  -- Userdata are freed in any order there: a finalizer that runs after a
  -- selector's (made before it) streams through the freed selector.
  it("a stream through a selector freed before a finalizer raises 'selector is freed'", function()
    local script = os.tmpname()
    local fh = assert(io.open(script, "w"))
    fh:write([[
local qjson = require("qjson")
local sel, f
local function fin()
  print(pcall(function() for _ in qjson.stream.each('{"a":1}\n', "ndjson", sel) do end end))
  print(pcall(function() for _ in qjson.stream.feeder("ndjson", sel):feed('{"a":1}\n') do end end))
  print(pcall(function() for _ in f:feed('{"a":1}\n') do end end))
end
if newproxy then
  local u = newproxy(true)
  getmetatable(u).__gc = fin
  keep = u
else
  keep = setmetatable({}, { __gc = fin })
end
sel = qjson.select({ "a" })
f = qjson.stream.feeder("ndjson", sel)
for _, a in qjson.stream.each('{"a":1}\n', "ndjson", sel) do print(a) end
]])
    fh:close()
    local p = assert(io.popen(("LUA_CPATH=%q %s %s 2>&1; echo exit=$?"):format(package.cpath, support.luajit, script)))
    local out = p:read("*a")
    p:close()
    os.remove(script)
    assert.are.equal("1\nfalse\tqjson: selector is freed\nfalse\tqjson: selector is freed\n"
      .. "false\tqjson: feeder is freed\nexit=0\n", out)
  end)
end)
