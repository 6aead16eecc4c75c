-- The benchmark behind `make bench`, `make bench-quick` and `make bench-smoke`:
--
--   luajit bench/run.lua [--quick | --smoke] [--only=<workload>[,...]] [--libs=<lib>[,...]] [--procs=N]
--                        [--no-docs]
--
-- Generates the workloads (cached under bench/data/; those of the real
-- corpus are skipped, with a message, when ../shared/data is not beside
-- the checkout), checks every workload's answers across the libraries
-- (bench/one.lua --verify: the same values read, decoded tables equal to
-- cjson.decode's, encoder output that decodes back), then times every
-- (workload, library) scenario in a fresh process (bench/one.lua), prints
-- a table and writes bench/results/<date>.json, docs/benchmarks.md and the
-- plots. Libraries that cannot be loaded here (resty.simdjson when
-- ../shared is absent and none is installed; qjson APIs not built yet)
-- are skipped with one line each, recorded in the results. A workload
-- whose answers disagree is not timed; the run reports it and exits 1.
--
-- --smoke only checks the answers (every job of every library once) and
-- exits 1 on any disagreement: `make bench-smoke`, part of `make test`.
-- A --quick run (2 short rounds, fewer sizes, no API variants) writes
-- bench/results/tmp/quick-<date>.json and leaves the docs alone; so do
-- --only and --libs. --procs=N runs each scenario in N fresh processes and
-- pools their rounds (LuaJIT's traces, hence speed, differ from one
-- process to the next by up to ~20% on small documents).
local bench_script = arg and arg[0] or "bench/run.lua"
local root0, bench_dir = (function()
  local d = bench_script:match("^(.*)/[^/]*$") or "."
  return d:match("^(.*)/bench$") or (d == "bench" and ".") or d .. "/..", d
end)()
package.path = bench_dir .. "/?.lua;" .. root0 .. "/lua/?.lua;" .. root0 .. "/lua/?/init.lua;" .. package.path

local util = require("util")
local workloads = require("workloads")
local libs = require("libs")
local report = require("report")

local format = string.format
local root = root0

local opts = { quick = false, smoke = false, docs = true, procs = 1 }
for _, a in ipairs(arg) do
  if a == "--quick" then
    opts.quick = true
  elseif a == "--smoke" then
    opts.smoke = true
  elseif a == "--no-docs" then
    opts.docs = false
  elseif a:match("^%-%-only=") then
    opts.only = {}
    for w in a:sub(8):gmatch("[^,]+") do
      if not workloads.by_name[w] then
        error("unknown workload " .. w, 0)
      end
      opts.only[w] = true
    end
  elseif a:match("^%-%-procs=%d+$") then
    opts.procs = math.max(1, tonumber(a:sub(9)))
  elseif a:match("^%-%-libs=") then
    opts.libs = {}
    for l in a:sub(8):gmatch("[^,]+") do
      if not libs.libs[l] then
        error("unknown library " .. l, 0)
      end
      opts.libs[#opts.libs + 1] = l
    end
  else
    io.stderr:write("usage: luajit bench/run.lua [--quick | --smoke] [--only=w1,w2] [--libs=l1,l2] [--procs=N] "
      .. "[--no-docs]\n")
    os.exit(2)
  end
end
if opts.quick or opts.smoke or opts.only or opts.libs then
  opts.docs = false -- only a full run publishes
end

local function now()
  return util.clock(util.MONOTONIC)
end
local started = now()

local luajit = arg[-1] or "luajit"
local one = util.shell_quote(bench_dir .. "/one.lua")

local function loadavg()
  local s = util.read_file("/proc/loadavg") or ""
  local a, b, c = s:match("^(%S+) (%S+) (%S+)")
  return { tonumber(a), tonumber(b), tonumber(c) }
end

-- A command's output, trailing white space cut (stderr dropped).
local function sh(cmd)
  return (util.sh(cmd .. " 2>/dev/null"):gsub("%s+$", ""))
end

-- Machine and versions.
local function metadata()
  local cpuinfo = util.read_file("/proc/cpuinfo") or ""
  local cores = 0
  for _ in cpuinfo:gmatch("\nprocessor%s*:") do
    cores = cores + 1
  end
  if cpuinfo:match("^processor%s*:") then
    cores = cores + 1
  end
  local flags = cpuinfo:match("\nflags%s*:%s*([^\n]*)") or ""
  local simd = {}
  for _, f in ipairs({ "avx512f", "avx512bw", "avx512vbmi", "avx2", "sse4_2", "pclmulqdq" }) do
    if (" " .. flags .. " "):find(" " .. f .. " ", 1, true) then
      simd[#simd + 1] = f
    end
  end
  local memtotal = (util.read_file("/proc/meminfo") or ""):match("MemTotal:%s*(%d+)")
  local qjson = require("qjson")
  return {
    date = os.date("%Y-%m-%d"),
    started_at = os.date("%Y-%m-%dT%H:%M:%S%z"),
    cpu = cpuinfo:match("model name%s*:%s*([^\n]+)") or "unknown",
    cores = cores,
    cpu_flags = table.concat(simd, " "),
    mem_total_mb = memtotal and math.floor(tonumber(memtotal) / 1024) or nil,
    kernel = sh("uname -sr"),
    luajit = jit.version,
    jit_arch = jit.arch,
    qjson = qjson._VERSION,
    qjson_backend = qjson.backend(),
    -- The baseline: which lua-cjson was measured as "lua-cjson".
    cjson = libs.cjson_baseline().module._VERSION,
    cjson_which = libs.cjson_baseline().which,
    cjson_debian = require("cjson")._VERSION,
    dkjson = (require("dkjson").version:gsub("^dkjson ", "")),
    simdjson = libs.available("resty.simdjson") and libs.libs["resty.simdjson"].version() or nil,
    qjson_lib_built = sh("stat -c %y " .. util.shell_quote(root .. "/target/release/libqjson.so")),
    -- How tools/build.sh built it: "profile-guided: <profile>" or "plain: <why>".
    qjson_build = (util.read_file(root .. "/target/release/libqjson.build") or ""):match("^[^\n]*"),
    git_commit = sh("git -C " .. util.shell_quote(root) .. " rev-parse --short HEAD"),
    git_dirty = (sh("git -C " .. util.shell_quote(root) .. " status --porcelain -- src lua") or "") ~= "",
    loadavg_start = loadavg(),
  }
end

local function run_child(args)
  local cmd = luajit .. " " .. one .. " " .. args
  local p = assert(io.popen(cmd, "r"))
  local out = p:read("*a")
  p:close()
  return out, cmd
end

local cjson = require("cjson")
local function parse_line(out, tag)
  local line = out:match("\n" .. tag .. " ([^\n]*)") or out:match("^" .. tag .. " ([^\n]*)")
  if not line then
    return nil
  end
  return cjson.decode(line)
end

local meta = metadata()
io.write(format("qjson benchmark%s: %s, %d cores, %s\n", opts.quick and " (quick)" or "", meta.cpu,
  meta.cores, meta.luajit))
io.write(format("qjson %s (%s), lua-cjson %s (%s), dkjson %s, lua-resty-simdjson %s; load average %.2f %.2f %.2f\n\n",
  meta.qjson, meta.qjson_backend, meta.cjson, meta.cjson_which, meta.dkjson, meta.simdjson or "not installed",
  unpack(meta.loadavg_start)))

-- 1. Workloads: generate (deterministic) and cache for the children.
local data_dir = root .. "/bench/data"
local wl, skipped = {}, {}
for _, w in ipairs(workloads.list) do
  if (not opts.only or opts.only[w.name]) and not (opts.quick and w.quick == false) then
    if w.target or not (w.file or w.source or w.parts) then -- generated here: refresh the cache
      workloads.write_cache(data_dir, w.name, assert(workloads.generate(w.name)))
    end
    local input, size, largest = workloads.load(w.name, data_dir)
    if input then
      wl[#wl + 1] = { name = w.name, kind = w.kind, label = w.label, target = w.target, size = size,
        largest = largest, source = w.source, parts = w.parts }
    else
      skipped[#skipped + 1] = { name = w.name, reason = size }
      io.write(format("*** SKIPPED %s: %s\n", w.name, size))
    end
  end
end

-- 2. The libraries: those that cannot be loaded here are skipped, once.
local lib_list, unavailable = {}, {}
for _, l in ipairs(opts.libs or libs.default) do
  local ok, why = libs.available(l)
  if ok then
    lib_list[#lib_list + 1] = l
  else
    unavailable[#unavailable + 1] = { library = l, reason = why }
    io.write(format("*** SKIPPED library %s: %s\n", l, why))
  end
end
if not opts.libs and not opts.quick and not opts.smoke then
  for _, l in ipairs(libs.variants) do
    lib_list[#lib_list + 1] = l
  end
end
if #skipped + #unavailable > 0 then
  io.write("\n")
end

-- 3. Every workload's answers agree across the libraries; one that does
-- not is reported and not timed.
local failed = {}
local verified = {}
local checked = #wl
for _, w in ipairs(wl) do
  local out, cmd = run_child(util.shell_quote(w.name) .. " --verify 2>&1")
  local v = parse_line(out, "VERIFY")
  -- A library with a wrong answer is left out of this workload; the
  -- workload goes when lua-cjson, the reference, is not among the rest.
  for _, f in ipairs(v and v.failures or {}) do
    failed[#failed + 1] = { name = w.name, library = f.library, reason = f.reason, command = cmd }
    io.write(format("*** FAILED  %-14s %s\n", w.name, f.reason))
  end
  local usable = v ~= nil
  if v then
    w.wrong = {}
    for _, f in ipairs(v.failures or {}) do
      w.wrong[f.library] = true
    end
    usable = false
    for _, l in ipairs(v.libraries) do
      usable = usable or l == libs.BASELINE
    end
  end
  if not usable then
    if not v then
      local why = (out:match("VERIFY FAILED on [^:]*: ([^\n]*)") or out:gsub("%s+$", ""))
      failed[#failed + 1] = { name = w.name, reason = why, command = cmd }
      io.write(format("*** FAILED  %-14s %s\n", w.name, why))
    end
  else
    w.checksum, w.checksums, w.values, w.structurals, w.verified_with = v.checksum, v.checksums, v.values,
      v.structurals, v.libraries
    w.output_size = v.output_size
    verified[#verified + 1] = w
    io.write(format("verified %-14s %9d bytes  %6d values %s\n", w.name, w.size, v.values, v.how))
  end
  io.stdout:flush()
end
io.write("\n")
wl = verified

if opts.smoke then
  io.write(format("bench-smoke: %d workloads checked, %d wrong answers; %d skipped (no data), %d libraries not "
    .. "loadable here (%s); %.0f s\n", checked, #failed, #skipped, #unavailable,
    #unavailable > 0 and (function()
      local n = {}
      for i, u in ipairs(unavailable) do
        n[i] = u.library
      end
      return table.concat(n, ", ")
    end)() or "none", now() - started))
  os.exit(#failed > 0 and 1 or 0)
end

-- 4. Scenarios, each in a fresh process.
local todo = {}
for _, w in ipairs(wl) do
  for _, l in ipairs(lib_list) do
    if libs.runs(l, w) and not w.wrong[l] then
      todo[#todo + 1] = { w = w, lib = l }
    end
  end
end

-- One scenario in `opts.procs` fresh processes: rounds pooled, memory
-- figures the worst of them.
local function scenario(t)
  local merged
  for p = 1, opts.procs do
    local out, cmd = run_child(util.shell_quote(t.w.name) .. " " .. util.shell_quote(t.lib)
      .. (opts.quick and " --quick" or "") .. " 2>&1")
    local r = parse_line(out, "RESULT")
    if not r then
      local why = out:match("one%.lua: ([^\n]*answer changed[^\n]*)") or out:gsub("%s+$", ""):match("[^\n]*$")
      return nil, why, cmd
    end
    -- (A floor's answer is checked only when verify.lua checked it.)
    local expect = t.w.checksums and t.w.checksums[t.lib] or not libs.libs[t.lib].floor and t.w.checksum
    if expect and r.checksum ~= expect then
      return nil, format("read checksum %.17g, expected %.17g", r.checksum, expect), cmd
    end
    if p == 1 then
      merged = r
      merged.process_medians = { r.median }
    else
      for _, k in ipairs({ "rounds", "rounds_wall" }) do
        for _, v in ipairs(r[k]) do
          table.insert(merged[k], v)
        end
      end
      table.insert(merged.process_medians, r.median)
      for _, k in ipairs({ "heap_retained_kb", "heap_after_drop_kb", "heap_after_flush_kb", "vmhwm_kb",
        "vmhwm_before_kb", "vmrss_kb" }) do
        merged[k] = math.max(merged[k], r[k])
      end
      merged.iterations = merged.iterations + r.iterations
      merged.seconds = merged.seconds + r.seconds
    end
  end
  merged.processes = opts.procs
  merged.median = util.median(merged.rounds)
  merged.min = math.min(unpack(merged.rounds))
  merged.max = math.max(unpack(merged.rounds))
  return merged
end

io.write(format("%d scenarios, each in a fresh process\n", #todo))
local scenarios = {}
for i, t in ipairs(todo) do
  local t0 = now()
  local load0 = loadavg()
  local r, why, cmd = scenario(t)
  if r then
    r.wall_seconds = now() - t0
    r.loadavg = load0
    scenarios[#scenarios + 1] = r
    io.write(format("[%3d/%d] %-15s %-14s %13s ops/s  (%s..%s)  %10s MB/s  heap %6.1f KB  peak %7.1f MB  %4.1f s\n",
      i, #todo, t.w.name, t.lib, util.fmt_ops(r.median), util.fmt_ops(r.min), util.fmt_ops(r.max),
      util.fmt_sig(r.median * r.size / 1e6), r.heap_retained_kb, r.vmhwm_kb / 1024, r.wall_seconds))
  else
    -- A wrong answer is not a measurement: reported, not timed.
    failed[#failed + 1] = { name = t.w.name, library = t.lib, reason = why, command = cmd }
    io.write(format("[%3d/%d] %-15s %-14s *** FAILED: %s\n", i, #todo, t.w.name, t.lib, why))
  end
  io.stdout:flush()
end

meta.loadavg_end = loadavg()
meta.runtime_seconds = now() - started

local c1 = scenarios[1] and scenarios[1].config or {}
local results = {
  meta = meta,
  quick = opts.quick,
  config = {
    -- As bench/one.lua timed them.
    rounds = c1.rounds,
    processes = opts.procs,
    round_seconds = c1.round_time,
    warmup = format("%d iterations and %g s (cap %g s)", c1.warmup_iters, c1.warmup_time, c1.warmup_cap),
    libraries = lib_list,
  },
  workloads = wl,
  skipped = skipped,
  unavailable = unavailable,
  failed = failed,
  tiny_json = workloads.TINY,
  scenarios = scenarios,
}
report.derive(results)

io.write("\n", report.text_tables(results), "\n\n", report.text_targets(results), "\n")

-- 5. Results file, then (full run only) the docs and the plots.
local out_path
if opts.docs then
  out_path = format("%s/bench/results/%s.json", root, meta.date)
else
  os.execute("mkdir -p " .. util.shell_quote(root .. "/bench/results/tmp"))
  out_path = format("%s/bench/results/tmp/%s%s.json", root, opts.quick and "quick-" or "partial-", meta.date)
end
os.execute("mkdir -p " .. util.shell_quote(root .. "/bench/results"))
util.write_file(out_path, util.json_encode(results) .. "\n")
io.write(format("\nresults: %s\n", out_path))
if opts.docs then
  local md, png, ratios = report.write_docs(results, out_path, root)
  io.write(format("docs:    %s and README.md's headline table\nplots:   %s, %s\n", md, png or "(gnuplot failed)",
    ratios or "(gnuplot failed)"))
end
-- 6. JSON Schema validation against lua-cjson + api7's jsonschema, in a
-- process of its own (bench/schema/run.lua prints its table).
if not opts.smoke and not opts.only and not opts.libs then
  io.write("\nJSON Schema validation (bench/schema/run.lua):\n")
  io.flush()
  os.execute(util.shell_quote(arg[-1] or "luajit") .. " " .. util.shell_quote(bench_dir .. "/schema/run.lua")
    .. (opts.quick and " --quick" or ""))
end
io.write(format("total %.0f s\n", now() - started))
if #failed > 0 then
  io.stderr:write(format("\n%d workload(s) or scenario(s) not timed because of a wrong answer:\n", #failed))
  -- Another library's wrong answer is reported (and in the docs) but is
  -- not ours to fail the run on; qjson's, or a workload with none, is.
  local ours = false
  for _, f in ipairs(failed) do
    io.stderr:write(format("  %s%s: %s\n    (%s)\n", f.name, f.library and " " .. f.library or "", f.reason,
      f.command))
    ours = ours or not f.library or f.library:find("^qjson") ~= nil
  end
  if ours then
    os.exit(1)
  end
end
