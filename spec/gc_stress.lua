-- Forced-GC mode (make test-gc): a busted helper that keeps the collector
-- running without pause and keeps finalizers that call qjson pending at
-- every collection cycle, so that a finalizer calling qjson can run at
-- any allocation of any spec. Loaded with --helper=spec/gc_stress.lua
-- when QJSON_GC_STRESS=1; QJSON_GC_STRESS_JIT=off turns the JIT off (on,
-- or unset, leaves it on).
--
-- The finalizers parse (small documents, placed in Lua memory, and a
-- large one, on the native heap), read through the document API and
-- views, iterate, patch, decode with qjson.cjson, materialize, encode an edited
-- view and plain tables, close what they opened, and raise errors inside
-- qjson calls (caught there; spec/finalizer_spec.lua covers errors
-- escaping a finalizer). Every value read is checked: a wrong one, or any other
-- failure, is raised from the finalizer, which fails the spec it ran in.
-- Each cycle runs PENDING of them, one per collector step of its
-- finalize phase.
if os.getenv("QJSON_GC_STRESS") ~= "1" then
  return
end
if os.getenv("QJSON_GC_STRESS_JIT") == "off" then
  jit.off()
end

local qjson = require("qjson")
local cjson = require("qjson.cjson")

local PENDING = 4

local small = '{"a":[1,2.5,"x\\u00e9y"],"b":{"c":true,"d":null},"s":"plain"}'
local big
do
  local parts = {}
  for i = 1, 3000 do
    parts[i] = ('{"id":%d,"name":"n%d","tags":["a","b"]}'):format(i, i)
  end
  big = "[" .. table.concat(parts, ",") .. "]"
end
-- (Paths as strings: a compiled one is freed by its ffi.gc finalizer,
-- which at lua_close runs before these finalizers do; see
-- docs/security.md, guarantee 11.)
local path = "b.c"
local api = qjson.openapi([[{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/items/{id}":{"get":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","minimum":1}},
  {"name":"n","in":"query","schema":{"type":"integer"}},{"name":"X-Id","in":"header","schema":{"type":"string"}}]}}}}]])

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
    check(d:get_num("a[1]"), 2.5, "get_num")
    check(d:len("a"), 3, "len")
    check(d:get_bool(path), true, "get_bool")
    check(d:raw("b"), '{"c":true,"d":null}', "raw")
    local keys = 0
    for _ in d:pairs("b") do
      keys = keys + 1
    end
    check(keys, 2, "doc:pairs")
    d:close()
  end,
  function()
    local v = qjson.parse(small):get() -- a view on every LuaJIT build
    check(v.s, "plain", "view field")
    check(v.a[3], "x\195\169y", "view element")
    check(qjson.len(v.a), 3, "qjson.len")
    check(v.b.c, true, "nested view field")
    local members = 0
    for _ in qjson.pairs(v) do
      members = members + 1
    end
    check(members, 3, "qjson.pairs")
    v.b.c = false
    check(qjson.encode(v), '{"a":[1,2.5,"x\\u00e9y"],"b":{"c":false,"d":null},"s":"plain"}', "encode")
  end,
  function()
    local t = cjson.decode(small)
    check(t.a[3], "x\195\169y", "cjson.decode")
    -- (Plain tables, whose walk has `pairs` loops: a finalizer's encode
    -- takes a walker LuaJIT does not compile, see qjson.encode.)
    check(qjson.encode(t, { sort_keys = true }), '{"a":[1,2.5,"x\195\169y"],"b":{"c":true,"d":null},"s":"plain"}',
      "encode of a decoded table")
    check(#cjson.encode(t), 56, "qjson.cjson.encode")
  end,
  function()
    local d = qjson.parse(big)
    check(d:get_str("[2999].name"), "n3000", "large get_str")
    check(d:len(), 3000, "large len")
    check(d:get_num("[5].id"), 6, "large get_num")
    local v = d:get()
    check(v[10].name, "n10", "large view")
    d:close()
  end,
  function()
    local d = qjson.parse(small)
    -- The error paths: each call must fail.
    check(pcall(d.get_num, d, "s"), false, "type mismatch")
    check(pcall(qjson.parse, '{"a":1,"a":2}', { duplicate_keys = "reject" }), false, "duplicate_keys")
    check(pcall(cjson.decode, "[1,"), false, "truncated decode")
    check(qjson.materialize(qjson.decode(small)).b.c, true, "materialize")
  end,
  function()
    -- OpenAPI validation, valid and invalid, in the middle of any call
    -- (spec/openapi_spec.lua's own among them).
    local ok, m = api:validate_request({ method = "GET", path = "/items/7", query = "n=2",
      headers = function(name) return name == "x-id" and "abc" or nil end })
    check(ok and m.path.id, 7, "openapi: a valid request")
    local bad, errors = api:validate_request({ method = "GET", path = "/items/0", query = "n=x",
      headers = { ["x-id"] = { "a", "b" } } })
    check(not bad and #errors .. errors[1].name .. errors[2].name, "2idn", "openapi: an invalid request")
  end,
}

local n = 0
local function gc()
  local p = newproxy(true)
  getmetatable(p).__gc = gc
  n = n + 1
  local ok, err = pcall(actions[n % #actions + 1])
  if not ok then
    -- LuaJIT rethrows a finalizer's error at the allocation that ran it,
    -- so the spec running at that moment fails with this message.
    error("gc_stress: a finalizer's qjson call failed: " .. tostring(err), 0)
  end
end
for _ = 1, PENDING do
  local p = newproxy(true)
  getmetatable(p).__gc = gc
end

collectgarbage("setpause", 0)
collectgarbage("setstepmul", tonumber(os.getenv("QJSON_GC_STEPMUL")) or 200)
collectgarbage("step", 0)
