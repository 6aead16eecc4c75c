-- Views never give a silently wrong answer (issue 18, items 8 to 15):
-- every case here gave a wrong result, or a misleading error, before.
local qjson = require("qjson")
local cjson = require("cjson")
local support = require("support")
qjson.decode_views(true) -- views on every build (see spec/support.lua)

local function error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

describe("encode with ascii / html_safe", function()
  local SRC = '{"a":"\u{e9}</script>&\u{2028}\u{1F600}","k\u{e9}":1}'

  it("escapes the bytes copied from an untouched view", function()
    local v = qjson.decode(SRC)
    local out = qjson.encode(v, { ascii = true, html_safe = true })
    assert.are.equal('{"a":"\\u00e9\\u003c/script\\u003e\\u0026\\u2028\\ud83d\\ude00","k\\u00e9":1}', out)
    assert.is_nil(out:find("[\128-\255<>&]"))
  end)

  it("escapes the copied bytes of a changed view and the new ones alike", function()
    local v = qjson.decode('{"a":"<\u{e9}>","b":[1,"&"]}')
    v.c = "\u{e9}<"
    assert.are.equal('{"a":"\\u003c\\u00e9\\u003e","b":[1,"\\u0026"],"c":"\\u00e9\\u003c"}',
      qjson.encode(v, { ascii = true, html_safe = true }))
    assert.are.equal('{"a":"\\u003c\u{e9}\\u003e","b":[1,"\\u0026"],"c":"\u{e9}\\u003c"}',
      qjson.encode(v, { html_safe = true }))
    assert.are.equal('{"a":"<\\u00e9>","b":[1,"&"],"c":"\\u00e9<"}', qjson.encode(v, { ascii = true }))
  end)
end)

describe("indent and sort_keys on a view", function()
  local SRC = '{"z":12345678901234567890,"b":0.30000000000000004,"a":1e400,"m":[1.50,-0.0,{"y":2E+1,"x":[]}]}'

  it("keep every number's text and the source order", function()
    local v = qjson.decode(SRC)
    assert.are.equal(table.concat({
      '{', '  "z": 12345678901234567890,', '  "b": 0.30000000000000004,', '  "a": 1e400,',
      '  "m": [', '    1.50,', '    -0.0,', '    {', '      "y": 2E+1,', '      "x": []', '    }', '  ]', '}',
    }, "\n"), qjson.encode(v, { indent = 2 }))
  end)

  it("sort keys without changing numbers", function()
    local v = qjson.decode(SRC)
    assert.are.equal('{"a":1e400,"b":0.30000000000000004,"m":[1.50,-0.0,{"x":[],"y":2E+1}],"z":12345678901234567890}',
      qjson.encode(v, { sort_keys = true }))
  end)

  it("write numbers as numbers whatever big_int decoded them as", function()
    for _, mode in ipairs({ "string", "cdata" }) do
      local v = qjson.decode('{"b":12345678901234567890,"a":[-9223372036854775809]}', { big_int = mode })
      assert.are.equal('{"a":[-9223372036854775809],"b":12345678901234567890}', qjson.encode(v, { sort_keys = true }))
    end
  end)

  it("keep the order of edits: changed in place, added last", function()
    local v = qjson.decode('{"c":1,"a":2,"b":3}')
    v.a, v.d, v.c = "x", 4, nil
    assert.are.equal('{\n "a": "x",\n "b": 3,\n "d": 4\n}', qjson.encode(v, { indent = 1 }))
    local a = qjson.decode('[1.0,2.0,3.0]')
    a[2] = nil
    qjson.insert(a, 1, 0)
    assert.are.equal('[0,1.0,null,3.0]', qjson.encode(a, { sort_keys = true }))
  end)

  it("report a cycle as a cycle", function()
    local v = qjson.decode('{"x":{}}')
    v.self = v
    for _, opts in ipairs({ { indent = 2 }, { sort_keys = true }, {} }) do
      -- (Under indent this said "excessive nesting".)
      assert.are.equal("Cannot serialise table: reference cycle", error_of(qjson.encode, v, opts))
    end
  end)
end)

describe("doc:get", function()
  it("edits are seen by an encode of the root, whatever path reached the value", function()
    local d = qjson.parse('{"a":{"b":{"c":1}},"l":[1,{"x":[{"y":2}]}]}')
    d:get("a.b").c = 5
    assert.are.equal('{"a":{"b":{"c":5}},"l":[1,{"x":[{"y":2}]}]}', qjson.encode(d:get()))
    d:open("l"):get("[1].x[0]").y = 7
    assert.are.equal('{"a":{"b":{"c":5}},"l":[1,{"x":[{"y":7}]}]}', qjson.encode(d:get()))
    assert.are.equal('{"x":[{"y":7}]}', qjson.encode(d:get("l[1]")))
    assert.are.equal(d:get("l[1].x[0]"), d:open("l[1]"):get("x[0]"))
    assert.are.equal(d:get("a.b"), d:get().a.b)
  end)

  it("an edit below an edited array is seen", function()
    local d = qjson.parse('{"l":[1,{"x":[{"y":2}]}]}')
    qjson.insert(d:get("l"), 1, "new")
    d:get("l[1].x[0]").z = 8
    assert.are.equal('{"l":["new",1,{"x":[{"y":2,"z":8}]}]}', qjson.encode(d:get()))
  end)

  it("a value replaced higher up stays replaced", function()
    local d = qjson.parse('{"a":{"b":{"c":1}}}')
    d:get().a = nil
    d:get("a.b").c = 2
    assert.are.equal('{}', qjson.encode(d:get()))
  end)
end)

describe("lazy mode", function()
  it("refuses a key that would name a view's private field", function()
    -- (It read the view's node number: 0.) Every private key starts with
    -- the byte the parser refuses at the start of a key
    -- (crates/core/src/stage2/mod.rs, RESERVED_KEY_BYTE).
    local view = require("qjson.view.fields")
    for _, field in ipairs(view.FIELDS) do
      local text = '{"a":1,"' .. field .. '":2}'
      for _, mode in ipairs({ "lazy", "strict" }) do
        assert.matches("^qjson: invalid UTF%-8 at line 1, column 9 %(byte 8%)$",
          error_of(qjson.decode, text, { mode = mode }))
        assert.matches("^qjson: invalid UTF%-8 at line 1, column 9 %(byte 8%)$",
          error_of(qjson.parse, text, { mode = mode }))
      end
    end
    -- Other bytes that are not UTF-8 still wait for the read in lazy mode.
    local v = qjson.decode('{"n\255ode":1,"x":2}', { mode = "lazy" })
    assert.are.equal(2, v.x)
  end)

  it("encode checks what it copies from a lazy document", function()
    -- (It wrote {"a":trux,"b":[1,2]}.) A bad literal or number raises
    -- where the writer reads it, a bad string where the output is checked.
    local v = qjson.decode('{"a":trux,"b":[1]}', { mode = "lazy" })
    v.b[2] = 2
    assert.matches("^qjson: invalid literal at line 1, column 6", error_of(qjson.encode, v))
    assert.matches("^qjson: invalid literal at line 1, column 6", error_of(qjson.encode, v, { indent = 2 }))
    local MSG = "^Cannot serialise view: invalid JSON copied from a document parsed in lazy mode: "
    for _, text in ipairs({ '{"a":"\255","b":1}', '{"a":"\1","b":1}', '{"a":"\\x","b":1}', '{"a":[01],"b":1}' }) do
      local d = qjson.parse(text, { mode = "lazy" })
      d:get().b = 2
      assert.matches(MSG, error_of(qjson.encode, d:get()), text)
      -- (With sort_keys strings are read, which checks them, and numbers
      -- copied.)
      local err = error_of(qjson.encode, d:get(), { sort_keys = true })
      assert.is_truthy(err:find(MSG) or err:find("^qjson: .* at line 1, column %d+ %(byte %d+%)$"), err)
      local w = qjson.decode(text, { mode = "lazy" })
      w.b = 2
      assert.matches(MSG, error_of(qjson.encode, { w }), text)
    end
  end)

  it("encode of an untouched lazy document checks it too", function()
    local MSG = "^Cannot serialise view: invalid JSON copied from a document parsed in lazy mode: "
    for _, text in ipairs({ '{"a":trux}', '["\255"]', ' [01] ' }) do
      -- (It returned the text as it was.)
      assert.matches(MSG, error_of(qjson.encode, qjson.decode(text, { mode = "lazy" })), text)
      assert.matches(MSG, error_of(qjson.encode, qjson.parse(text, { mode = "lazy" }):get()), text)
    end
    assert.are.equal(' [1, 2] ', qjson.encode(qjson.decode(' [1, 2] ', { mode = "lazy" })))
  end)

  it("encode of valid lazy documents works as in strict mode", function()
    local v = qjson.decode('{"a":[1,2],"b":"x"}', { mode = "lazy" })
    v.c = true
    assert.are.equal('{"a":[1,2],"b":"x","c":true}', qjson.encode(v))
  end)
end)

describe("encode of a document read with invalid_numbers", function()
  -- (Issue 39, item 19: it returned the text as it was, also after an
  -- edit and with indent.) Encode writes JSON: each number outside JSON
  -- as lua-cjson writes what its decode gives, NaN and infinities as
  -- encode_invalid_numbers says.
  local TEXT = '{"a":[NaN,-Infinity,0x10,+1,01,1.]}'
  local FINITE = '{"a":[0x10,+1,01,1.,-0x0,0x1p-2,1.5e3, 2]}'
  local WANT = '{"a":[16,1,1,1,-0,0.25,1.5e3,2]}'
  local qcjson = require("qjson.cjson")

  -- Views of `text`, by decode and by doc:get.
  local function views(text, opts)
    opts = opts or { invalid_numbers = true }
    return { qjson.decode(text, opts), qjson.parse(text, opts):get() }
  end

  it("raises for NaN and infinities, as encode({0/0}) does", function()
    local nan = error_of(qjson.encode, { 0 / 0 })
    for _, v in ipairs(views(TEXT)) do
      assert.are.equal(nan, error_of(qjson.encode, v))
      assert.are.equal(nan, error_of(qjson.encode, v, { indent = 2 }))
      v.b = 1
      assert.are.equal(nan, error_of(qjson.encode, v))
      assert.are.equal(nan, error_of(qjson.encode, v, { sort_keys = true }))
    end
  end)

  it("writes the other numbers as lua-cjson writes their values", function()
    -- (lua-cjson: encode(decode(text)), which qjson.cjson is checked
    -- against in spec/cjson_dropin_spec.lua.)
    assert.are.equal(WANT:gsub("1%.5e3", "1500"), qcjson.encode(qcjson.decode(FINITE)))
    for _, v in ipairs(views(FINITE)) do
      assert.are.equal(WANT, qjson.encode(v))
      assert.are.equal('{\n"a": [\n16,\n1,\n1,\n1,\n-0,\n0.25,\n1.5e3,\n2\n]\n}', qjson.encode(v, { indent = "" }))
      assert.are.equal("[16,1,1,1,-0,0.25,1.5e3,2]", qjson.encode(v.a))
      v.b = true
      assert.are.equal(WANT:sub(1, -2) .. ',"b":true}', qjson.encode(v))
      assert.are.equal(WANT:sub(1, -2) .. ',"b":true}', qjson.encode(v, { sort_keys = true }))
      v.a[2] = "x"
      assert.are.equal('{"a":[16,"x",1,1,-0,0.25,1.5e3,2],"b":true}', qjson.encode(v))
      assert.are.equal('[{"a":[16,"x",1,1,-0,0.25,1.5e3,2],"b":true}]', require("qjson.cjson").encode({ v }))
    end
  end)

  it("follows encode_invalid_numbers", function()
    local q = qjson.new()
    q.decode_views(true)
    q.encode_invalid_numbers(true)
    assert.are.equal('{"a":[NaN,-Infinity,16,1,1,1]}', q.encode(q.decode(TEXT, { invalid_numbers = true })))
    q.encode_invalid_numbers("null")
    assert.are.equal('{"a":[null,null,16,1,1,1]}', q.encode(q.decode(TEXT, { invalid_numbers = true })))
    -- (A lazy document's copied bytes are checked: with NaN allowed, the
    -- check would let 0x10 through; it is read, and raises, instead.)
    q.encode_invalid_numbers(true)
    assert.matches("^qjson: invalid number at line 1, column %d+ %(byte %d+%)$",
      error_of(q.encode, qjson.parse("[0x10]", { mode = "lazy" }):get()))
    assert.are.equal("[16]", q.encode(qjson.parse("[0x10]", { mode = "lazy", invalid_numbers = true }):get()))
  end)

  it("keeps the bytes of a document whose numbers are all JSON", function()
    local text = '{"a": [1, 2.50, "\\u0041"]}'
    for _, v in ipairs(views(text)) do
      assert.are.equal(text, qjson.encode(v))
      v.b = 1
      assert.are.equal('{"a":[1, 2.50, "\\u0041"],"b":1}', qjson.encode(v))
    end
  end)

  it("writes JSON for a parse_file document", function()
    local path = os.tmpname()
    support.write(path, FINITE)
    local ok, out = pcall(function()
      return qjson.encode(qjson.parse_file(path, { invalid_numbers = true }):get())
    end)
    os.remove(path)
    assert(ok, out)
    assert.are.equal(WANT, out)
  end)
end)

describe("raw table operations on a view", function()
  it("a view given another metatable is refused by encode and materialize", function()
    -- (encode printed its private fields: {"\255parent":...}.)
    for _, mt in ipairs({ cjson.empty_array_mt, cjson.array_mt, {}, false }) do
      local v = qjson.decode('{"o":{"a":1},"list":[1]}')
      local o = v.o
      setmetatable(o, mt or nil)
      local MSG = "Cannot serialise a qjson view whose metatable was changed (setmetatable): encode the view itself"
      assert.are.equal(MSG, error_of(qjson.encode, o))
      assert.are.equal(MSG, error_of(qjson.encode, o, { indent = 1 }))
      assert.are.equal(MSG, error_of(qjson.encode, { o }))
      assert.matches("cannot materialize a view whose metatable was changed", error_of(qjson.materialize, { o }))
    end
  end)

  it("table.insert makes iteration, length, encode and materialize raise", function()
    local MSG = "^qjson: a view was changed past its metamethods"
    local v = qjson.decode('{"list":[1,2],"o":{"a":1}}')
    table.insert(v.list, 3)
    assert.matches(MSG, error_of(qjson.len, v.list))
    assert.matches(MSG, error_of(qjson.pairs, v.list))
    assert.matches(MSG, error_of(qjson.ipairs, v.list))
    assert.matches(MSG, error_of(qjson.encode, v.list))
    assert.matches(MSG, error_of(qjson.encode, v.list, { indent = 2 }))
    -- Also from an ancestor that would copy the array's bytes (alone or
    -- in a table).
    assert.matches(MSG, error_of(qjson.encode, v))
    assert.matches(MSG, error_of(qjson.encode, { v }))
    assert.matches(MSG, error_of(qjson.materialize, v))
    assert.matches(MSG, error_of(qjson.materialize, { v }))
    if support.lua52compat then
      assert.matches(MSG, error_of(function() return #v.list end))
    end
    local d = qjson.parse('{"a":{"l":[1]}}')
    table.insert(d:get("a.l"), 2)
    assert.matches(MSG, error_of(qjson.encode, d:get()))
  end)

  it("rawset of a new key is seen by reads of that key only (docs/api.md)", function()
    local v = qjson.decode('{"o":{"a":1}}')
    rawset(v.o, "b", 2)
    assert.are.equal(2, v.o.b)
    local keys = {}
    for k in qjson.pairs(v.o) do
      keys[#keys + 1] = k
    end
    assert.are.same({ "a" }, keys)
    assert.are.equal('{"o":{"a":1}}', qjson.encode(v))
    assert.are.same({ o = { a = 1 } }, qjson.materialize(v))
  end)
end)

describe("smaller", function()
  it("a NaN key raises and leaves nothing behind", function()
    local v = qjson.decode('{"a":1}')
    assert.matches("table index is NaN", error_of(function() v[0 / 0] = 1 end))
    local keys = {}
    for k in qjson.pairs(v) do
      keys[#keys + 1] = tostring(k)
    end
    assert.are.same({ "a" }, keys)
    assert.are.equal('{"a":1}', qjson.encode(v))
  end)

  it("array indexes past any length read nil, not a wrapped index", function()
    local a = qjson.decode('[1,2,3]')
    for _, i in ipairs({ 2 ^ 32, 2 ^ 32 + 1, 2 ^ 53, 2 ^ 64, 2 ^ 64 + 2 ^ 12, 1e300, math.huge }) do
      assert.is_nil(a[i], tostring(i))
    end
  end)

  it("qjson.insert(a, nil) appends nothing, as table.insert", function()
    local a = qjson.decode('[1]')
    qjson.insert(a, nil)
    local t = { 1 }
    table.insert(t, nil)
    assert.are.equal(#t, qjson.len(a))
    assert.are.equal("[1]", qjson.encode(a))
  end)

  it("materialize keeps a cycle through a plain table or a view, with no view left", function()
    local v = qjson.decode('{"x":{"y":1}}')
    local t = { v = v }
    v.t = t
    local m = qjson.materialize(t)
    assert.is_false(qjson.materialize(v) == v)
    assert.are.equal(nil, getmetatable(m.v))
    assert.are.equal(m, m.v.t)
    assert.are.equal(1, m.v.x.y)
    local w = qjson.decode('{"a":[1]}')
    w.self = w
    local mw = qjson.materialize(w)
    assert.are.equal(mw, mw.self)
    assert.are.equal(1, mw.a[1])
    local p = {}
    p.p = p
    local mp = qjson.materialize(p)
    assert.are.equal(mp, mp.p)
  end)

  it("indent accepts JSON whitespace only", function()
    assert.matches("bad option 'indent'", error_of(qjson.encode, { 1 }, { indent = '"' }))
    assert.matches("bad option 'indent'", error_of(qjson.encode, { 1 }, { indent = "--" }))
    assert.are.equal("[\n\t1\n]", qjson.encode({ 1 }, { indent = "\t" }))
    assert.are.equal("[\n\r\n1\n]", qjson.encode({ 1 }, { indent = "\r\n" }))
  end)

  it("option errors show a string as a string", function()
    assert.matches('expected, got "64"%)%)$', error_of(qjson.decode, "[1]", { max_depth = "64" }))
    assert.matches('expected, got "64"%)%)$', error_of(qjson.parse, "[1]", { max_depth = "64" }))
    assert.matches('expected, got "5"%)%)$', error_of(qjson.encode, {}, { precision = "5" }))
    assert.matches('expected, got "yes"%)%)$', error_of(qjson.encode, {}, { sort_keys = "yes" }))
    assert.matches('expected, got table%)%)$', error_of(qjson.decode, "1", { big_int = {} }))
  end)

  it("encode of a document or cursor says what to encode", function()
    local d = qjson.parse('{"a":[1]}')
    local MSG = "Cannot serialise a qjson document or cursor: encode doc:get() (a view of it) instead"
    assert.are.equal(MSG, error_of(qjson.encode, d))
    assert.are.equal(MSG, error_of(qjson.encode, { d:open("a") }))
    assert.are.equal(MSG, error_of(qjson.encode, require("qjson.safe").parse("[]")))
  end)
end)
