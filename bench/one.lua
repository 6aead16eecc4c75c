-- One benchmark scenario in a fresh process (run.lua spawns one per
-- scenario):
--
--   luajit bench/one.lua <workload> <library> [--quick]
--       warm-up, then timed rounds; prints one line "RESULT <json>".
--   luajit bench/one.lua <workload> --verify
--       runs every available library's job once and checks the answers
--       (bench/verify.lua); prints "VERIFY <json>", exits 1 on a mismatch.
--
-- Workloads are read from bench/data/ when cached there (run.lua writes
-- them), else generated in memory.
local bench_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
package.path = bench_dir .. "/?.lua;" .. root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local workloads = require("workloads")
local libs = require("libs")
local util = require("util")
local verify_mod = require("verify")

local format = string.format

local function usage(msg)
  io.stderr:write("one.lua: ", msg, "\nusage: luajit bench/one.lua <workload> (<library> [--quick] | --verify)\n")
  os.exit(2)
end

local wname, lname, quick, verify = nil, nil, false, false
for _, a in ipairs(arg) do
  if a == "--quick" then
    quick = true
  elseif a == "--verify" then
    verify = true
  elseif not wname then
    wname = a
  elseif not lname then
    lname = a
  else
    usage("unexpected argument " .. a)
  end
end
if not wname or not workloads.by_name[wname] then
  usage("unknown workload " .. tostring(wname))
end
if not verify and not (lname and libs.libs[lname]) then
  usage("unknown library " .. tostring(lname))
end

local W = workloads.by_name[wname]

-- Timing: warm-up until both a minimum count and a minimum time are
-- reached (or a cap), then `rounds` rounds of at least `round_time` s.
local CONFIG = quick
    and { warmup_iters = 100, warmup_time = 0.1, warmup_cap = 0.5, rounds = 2, round_time = 0.2 }
    or { warmup_iters = 100, warmup_time = 0.4, warmup_cap = 2.0, rounds = 5, round_time = 0.6 }

-- Rounds are timed in CPU time of this process: the machine may be shared,
-- and time spent descheduled is not the library's. Wall time is recorded too.
local function now()
  return util.clock(util.CPU)
end
local function wall()
  return util.clock(util.MONOTONIC)
end

local function proc_status_kb(field)
  local f = io.open("/proc/self/status", "r")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return tonumber(s:match(field .. ":%s*(%d+)"))
end

-- Full cycles until the heap stops shrinking: finalizers free more on
-- the next cycle, and each cycle only halves LuaJIT's temporary buffer
-- (grown to the document's size when the file was read).
local function full_gc()
  local before = collectgarbage("count")
  for _ = 1, 64 do
    collectgarbage()
    local after = collectgarbage("count")
    if after >= before then
      break
    end
    before = after
  end
end

local data_dir = root .. "/bench/data"

-- The workload's input, its size and its largest document's size.
local function load_input()
  local input, size, largest = workloads.load(wname, data_dir)
  if not input then
    io.stderr:write(format("one.lua: %s: %s\n", wname, size))
    os.exit(3)
  end
  return input, size, largest
end

if verify then
  verify_mod.run(wname, W.kind, load_input())
end

----------------------------------------------------------------------
-- One timed scenario.
----------------------------------------------------------------------
local lib = libs.libs[lname]
do
  local ok, why = libs.available(lname)
  if not ok then
    io.stderr:write(format("one.lua: %s cannot run here: %s\n", lname, why))
    os.exit(3)
  end
end
local read = lib.load()[W.kind]
if not read then
  usage(format("%s has no %s job", lname, W.kind))
end
local s, size = load_input()
-- What each call gets: the JSON text to parse, or for an encode the table
-- lua-cjson decodes from it, built once here, before the heap baseline
-- and outside the timed work.
local input = s
if W.kind == "encode" then
  input = libs.cjson_baseline().module.decode(s)
end

-- LuaJIT's trace recorder keeps its working buffers (IR, snapshots) at
-- the size of the longest trace it ever recorded, in the Lua heap, and
-- never shrinks them: left alone, they would count against whichever run
-- happens to record the longest trace (8 KB of the retained heap, between
-- two runs of the same code). A throwaway long trace grows them to their
-- limit before the baseline, so the retained heap is the library's (the
-- result, compiled traces, caches).
local function grow_recorder_buffers()
  local body = {}
  for i = 1, 1500 do
    body[i] = format("x = x + t[%d] * %d", i % 7 + 1, i)
  end
  local f = assert(loadstring("local t = {1, 2, 3, 4, 5, 6, 7}; local x = 0; for _ = 1, 300 do "
    .. table.concat(body, "; ") .. " end; return x"))
  f()
  jit.flush()
end
grow_recorder_buffers()
full_gc()
local heap_baseline = collectgarbage("count")
local hwm_before = proc_status_kb("VmHWM")

-- Warm-up; also finds how many calls make a ~5 ms batch between clock reads.
local expect = read(input)
local t0 = now()
local warm = 1
while not ((warm >= CONFIG.warmup_iters and now() - t0 >= CONFIG.warmup_time) or now() - t0 >= CONFIG.warmup_cap) do
  local got = read(input)
  if got ~= expect then
    io.stderr:write(format("one.lua: %s's answer changed during warm-up, call %d: checksum %.17g, first call %.17g\n",
      lname, warm + 1, got, expect))
    os.exit(1)
  end
  warm = warm + 1
end
local warm_time = now() - t0
local per_op = warm_time / warm
local batch = math.max(1, math.floor(0.005 / per_op))

local function round()
  local n, start, wall_start = 0, now(), wall()
  local t
  repeat
    for _ = 1, batch do
      local got = read(input)
      if got ~= expect then
        io.stderr:write(format("one.lua: %s's answer changed during a round: checksum %.17g, first call %.17g\n",
          lname, got, expect))
        os.exit(1)
      end
    end
    n = n + batch
    t = now() - start
  until t >= CONFIG.round_time
  return n / t, n, t, n / (wall() - wall_start)
end

local ops, wall_ops, iterations, seconds = {}, {}, 0, 0
for r = 1, CONFIG.rounds do
  full_gc()
  local o, n, t, w = round()
  ops[r], wall_ops[r], iterations, seconds = o, w, iterations + n, seconds + t
end

-- Lua heap retained: with the last result (document or table) still
-- referenced, after a full GC, over the baseline taken before the first
-- parse; then again once it is dropped.
local _, kept = read(input)
full_gc()
local heap_retained = collectgarbage("count") - heap_baseline
local kept_kind = type(kept)
kept = nil -- luacheck: ignore 311
full_gc()
local heap_after_drop = collectgarbage("count") - heap_baseline
jit.flush()
full_gc()
local heap_after_flush = collectgarbage("count") - heap_baseline
local hwm = proc_status_kb("VmHWM")
local rss = proc_status_kb("VmRSS")

local sorted = {}
for i, v in ipairs(ops) do
  sorted[i] = v
end
table.sort(sorted)

local result = {
  workload = wname,
  library = lname,
  size = size,
  quick = quick,
  checksum = expect,
  rounds = ops,
  rounds_wall = wall_ops,
  median = util.median(ops),
  min = sorted[1],
  max = sorted[#sorted],
  iterations = iterations,
  seconds = seconds,
  config = CONFIG,
  warmup_iterations = warm,
  warmup_seconds = warm_time,
  batch = batch,
  heap_baseline_kb = heap_baseline,
  heap_retained_kb = heap_retained,
  heap_after_drop_kb = heap_after_drop,
  heap_after_flush_kb = heap_after_flush,
  retained_kind = kept_kind,
  vmhwm_before_kb = hwm_before,
  vmhwm_kb = hwm,
  vmrss_kb = rss,
  version = lib.version(),
  note = lib.note,
}

if (lname == "qjson" or lname:match("^qjson%-")) and libs.READ_KINDS[W.kind] and type(s) == "string" then
  local C = require("qjson.lib")
  local d = require("qjson").parse(s)
  result.index_bytes = tonumber(C.qjson_index_bytes(d.ptr))
  result.structurals = verify_mod.count_structurals(s)
  result.index_bytes_per_structural = result.index_bytes / result.structurals
end

verify_mod.emit("RESULT", result)
