-- Forced-GC mode (make test-gc): a busted helper that keeps the collector
-- running without pause and keeps finalizers that call qjson pending at
-- every collection cycle, so that a finalizer calling qjson can run at
-- any allocation of any spec. Loaded with --helper=spec/gc_stress.lua
-- when QJSON_GC_STRESS=1; QJSON_GC_STRESS_JIT=off turns the JIT off.
--
-- The finalizers parse (small documents, placed in Lua memory, and a
-- large one, on the native heap), read through the document API and
-- views, iterate, decode with qjson.cjson, materialize, encode an edited
-- view, close what they opened, and raise errors inside qjson calls
-- (caught there: an error escaping a finalizer would fail whichever spec
-- it landed in; spec/finalizer_spec.lua covers those). Each cycle runs
-- PENDING of them, one per collector step of its finalize phase.
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

-- Keeps what the reads return from being optimised away.
local sink
local function use(...)
  sink = select("#", ...)
end

local actions = {
  function()
    local d = qjson.parse(small)
    use(d:get_str("s"), d:get_num("a[1]"), d:len("a"), d:get_bool(path), d:raw("b"))
    for _, x in d:pairs("b") do
      local _ = x
    end
    d:close()
  end,
  function()
    local v = qjson.decode(small)
    use(v.s, v.a[3], qjson.len(v.a), v.b.c)
    for _, x in qjson.pairs(v) do
      local _ = x
    end
    v.b.c = false
    local _ = qjson.encode(v)
  end,
  function()
    local t = cjson.decode(small)
    local _ = t.a[3]
  end,
  function()
    local d = qjson.parse(big)
    use(d:get_str("[2999].name"), d:len(), d:get_num("[5].id"))
    local v = d:get()
    use(v[10].name, sink)
    d:close()
  end,
  function()
    local d = qjson.parse(small)
    pcall(d.get_num, d, "s") -- a type mismatch: the error path
    pcall(qjson.parse, '{"a":1,"a":2}', { duplicate_keys = "reject" })
    pcall(cjson.decode, "[1,")
    local _ = qjson.materialize(qjson.decode(small))
  end,
}

local n = 0
local function gc()
  local p = newproxy(true)
  getmetatable(p).__gc = gc
  n = n + 1
  local ok, err = pcall(actions[n % #actions + 1])
  if not ok then
    io.stderr:write("gc_stress: a finalizer's qjson call failed: ", tostring(err), "\n")
  end
end
for _ = 1, PENDING do
  local p = newproxy(true)
  getmetatable(p).__gc = gc
end

collectgarbage("setpause", 0)
collectgarbage("setstepmul", tonumber(os.getenv("QJSON_GC_STEPMUL")) or 200)
collectgarbage("step", 0)
