-- qjson.patch, qjson.merge_patch and qjson.patcher (lua/qjson/patch.lua
-- over crates/core/src/patch/): the json-patch-tests suite, RFC 7386's
-- examples, a differential against the same operations applied to
-- qjson.cjson.decode'd tables, byte passthrough, errors, per-call values.
local support = require("support")
local qjson = require("qjson")
if not support.puc then
  qjson.decode_views(true) -- views on every build (see spec/support.lua)
end
local cjson = require("qjson.cjson")

local stressed = os.getenv("QJSON_GC_STRESS") == "1"
local have_data = support.exists(support.data .. "/json-patch-tests/tests.json")

-- The same JSON value (cjson's tables: numbers by value, [] and {} alike).
local function same(a_text, b)
  return support.deep_equal(cjson.decode(a_text), b)
end

describe("qjson.patch: the json-patch-tests suite", function()
  it("applies every enabled case as expected and refuses every case with an error", function()
    if not have_data then
      pending("../shared/data/json-patch-tests is absent")
      return
    end
    local applied, refused, disabled = 0, 0, 0
    for _, file in ipairs({ "tests.json", "spec_tests.json" }) do
      local text = support.read(support.data .. "/json-patch-tests/" .. file)
      local cases = cjson.decode(text)
      local d = qjson.parse(text)
      for i, case in ipairs(cases) do
        local where = file .. " #" .. i .. " (" .. tostring(case.comment) .. ")"
        if case.disabled then
          disabled = disabled + 1
        else
          -- The texts as the suite writes them ([] and {} kept apart).
          local doc, ops = d:raw("/" .. (i - 1) .. "/doc"), d:raw("/" .. (i - 1) .. "/patch")
          local ok, got = pcall(qjson.patch, doc, ops)
          if case.error then
            assert(not ok, where .. ": expected an error (" .. case.error .. "), got " .. tostring(got))
            assert.matches("^qjson: ", got)
            refused = refused + 1
          else
            assert(ok, where .. ": " .. tostring(got))
            if case.expected ~= nil then
              local eq, at = same(got, case.expected)
              assert(eq, where .. ": got " .. got .. " (differs at " .. tostring(at) .. ")")
            end
            applied = applied + 1
          end
        end
      end
    end
    print(("json-patch-tests: %d applied as expected, %d refused as expected, %d disabled (skipped)")
      :format(applied, refused, disabled))
    assert.are.same({ 74, 34, 4 }, { applied, refused, disabled })
  end)
end)

describe("qjson.merge_patch: RFC 7386's examples (appendix A)", function()
  local examples = {
    { '{"a":"b"}', '{"a":"c"}', '{"a":"c"}' },
    { '{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}' },
    { '{"a":"b"}', '{"a":null}', '{}' },
    { '{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}' },
    { '{"a":["b"]}', '{"a":"c"}', '{"a":"c"}' },
    { '{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}' },
    { '{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}' },
    { '{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}' },
    { '["a","b"]', '["c","d"]', '["c","d"]' },
    { '{"a":"b"}', '["c"]', '["c"]' },
    { '{"a":"foo"}', 'null', 'null' },
    { '{"a":"foo"}', '"bar"', '"bar"' },
    { '{"e":null}', '{"a":1}', '{"e":null,"a":1}' },
    { '[1,2]', '{"a":"b","c":null}', '{"a":"b"}' },
    { '{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}' },
  }
  for i, ex in ipairs(examples) do
    it("example " .. i .. ": " .. ex[1] .. " + " .. ex[2], function()
      assert.are.equal(ex[3], qjson.merge_patch(ex[1], ex[2]))
    end)
  end

  it("takes the patch as a table, and a document or cursor as the target", function()
    local d = qjson.parse('{"a" : 1, "b":{"c":2}}')
    assert.are.equal('{"a" : 1,"b":{"c":2,"d":3}}', qjson.merge_patch(d, { b = { d = 3 } }))
    assert.are.equal('{"c":2,"d":3}', qjson.merge_patch(d:open("b"), '{"d":3}'))
  end)

  it("takes a view as the target #luajit", function()
    local v = qjson.decode('{"a" : 1, "b":{"c":2}}')
    assert.are.equal('{"a" : 1}', qjson.merge_patch(v, { b = qjson.null }))
  end)

  it("takes no options", function()
    assert.has_error(function() qjson.merge_patch("{}", "{}", {}) end,
      "bad argument #3 to 'merge_patch' (merge_patch takes no options)")
  end)
end)

describe("qjson.patch: untouched bytes", function()
  local body = '{ "model" : "m",\n  "n": 1.50, "t": 0.70 ,"messages":[ {"a" :1e0} ]\n}'

  it("copies every member the patch does not touch as its bytes (whitespace, number text)", function()
    local r = qjson.patch(body, { { op = "replace", path = "/t", value = 0.2 } })
    assert.are.equal('{ "model" : "m",\n  "n": 1.50,"t":0.2,"messages":[ {"a" :1e0} ]\n}', r)
    r = qjson.patch(body, { { op = "add", path = "/messages/-", value = { b = 2 } } })
    -- (The space before a comma of an object the patch goes into is not a
    -- member's, and not kept.)
    assert.are.equal('{ "model" : "m",\n  "n": 1.50, "t": 0.70,"messages":[ {"a" :1e0},{"b":2} ]\n}', r)
  end)

  it("reads a document or cursor where it lies", function()
    local d = qjson.parse(body)
    assert.are.equal(qjson.patch(body, { { op = "remove", path = "/n" } }),
      qjson.patch(d, { { op = "remove", path = "/n" } }))
    -- A cursor: the value it is at.
    assert.are.equal('[ {"a" :1e0},2 ]', qjson.patch(d:open("/messages"), { { op = "add", path = "/-", value = 2 } }))
    -- A table: encoded first.
    assert.are.equal('{"a":2}', qjson.patch({ a = 1 }, { { op = "replace", path = "/a", value = 2 } }))
    d:close()
    assert.has_error(function() qjson.patch(d, "[]") end, "qjson: document is closed")
  end)

  it("reads an unedited view where it lies; an edited view is encoded first #luajit", function()
    local v = qjson.decode(body)
    local remove_n = { { op = "remove", path = "/n" } }
    assert.are.equal(qjson.patch(body, remove_n), qjson.patch(v, remove_n))
    v.model = "z"
    local r = qjson.patch(v, { { op = "remove", path = "/n" } })
    assert(same(r, { model = "z", t = 0.7, messages = { { a = 1 } } }))
  end)

  it("patches a lazy-mode document as its checked text", function()
    local d = qjson.parse('{"a":1, "b": [01]}', { mode = "lazy" })
    local ok, err = pcall(qjson.patch, d, { { op = "remove", path = "/a" } })
    assert.is_false(ok)
    assert.matches("the target is not JSON", err)
  end)
end)

describe("qjson.patch: errors", function()
  it("names the failing operation (from 1) and its pointer, and applies nothing", function()
    local ops = { { op = "add", path = "/x", value = 1 }, { op = "remove", path = "/a/b" } }
    assert.has_error(function() qjson.patch('{"a":{}}', ops) end,
      'qjson: operation 2: remove at "/a/b": no such member')
  end)

  it("says a test failed as such", function()
    assert.has_error(function() qjson.patch('{"a":1}', '[{"op":"test","path":"/a","value":2}]') end,
      'qjson: operation 1: test at "/a" failed: the values differ')
  end)

  it("refuses a malformed patch, a target that is not JSON, and a result over max_size", function()
    assert.has_error(function() qjson.patch("{}", '{"op":"add"}') end,
      "qjson: a JSON Patch is an array of operations")
    assert.has_error(function() qjson.patch("{}", { { op = "jump", path = "" } }) end,
      'qjson: operation 1: unknown op "jump" (add, remove, replace, move, copy or test)')
    assert.has_error(function() qjson.patch("{", "[]") end,
      "qjson: unexpected end of input at line 1, column 2 (byte 1)")
    assert.has_error(function() qjson.patch("{}", { { op = "add", path = "/a", value = string.rep("x", 100) } },
      { max_size = 10 }) end, "qjson: operation 1: the result would be larger than max_size (10 bytes)")
  end)

  it("raises argument errors at the caller, as the rest of the API", function()
    local err = support.error_of(function() local r = qjson.patch(1, "[]") return r end)
    assert(support.points_at(err, "patch_spec.lua"), err)
    local expected = support.puc and "JSON string, document or table" or "JSON string, document, view or table"
    assert.matches("bad argument #1 to 'patch' %(" .. expected .. " expected, got number%)", err)
    err = support.error_of(function()
      local r = qjson.patcher({ { op = "add", path = "/a" } }):apply("{}")
      return r
    end)
    assert(support.points_at(err, "patch_spec.lua"), err)
    err = support.error_of(function() local r = qjson.merge_patch("{}", "{}", 1) return r end)
    assert(support.points_at(err, "patch_spec.lua"), err)
    err = support.error_of(qjson.patch, "{}", true)
    assert.matches("bad argument #2 to 'patch' %(JSON string or table expected, got boolean%)", err)
    assert.matches("unknown option 'indent'", support.error_of(qjson.patch, "{}", "[]", { indent = 2 }))
    assert.matches("bad option 'max_size' %(positive integer expected, got 0%)",
      support.error_of(qjson.patch, "{}", "[]", { max_size = 0 }))
  end)

  it("an empty table is an empty patch", function()
    assert.are.equal('{"a" : 1}', qjson.patch('{"a" : 1}', {}))
  end)

  it("qjson.safe returns nil and the message", function()
    local safe = require("qjson.safe")
    local r, err = safe.patch('{"a":1}', '[{"op":"test","path":"/a","value":2}]')
    assert.is_nil(r)
    assert.are.equal('qjson: operation 1: test at "/a" failed: the values differ', err)
    r, err = safe.merge_patch("{", "{}")
    assert.is_nil(r)
    assert.matches("unexpected end of input", err)
    local p = safe.patcher({ { op = "replace", path = "/a" } })
    r, err = p:apply('{"b":1}', 1)
    assert.is_nil(r)
    assert.are.equal('qjson: operation 1: replace at "/a": no such member', err)
    assert.are.equal('{"a":1}', p:apply('{"a":0}', 1))
    assert.is_nil((safe.patcher('[{"op":"add"}]')))
  end)
end)

describe("qjson.patcher: values per call", function()
  it("gives value-less add, replace and test the call's values in order", function()
    local p = qjson.patcher({
      { op = "test", path = "/model" },
      { op = "replace", path = "/temperature" },
      { op = "remove", path = "/user" },
      { op = "add", path = "/tags" },
      { op = "add", path = "/n", value = 1 },
    })
    local body = '{"model":"m", "temperature": 1, "user":"u"}'
    assert.are.equal('{"model":"m","temperature":0.2,"tags":["a","b"],"n":1}',
      p:apply(body, { "m", 0.2, { "a", "b" } }))
    -- The same patcher, other values.
    assert.has_error(function() p:apply(body, { "x", 0.2, {} }) end,
      'qjson: operation 1: test at "/model" failed: the values differ')
    assert.are.equal('{"model":"m","temperature":null,"tags":"t","n":1}',
      p:apply(body, { "m", qjson.null, "t" }))
  end)

  it("takes a single value as itself, even a table", function()
    local p = qjson.patcher({ { op = "replace", path = "/a" } })
    assert.are.equal('{"a":[1,2]}', p:apply('{"a":0}', { 1, 2 }))
    assert.are.equal('{"a":"s"}', p:apply('{"a":0}', "s"))
  end)

  it("refuses missing, extra and unwanted values", function()
    local one = qjson.patcher({ { op = "replace", path = "/a" } })
    assert.matches("bad argument #2 to 'apply' %(the patch takes a value", support.error_of(one.apply, one, "{}"))
    local two = qjson.patcher({ { op = "replace", path = "/a" }, { op = "add", path = "/b" } })
    assert.matches("value 2 of 2 missing", support.error_of(two.apply, two, "{}", { 1 }))
    assert.matches("takes 2 values, more given", support.error_of(two.apply, two, "{}", { 1, 2, 3 }))
    assert.matches("table expected, got number", support.error_of(two.apply, two, "{}", 1))
    local none = qjson.patcher({ { op = "remove", path = "/a" } })
    assert.matches("takes no values", support.error_of(none.apply, none, '{"a":1}', 1))
    assert.are.equal("{}", none:apply('{"a":1}'))
  end)
end)

-- The differential: random operations on the corpus documents, applied
-- by qjson.patch to the text and here to cjson's tables; after each patch
-- the two must be the same value.
local function is_array(t)
  return t[1] ~= nil
end

local function escape(k)
  return (k:gsub("~", "~0"):gsub("/", "~1"))
end

-- A random existing path (list of Lua keys) into `t`, and the pointer:
-- two steps at least where it can (the corpus roots have few members),
-- then one more with probability 1 - `stop`.
local function random_path(rand, t, stop)
  local keys, ptr = {}, ""
  local here = t
  while type(here) == "table" and next(here) ~= nil and (#keys < 2 or rand() > stop) do
    local k
    if is_array(here) then
      k = rand(#here)
      ptr = ptr .. "/" .. (k - 1)
    else
      local names = {}
      for name in pairs(here) do
        names[#names + 1] = name
      end
      table.sort(names)
      k = names[rand(#names)]
      ptr = ptr .. "/" .. escape(k)
    end
    keys[#keys + 1] = k
    here = here[k]
  end
  return keys, ptr, here
end

local function parent_of(t, keys)
  for i = 1, #keys - 1 do
    t = t[keys[i]]
  end
  return t, keys[#keys]
end

local function deep_copy(v)
  if type(v) ~= "table" then
    return v
  end
  local c = {}
  for k, x in pairs(v) do
    c[k] = deep_copy(x)
  end
  return c
end

local VALUES = { 0.25, -3, "new", true, false, { k = "v" }, { 1, 2, 3 }, "\226\130\172" }

-- One random operation applicable to `t`, applied to `t` (returns the new
-- root and the operation), or nil when none was found.
local function random_op(rand, t, n)
  local kind = ({ "add", "remove", "replace", "copy", "move", "test" })[rand(6)]
  local keys, ptr, here = random_path(rand, t, 0.3)
  if #keys == 0 then
    return nil
  end
  local parent, last = parent_of(t, keys)
  if kind == "test" then
    -- (Scalars only: an empty table would encode as {} where the text may
    -- have []. And numbers that encode as themselves: on PUC Lua 5.1 and
    -- 5.2, twitter's ids are doubles that %.14g rounds.)
    if type(here) == "table" or (type(here) == "number" and cjson.decode(qjson.encode(here)) ~= here) then
      return nil
    end
    return t, { op = "test", path = ptr, value = here }
  elseif kind == "remove" then
    if is_array(parent) then
      table.remove(parent, last)
    else
      parent[last] = nil
    end
    return t, { op = "remove", path = ptr }
  elseif kind == "replace" then
    local v = VALUES[rand(#VALUES)]
    parent[last] = deep_copy(v)
    return t, { op = "replace", path = ptr, value = v }
  end
  -- add, copy, move: to a new member of an object (or before an element).
  local v, from
  if kind == "add" then
    v = deep_copy(VALUES[rand(#VALUES)])
  else
    local fkeys, fptr, fv = random_path(rand, t, 0.3)
    if #fkeys == 0 or (kind == "move" and (ptr .. "/"):sub(1, #fptr + 1) == fptr .. "/") then
      return nil -- the root, or a move into itself
    end
    from, v = fptr, deep_copy(fv)
    if kind == "move" then
      -- Only out of an object, and not into itself, so that the removal
      -- shifts nothing the target's pointer goes through.
      local fp, fl = parent_of(t, fkeys)
      if is_array(fp) or (ptr .. "/"):sub(1, #fptr + 1) == fptr .. "/" then
        return nil
      end
      fp[fl] = nil
    end
  end
  local op
  if is_array(parent) then
    table.insert(parent, last, v)
    op = { op = kind, path = ptr }
  else
    local name = "k" .. n
    parent[name] = v
    local base_ptr = ptr:match("^(.*)/[^/]*$")
    op = { op = kind, path = base_ptr .. "/" .. name }
  end
  if kind == "add" then
    op.value = deep_copy(v) -- (later operations edit `v` in the model)
  else
    op.from = from
  end
  return t, op
end

describe("qjson.patch: differential against cjson tables", function()
  local files = stressed and { "twitter.json" } or { "twitter.json", "citm_catalog.json", "canada.json" }
  for _, file in ipairs(files) do
    it("random patches of " .. file .. " give the value the same operations give cjson's tables", function()
      local path = support.data .. "/corpus/" .. file
      if not support.exists(path) then
        pending("../shared/data/corpus is absent")
        return
      end
      local rand = math.random
      math.randomseed(4243)
      local text = support.read(path)
      local model = cjson.decode(text)
      local ops_done, patches = 0, stressed and 5 or 40
      for p = 1, patches do
        local ops = {}
        for _ = 1, rand(4) do
          local t, op = random_op(rand, model, p * 10 + #ops)
          if t then
            ops[#ops + 1] = op
          end
        end
        text = qjson.patch(text, ops)
        ops_done = ops_done + #ops
        local eq, at = same(text, model)
        assert(eq, file .. ": patch " .. p .. " (" .. qjson.encode(ops):sub(1, 300) .. ") differs at " .. tostring(at))
      end
      print(("differential, %s: %d operations in %d patches"):format(file, ops_done, patches))
      assert(ops_done > patches, "too few operations: " .. ops_done)
    end)
  end
end)
