-- Turns a results file into tables, the target check, docs/benchmarks.md,
-- the plots (docs/bench-chat.png, docs/bench-ratios.png) and the README's
-- headline table. Used by run.lua; also on its own:
--
--   luajit bench/report.lua [bench/results/<date>.json]   (default: the newest)
--
-- regenerates the docs from an existing results file without re-running.
-- The nginx gateway's section comes from the newest
-- bench/results/gateway-<date>.json (bench/gateway/run.lua), when there is one.
--
-- The work is in bench/report/: derive.lua (ratios, target verdicts),
-- tables.lua (rows, titles, the text tables), plots.lua (gnuplot),
-- markdown.lua and gateway_md.lua (docs/benchmarks.md); this module puts
-- them together and writes the files.
if (...) ~= "report" then
  local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
  package.path = dir .. "/?.lua;" .. package.path
end
local util = require("util")
local derive = require("report.derive")
local tables = require("report.tables")
local plots = require("report.plots")
local markdown = require("report.markdown")
local gateway_md = require("report.gateway_md")

local format, concat = string.format, table.concat
local fmt_ops, fmt_sig = util.fmt_ops, util.fmt_sig
local find = derive.find

local M = {
  TARGETS = derive.TARGETS,
  derive = derive.derive,
  find = derive.find,
  main_lib = derive.main_lib,
  text_tables = tables.text_tables,
  text_targets = tables.text_targets,
  gnuplot = plots.gnuplot,
  subtitle = plots.subtitle,
  plot = plots.plot,
  plot_ratios = plots.plot_ratios,
  plot_gateway = plots.plot_gateway,
  markdown = markdown.markdown,
  gateway_markdown = gateway_md.gateway_markdown,
  gateway_costs = gateway_md.gateway_costs,
}

-- `path` relative to `root` (both as given on the command line).
local function relative(path, root)
  path = path:gsub("^%./", "")
  if root ~= "." and path:sub(1, #root + 1) == root .. "/" then
    path = path:sub(#root + 2)
  end
  return path
end

-- The newest results file matching `pattern` under bench/results, or nil.
local function newest(root, pattern)
  local p = io.popen("ls " .. util.shell_quote(root .. "/bench/results") .. "/" .. pattern
    .. " 2>/dev/null | sort | tail -n 1")
  local path = p and p:read("*l")
  if p then
    p:close()
  end
  return path ~= "" and path or nil
end
M.newest = newest

-- The README's headline table, between its bench:headline markers.
local HEADLINE = {
  { "parse + read fields (`qjson.parse`)", "chat-2k", "qjson", "chat request, 2 KB" },
  { "parse + read fields (`qjson.parse`)", "chat-100k", "qjson", "chat request, 100 KB" },
  { "parse + read fields (`qjson.parse`)", "chat-1m", "qjson", "chat request, 1 MB" },
  { "parse + read fields (`qjson.parse`)", "chat-10m", "qjson", "chat request, 10 MB" },
  { "decode + read fields (`qjson.decode`)", "chat-100k", "qjson.decode", "chat request, 100 KB" },
  { "decode + read fields (`qjson.decode`)", "chat-10m", "qjson.decode", "chat request, 10 MB" },
  { "decode + encode, unmodified", "roundtrip-1m", "qjson.decode", "chat request, 1 MB" },
  { "decode + set a field + encode", "modtop-10m", "qjson.decode", "chat request, 10 MB" },
  { "parse + read fields (`qjson.parse`)", "issues-100k", "qjson", "GitHub issues list, 100 KB" },
  { "decode to tables (`qjson.cjson`)", "read-twitter", "qjson.cjson", "twitter.json" },
  { "decode to tables (`qjson.cjson`)", "read-canada", "qjson.cjson", "canada.json" },
  { "decode + read every field", "decode-tiny", "qjson.decode", "~200-byte object" },
  { "encode", "encode-twitter", "qjson", "table from twitter.json" },
  { "encode", "encode-tiny", "qjson", "~200-byte object" },
}

function M.readme_headline(results, gateway)
  local m = results.meta
  -- A column for lua-resty-simdjson when this run timed it: qjson's ops/s
  -- over its, on the same job (empty where it has no figure).
  local simdjson = false
  for _, h in ipairs(HEADLINE) do
    simdjson = simdjson or find(results, h[2], "resty.simdjson") ~= nil
  end
  local rows = {}
  for _, h in ipairs(HEADLINE) do
    local s = find(results, h[2], h[3])
    if s then
      local row = { h[1], h[4], fmt_ops(s.median), fmt_sig(s.x_cjson, "×") }
      if simdjson then
        local o = find(results, h[2], "resty.simdjson")
        row[5] = o and o.median and o.median > 0 and fmt_sig(s.median / o.median, "×") or ""
      end
      rows[#rows + 1] = row
    end
  end
  local head = { "job", "document", "qjson ops/s", "× lua-cjson" }
  if simdjson then
    head[5] = "× lua-resty-simdjson"
  end
  local L = {
    format("From one `make bench` run (%s; %s cores, %s; %s); ratios are what to compare, as the machine is "
      .. "shared. Full tables, targets, method and memory figures in [docs/benchmarks.md](docs/benchmarks.md).",
      m.date, m.cores, m.cpu, m.luajit),
    "",
    util.md_table(head, rows, simdjson and "llrrr" or "llrr"),
    "",
  }
  if gateway then
    local g = {}
    for _, r in ipairs(gateway.rows) do
      if r.handler == "qjson" and r.x_rps and (r.mode == "memory" or r.mode == "stream") then
        g[#g + 1] = format("%s %s (p99 %s lua-cjson's)", r.body_label, fmt_sig(r.x_rps, "×"),
          fmt_sig(r.p99_ratio, "×"))
      end
    end
    if #g > 0 then
      L[#L + 1] = "nginx gateway (`make bench-gateway`, one worker): requests/s over lua-cjson's, " .. concat(g, ", ")
        .. "."
      L[#L + 1] = ""
    end
  end
  L[#L + 1] = "![qjson's speed-up over lua-cjson](docs/bench-ratios.png)"
  L[#L + 1] = ""
  L[#L + 1] = "![parse + read fields, MB/s against document size](docs/bench-chat.png)"
  return concat(L, "\n")
end

local function update_readme(root, text)
  local path = root .. "/README.md"
  local readme = util.read_file(path)
  if not readme then
    return nil
  end
  local a, b = readme:find("<!-- bench:headline -->\n", 1, true)
  local c = readme:find("<!-- /bench:headline -->", 1, true)
  if not a or not c or c < b then
    return nil
  end
  util.write_file(path, readme:sub(1, b) .. text .. "\n" .. readme:sub(c))
  return path
end

-- Writes docs/benchmarks.md, the plots and the README's headline table;
-- returns the page's path and the two plots' (nil when gnuplot failed).
function M.write_docs(results, results_path, root)
  local gpath = newest(root, "gateway-*.json")
  local gateway = gpath and require("cjson").decode(util.read_file(gpath)) or nil
  local md_path = root .. "/docs/benchmarks.md"
  local md = M.markdown(results, relative(results_path, root), gateway, gpath and relative(gpath, root))
  -- The sections other scripts write are kept as they were: the Rust
  -- core's (bench/core) and the OpenAPI benchmark's (bench/openapi/).
  local old = util.read_file(md_path) or ""
  for _, name in ipairs({ "core-bench", "openapi-loop", "openapi-gateway" }) do
    local a = old:find("<!-- " .. name .. ":begin", 1, true)
    local _, b = old:find("<!-- " .. name .. ":end -->\n", 1, true)
    if a and b and b > a then
      local m = md:find("\n## Method", 1, true)
      local kept = old:sub(a, b)
      md = m and md:sub(1, m) .. kept .. md:sub(m) or md .. "\n" .. kept
    end
  end
  util.write_file(md_path, md)
  local tmp = root .. "/bench/results/tmp"
  local png = M.plot(results, root .. "/docs/bench-chat.png", tmp)
  local ratios = M.plot_ratios(results, root .. "/docs/bench-ratios.png", tmp)
  if gateway then
    M.plot_gateway(gateway, root .. "/docs/bench-gateway.png", tmp)
  end
  update_readme(root, M.readme_headline(results, gateway))
  return md_path, png, ratios
end

-- Standalone (not required as a module): regenerate the docs.
if (...) ~= "report" then
  local script = arg and arg[0] or "bench/report.lua"
  local bench_dir = script:match("^(.*)/[^/]*$") or "."
  local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
  local path = arg[1] or newest(root, "[0-9]*.json")
  if not path or path == "" then
    io.stderr:write("report.lua: no results file (run `make bench` first)\n")
    os.exit(1)
  end
  local results = require("cjson").decode((assert(util.read_file(path), "cannot read " .. path)))
  M.derive(results)
  local md, png, ratios = M.write_docs(results, path, root)
  print("wrote " .. md .. ", " .. tostring(png) .. ", " .. tostring(ratios))
end

return M
