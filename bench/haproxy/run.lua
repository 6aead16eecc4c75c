-- make bench-haproxy's load part (bench/haproxy/run.sh starts haproxy with
-- bench/haproxy/handlers.lua and stops it):
--
--   luajit bench/haproxy/run.lua --port=P --prefix=DIR [--quick]
--
-- 1. Checks every handler through haproxy (curl) on each body: the action
--    routes a gpt-4o request to be_gpt and, except the floor's, another
--    model to be_other; the service's answer decodes to the request with
--    `temperature` = 0.5 (the floor's is the body).
-- 2. Times them with wrk (bench/gateway/post.lua; one thread, two
--    connections) on POST bodies of 2 KB, 100 KB and 1 MB (the chat
--    requests of bench/workloads.lua): for each body and job, rounds in
--    which the libraries take turns (the order reversed every other
--    round); median requests/s and p99 latency, ratios to lua-cjson and
--    to the floor.
-- 3. Writes bench/results/haproxy-<date>.json and docs/bench-haproxy.png
--    (--quick: both under bench/results/tmp/).
local script_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local bench_dir = script_dir:match("^(.*)/haproxy$") or script_dir .. "/.."
local root = bench_dir:match("^(.*)/bench$") or bench_dir .. "/.."
package.path = bench_dir .. "/?.lua;" .. bench_dir .. "/gateway/?.lua;" .. package.path

local cjson = require("cjson")
local util = require("util")
local workloads = require("workloads")
local driver = require("driver")
local plots = require("report.plots")

local format = string.format

local opts = driver.options("luajit bench/haproxy/run.lua --port=P --prefix=DIR [--quick]")
local port, prefix = assert(tonumber(opts.port), "--port"), assert(opts.prefix, "--prefix")
local CONFIG = opts.quick and { runs = 1, seconds = 1, connections = 2 } or { runs = 5, seconds = 2, connections = 2 }
local BODIES = {
  { name = "chat-2k", label = "2 KB" },
  { name = "chat-100k", label = "100 KB" },
  { name = "chat-1m", label = "1 MB" },
}
local LIBS = { "qjson", "cjson", "dkjson", "floor" }
local LIB_NAMES = { qjson = "qjson", cjson = "lua-cjson 2.1.0.17", dkjson = "dkjson", floor = "floor (no JSON)" }
local JOBS = {
  { name = "route", label = "action: read model, route" },
  { name = "edit", label = "service: decode, set temperature, encode" },
}

local function curl(path, body_file)
  local out = util.sh(format("curl -s -m 120 -w '\\n%%{http_code}' %s http://127.0.0.1:%d%s",
    body_file and "-H 'content-type: application/json' --data-binary @" .. util.shell_quote(body_file) or "", port,
    path))
  local body, status = out:match("^(.*)\n(%d+)$")
  return tonumber(status), body
end

local _, versions = curl("/versions")
io.write("loaded by haproxy:\n", versions)

-- 1. Bodies and checks.
for _, b in ipairs(BODIES) do
  local s = assert(workloads.load(b.name, root .. "/bench/data"))
  b.size, b.path = #s, prefix .. "/" .. b.name .. ".json"
  util.write_file(b.path, s)
  local other = prefix .. "/" .. b.name .. "-other.json"
  util.write_file(other, (s:gsub('"model":"gpt%-4o"', '"model":"llama-3"', 1)))
  local want = cjson.decode(s)
  want.temperature = 0.5
  for _, lib in ipairs(LIBS) do
    local status, routed = curl("/route/" .. lib, b.path)
    if status ~= 200 or routed ~= "gpt" then
      error(format("%s action, %s: routed to %s (status %s), not gpt", lib, b.label, routed, status), 0)
    end
    if lib ~= "floor" then
      status, routed = curl("/route/" .. lib, other)
      if status ~= 200 or routed ~= "other" then
        error(format("%s action, %s with model llama-3: routed to %s (status %s), not other", lib, b.label, routed,
          status), 0)
      end
    end
    local edited
    status, edited = curl("/edit/" .. lib, b.path)
    local d = status ~= 200 and format("status %s", status)
    if not d and lib == "floor" then
      d = edited ~= s and "the answer is not the body"
    elseif not d then
      local ok, got = pcall(cjson.decode, edited)
      d = not ok and got or util.first_difference(want, got, "$", true)
    end
    if d then
      error(format("%s service, %s: %s", lib, b.label, d), 0)
    end
  end
  io.write(format("checked %-9s %8d bytes: every action routes, every service answers\n", b.name, b.size))
end

-- 2. Load.
local rows = {}
for _, b in ipairs(BODIES) do
  for _, job in ipairs(JOBS) do
    local acc = {}
    for _, lib in ipairs(LIBS) do
      acc[lib] = { rps = {}, p99 = {}, requests = 0, errors = 0 }
    end
    for run = 1, CONFIG.runs do
      for k = 1, #LIBS do
        local lib = LIBS[run % 2 == 1 and k or #LIBS - k + 1]
        local a = acc[lib]
        local r = driver.wrk(port, "/" .. job.name .. "/" .. lib, b.path, CONFIG.seconds, CONFIG.connections)
        a.rps[run] = r.requests / (r.duration_us / 1e6)
        a.p99[run] = r.p99_us / 1000
        a.requests, a.errors = a.requests + r.requests, a.errors + r.errors + r.non2xx
        io.write(format("  %-6s %-5s %-6s run %d: %10.1f req/s  p99 %8.2f ms\n", b.label, job.name, lib, run,
          a.rps[run], a.p99[run]))
        io.stdout:flush()
      end
    end
    local by = {}
    for _, lib in ipairs(LIBS) do
      local a = acc[lib]
      by[lib] = { body = b.name, body_label = b.label, body_size = b.size, job = job.name, job_label = job.label,
        lib = lib, handler = LIB_NAMES[lib], rps = util.median(a.rps), p99_ms = util.median(a.p99),
        rps_runs = a.rps, p99_runs = a.p99, requests = a.requests, errors = a.errors }
      rows[#rows + 1] = by[lib]
    end
    for _, lib in ipairs(LIBS) do
      local r = by[lib]
      r.x_cjson, r.p99_x_cjson, r.of_floor = r.rps / by.cjson.rps, r.p99_ms / by.cjson.p99_ms, r.rps / by.floor.rps
    end
  end
end

-- Issue 41's targets for the action.
local targets = {}
for _, r in ipairs(rows) do
  if r.lib == "qjson" and r.job == "route" and r.body ~= "chat-1m" then
    local need = r.body == "chat-2k" and 1.3 or 2
    targets[#targets + 1] = { what = format("action requests/s, %s: qjson over lua-cjson", r.body_label),
      measured = util.fmt_sig(r.x_cjson, "x"), needed = format(">= %sx", need), met = r.x_cjson >= need }
    targets[#targets + 1] = { what = format("action p99, %s: qjson's over lua-cjson's", r.body_label),
      measured = format("%.3fx", r.p99_x_cjson), needed = "<= 1x", met = r.p99_x_cjson <= 1 }
  end
end

local text_rows = {}
for _, r in ipairs(rows) do
  text_rows[#text_rows + 1] = { r.body_label, r.job, r.handler, util.fmt_ops(r.rps), util.fmt_sig(r.x_cjson, "x"),
    util.fmt_sig(r.of_floor, "x"), format("%.2f", r.p99_ms), util.fmt_sig(r.p99_x_cjson, "x"),
    tostring(r.errors) }
end
io.write(format("\nhaproxy, one thread; wrk, %d connections, %d runs of %d s; medians\n", CONFIG.connections,
  CONFIG.runs, CONFIG.seconds))
io.write(util.text_table({ "body", "job", "handler", "req/s", "x cjson", "of floor", "p99 ms", "p99 x cjson",
  "errors" }, text_rows), "\n\nIssue 41's targets (the action)\n")
local trows = {}
for _, t in ipairs(targets) do
  trows[#trows + 1] = { t.what, t.measured, t.needed, t.met and "met" or "NOT MET" }
end
io.write(util.text_table({ "target", "measured", "needed", "verdict" }, trows), "\n")

-- 3. Results and the plot.
local results = {
  date = os.date("%Y-%m-%d"),
  quick = opts.quick or false,
  haproxy = "haproxy " .. (util.sh("haproxy -v"):match("HAProxy version ([%d.]+)") or "?") .. ", nbthread 1",
  wrk = "wrk " .. (util.sh("wrk --version 2>&1"):match("wrk (%S+)") or "?"),
  versions = versions,
  connections = CONFIG.connections,
  runs = CONFIG.runs,
  seconds = CONFIG.seconds,
  pinned = driver.PIN,
  loadavg = util.read_file("/proc/loadavg"),
  rows = rows,
  targets = targets,
}
local dir = opts.quick and root .. "/bench/results/tmp" or root .. "/bench/results"
os.execute("mkdir -p " .. util.shell_quote(dir))
local out_path = format("%s/%shaproxy-%s.json", dir, opts.quick and "quick-" or "", results.date)
util.write_file(out_path, util.json_encode(results) .. "\n")
io.write("\nresults: " .. out_path .. "\n")

local COLOURS = { qjson = "#1f6fd1", cjson = "#d1601f", dkjson = "#6a9a1f", floor = "#aaaaaa" }
local data = {}
for _, job in ipairs(JOBS) do
  for _, b in ipairs(BODIES) do
    local cells = { format('"%s\\n%s"', job.name == "route" and "action" or "service", b.label) }
    local q
    for _, lib in ipairs(LIBS) do
      for _, r in ipairs(rows) do
        if r.job == job.name and r.body == b.name and r.lib == lib then
          cells[#cells + 1] = format("%.6g", r.rps)
          q = lib == "qjson" and r or q
        end
      end
    end
    cells[#cells + 1] = format('"%s"', util.fmt_sig(q.x_cjson, "×"))
    data[#data + 1] = table.concat(cells, " ")
  end
end
local series = {}
for i, lib in ipairs(LIBS) do
  series[i] = format("$d using %d%s title '%s' lc rgb '%s'", i + 1, i == 1 and ":xtic(1)" or "", LIB_NAMES[lib],
    COLOURS[lib])
end
series[#series + 1] = format("$d using ($0-0.34):2:%d with labels offset 0,1 font ',10' notitle", #LIBS + 2)
local png = opts.quick and dir .. "/quick-bench-haproxy.png" or root .. "/docs/bench-haproxy.png"
local script = table.concat({
  "set terminal pngcairo size 1100,560 enhanced font 'Sans,11'",
  "set output '" .. png .. "'",
  "set encoding utf8",
  "$d << EOD", table.concat(data, "\n"), "EOD",
  format("set title \"HAProxy (Lua 5.3), one thread: requests/s (higher is better; labels: qjson × lua-cjson)\\n"
    .. "{/*0.8 action: read the body's model, route; service: decode, set temperature, re-encode; "
    .. "%s; wrk, %d connections; median of %d runs; %s}\"", results.haproxy, CONFIG.connections, CONFIG.runs,
    results.date),
  "set style data histogram", "set style histogram clustered gap 1", "set style fill solid 0.85 border -1",
  "set boxwidth 0.9", "set logscale y", "set yrange [1:200000]", "set grid ytics lc rgb '#dddddd'",
  "set key top right box opaque", "set ylabel 'requests/s'", "set bmargin 4",
  "plot " .. table.concat(series, ", "), "",
}, "\n")
io.write("plot:    " .. tostring(plots.gnuplot(script, png, root .. "/bench/results/tmp", "bench-haproxy")) .. "\n")
