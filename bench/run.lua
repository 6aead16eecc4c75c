-- The benchmark behind `make bench` / `make bench-quick`:
--
--   luajit bench/run.lua [--quick] [--only=<workload>[,...]] [--libs=<lib>[,...]] [--procs=N] [--no-docs]
--
-- Generates the workloads (cached under bench/data/; the encode workloads
-- of the real corpus are skipped, with a message, when ../shared/data is
-- not beside the checkout), checks that every library reads the same
-- values from each (encode workloads: that qjson writes lua-cjson's bytes
-- and dkjson's output decodes back to the table), then times every
-- (workload, library) scenario in a fresh process (bench/one.lua), prints a table and
-- writes bench/results/<date>.json, docs/benchmarks.md and
-- docs/bench-chat.png. A --quick run (2 short rounds, no API variants)
-- writes bench/results/tmp/quick-<date>.json and leaves the docs alone;
-- so do --only and --libs. --procs=N runs each scenario in N fresh
-- processes and pools their rounds (LuaJIT's traces, hence speed, differ
-- from one process to the next by up to ~20% on small documents).
local bench_script = arg and arg[0] or "bench/run.lua"
local root0, bench_dir = (function()
  local d = bench_script:match("^(.*)/[^/]*$") or "."
  return d:match("^(.*)/bench$") or (d == "bench" and ".") or d .. "/..", d
end)()
package.path = bench_dir .. "/?.lua;" .. root0 .. "/lua/?.lua;" .. root0 .. "/lua/?/init.lua;" .. package.path

local ffi = require("ffi")
local util = require("util")
local workloads = require("workloads")
local libs = require("libs")
local report = require("report")

local format = string.format
local root = root0

local opts = { quick = false, docs = true, procs = 1 }
for _, a in ipairs(arg) do
  if a == "--quick" then
    opts.quick = true
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
    io.stderr:write("usage: luajit bench/run.lua [--quick] [--only=w1,w2] [--libs=l1,l2] [--procs=N] [--no-docs]\n")
    os.exit(2)
  end
end
if opts.quick or opts.only or opts.libs then
  opts.docs = false -- only a full run publishes
end

ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } qjson_bench_timespec;
int clock_gettime(int clk_id, qjson_bench_timespec *tp);
]])
local ts = ffi.new("qjson_bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
local started = now()

local luajit = arg[-1] or "luajit"
local one = util.shell_quote(bench_dir .. "/one.lua")

local function loadavg()
  local s = util.read_file("/proc/loadavg") or ""
  local a, b, c = s:match("^(%S+) (%S+) (%S+)")
  return { tonumber(a), tonumber(b), tonumber(c) }
end

local function sh(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then
    return nil
  end
  local s = p:read("*a")
  p:close()
  return (s:gsub("%s+$", ""))
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
  for _, f in ipairs({ "avx512f", "avx512bw", "avx2", "sse4_2", "pclmulqdq" }) do
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
    cjson = require("cjson")._VERSION,
    dkjson = (require("dkjson").version:gsub("^dkjson ", "")),
    qjson_lib_built = sh("stat -c %y " .. util.shell_quote(root .. "/target/release/libqjson.so")),
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
io.write(format("qjson benchmark%s: %s, %d cores, LuaJIT %s\n", opts.quick and " (quick)" or "", meta.cpu,
  meta.cores, meta.luajit))
io.write(format("qjson %s (%s), lua-cjson %s, dkjson %s; load average %.2f %.2f %.2f\n\n", meta.qjson,
  meta.qjson_backend, meta.cjson, meta.dkjson, unpack(meta.loadavg_start)))

-- 1. Workloads: generate (deterministic) and cache for the children.
local data_dir = root .. "/bench/data"
local wl, skipped = {}, {}
for _, w in ipairs(workloads.list) do
  if not opts.only or opts.only[w.name] then
    local s, why = workloads.generate(w.name)
    if s then
      workloads.write_cache(data_dir, w.name, s)
      wl[#wl + 1] = { name = w.name, kind = w.kind, label = w.label, target = w.target, size = #s }
    else
      skipped[#skipped + 1] = { name = w.name, reason = why }
      io.write(format("*** SKIPPED %s: %s\n", w.name, why))
    end
  end
end
if #skipped > 0 then
  io.write("\n")
end

-- 2. Every library reads the same values.
for _, w in ipairs(wl) do
  local out, cmd = run_child(util.shell_quote(w.name) .. " --verify")
  local v = parse_line(out, "VERIFY")
  if not v or not v.ok then
    io.stderr:write(format("\nABORT: %s.\n%s\n(%s)\n", w.kind == "encode"
      and format("the encoders do not agree on %s (qjson must write lua-cjson's bytes, dkjson's output must "
        .. "decode back to the table)", w.name)
      or format("the libraries do not read the same values from %s", w.name), out, cmd))
    os.exit(1)
  end
  w.checksum, w.checksums, w.values, w.structurals, w.verified_with = v.checksum, v.checksums, v.values,
    v.structurals, v.libraries
  w.output_size = v.output_size
  io.write(format("verified %-14s %9d bytes  %6d values %s\n", w.name, w.size, v.values, v.how))
end
io.write("\n")

-- 3. Scenarios, each in a fresh process.
local lib_list = opts.libs
if not lib_list then
  lib_list = {}
  for _, l in ipairs(libs.default) do
    lib_list[#lib_list + 1] = l
  end
  if not opts.quick then
    for _, l in ipairs(libs.variants) do
      lib_list[#lib_list + 1] = l
    end
  end
end

local todo = {}
for _, w in ipairs(wl) do
  for _, l in ipairs(lib_list) do
    if libs.runs(l, w.kind, w.size) then
      todo[#todo + 1] = { w = w, lib = l }
    end
  end
end

local function median(list)
  local t = {}
  for i, v in ipairs(list) do
    t[i] = v
  end
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) / 2] or (t[n / 2] + t[n / 2 + 1]) / 2
end

-- One scenario in `opts.procs` fresh processes: rounds pooled, memory
-- figures the worst of them.
local function scenario(t)
  local merged
  for p = 1, opts.procs do
    local out, cmd = run_child(util.shell_quote(t.w.name) .. " " .. util.shell_quote(t.lib)
      .. (opts.quick and " --quick" or ""))
    local r = parse_line(out, "RESULT")
    if not r then
      io.stderr:write(format("\nABORT: %s produced no result:\n%s\n", cmd, out))
      os.exit(1)
    end
    local expect = t.w.checksums and t.w.checksums[t.lib] or t.w.checksum
    if not libs.libs[t.lib].floor and r.checksum ~= expect then
      io.stderr:write(format("\nABORT: %s on %s read checksum %.17g, expected %.17g\n", t.lib, t.w.name, r.checksum,
        expect))
      os.exit(1)
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
  merged.median = median(merged.rounds)
  merged.min = math.min(unpack(merged.rounds))
  merged.max = math.max(unpack(merged.rounds))
  return merged
end

local scenarios = {}
for i, t in ipairs(todo) do
  local t0 = now()
  local load0 = loadavg()
  local r = scenario(t)
  r.wall_seconds = now() - t0
  r.loadavg = load0
  scenarios[#scenarios + 1] = r
  io.write(format("[%2d/%d] %-14s %-13s %13s ops/s  (%s..%s)  %10s MB/s  heap %6.1f KB  peak %7.1f MB  %4.1f s\n",
    i, #todo, t.w.name, t.lib, util.fmt_ops(r.median), util.fmt_ops(r.min), util.fmt_ops(r.max),
    util.fmt_sig(r.median * r.size / 1e6), r.heap_retained_kb, r.vmhwm_kb / 1024, r.wall_seconds))
  io.stdout:flush()
end

meta.loadavg_end = loadavg()
meta.runtime_seconds = now() - started

local results = {
  meta = meta,
  quick = opts.quick,
  config = {
    rounds = opts.quick and 2 or 5,
    processes = opts.procs,
    round_seconds = opts.quick and 0.25 or 1.0,
    warmup = opts.quick and "100 iterations and 0.15 s (cap 0.6 s)" or "100 iterations and 0.5 s (cap 3 s)",
    libraries = lib_list,
  },
  workloads = wl,
  skipped = skipped,
  tiny_json = workloads.TINY,
  scenarios = scenarios,
}
report.derive(results)

io.write("\n", report.text_tables(results), "\n\n", report.text_targets(results), "\n")

-- 4. Results file, then (full run only) the docs and the plot.
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
  local md, png = report.write_docs(results, out_path, root)
  io.write(format("docs:    %s\nplot:    %s\n", md, png or "(gnuplot failed)"))
end
io.write(format("total %.0f s\n", now() - started))
