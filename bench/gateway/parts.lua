-- Where the gateway handler's job goes, step by step, outside nginx:
--
--   luajit bench/gateway/parts.lua [workload] [rounds]
--
-- The job of bench/gateway/handlers.lua (decode, read `model` and every
-- message's content, set `temperature`, encode; or, without views, parse,
-- select, patch) on one body (default
-- chat-2k), timed cumulatively: each qjson row does the row above it and
-- one step more, so "adds" is that step's cost (a row with `after`
-- starts a chain of its own from that row). Beside them, the same
-- steps in the handler's own function (handlers.qjson_job), the bound's
-- job (strict parse and one output string) and lua-cjson's. Per call:
--   ns        best batch of the rounds (this process's CPU time)
--   GC off    the same with the collector kept idle for the batch (it
--             collects after, untimed): what the step costs without the
--             garbage it leaves; the difference is the collector's share
--   bytes     Lua memory allocated (LuaJIT interns strings, so a string
--             equal to one still alive, as the same body's output is, is
--             not allocated again)
-- Rows take turns within each round, so a slower spell of the shared
-- machine falls on all of them.
local script_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local bench_dir = script_dir:match("^(.*)/gateway$") or script_dir .. "/.."
local root = bench_dir:match("^(.*)/bench$") or bench_dir .. "/.."
package.path = script_dir .. "/?.lua;" .. bench_dir .. "/?.lua;" .. root .. "/lua/?.lua;" .. root
  .. "/lua/?/init.lua;" .. package.path
-- The baseline lua-cjson (bench/libs/lua_cjson.lua finds it) first on the
-- cpath, as in nginx, for the handlers' require("cjson").
local cjson = require("libs.lua_cjson").baseline()
package.cpath = cjson.path:match("^(.*)/[^/]*$") .. "/?.so;" .. package.cpath

local qjson = require("qjson")
local handlers = require("handlers") -- (switches qjson.decode_views on)
local util = require("util")
local workloads = require("workloads")

local name = arg[1] or "chat-2k"
local rounds = tonumber(arg[2]) or 9
local body = workloads.load(name, bench_dir .. "/data")
local decode, encode, len, parse = qjson.decode, qjson.encode, qjson.len, qjson.parse
local read_fields, select_fields = handlers.read_fields, handlers.select_fields
local set_temperature = handlers.set_temperature

-- (Each row spells its steps out: rows made by one function would share
-- its compiled traces, which a handler of its own does not.)
local ROWS = {
  { "qjson.parse", function() return parse(body) end },
  { "bound job", function() return handlers.bound_job(body) end, other = true },
  { "qjson.decode", function() return decode(body) end },
  { "+ reads", function()
      local v = decode(body)
      read_fields(v, len)
      return v
    end },
  { "+ edit", function()
      local v = decode(body)
      read_fields(v, len)
      v.temperature = 0.5
      return v
    end },
  { "+ encode", function()
      local v = decode(body)
      read_fields(v, len)
      v.temperature = 0.5
      return encode(v)
    end },
  -- The same steps as the handler runs them: one function, whose traces
  -- LuaJIT forms differently from the rows' above.
  { "the handler's job", function() return handlers.qjson_job(body) end, other = true },
  -- Without views (handlers.qjson_patch_job): the parse (the first row),
  -- the selectors' reads, the compiled patch.
  { "qjson.parse + selects", function()
      local d = parse(body)
      select_fields(d)
      return d
    end, after = 1 },
  { "+ patch", function()
      local d = parse(body)
      select_fields(d)
      return set_temperature:apply(d, 0.5)
    end },
  { "select+patch job", function() return handlers.qjson_patch_job(body) end, other = true },
  { "lua-cjson job", function() return handlers.cjson_job(body) end, other = true },
}

local clock, CPU = util.clock, util.CPU
local sink = {}
-- The collector kept idle, not stopped: while it is stopped qjson.encode
-- takes the walkers it has for finalizers, which LuaJIT does not compile
-- (docs/security.md, guarantee 11). A full cycle, after which the next
-- starts only once the heap has grown a thousandfold.
local IDLE_PAUSE = 100000
local function idle()
  local pause = collectgarbage("setpause", IDLE_PAUSE)
  collectgarbage()
  return pause
end
local function batch(f, k, gc_off)
  local pause
  if gc_off then
    pause = idle()
  end
  local t0 = clock(CPU)
  for _ = 1, k do
    sink[1] = f()
  end
  local t = (clock(CPU) - t0) / k
  assert(sink[1] ~= nil, "a step returned nothing")
  if gc_off then
    collectgarbage("setpause", pause)
    collectgarbage()
  end
  return t
end

local function allocated(f)
  local total = 0
  for _ = 1, 100 do
    local pause = idle()
    local a = collectgarbage("count")
    sink[1] = f()
    total = total + collectgarbage("count") - a
    collectgarbage("setpause", pause)
  end
  return total * 1024 / 100
end

-- Warm up (and let LuaJIT compile), and size each row's batch to ~20 ms.
local ks = {}
for i, row in ipairs(ROWS) do
  batch(row[2], 20000)
  ks[i] = math.max(100, math.floor(0.02 / batch(row[2], 1000)))
end
local best, best_off = {}, {}
for r = 1, rounds do
  for i, row in ipairs(ROWS) do
    local t, t_off = batch(row[2], ks[i]), batch(row[2], ks[i], true)
    best[i] = r == 1 and t or math.min(best[i], t)
    best_off[i] = r == 1 and t_off or math.min(best_off[i], t_off)
  end
  io.stderr:write(string.format("\rround %d of %d", r, rounds))
end
io.stderr:write("\n")

print(string.format("%s, %d bytes, %s, best of %d rounds; lua-cjson: %s", name, #body, jit.version, rounds,
  cjson.which))
print(string.format("%-20s %9s %9s %9s %9s", "", "ns", "adds", "GC off", "bytes"))
local prev
for i, row in ipairs(ROWS) do
  local ns, adds = best[i] * 1e9, ""
  if row.after then
    prev = best[row.after] * 1e9
  end
  if not row.other then
    adds = prev and string.format("%9.0f", ns - prev) or ""
    prev = ns
  end
  print(string.format("%-20s %9.0f %9s %9.0f %9.0f", row[1], ns, adds, best_off[i] * 1e9, allocated(row[2])))
end
