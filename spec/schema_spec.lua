-- qjson.schema: compile once, validate bodies, documents, cursors and
-- views; errors with their places; options; qjson.safe's variants. Runs
-- on PUC Lua too (crates/puc/src/schema.rs: no views there; the cases
-- about views are tagged #luajit).
local support = require("support")
local qjson = require("qjson")
local safe = require("qjson.safe")

local SCHEMA = [[{"type":"object","required":["name","items"],"additionalProperties":false,
  "properties":{"name":{"type":"string","maxLength":5},
  "items":{"type":"array","items":{"type":"integer"}}}}]]

describe("qjson.schema", function()
  it("validates a body string", function()
    local v = qjson.schema(SCHEMA)
    assert.is_true(v:validate('{"name":"ab","items":[1,2]}'))
    assert.is_true(v:is_valid('{"name":"ab","items":[1,2]}'))
    local ok, errors = v:validate('{"name":"abcdef",\n "items":[1,"x"]}')
    assert.is_false(ok)
    assert.equal(2, #errors)
    table.sort(errors, function(a, b) return a.byte < b.byte end)
    assert.same({ instance_location = "/name", keyword_location = "/properties/name/maxLength",
      line = 1, column = 9, byte = 8, message = errors[1].message }, errors[1])
    assert.matches("longer than 5", errors[1].message)
    assert.same({ "/items/1", "/properties/items/items/type", 2, 13, 30 },
      { errors[2].instance_location, errors[2].keyword_location, errors[2].line, errors[2].column, errors[2].byte })
    assert.is_false(v:is_valid('{"name":"abcdef","items":[]}'))
  end)

  it("tells arrays from objects and integers from other numbers", function()
    local v = qjson.schema({ type = "object" })
    assert.is_true(v:is_valid("{}"))
    assert.is_false(v:is_valid("[]"))
    local int = qjson.schema('{"type":"integer"}')
    assert.is_true(int:is_valid("3"))
    assert.is_false(int:is_valid("3.5"))
    assert.is_false(qjson.schema('{"type":"integer"}', { draft = 4 }):is_valid("3.0"))
  end)

  it("validates documents, cursors and views in place", function()
    local v = qjson.schema('{"type":"array","items":{"type":"integer"}}')
    local d = qjson.parse('{"a":[1,2],"b":[1,"x"]}')
    assert.is_true(v:validate(d:get("a")))
    local ok, errors = v:validate(d:open("b"))
    assert.is_false(ok)
    assert.equal("/1", errors[1].instance_location)
    assert.equal(18, errors[1].byte)
    -- d:get's view too (PUC Lua has no views: a table, encoded).
    ok, errors = v:validate(d:get("b"))
    assert.is_false(ok)
    assert.equal(support.puc and 3 or 18, errors[1].byte)
    assert.is_false(v:is_valid(d))
    local lazy = qjson.parse('{"b":[1,"x"]}', { mode = "lazy" })
    assert.is_false(v:is_valid(lazy:get("b")))
    local t = qjson.decode('{"a":[1,2],"b":[1,"x"]}')
    assert.is_true(v:is_valid(t.a))
    assert.is_false(v:is_valid(t.b))
    -- An edited view is validated as it would encode.
    t.b[2] = 7
    assert.is_true(v:is_valid(t.b))
    t.a[1] = "y"
    assert.is_false(v:is_valid(t.a))
    -- Plain tables are encoded first.
    assert.is_true(v:is_valid({ 1, 2 }))
  end)

  it("takes the schema as a string, a table or a view", function()
    local from_view = qjson.schema(qjson.decode('{"s":{"type":"string"}}').s)
    assert.is_true(from_view:is_valid('"x"'))
    assert.is_false(from_view:is_valid("1"))
  end)

  it("reports a body that is not JSON as invalid, with its place", function()
    local v = qjson.schema("{}")
    local ok, errors = v:validate('{"a":\n  tru}')
    assert.is_false(ok)
    assert.matches("invalid literal", errors[1].message)
    assert.same({ 2, 3 }, { errors[1].line, errors[1].column })
    assert.is_false(v:is_valid("{"))
  end)

  it("raises on an invalid schema, saying where", function()
    local ok, err = pcall(qjson.schema, '{"properties":{"a":{"minLength":-1}}}')
    assert.is_false(ok)
    assert.matches("invalid schema at /properties/a/minLength", err, 1, true)
    assert.error_matches(function() qjson.schema("{") end, "not JSON")
    assert.error_matches(function() qjson.schema(42) end, "bad argument #1 to 'schema'")
    assert.error_matches(function() qjson.schema("{}", { draft = 5 }) end, "draft")
    assert.error_matches(function() qjson.schema("{}", { bogus = 1 }) end, "unknown option 'bogus'")
    assert.error_matches(function() qjson.schema("{}"):validate(nil) end, "bad argument #1 to 'validate'")
  end)

  it("names the argument and the option in every refusal, at the caller", function()
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return e
    end
    local here = "^[^:]*schema_spec.lua:%d+: "
    -- (A function called from here, so that the position is this file's.)
    local function compile(...)
      return (qjson.schema(...))
    end
    assert.matches(here .. "qjson: invalid schema at /type: ", err(compile, '{"type":12}'))
    assert.matches("bad argument #2 to 'schema' %(options table expected, got string%)", err(compile, "{}", "x"))
    assert.matches("draft: 4, 6, 7, '2019-09' or '2020-12' expected, got 5", err(compile, "{}", { draft = 5 }), 1, true)
    assert.matches('openapi: "3.0" expected, got 3.1', err(compile, "{}", { openapi = "3.1" }), 1, true)
    assert.matches("max_errors: positive integer expected, got 1.5", err(compile, "{}", { max_errors = 1.5 }), 1, true)
    assert.matches("max_depth: positive integer expected, got x", err(compile, "{}", { max_depth = "x" }), 1, true)
    assert.matches("unknown option '1'", err(compile, "{}", { 7 }), 1, true)
    assert.matches("remotes: table of URI %-> document expected, got string", err(compile, "{}", { remotes = "x" }))
    assert.matches("remotes: URI string keys expected, got number", err(compile, "{}", { remotes = { 1 } }))
    local expected = support.puc and "JSON string or table" or "JSON string, table or view"
    assert.matches("bad argument #2 to 'schema' (remote document as " .. expected .. " expected, got number)",
      err(compile, "{}", { remotes = { u = 1 } }), 1, true)
    assert.matches("bad argument #1 to 'schema'", err(compile, print))
    local v = qjson.schema("{}")
    assert.matches("bad argument #1 to 'validate' %(qjson.schema expected%)", err(v.validate, {}, "1"))
    assert.matches("bad argument #1 to 'is_valid' %(qjson.schema expected%)", err(v.is_valid, 1, "1"))
    assert.matches("bad argument #1 to 'is_valid' %(JSON string, document", err(v.is_valid, v, 1))
    assert.equal("qjson.schema", tostring(v))
  end)

  it("accepts every draft spelling, true and false schemas, and several remotes", function()
    for _, d in ipairs({ 4, 6, 7, "4", "6", "7", "2019-09", "2020-12" }) do
      assert.is_true(qjson.schema('{"type":"integer"}', { draft = d }):is_valid("1"), tostring(d))
    end
    assert.is_true(qjson.schema(true):is_valid("[1]"))
    assert.is_false(qjson.schema(false):is_valid("1"))
    local remotes = {
      ["http://example.com/a.json"] = '{"type":"integer"}',
      ["http://example.com/b.json"] = { ["$ref"] = "a.json", minimum = 10 },
    }
    local v = qjson.schema('{"$ref":"http://example.com/b.json"}', { remotes = remotes, max_depth = 10 })
    assert.is_true(v:is_valid("12"))
    assert.is_false(v:is_valid("12.5"))
    assert.is_false(v:is_valid("3"))
    assert.is_true(qjson.schema("{}", { remotes = {} }):is_valid("1"))
  end)

  it("raises for a closed document, at the caller", function()
    local v = qjson.schema('{"type":"array"}')
    local d = qjson.parse('{"a":[1]}')
    local cursor = d:open("a")
    assert.is_true(v:validate(cursor))
    d:close()
    local function check(...)
      return (v:validate(...))
    end
    local ok, err = pcall(check, cursor)
    assert.is_false(ok)
    assert.matches("^[^:]*schema_spec.lua:%d+: qjson: document is closed", err)
    assert.error_matches(function() v:is_valid(d) end, "qjson: document is closed")
  end)

  it("honours the options", function()
    assert.is_true(qjson.schema('{"format":"ipv4"}'):is_valid('"999.1.1.1"'))
    assert.is_false(qjson.schema('{"format":"ipv4"}', { format = true }):is_valid('"999.1.1.1"'))
    -- Formats through the Lua API (every format against the suite: crates/core/tests/schema_conformance.rs).
    for fmt, cases in pairs({
      ["date-time"] = { '"2026-11-26T01:02:03Z"', '"2026-13-26T01:02:03Z"' },
      uuid = { '"2eb8aa08-aa98-11ea-b4aa-73b441d16380"', '"2eb8aa08-aa98-11ea-b4aa-73b441d1638"' },
      ["idn-hostname"] = { '"\\u5b9e\\u4f8b.\\u6d4b\\u8bd5"', '"-\\u5b9e\\u4f8b"' },
    }) do
      local v = qjson.schema(('{"format":"%s"}'):format(fmt), { format = true })
      assert.is_true(v:is_valid(cases[1]), fmt)
      assert.is_false(v:is_valid(cases[2]), fmt)
    end
    local schema = '{"$ref":"http://example.com/defs.json#/$defs/pos"}'
    local v = qjson.schema(schema, { remotes = {
      ["http://example.com/defs.json"] = { ["$defs"] = { pos = { type = "number", minimum = 0 } } } } })
    assert.is_true(v:is_valid("3"))
    assert.is_false(v:is_valid("-3"))
    assert.error_matches(function() qjson.schema(schema) end, "never fetches")
    local oa = qjson.schema('{"type":"string","nullable":true}', { openapi = "3.0" })
    assert.is_true(oa:is_valid("null"))
    assert.is_false(qjson.schema('{"type":"string","nullable":true}'):is_valid("null"))
    local few = qjson.schema('{"items":{"type":"string"}}', { max_errors = 3 })
    local _, errors = few:validate("[1,2,3,4,5,6]")
    assert.equal(3, #errors)
  end)

  it("refuses hostile instances and patterns clearly, in bounded time", function()
    local v = qjson.schema('{"items":{"$ref":"#"}}')
    local ok, errors = v:validate(("["):rep(1000) .. ("]"):rep(1000))
    assert.is_false(ok)
    assert.matches("deeper than the schema's max_depth %(256%)", errors[1].message)
    ok, errors = v:validate(("["):rep(1000000) .. ("]"):rep(1000000))
    assert.is_false(ok)
    assert.matches("max_depth", errors[1].message)
    local p = qjson.schema('{"pattern":"^(a|a)*(?!x)b$"}')
    ok, errors = p:validate('"' .. ("a"):rep(40) .. '"')
    assert.is_false(ok)
    assert.matches("backtrack", errors[1].message:lower())
  end)

  it("compares enum, const and numbers on the body's own text", function()
    -- Issue 39: numbers beyond binary64 and deep nesting compared as null.
    local role = qjson.schema('{"enum":[null,{}]}')
    assert.is_false(role:is_valid('{"role":"admin","pad":1e400}'))
    assert.is_false(qjson.schema('{"enum":[null]}'):is_valid(("["):rep(130) .. ("]"):rep(130)))
    assert.is_false(qjson.schema('{"maximum":0}'):is_valid("1e-400"))
    assert.is_true(qjson.schema('{"multipleOf":2}'):is_valid("1e400"))
    assert.is_true(qjson.schema('{"uniqueItems":true}'):is_valid("[1e400,-1e400]"))
    assert.is_false(qjson.schema('{"const":18446744073709551617}'):is_valid("18446744073709551616"))
  end)

  it("validates a view changed past its metamethods as encode does: with its error #luajit", function()
    local MSG = "^qjson: a view was changed past its metamethods"
    local v = qjson.schema('{"properties":{"a":{"properties":{"l":{"maxItems":1}}}}}')
    local d = qjson.parse('{"a":{"l":[1]}}')
    local root = d:get()
    assert.is_true(v:is_valid(root))
    table.insert(d:get("a.l"), 2)
    local function error_of(f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      return tostring(err)
    end
    assert.matches(MSG, error_of(qjson.materialize, root))
    assert.matches(MSG, error_of(v.is_valid, v, root))
    assert.matches(MSG, error_of(v.validate, v, root))
  end)

  it("bounds the backtracking of a whole validation", function()
    local parts = {}
    for i = 1, 1100 do
      parts[i] = '"' .. ("a"):rep(26) .. "b" .. i .. '"'
    end
    local body = "[" .. table.concat(parts, ",") .. "]"
    local v = qjson.schema('{"items":{"pattern":"^(a|aa)*\\\\1$"}}')
    local ok, errors = v:validate(body)
    assert.is_false(ok)
    assert.equal(1, #errors)
    assert.equal("pattern cannot be matched within backtrack_limit steps of backtracking", errors[1].message)
    assert.equal("/0", errors[1].instance_location)
    assert.is_false(v:is_valid(body))
    local costly = qjson.schema('{"items":{"pattern":"^(a|aa)*\\\\1$"}}', { backtrack_limit = 10000000 })
    ok, errors = costly:validate(body)
    assert.is_false(ok)
    assert.matches("backtrack_budget %(1000000 steps%)", errors[1].message)
    local small = qjson.schema('{"items":{"pattern":"^(a+)b\\\\1$"}}', { backtrack_budget = 2500 })
    assert.is_true(small:is_valid('["aabaa","aba"]'))
    assert.is_false(small:is_valid('["aabaa","aba","aba"]'))
    assert.error_matches(function() qjson.schema("{}", { backtrack_budget = 0 }) end, "positive integer")
  end)

  it("reports a large instance's first error only, in bounded memory", function()
    -- Collecting all of a million errors took the process's peak RSS up
    -- by ~350 MB.
    local function peak_kb()
      local f = io.open("/proc/self/status")
      local kb = f and tonumber(f:read("*a"):match("VmHWM:%s*(%d+)"))
      if f then
        f:close()
      end
      return kb
    end
    local v = qjson.schema('{"items":{"type":"string"}}')
    local body = "[" .. ("1,"):rep(1000000) .. "1]"
    local before = peak_kb()
    local ok, errors = v:validate(body)
    assert.is_false(ok)
    assert.equal(1, #errors)
    assert.equal("/0", errors[1].instance_location)
    if before then
      assert.is_true(peak_kb() - before < 65536, "peak RSS grew by " .. (peak_kb() - before) .. " KB")
    end
  end)

  it("writes large reports into a buffer of their own", function()
    local v = qjson.schema('{"items":{"type":"string"}}', { max_errors = 5000 })
    local body = "[" .. ("1,"):rep(2999) .. "1]"
    local ok, errors = v:validate(body)
    assert.is_false(ok)
    assert.equal(3000, #errors)
    assert.equal("/2999", errors[3000].instance_location)
    assert.is_true(v:validate('["a"]'))
  end)

  it("survives collection of validators between calls", function()
    for _ = 1, 200 do
      local v = qjson.schema('{"type":"string"}')
      assert.is_true(v:is_valid('"x"'))
    end
    collectgarbage()
    collectgarbage()
  end)
end)

describe("qjson.safe.schema", function()
  it("returns nil and a message instead of raising", function()
    local v, err = safe.schema('{"type":12}')
    assert.is_nil(v)
    assert.matches("invalid schema", err)
    v = assert(safe.schema('{"type":"string"}'))
    assert.is_true(v:validate('"x"'))
    local ok, errors = v:validate("1")
    assert.is_false(ok)
    assert.equal("/type", errors[1].keyword_location)
    local r, msg = v:validate(nil)
    assert.is_nil(r)
    assert.matches("bad argument #1 to 'validate'", msg)
    assert.is_false(v:is_valid("1"))
    r, msg = v:is_valid(print)
    assert.is_nil(r)
    assert.matches("bad argument #1 to 'is_valid'", msg)
    v, err = safe.schema("{}", { draft = 5 })
    assert.is_nil(v)
    assert.matches("draft", err)
    local d = qjson.parse("[1]")
    v = assert(safe.schema('{"type":"array"}'))
    d:close()
    r, msg = v:validate(d)
    assert.is_nil(r)
    assert.equal("qjson: document is closed", msg)
  end)
end)

describe("qjson.schema on PUC Lua", function()
  it("encodes tables with the instance's encoder", function()
    if not support.puc then
      pending("on LuaJIT, qjson.new()'s schema encodes with qjson.encode")
      return
    end
    local inst = qjson.new()
    inst.encode_empty_table_as_object(false)
    assert.is_true(inst.schema('{"type":"array"}'):is_valid({}))
    assert.is_false(qjson.schema('{"type":"array"}'):is_valid({}))
    -- The schema too: {} is the empty array here, which no draft accepts as a schema.
    assert.error_matches(function() inst.schema({}) end, "invalid schema")
  end)
end)
