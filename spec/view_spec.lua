-- Lazy views: qjson.decode, reads with lua-cjson's semantics, edits,
-- encode passthrough, materialize, iteration helpers.
local qjson = require("qjson")
local cjson = require("cjson")
local support = require("support")
qjson.decode_views(true) -- views on every build (see spec/support.lua)

local SRC = [[{"model": "gpt-4o", "temperature": 0.7, "stream": false, "none": null,
 "messages": [{"role": "user", "content": "hi"},
              {"role": "assistant", "content": [{"type": "text", "text": "yo \u00e9"}]}],
 "empty_a": [], "empty_o": {}, "dup": 1, "dup": 2, "esc\u0061ped": "k",
 "big": 12345678901234567890, "neg_big": -9223372036854775808, "safe": 9007199254740991}]]

-- Deep equality of plain values, null-aware (cjson.null == qjson.null).
local function same(a, b)
  return (support.deep_equal(a, b, qjson.pairs))
end

describe("qjson.decode", function()
  it("reads like the table cjson.decode builds", function()
    local v, t = qjson.decode(SRC), cjson.decode(SRC)
    for _, k in ipairs({ "model", "temperature", "stream", "none", "dup", "escaped", "safe", "nope" }) do
      assert.are.equal(t[k], v[k], k)
    end
    assert.are.equal(t.messages[2].content[1].text, v.messages[2].content[1].text)
    assert.are.equal(t.messages[1].role, v.messages[1].role)
    assert.is_nil(v.messages[3])
    assert.is_nil(v.messages[0])
    assert.is_nil(v.messages[1.5])
    assert.is_nil(v.messages.role)
    assert.is_nil(v[1])
    assert.are.equal(qjson.null, v.none)
    assert.are.equal(cjson.null, v.none)
  end)

  it("returns scalars for scalar documents", function()
    assert.are.equal(5, qjson.decode(" 5 "))
    assert.are.equal("x", qjson.decode('"x"'))
    assert.are.equal(false, qjson.decode("false"))
    assert.are.equal(qjson.null, qjson.decode("null"))
  end)

  it("keeps the identity of nested views", function()
    local v = qjson.decode(SRC)
    assert.are.equal(v.messages, v.messages)
    assert.are.equal(v.messages[2].content, v.messages[2].content)
    local seen
    for k, x in qjson.pairs(v) do
      if k == "messages" then
        seen = x
      end
    end
    assert.are.equal(v.messages, seen)
  end)

  it("keeps integers beyond 2^53 exact with big_int", function()
    local v = qjson.decode(SRC, { big_int = "cdata" })
    assert.are.equal("12345678901234567890ULL", tostring(v.big))
    assert.are.equal("-9223372036854775808LL", tostring(v.neg_big))
    assert.are.equal(9007199254740991, v.safe)
    assert.are.equal("number", type(v.safe))
    local s = qjson.decode(SRC, { big_int = "string" })
    assert.are.equal("12345678901234567890", s.big)
    assert.are.equal(1.2345678901234567e19, qjson.decode(SRC).big)
    local err = support.error_of(function() qjson.decode(SRC, { big_int = "yes" }) end)
    assert.truthy(err:find("bad option 'big_int'", 1, true), err)
    assert.truthy(support.points_at(err, "view_spec.lua"), err)
  end)

  it("passes parse options on", function()
    local err = support.error_of(qjson.decode, SRC, { duplicate_keys = "reject" })
    assert.truthy(err:find("^qjson: duplicate key"), err)
    local lazy = qjson.decode('{"a": tru, "b": 1}', { mode = "lazy" })
    assert.are.equal(1, lazy.b)
    err = support.error_of(function() return lazy.a end)
    assert.are.equal("qjson: invalid literal at line 1, column 7 (byte 6)", err)
  end)

  it("raises invalid input with its position, as qjson.parse", function()
    local err = support.error_of(qjson.decode, '{"a": [1, 2,, 3]}')
    assert.are.equal("qjson: expected a value, found ',' at line 1, column 13 (byte 12)", err)
    err = support.error_of(qjson.decode, 42)
    assert.truthy(err:find("bad argument #1 to 'decode'", 1, true), err)
  end)

  it("keeps its own fields only under keys no JSON text can give a member", function()
    local keys = { "_doc", "_cur", "__index", "__newindex", "n", "d", "node", "ptr", "src", "parent", "self",
      "dirty", "cache", "edits", "enode", "added", "orig", "vals", "uniq", "views", "big_int", "state", "doc", "len",
      "ckey", "cview", "ckey2", "cview2", "dchild", "nenode", "replaced", "dirty_views" }
    local parts = {}
    for i, k in ipairs(keys) do
      parts[i] = ('"%s": %d'):format(k, i)
    end
    local src = "{" .. table.concat(parts, ", ") .. ', "arr": [{"n": 1, "orig": 2}]}'
    local v = qjson.decode(src)
    for i, k in ipairs(keys) do
      assert.are.equal(i, v[k], k)
    end
    assert.are.equal(2, v.arr[1].orig)
    local count = 0
    for k, x in qjson.pairs(v) do
      count = count + 1
      if k ~= "arr" then
        assert.are.equal(x, v[k])
      end
    end
    assert.are.equal(#keys + 1, count)
    v.n = "changed"
    v.edits = nil
    v.arr[1].n = 5
    assert.are.same({ n = 5, orig = 2 }, cjson.decode(qjson.encode(v)).arr[1])
    local back = cjson.decode(qjson.encode(v))
    assert.are.equal("changed", back.n)
    assert.is_nil(back.edits)
    assert.are.equal(1, back._doc)
    -- The raw keys of views, fresh and edited: strings with a byte that
    -- UTF-8 never has, which qjson never accepts in a key.
    local w = qjson.decode('{"o": {"a": 1}, "a": [1, {"b": 2}], "p": {"q": {}}, "l": [1, 2]}')
    local o, a, q, l = w.o, w.a, w.p.q, w.l
    a[1] = 5
    o.z = 1
    o.a = nil
    l[3] = 3
    l[1] = nil
    q.x = { 1 }
    assert.are.equal('{"o":{"z":1},"a":[5,{"b": 2}],"p":{"q":{"x":[1]}},"l":[null,2,3]}', qjson.encode(w))
    for _, view in ipairs({ v, v.arr, v.arr[1], w, o, a, a[2], w.p, q, l }) do
      local n = 0
      for k in next, view do
        n = n + 1
        assert.are.equal("string", type(k))
        assert.truthy(k:find("\255", 1, true), k)
      end
      assert.truthy(n > 0)
    end
    -- The constructors' keys are the module's constants: an array's
    -- FIELDS, an object's all but LEN; a root has no PARENT and adds the
    -- record's PTR and SRC; a leaf (no container in it) has no cache slots.
    local view = require("qjson.view.fields")
    local function raw_keys(t)
      local raw = {}
      for k in next, t do
        raw[#raw + 1] = k
      end
      table.sort(raw)
      return raw
    end
    local function fields(without, with)
      local list = {}
      for _, k in ipairs(view.FIELDS) do
        if not without[k] then
          list[#list + 1] = k
        end
      end
      for _, k in ipairs(with or {}) do
        list[#list + 1] = k
      end
      table.sort(list)
      return list
    end
    local no_len, no_parent = { [view.LEN] = true }, { [view.PARENT] = true }
    local slots = { [view.CKEY] = true, [view.CVIEW] = true, [view.CKEY2] = true, [view.CVIEW2] = true }
    local leaf, leaf_object = {}, { [view.LEN] = true }
    for k in pairs(slots) do
      leaf[k], leaf_object[k] = true, true
    end
    assert.are.same(fields(no_len), raw_keys(qjson.decode('{"o": {"p": []}}').o))
    assert.are.same(fields({}), raw_keys(qjson.decode('{"a": [{}]}').a))
    assert.are.same(fields(leaf_object), raw_keys(qjson.decode('{"o": {"x": 1}}').o))
    assert.are.same(fields(leaf_object), raw_keys(qjson.decode('{"o": {}}').o))
    assert.are.same(fields(leaf), raw_keys(qjson.decode('{"a": [1, "x"]}').a))
    -- doc:get's views do not know what they hold.
    assert.are.same(fields(no_len), raw_keys(qjson.parse('{"o": {}}'):get("o")))
    assert.are.same(fields({}), raw_keys(qjson.parse('{"o": []}'):get("o")))
    local root = { view.PTR, view.SRC }
    assert.are.same(fields({ [view.LEN] = true, [view.PARENT] = true }, root), raw_keys(qjson.decode("{}")))
    assert.are.same(fields(no_parent, root), raw_keys(qjson.decode("[]")))
    assert.has_error(function()
      qjson.decode('{"\255doc": 1}')
    end, "qjson: invalid UTF-8 at line 1, column 3 (byte 2)")
  end)

  it("gives a decode's root slots for the fields its edits add", function()
    -- The root's constructor spells them as nil or NONE (view/read.lua, decoded):
    -- each must be one of the module's keys, or its slot goes unused.
    local view = require("qjson.view.fields")
    local constants = {}
    for _, k in pairs(view) do
      if type(k) == "string" and k:sub(1, 1) == "\255" then
        constants[k] = true
      end
    end
    local f = assert(io.open("lua/qjson/view/read.lua", "rb"))
    local source = f:read("*a")
    f:close()
    local body = assert(source:match("\nfunction M%.decoded%(.-\nend\n"))
    local spelled = {}
    for name, value in body:gmatch('%["\\255([%w_]+)"%] = (%w+)') do
      if value == "nil" or value == "NONE" then
        assert.is_true(constants["\255" .. name], name)
        spelled["\255" .. name] = true
      end
    end
    assert.is_not_nil(next(spelled))
    -- What set, add, delete and encode leave on a root object are its
    -- fields and those slots (a nested edit also marks DCHILD).
    local v = qjson.decode('{"a": 1, "b": 2, "o": {"x": 1}}')
    local fresh = {}
    for k in next, v do
      fresh[k] = true
    end
    v.a, v.c, v.b = 5, 6, nil
    qjson.encode(v)
    for k in next, v do
      assert.is_true(fresh[k] or spelled[k], k)
    end
  end)
  it("lets no constructor template hold a constant for a field that later holds another type", function()
    -- A LuaJIT without its June 2023 fix (LuaJIT #994; Debian 12's
    -- luajit2) compiles a load of such a key in a loop into a constant of
    -- the type the load had when recorded: for a string, a pointer made
    -- of `false`'s bits that the collector later follows (qjson.base's
    -- NO). Those fields are given by a variable, which leaves the
    -- template's value nil and makes the constructor store it.
    local F = require("qjson.view.fields")
    local jutil = require("jit.util")
    local function templates(fn)
      local found, i = {}, -1
      while true do
        local k = jutil.funck(fn, i)
        if k == nil then
          return found
        elseif type(k) == "table" then
          found[#found + 1] = k
        end
        i = i - 1
      end
    end
    for name, case in pairs({
      new_view = { F.new_view, { F.CKEY, F.CKEY2 }, 4 },
      decoded = {
        require("qjson.view.read").decoded, { F.CKEY, F.CKEY2, F.LEN, F.DIRTY, F.DCHILD, F.NENODE, F.REPLACED }, 2,
      },
      feeder = { require("qjson.stream").feeder, { "done", "busy", "failed" }, 1 },
    }) do
      local fn, keys, count = case[1], case[2], case[3]
      local found = templates(fn)
      assert.are.equal(count, #found, name)
      for _, t in ipairs(found) do
        for _, key in ipairs(keys) do
          assert.is_nil(rawget(t, key), name .. " " .. key:gsub("\255", ""))
        end
      end
    end
    -- (Each template does hold its constants: the check reads them.)
    assert.are.equal(false, rawget(templates(F.new_view)[3], F.CVIEW))
  end)
end)

describe("iteration", function()
  it("yields each key once, in source order, with the last value", function()
    local v = qjson.decode('{"b": 1, "a": 2, "b": 3, "c": {"x": 1}}')
    local keys, vals = {}, {}
    for k, x in qjson.pairs(v) do
      keys[#keys + 1] = k
      vals[#vals + 1] = x
    end
    assert.are.same({ "b", "a", "c" }, keys)
    assert.are.equal(3, vals[1])
    assert.are.equal(v.c, vals[3])
  end)

  it("walks arrays with ipairs, pairs and len, on views and tables alike", function()
    local v = qjson.decode('[10, "x", null, [1]]')
    local got = {}
    for i, x in qjson.ipairs(v) do
      got[i] = x
    end
    assert.are.equal(4, #got)
    assert.are.equal(qjson.null, got[3])
    assert.are.equal(4, qjson.len(v))
    assert.are.equal(0, qjson.len(qjson.decode('{"a": 1}')))
    assert.are.equal(3, qjson.len({ 1, 2, 3 }))
    local n = 0
    for _ in qjson.pairs({ a = 1, b = 2 }) do
      n = n + 1
    end
    assert.are.equal(2, n)
    n = 0
    for _ in qjson.ipairs({ 1, 2 }) do
      n = n + 1
    end
    assert.are.equal(2, n)
  end)

  it("honours pairs, ipairs and # themselves on a LUA52COMPAT build", function()
    if not support.lua52compat then
      pending("this LuaJIT is built without LUAJIT_ENABLE_LUA52COMPAT (make test runs both builds)")
      return
    end
    local v = qjson.decode('{"a": [1, 2, 3], "b": true}')
    assert.are.equal(3, #v.a)
    assert.are.equal(0, #v)
    local n = 0
    for i, x in ipairs(v.a) do
      assert.are.equal(i, x)
      n = n + 1
    end
    assert.are.equal(3, n)
    local keys = {}
    for k in pairs(v) do
      keys[#keys + 1] = k
    end
    assert.are.same({ "a", "b" }, keys)
    v.a[#v.a + 1] = 4
    assert.are.equal('{"a":[1,2,3,4],"b":true}', qjson.encode(v))
  end)
end)

describe("encode of views", function()
  it("re-emits an untouched document as its original bytes", function()
    local v = qjson.decode(SRC)
    local _ = v.messages[2].content[1].text
    assert.are.equal(SRC, qjson.encode(v))
    assert.are.equal('[{"type": "text", "text": "yo \\u00e9"}]', qjson.encode(v.messages[2].content))
    assert.are.equal("[]", qjson.encode(v.empty_a))
    assert.are.equal("{}", qjson.encode(v.empty_o))
  end)

  it("re-encodes only what changed", function()
    local v = qjson.decode('{"a": {"x": 1,  "y": [1,  2]}, "b": [ 3 ], "c": "\\u0041"}')
    v.a.x = 2
    -- (a: one value replaced, so its text is copied around the new value,
    -- whitespace included; the root, which holds a changed view, is
    -- written member by member.)
    assert.are.equal('{"a":{"x": 2,  "y": [1,  2]},"b":[ 3 ],"c":"\\u0041"}', qjson.encode(v))
    v.b[2] = 4
    assert.are.equal('{"a":{"x": 2,  "y": [1,  2]},"b":[3,4],"c":"\\u0041"}', qjson.encode(v))
    v.c = nil
    v.d = { 1, 2 }
    assert.are.equal('{"a":{"x": 2,  "y": [1,  2]},"b":[3,4],"d":[1,2]}', qjson.encode(v))
  end)

  it("copies an object with one value replaced around the new value", function()
    local s = ' {"a": 1 , "b": [1, 2],\n "c": {"x": "y"} } '
    local v = qjson.decode(s)
    v.a = 5
    -- The object's own text, from its brace to its brace.
    assert.are.equal('{"a": 5 , "b": [1, 2],\n "c": {"x": "y"} }', qjson.encode(v))
    v.a = { 7 } -- the same key again: still one replaced value
    assert.are.equal('{"a": [7] , "b": [1, 2],\n "c": {"x": "y"} }', qjson.encode(v))
    local last = qjson.decode(s)
    last.c = qjson.null
    assert.are.equal('{"a": 1 , "b": [1, 2],\n "c": null }', qjson.encode(last))
  end)

  it("writes an object member by member when more than one value changed", function()
    local s = '{"a": 1, "b": [1, 2], "c": {"x": "y"}}'
    local two = qjson.decode(s)
    two.a, two.b = 5, 6
    assert.are.equal('{"a":5,"b":6,"c":{"x": "y"}}', qjson.encode(two))
    local deleted = qjson.decode(s)
    deleted.a = nil
    assert.are.equal('{"b":[1, 2],"c":{"x": "y"}}', qjson.encode(deleted))
    local added = qjson.decode(s)
    added.a, added.d = 5, true
    assert.are.equal('{"a":5,"b":[1, 2],"c":{"x": "y"},"d":true}', qjson.encode(added))
    local nested = qjson.decode(s)
    nested.a, nested.c.x = 5, "z"
    assert.are.equal('{"a":5,"b":[1, 2],"c":{"x": "z"}}', qjson.encode(nested))
    -- A changed view encoded on its own (its end is not known without a
    -- search of the text) is written member by member too.
    local inner = qjson.decode('{"c": {"x": 1, "y": 2}}').c
    inner.x = 3
    assert.are.equal('{"x":3,"y":2}', qjson.encode(inner))
  end)

  it("puts views inside plain tables and other views", function()
    local v = qjson.decode('{"a": [1, 2], "b": {"c": true}}')
    assert.are.equal('{"wrap":[1, 2]}', qjson.encode({ wrap = v.a }))
    v.b.moved = v.a
    assert.are.equal('{"a":[1, 2],"b":{"c":true,"moved":[1, 2]}}', qjson.encode(v))
  end)

  it("formats views like tables with indent or sorted keys", function()
    local v = qjson.decode('{"b": [1, 2], "a": {"c": []}}')
    assert.are.equal('{"a":{"c":[]},"b":[1,2]}', qjson.encode(v, { sort_keys = true }))
    assert.are.equal('{\n  "a": {\n    "c": []\n  },\n  "b": [\n    1,\n    2\n  ]\n}',
      qjson.encode(v, { indent = "  ", sort_keys = true }))
  end)

  it("reports a reference cycle through views", function()
    local v = qjson.decode('{"a": {}}')
    v.a.self = v
    local err = support.error_of(qjson.encode, v)
    assert.truthy(err:find("excessive nesting") or err:find("cycle"), err)
  end)
end)

describe("edits", function()
  it("set, add and delete object members at any depth", function()
    local v = qjson.decode('{"a": {"b": {"c": 1, "d": 2}}, "e": 3}')
    v.a.b.c = "x"
    v.a.b.d = nil
    v.a.b.new = false
    v.e = nil
    v.f = qjson.null
    assert.are.equal("x", v.a.b.c)
    assert.is_nil(v.a.b.d)
    assert.are.equal(false, v.a.b.new)
    assert.is_nil(v.e)
    assert.are.same({ a = { b = { c = "x", new = false } }, f = cjson.null }, cjson.decode(qjson.encode(v)))
    -- Deleted, then set again.
    v.e = 4
    assert.are.equal(4, v.e)
    assert.are.equal(4, cjson.decode(qjson.encode(v)).e)
  end)

  it("set an index, append, insert and remove in arrays", function()
    local v = qjson.decode('{"a": [1, 2, 3]}')
    local a = v.a
    a[2] = "two"
    a[4] = 4
    assert.are.equal(4, qjson.len(a))
    qjson.insert(a, 1, 0)
    qjson.insert(a, 5)
    assert.are.equal('{"a":[0,1,"two",3,4,5]}', qjson.encode(v))
    assert.are.equal(0, qjson.remove(a, 1))
    assert.are.equal(5, qjson.remove(a))
    a[4] = nil
    assert.are.equal(3, qjson.len(a))
    assert.are.equal('{"a":[1,"two",3]}', qjson.encode(v))
    a[2] = nil -- a hole: reads nil, encodes as null, length kept
    assert.is_nil(a[2])
    assert.are.equal(3, qjson.len(a))
    assert.are.equal('{"a":[1,null,3]}', qjson.encode(v))
    a[3] = nil -- removing the last element drops the hole before it
    assert.are.equal(1, qjson.len(a))
    assert.are.equal('{"a":[1]}', qjson.encode(v))
    local err = support.error_of(function() a[5] = 1 end)
    assert.truthy(err:find("past the end", 1, true), err)
    err = support.error_of(function() a.key = 1 end)
    assert.truthy(err:find("integers from 1", 1, true), err)
  end)

  it("keeps edits made through a temporary reference", function()
    local v = qjson.decode('{"m": [{"role": "user"}]}')
    v.m[1].role = "system"
    collectgarbage("collect")
    assert.are.equal("system", v.m[1].role)
    assert.are.equal('{"m":[{"role": "system"}]}', qjson.encode(v))
  end)

  it("keeps empty arrays as [] through decode, edit and encode", function()
    local v = qjson.decode('{"a": [], "b": [1]}')
    v.x = 1
    qjson.remove(v.b)
    assert.are.equal('{"a":[],"b":[],"x":1}', qjson.encode(v))
    local m = qjson.materialize(v)
    assert.are.equal(qjson.empty_array_mt, getmetatable(m.a))
    assert.are.equal("[]", qjson.encode(m.a))
  end)
end)

describe("qjson.materialize", function()
  it("builds the tables cjson.decode builds", function()
    local m = qjson.materialize(qjson.decode(SRC))
    assert.is_nil(getmetatable(m.messages))
    assert.is_true(same(cjson.decode(SRC), m))
    assert.are.equal(5, qjson.materialize(5))
  end)

  it("includes edits", function()
    local v = qjson.decode(SRC)
    v.messages[1].role = "system"
    v.model = nil
    local want = cjson.decode(SRC)
    want.messages[1].role = "system"
    want.model = nil
    assert.is_true(same(want, qjson.materialize(v)))
  end)

  it("materializes views inside plain tables assigned into a view", function()
    local v = qjson.decode('{"a": 1}')
    local mt = { tag = true }
    local held = setmetatable({ qjson.decode('{"y": [2]}'), "s" }, mt)
    local plain = { 3 }
    v.b, v.c = held, plain
    local m = qjson.materialize(v)
    assert.is_nil(getmetatable(m.b[1]))
    assert.are.equal(2, rawget(m.b[1], "y")[1])
    assert.are.equal("s", m.b[2])
    assert.are.equal(mt, getmetatable(m.b))
    assert.are_not.equal(held, m.b) -- a copy: the caller's table keeps its view
    assert.is_true(require("qjson.view").is_view(held[1]))
    assert.are.equal(plain, m.c) -- nothing to materialize: the table itself
  end)
end)

describe("views and garbage collection", function()
  it("outlive the input string and survive full collections", function()
    local v
    do
      local s = SRC:gsub("gpt%-4o", "model-" .. math.random(1e6))
      v = qjson.decode(s)
    end
    collectgarbage("collect")
    local msgs = v.messages
    collectgarbage("collect")
    local text = msgs[2].content[1].text
    collectgarbage("collect")
    v.model = nil
    collectgarbage("collect")
    assert.are.equal("yo é", text)
    assert.is_true(qjson.encode(v):find('"messages"', 1, true) ~= nil)
    local root
    do
      local d = qjson.parse(SRC)
      root = d:get()
    end
    collectgarbage("collect")
    collectgarbage("collect")
    assert.are.equal("user", root.messages[1].role)
  end)
end)

describe("qjson.safe.decode", function()
  it("returns nil and a message", function()
    local safe = require("qjson.safe")
    local v, err = safe.decode("[1,")
    assert.is_nil(v)
    assert.truthy(err:find("^qjson: "), err)
    assert.are.equal(1, safe.decode("[1]")[1])
  end)
end)

describe("decoder configuration", function()
  it("has lua-cjson's functions, per instance, strict by default", function()
    local inst = qjson.new()
    assert.are.equal(1000, inst.decode_max_depth())
    assert.are.equal(false, inst.decode_invalid_numbers())
    assert.are.equal(false, inst.decode_array_with_array_mt())
    assert.are.equal(2, inst.decode_max_depth(2))
    assert.are.equal(1000, qjson.decode_max_depth())
    local err = support.error_of(inst.decode, "[[[1]]]")
    assert.truthy(err:find("max_depth", 1, true), err)
    assert.are.equal(1, qjson.decode("[[[1]]]")[1][1][1])
    -- A per-call option wins over the instance's setting.
    assert.are.equal(1, inst.decode("[[[1]]]", { max_depth = 3 })[1][1][1])
    assert.is_false((pcall(qjson.decode, "[NaN]")))
    inst.decode_invalid_numbers(true)
    local nan = inst.decode("[NaN]")[1]
    assert.is_true(nan ~= nan)
  end)

  it("tags materialized arrays with array_mt when asked", function()
    local inst = qjson.new()
    inst.decode_array_with_array_mt(true)
    local m = inst.materialize(inst.decode('{"a": [1], "e": []}'))
    assert.are.equal(qjson.array_mt, getmetatable(m.a))
    assert.are.equal(qjson.array_mt, getmetatable(m.e))
    local plain = qjson.materialize(qjson.decode('{"a": [1], "e": []}'))
    assert.is_nil(getmetatable(plain.a))
    assert.are.equal(qjson.empty_array_mt, getmetatable(plain.e))
  end)
end)
