-- What the OpenAPI benchmark's drivers (bench/openapi/run.lua, gateway.lua)
-- share outside nginx: their options, HTTP GETs to the bench nginx, the
-- machine's description, and writing results: bench/results/<name>-<date>.json,
-- a section of docs/benchmarks.md between markers of its own (which
-- bench/report.lua keeps when it rewrites the page), and a gnuplot PNG.
local util = require("util")
local plots = require("report.plots")

local format = string.format

local M = {}

M.ROOT = (debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or ".") .. "/../.."

-- --name=value pairs and bare --flags; anything else: usage and exit 2.
function M.options(usage)
  local opts = {}
  for _, a in ipairs(arg) do
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if k then
      opts[k] = v
    elseif a:match("^%-%-[%w-]+$") then
      opts[a:sub(3)] = true
    else
      io.stderr:write("usage: ", usage, "\n")
      os.exit(2)
    end
  end
  if not tonumber(opts.port) then
    io.stderr:write("usage: ", usage, "\n")
    os.exit(2)
  end
  return opts
end

-- GET http://127.0.0.1:port/path: status, body.
function M.get(port, path)
  local out = util.sh(format("curl -s -w '\\n%%{http_code}' 'http://127.0.0.1:%d%s'", port, path))
  local body, status = out:match("^(.*)\n(%d+)$")
  return tonumber(status), body
end

function M.machine()
  local cpuinfo = util.read_file("/proc/cpuinfo") or ""
  local load = (util.read_file("/proc/loadavg") or ""):match("^(%S+ %S+ %S+)")
  local qjson = require("qjson")
  return {
    date = os.date("%Y-%m-%d"), started_at = os.date("%Y-%m-%dT%H:%M:%S%z"),
    cpu = cpuinfo:match("model name%s*:%s*([^\n]+)") or "unknown",
    nginx = (util.sh("nginx -v 2>&1"):match("nginx/(%S+)")),
    luajit = jit.version, qjson = qjson._VERSION, qjson_backend = qjson.backend(),
    git_commit = (util.sh("git -C " .. util.shell_quote(M.ROOT) .. " rev-parse --short HEAD"):gsub("%s+$", "")),
    loadavg_start = load,
  }
end

-- Writes bench/results/<name>-<date>.json (with --no-docs or a partial
-- run, under bench/results/tmp/); returns its path relative to the root.
function M.write_results(name, results, partial)
  local rel = partial and format("bench/results/tmp/%s-%s.json", name, results.machine.date)
    or format("bench/results/%s-%s.json", name, results.machine.date)
  os.execute("mkdir -p " .. util.shell_quote(M.ROOT .. "/" .. rel:match("^(.*)/")))
  util.write_file(M.ROOT .. "/" .. rel, util.json_encode(results, "  ") .. "\n")
  return rel
end

-- docs/benchmarks.md's block `name` (<!-- name:begin --> .. <!-- name:end -->)
-- replaced by `markdown`, or inserted before "## Method" the first time.
M.BLOCKS = { "openapi-loop", "openapi-gateway" }
function M.write_block(name, markdown)
  local path = M.ROOT .. "/docs/benchmarks.md"
  local md = assert(util.read_file(path), "cannot read " .. path)
  local block = format("<!-- %s:begin (written by bench/openapi/) -->\n%s\n<!-- %s:end -->\n", name, markdown, name)
  local a = md:find("<!-- " .. name .. ":begin", 1, true)
  local _, b = md:find("<!-- " .. name .. ":end -->\n", 1, true)
  if a and b and b > a then
    md = md:sub(1, a - 1) .. block .. md:sub(b + 1)
  else
    local m = md:find("\n## Method", 1, true)
    md = m and md:sub(1, m) .. block .. "\n" .. md:sub(m + 1) or md .. "\n" .. block
  end
  util.write_file(path, md)
  return path
end

-- A bar chart of ratios (rows: { label, ratio }) with a dashed line at
-- `target` (nil: none) into docs/<png>; returns its path or nil.
function M.plot_ratios(png, title, ylabel, rows, target, machine)
  local data = {}
  for i, r in ipairs(rows) do
    data[#data + 1] = format("%d \"%s\" %.4f", i - 1, r[1], r[2])
  end
  local root = M.ROOT
  local tmp = root .. "/bench/results/tmp"
  os.execute("mkdir -p " .. util.shell_quote(tmp))
  local dat = tmp .. "/" .. png:gsub("%.png$", ".dat")
  util.write_file(dat, table.concat(data, "\n") .. "\n")
  local max = target or 0
  for _, r in ipairs(rows) do
    max = math.max(max, r[2])
  end
  local script = table.concat({
    format("set terminal pngcairo size 1000,560 enhanced font 'DejaVu Sans,10'"),
    format("set output '%s/docs/%s'", root, png),
    format("set title \"%s\\n{/*0.8 %s, %s, %s}\"", title, machine.cpu, machine.luajit, machine.date),
    format("set ylabel '%s'", ylabel),
    "set style fill solid 0.8 border -1", "set boxwidth 0.6", "set grid ytics", "unset key",
    format("set yrange [0:%.2f]", max * 1.15),
    "set xtics rotate by -35 left nomirror font ',9'", "set bmargin 9", "set rmargin 12",
    target and format("set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lw 2 lc rgb '#d1601f'",
      target, target) or "",
    target and format("set label '%gx target' at graph 0.01, first %g offset 0,0.6 tc rgb '#d1601f'", target,
      target) or "",
    format("plot '%s' using 1:3:xtic(2) with boxes lc rgb '#1f6fd1', '' using 1:3:(sprintf('%%.1fx', $3)) "
      .. "with labels offset 0,0.7 font ',8'", dat),
  }, "\n")
  return plots.gnuplot(script, root .. "/docs/" .. png, tmp, png:gsub("%.png$", ""))
end

return M
