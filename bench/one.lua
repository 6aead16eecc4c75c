-- One benchmark scenario in a fresh process (run.lua spawns one per
-- scenario):
--
--   luajit bench/one.lua <workload> <library> [--quick]
--       warm-up, then timed rounds; prints one line "RESULT <json>".
--   luajit bench/one.lua <workload> --verify
--       runs every available library's job once and checks the answers:
--       reading jobs, that all read the same values (and that a full decode
--       equals cjson.decode's table); decode + encode jobs, that every
--       output decodes to the edited document (and that an unmodified view
--       encodes to the input byte for byte); encode jobs, that qjson writes
--       lua-cjson's bytes and the others' output decodes back to the table.
--       Prints "VERIFY <json>", exits 1 on a mismatch. Libraries that
--       cannot be loaded here are listed as skipped, with the reason.
--
-- Workloads are read from bench/data/ when cached there (run.lua writes
-- them), else generated in memory.
local ffi = require("ffi")

local bench_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
package.path = bench_dir .. "/?.lua;" .. root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local workloads = require("workloads")
local libs = require("libs")

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

ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } qjson_bench_timespec;
int clock_gettime(int clk_id, qjson_bench_timespec *tp);
]])
local ts = ffi.new("qjson_bench_timespec")
local CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID = 1, 2
local function clock(id)
  ffi.C.clock_gettime(id, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
-- Rounds are timed in CPU time of this process: the machine may be shared,
-- and time spent descheduled is not the library's. Wall time is recorded too.
local function now()
  return clock(CLOCK_PROCESS_CPUTIME_ID)
end
local function wall()
  return clock(CLOCK_MONOTONIC)
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

-- Structural characters, as stage 1 sees them: { } [ ] : , outside
-- strings, plus each string's opening quote.
local function count_structurals(s)
  local p = ffi.cast("const uint8_t *", s)
  local n, in_str, esc = 0, false, false
  for i = 0, #s - 1 do
    local c = p[i]
    if in_str then
      if esc then
        esc = false
      elseif c == 92 then
        esc = true
      elseif c == 34 then
        in_str = false
      end
    elseif c == 34 then
      in_str = true
      n = n + 1
    elseif c == 123 or c == 125 or c == 91 or c == 93 or c == 58 or c == 44 then
      n = n + 1
    end
  end
  return n
end

local function emit(tag, t)
  local cjson = libs.cjson_baseline().module
  io.stdout:write(tag, " ", cjson.encode(t), "\n")
  io.stdout:flush()
end

local data_dir = root .. "/bench/data"

----------------------------------------------------------------------
-- --verify: every library reads the same values (parse workloads), or
-- writes what lua-cjson writes (encode workloads).
----------------------------------------------------------------------

-- "" for the root, then .key / [i] steps, for the messages.
local function step(where, k)
  if type(k) == "number" then
    return format("%s[%d]", where, k)
  end
  return format("%s.%s", where, tostring(k))
end

-- The path of the first difference between `a` (the table encoded) and
-- `b` (what the output decodes to), or nil. Unless `exact`, a number may
-- also come back rounded to 14 significant digits: what cjson.encode and
-- dkjson.encode (tostring) both write; a fraction in canada.json does.
local function first_difference(a, b, where, exact)
  local ta, tb = type(a), type(b)
  if ta == "number" and tb == "number" then
    if a == b or (not exact and tonumber(format("%.14g", a)) == b) then
      return nil
    end
    return format("%s: %.17g became %.17g", where, a, b)
  end
  if ta ~= tb then
    return format("%s: a %s became a %s", where, ta, tb)
  end
  if ta ~= "table" then
    if a ~= b then
      return format("%s: %q became %q", where, tostring(a), tostring(b))
    end
    return nil
  end
  for k, v in pairs(a) do
    local d = first_difference(v, b[k], step(where, k), exact)
    if d then
      return d
    end
  end
  for k in pairs(b) do
    if a[k] == nil then
      return format("%s: not in the table, in the output", step(where, k))
    end
  end
  return nil
end

-- Scalars in a table, for the report.
local function count_values(v)
  if type(v) ~= "table" then
    return 1
  end
  local n = 0
  for _, x in pairs(v) do
    n = n + count_values(x)
  end
  return n
end

-- The job's answer must not change once LuaJIT compiles it: calls it
-- again (up to 150 times or 0.2 s of CPU time) and compares checksums.
local function hot_check(fail, name, job, input, sum)
  local t0, n = now(), 0
  repeat
    n = n + 1
    local again = job(input)
    if again ~= sum then
      fail(format("%s's answer changed on call %d (once compiled by the JIT?): checksum %.17g, first call %.17g",
        name, n + 1, again, sum))
    end
  until n >= 150 or now() - t0 >= 0.2
end

-- Where two strings first differ, with some bytes of each around it.
local function byte_difference(a, b)
  local i = 1
  while i <= #a and a:byte(i) == b:byte(i) do
    i = i + 1
  end
  local from = math.max(1, i - 30)
  return format("first difference at byte %d of %d/%d:\n  qjson: ...%s...\n  cjson: ...%s...", i - 1, #a, #b,
    a:sub(from, i + 30), b:sub(from, i + 30))
end

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
  local s, size, largest = load_input()
  local w = { kind = W.kind, size = size, largest = largest }
  local names, unavailable = {}, {}
  for name, lib in pairs(libs.libs) do
    local ok, why = libs.available(name)
    if not ok then
      if lib.kinds[W.kind] then
        unavailable[#unavailable + 1] = { library = name, reason = why }
      end
    elseif not lib.floor and libs.runs(name, w) then
      names[#names + 1] = name
    end
  end
  table.sort(unavailable, function(a, b)
    return a.library < b.library
  end)
  table.sort(names, function(a, b)
    return (a == libs.BASELINE and "" or a) < (b == libs.BASELINE and "" or b)
  end)
  -- A library whose answer is wrong is reported and left out; the others
  -- are still checked (and timed by run.lua).
  local failures = {}
  local function fail(msg)
    error({ verify_failure = msg }, 0)
  end
  local function check(name, body)
    local ok, e = pcall(body)
    if not ok then
      if type(e) ~= "table" or not e.verify_failure then
        error(e, 0)
      end
      io.stderr:write(format("one.lua: VERIFY FAILED on %s: %s\n", wname, e.verify_failure))
      failures[#failures + 1] = { library = name, reason = e.verify_failure }
    end
  end
  local function verified(t)
    local good = {}
    for _, name in ipairs(t.libraries) do
      local bad = false
      for _, f in ipairs(failures) do
        bad = bad or f.library == name
      end
      if not bad then
        good[#good + 1] = name
      end
    end
    t.ok, t.failures, t.libraries = #failures == 0, failures, good
    if t.how_suffix then -- a reading job
      t.how, t.how_suffix = "read alike by " .. table.concat(good, ", ") .. t.how_suffix, nil
    end
    emit("VERIFY", t)
    os.exit(#failures == 0 and 0 or 1)
  end
  local checksums = {}

  if W.kind == "encode" then
    -- The table every library encodes, and lua-cjson's bytes.
    local cjson = libs.cjson_baseline().module
    local t = cjson.decode(s)
    local ref = cjson.encode(t)
    local how = {}
    for _, name in ipairs(names) do
      check(name, function()
        local lib = libs.libs[name]
        local ok, sum, o = pcall(lib.load().encode, t)
        if not ok then
          fail(name .. " raised: " .. tostring(sum))
        end
        if type(o) ~= "string" or sum ~= #o then
          fail(name .. ": the encoder returned no string, or a checksum other than its length")
        end
        if lib.encode_check == "bytes" then
          if o ~= ref then
            fail(format("%s.encode's output differs from cjson.encode's (%d vs %d bytes); %s", name, #o, #ref,
              byte_difference(o, ref)))
          end
          how[#how + 1] = name == libs.BASELINE and name or name .. " = lua-cjson byte for byte"
        else
          assert(lib.encode_check == "roundtrip", name)
          local dok, back = pcall(cjson.decode, o)
          if not dok then
            fail(format("cjson.decode cannot read %s's output: %s", name, tostring(back)))
          end
          local d = first_difference(t, back, "$")
          if d then
            fail(format("%s's output does not decode to the table it encoded: %s", name, d))
          end
          how[#how + 1] = name .. " decodes back equal"
        end
        hot_check(fail, name, lib.load().encode, t, sum)
        checksums[name] = sum
      end)
    end
    verified({ workload = wname, checksum = #ref, checksums = checksums, values = count_values(t),
      libraries = names, unavailable = unavailable, how = table.concat(how, ", "), output_size = #ref, size = size,
      structurals = count_structurals(s) })
  end

  if libs.EDIT_KINDS[W.kind] then
    -- Decode, edit, encode: every output must decode to the document with
    -- the same edit applied to cjson.decode's table.
    local cjson = libs.cjson_baseline().module
    local expected = cjson.decode(s)
    libs.EDITS[W.kind](expected)
    local how = {}
    for _, name in ipairs(names) do
      check(name, function()
        local lib = libs.libs[name]
        local ok, sum, o = pcall(lib.load()[W.kind], s)
        if not ok then
          fail(name .. " raised: " .. tostring(sum))
        end
        if type(o) ~= "string" or sum ~= #o then
          fail(name .. ": the job returned no string, or a checksum other than its length")
        end
        local dok, back = pcall(cjson.decode, o)
        if not dok then
          fail(format("cjson.decode cannot read %s's output: %s", name, tostring(back)))
        end
        local d = first_difference(expected, back, "$")
        if d then
          fail(format("%s's output is not the edited document: %s", name, d))
        end
        if lib.passthrough and W.kind == "roundtrip" then
          if o ~= s then
            fail(format("%s: an unmodified view does not encode to its input; %s", name, byte_difference(o, s)))
          end
          how[#how + 1] = name .. " = the input byte for byte"
        else
          how[#how + 1] = name .. " decodes to the edited document"
        end
        hot_check(fail, name, lib.load()[W.kind], s, sum)
        checksums[name] = sum
      end)
    end
    verified({ workload = wname, checksum = checksums[libs.BASELINE], checksums = checksums,
      values = count_values(expected), libraries = names, unavailable = unavailable, how = table.concat(how, ", "),
      size = size, structurals = count_structurals(s) })
  end

  -- Reading jobs: the same values, in the same order, from every library;
  -- a full decode (qjson.cjson's tables, qjson.decode's view materialized)
  -- equal to cjson.decode's table, numbers exactly.
  local full = {}
  local ref_name, ref, ref_sum = nil, nil, nil
  for _, name in ipairs(names) do
    check(name, function()
      local out = {}
      local ok, sum, kept = pcall(function()
        return libs.libs[name].load()[W.kind](s, out)
    end)
    if not ok then
      fail(name .. " raised: " .. tostring(sum))
    end
    local materialize = libs.libs[name].materialize
    if materialize and type(s) == "string" and not libs.STREAM_KINDS[W.kind] then
      local t = materialize(kept)
      local d = first_difference(libs.cjson_baseline().module.decode(s), t, "$", true)
      if d then
        fail(format("%s does not decode what cjson.decode does: %s", name, d))
      end
      full[#full + 1] = name
    end
    if not ref then
      ref_name, ref, ref_sum = name, out, sum
    else
      if #out ~= #ref then
        fail(format("%s read %d values, %s read %d", name, #out, ref_name, #ref))
      end
      for i = 1, #ref do
        if out[i] ~= ref[i] or type(out[i]) ~= type(ref[i]) then
          fail(format("value #%d: %s read %q, %s read %q", i, name, tostring(out[i]), ref_name, tostring(ref[i])))
        end
      end
      if sum ~= ref_sum then
        fail(format("checksum: %s %.17g, %s %.17g", name, sum, ref_name, ref_sum))
      end
    end
    hot_check(fail, name, libs.libs[name].load()[W.kind], s, sum)
    checksums[name] = sum
    end)
  end
  verified({ workload = wname, checksum = ref_sum, checksums = checksums, values = #ref,
    libraries = names, unavailable = unavailable, size = size,
    how_suffix = #full > 0 and "; decoded equal to cjson.decode: " .. table.concat(full, ", ") or "",
    structurals = type(s) == "string" and count_structurals(s) or nil })
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
local median
if #sorted % 2 == 1 then
  median = sorted[(#sorted + 1) / 2]
else
  median = (sorted[#sorted / 2] + sorted[#sorted / 2 + 1]) / 2
end

local result = {
  workload = wname,
  library = lname,
  size = size,
  quick = quick,
  checksum = expect,
  rounds = ops,
  rounds_wall = wall_ops,
  median = median,
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
  result.structurals = count_structurals(s)
  result.index_bytes_per_structural = result.index_bytes / result.structurals
end

emit("RESULT", result)
