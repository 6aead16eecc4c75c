-- Forced-GC mode on PUC Lua (make test-puc): spec/gc_stress.lua's helper
-- for the native module. The collector never pauses and finalizers that
-- call qjson stay pending at every cycle, so a finalizer that decodes,
-- encodes, parses, reads, iterates, patches, validates, selects, checks requests and closes can run at any allocation
-- inside a qjson call of any spec. Loaded with
-- --helper=spec/gc_stress_puc.lua when QJSON_GC_STRESS=1.
-- QJSON_GC_MODE=generational runs Lua 5.4's generational collector
-- (default: incremental).
--
-- Every value a finalizer reads is checked. A wrong one, or any other
-- failure, ends the process with status 3 and the message on stderr:
-- Lua 5.4 turns an error in a finalizer into a warning, and 5.2 and 5.3
-- raise it at whatever allocation ran the finalizer.
if os.getenv("QJSON_GC_STRESS") ~= "1" then
  return
end

local qjson = require("qjson")
local cjson = require("qjson.cjson")

local PENDING = 4

local small = '{"a":[1,2.5,"x\\u00e9y"],"b":{"c":true,"d":null},"s":"plain"}'
local big
do
  local parts = {}
  for i = 1, 3000 do
    parts[i] = ('{"id":%d,"name":"n\\u00e9%d","tags":["a","b"]}'):format(i, i)
  end
  big = "[" .. table.concat(parts, ",") .. "]"
end

local function check(got, want, what)
  if got ~= want then
    error(("%s: got %s, want %s"):format(what, tostring(got), tostring(want)))
  end
end

local actions = {
  function()
    check(qjson.patch(small, { { op = "replace", path = "/b/c", value = false } }),
      '{"a":[1,2.5,"x\\u00e9y"],"b":{"c":false,"d":null},"s":"plain"}', "patch")
    -- (A patcher made here: one made once would be freed before these
    -- finalizers run at lua_close, as compiled paths are.)
    local patcher = qjson.patcher({ { op = "replace", path = "/s" } })
    check(patcher:apply(small, "new"), '{"a":[1,2.5,"x\\u00e9y"],"b":{"c":true,"d":null},"s":"new"}', "patcher")
    local d = qjson.parse(small)
    check(qjson.merge_patch(d:open("b"), '{"d":1}'), '{"c":true,"d":1}', "merge_patch of a cursor")
    d:close()
  end,
  function()
    local d = qjson.parse(small)
    check(d:get_str("s"), "plain", "get_str")
    check(d:get_str("a[2]"), "x\195\169y", "get_str escaped")
    check(d:get_num("a[1]"), 2.5, "get_num")
    check(d:len("a"), 3, "len")
    check(d:get_bool("b.c"), true, "get_bool")
    check(d:raw("b"), '{"c":true,"d":null}', "raw")
    local keys = 0
    for _ in d:pairs("b") do
      keys = keys + 1
    end
    check(keys, 2, "doc:pairs")
    d:close()
  end,
  function()
    local t = qjson.decode(small)
    check(t.a[3], "x\195\169y", "decode")
    check(t.b.d, qjson.null, "decode null")
    t.b.c = false
    check(qjson.encode(t.b, { sort_keys = true }), '{"c":false,"d":null}', "encode")
  end,
  function()
    local t = cjson.decode(small)
    check(t.a[3], "x\195\169y", "cjson.decode")
    check(cjson.decode("[NaN]")[1] ~= 0, true, "cjson.decode's port")
    check(cjson.encode({ t.a[1] }), "[1]", "cjson.encode")
  end,
  function()
    local d = qjson.parse(big)
    check(d:get_str("[2999].name"), "n\195\1693000", "large get_str")
    check(d:len(), 3000, "large len")
    check(d:get_num("[5].id"), 6, "large get_num")
    local v = d:get("[9]")
    check(v.name, "n\195\16910", "get of an object")
    d:close()
  end,
  function()
    local d = qjson.parse(small)
    -- The error paths: each call must fail.
    check(pcall(d.get_num, d, "s"), false, "type mismatch")
    check(pcall(qjson.parse, '{"a":1,"a":2}', { duplicate_keys = "reject" }), false, "duplicate_keys")
    check(pcall(cjson.decode, "[1,"), false, "truncated decode")
    check(pcall(qjson.encode, { print }), false, "encode error")
  end,
  function()
    -- Streams: each() as documents, a feeder fed a value cut in two, a
    -- bad value (the feeder made here, as the patcher above).
    local sse = 'data: {"a":1}\n\ndata: [2,\ndata: "x\\u00e9"]\n\n'
    local got = {}
    for i, d in qjson.stream.each(sse, "sse") do
      got[i] = d:raw()
    end
    check(table.concat(got, "|"), '{"a":1}|[2,\n"x\\u00e9"]', "stream.each")
    local f = qjson.stream.feeder("ndjson", "raw")
    for _ in f:feed('{"b":') do
      error("no value expected")
    end
    for i, t in f:feed('2}\n[3]', true) do
      check(t, i == 1 and '{"b":2}' or "[3]", "feeder")
    end
    check(pcall(function()
      for _ in qjson.stream.each("1\n[\n", "ndjson") do end
    end), false, "stream bad value")
    -- (A validator made here, as the patcher above.)
    local v = qjson.schema({ properties = { b = { properties = { c = { type = "string" } } } } })
    local ok, errors = v:validate(small)
    check(ok, false, "schema validate")
    check(errors[1].instance_location, "/b/c", "schema error's location")
    local d = qjson.parse(small)
    check(qjson.schema('{"maxItems":3}'):is_valid(d:open("a")), true, "schema is_valid of a cursor")
    d:close()
  end,
  function()
    -- (A selector made here, as the patcher above.)
    local sel = qjson.select({ "s", "a[2]", "a[*]", "b", n = "a[0]:integer" })
    local t = sel(small)
    check(t[1], "plain", "select")
    check(t[2], "x\195\169y", "select escaped")
    check(t[3][2], 2.5, "select list")
    check(t[4].d, qjson.null, "select object")
    check(t.n, 1, "select named")
    local d = qjson.parse(small)
    local s, a = qjson.select({ "s", "a" })(d)
    check(s, "plain", "select of a document")
    check(a[3], "x\195\169y", "select of a document's array")
    d:close()
  end,
  function()
    -- A selector as a stream's how: each() (a named selector's table, an
    -- array), a feeder fed a value cut in two, a value that does not
    -- select (the selector made here, as the patcher above).
    local sel = qjson.select({ "a", n = "s" })
    local got = {}
    for i, t in qjson.stream.each('{"a":[1,"x\\u00e9"],"s":"p"}\n{"a":2}\n', "ndjson", sel) do
      got[i] = t
    end
    check(got[1][1][2], "x\195\169", "stream.each selector array")
    check(got[1].n, "p", "stream.each selector name")
    check(got[2][1], 2, "stream.each selector")
    local f = qjson.stream.feeder("sse", qjson.select({ "b" }))
    for _ in f:feed('data: {"b":') do
      error("no value expected")
    end
    for i, b in f:feed('"y\\u00e9"}\n\n', true) do
      check(i, 1, "feeder selector index")
      check(b, "y\195\169", "feeder selector")
    end
    check(pcall(function()
      for _ in qjson.stream.each('{"a":1}\n{"a":"s"}\n', "ndjson", qjson.select({ "a:number" })) do end
    end), false, "stream selector bad value")
  end,
  function()
    -- OpenAPI: valid and invalid requests, headers from a table and a
    -- function, the problem document (the api made here, as the patcher above).
    local api = qjson.openapi({ openapi = "3.1.0", paths = { ["/u/{id}"] = { get = { parameters = {
      { name = "id", ["in"] = "path", required = true, schema = { type = "integer" } },
      { name = "X-R", ["in"] = "header", required = true, schema = { type = "string", const = "a, b" } } } } } } })
    local ok, m = api:validate_request({ method = "GET", path = "/u/7", headers = { ["x-r"] = { "a", "b" } } })
    check(ok, true, "openapi valid")
    check(m.path.id, 7, "openapi path parameter")
    local errors
    ok, errors = api:validate_request({ method = "GET", path = "/u/x", headers = function() return "c" end })
    check(ok, false, "openapi invalid")
    check(#errors, 2, "openapi errors")
    check(errors[2].keyword_location, "/paths/~1u~1{id}/get/parameters/1/schema/const", "openapi keyword")
    local body, status = api:problem(errors)
    check(status, 400, "openapi problem status")
    check(qjson.decode(body).errors[1].name, "id", "openapi problem")
  end,
  function()
    -- ipairs and pairs with cursors, and escaped keys and values.
    local d = qjson.parse('[{"k\\u00e9":"v\\u00e9"},[2],3]')
    local got = {}
    for i, v in d:ipairs() do
      got[i] = type(v) == "table" and tostring(v) or v
    end
    check(table.concat(got, " "), "qjson.cursor (object) qjson.cursor (array) 3", "ipairs")
    for k, v in d:open("[0]"):pairs() do
      check(k .. v, "k\195\169v\195\169", "pairs escaped")
    end
    d:close()
  end,
}

local new_finalizer
local n = 0
local function gc()
  new_finalizer()
  n = n + 1
  local ok, err = pcall(actions[n % #actions + 1])
  if not ok then
    io.stderr:write("gc_stress_puc: a finalizer's qjson call failed: " .. tostring(err) .. "\n")
    os.exit(3)
  end
end
new_finalizer = function()
  if rawget(_G, "newproxy") then
    getmetatable(newproxy(true)).__gc = gc
  else
    setmetatable({}, { __gc = gc })
  end
end
for _ = 1, PENDING do
  new_finalizer()
end

-- Lua 5.3 runs pending finalizers a few at a time at each step, and
-- with bigger steps (stepmul 200 and up) these finalizers, which make
-- their successors, kept it in that phase for minutes (1.4 million runs
-- where 5.2 and 5.4 make about a thousand); 100 keeps the run to seconds.
local STEPMUL = tonumber(os.getenv("QJSON_GC_STEPMUL")) or (_VERSION == "Lua 5.3" and 100 or 200)
if os.getenv("QJSON_GC_MODE") == "generational" then
  assert(_VERSION == "Lua 5.4", "the generational collector is Lua 5.4's")
  collectgarbage("generational", 1, 1)
else
  if _VERSION == "Lua 5.4" then
    collectgarbage("incremental", 0, STEPMUL)
  else
    collectgarbage("setpause", 0)
    collectgarbage("setstepmul", STEPMUL)
  end
end
collectgarbage("step", 0)

-- How many finalizer calls ran, on stderr when the state closes (so the
-- run shows that they did).
local report = function()
  io.stderr:write(("gc_stress_puc: %d qjson-calling finalizer runs\n"):format(n))
end
if rawget(_G, "newproxy") then
  local p = newproxy(true)
  getmetatable(p).__gc = report
  rawset(_G, "_qjson_gc_stress_report", p)
else
  rawset(_G, "_qjson_gc_stress_report", setmetatable({}, { __gc = report }))
end
