-- The nginx gateway's section of docs/benchmarks.md, from
-- bench/gateway/run.lua's results.
local util = require("util")

local format, concat = string.format, table.concat
local fmt_ops, fmt_sig = util.fmt_ops, util.fmt_sig

local M = {}

-- The nginx gateway section, from bench/gateway/run.lua's results.
function M.gateway_markdown(g, rel)
  if not g then
    return "Not run yet: `make bench-gateway` measures it and writes this section.\n"
  end
  local L = {}
  local function add(...)
    for _, x in ipairs({ ... }) do
      L[#L + 1] = x
    end
  end
  add(format("Measured on %s by `make bench-gateway` (`luajit bench/gateway/run.lua`), results in [`%s`](../%s): "
    .. "%s, one worker, on 127.0.0.1, driven by %s (%d connections, one thread). Request bodies are held in memory "
    .. "(`client_body_buffer_size %s`)%s. Each handler reads `model` and every `messages[i].content` "
    .. "(for array contents, each part's `type` and `text`), sets `temperature`, re-encodes the body and responds "
    .. "with its length. %s", g.date, rel, rel, g.nginx or "nginx", g.wrk or "wrk", g.connections,
    g.body_buffer, g.file_mode and format("; the `%s` rows are with bodies buffered to a temporary file "
      .. "(`client_body_buffer_size %s`), read with `qjson.parse_file` / `io.open`", "file", g.file_buffer) or "",
    g.qjson_api_note or ""), "")
  if g.stream_note then
    add(g.stream_note, "")
  end
  add(format("Every figure is the median of %d runs of %g s per handler, the handlers taking turns; "
    .. "the machine is shared (load average %s at the start), and %s, so "
    .. "compare the ratios; the p99 latencies carry the scheduling noise of the other jobs.", g.runs, g.seconds,
    (g.loadavg or "?"):match("^(%S+ %S+ %S+)") or "?",
    g.pinned and "the nginx worker runs on CPU 0 and wrk on CPU 1 (`worker_cpu_affinity`, `taskset`)"
      or "wrk and nginx share its cores"), "")
  local rows, simdjson, views = {}, false, false
  for _, r in ipairs(g.rows) do
    simdjson = simdjson or r.x_simdjson_rps ~= nil
    views = views or r.x_views_rps ~= nil
  end
  for _, r in ipairs(g.rows) do
    local base = r.handler == "lua-cjson"
    local bold = r.handler == "qjson" or r.handler == "qjson select+patch"
    rows[#rows + 1] = { r.body_label, r.mode, bold and "**" .. r.handler .. "**" or r.handler, fmt_ops(r.rps),
      r.x_rps and fmt_sig(r.x_rps, "×") or (base and "1×" or ""), r.of_floor and fmt_sig(r.of_floor, "×") or "",
      r.of_bound and fmt_sig(r.of_bound, "×") or "", format("%.2f", r.p50_ms), format("%.2f", r.p99_ms),
      r.p99_ratio and fmt_sig(r.p99_ratio, "×") or (base and "1×" or ""),
      format("%.1f", r.rss_before_kb / 1024), format("%.1f", r.rss_after_kb / 1024), fmt_ops(r.requests),
      tostring(r.errors) }
    if simdjson then
      table.insert(rows[#rows], 6, r.x_simdjson_rps and fmt_sig(r.x_simdjson_rps, "×") or "")
    end
    if views then
      table.insert(rows[#rows], 6, r.x_views_rps and fmt_sig(r.x_views_rps, "×") or "")
    end
  end
  add(format("lua-cjson, the baseline of every ratio: %s.%s", g.cjson or "Debian's lua-cjson 2.1.0",
    g.cjson and not g.cjson:find("^Debian") and " The `lua-cjson 2.1.0 (Debian)` rows do the same job with "
      .. "Debian's lua-cjson 2.1.0 (2012), for comparison." or ""), "")
  add("Rows: `qjson` and `lua-cjson` do the job; `floor (no JSON)` only reads the body (from memory, or its "
    .. "file) and answers its length: meant as the most requests/s a handler can reach on this nginx and "
    .. "machine, and so at 2 KB and 100 KB (at 1 MB in memory it can measure below the JSON handlers: each of "
    .. "its requests leaves a 1 MB string to the collector, and its worker's RSS grows most). "
    .. "\"of floor\" = requests/s over the floor's; the floor's own \"× cjson\" is therefore the highest ratio "
    .. "over lua-cjson a handler can reach there. `bound (strict parse + output)` does the least a handler that "
    .. "checks the body as strictly as qjson.decode and answers a re-encoded body can: `qjson.parse` of the "
    .. "body and one new string of its size (the body with `temperature` replaced as text; no JSON edit, no "
    .. "reads); \"of bound\" = requests/s over the bound's. `qjson select+patch` does the job without views "
    .. "(one parse, `qjson.select` reads, a compiled `qjson.patcher`); \"× views\" = its requests/s over the "
    .. "`qjson` (views) row's. The worker's RSS is read from `/proc` before a handler's "
    .. "first run and after its last (the handlers share the one worker and take turns).", "")
  if g.simdjson then
    add("`lua-resty-simdjson` does the same job with Kong's lua-resty-simdjson (" .. g.simdjson .. "); "
      .. "\"× simdjson\" = qjson's requests/s over its.", "")
  elseif g.simdjson_missing then
    add("lua-resty-simdjson was not measured: " .. g.simdjson_missing .. ".", "")
  end
  local head = { "body", "body in", "handler", "requests/s", "× cjson", "of floor", "of bound", "p50 ms",
    "p99 ms", "p99 / cjson's", "worker RSS before MB", "after MB", "requests", "errors" }
  if simdjson then
    table.insert(head, 6, "× simdjson")
  end
  if views then
    table.insert(head, 6, "× views")
  end
  add(util.md_table(head, rows, "lll" .. string.rep("r", #head - 3)), "")
  if g.soak then
    local rows2 = {}
    for _, s in ipairs(g.soak) do
      rows2[#rows2 + 1] = { s.handler, s.body_label, fmt_ops(s.requests), format("%.1f", s.rss_start_kb / 1024),
        format("%.1f", s.rss_end_kb / 1024), format("%+.2f", (s.rss_end_kb - s.rss_start_kb) / 1024),
        s.met and "**met**" or "**not met**" }
    end
    add("Worker RSS over a long run (after a warm-up of " .. fmt_ops(g.soak_warmup or 0) .. " requests):", "",
      util.md_table({ "handler", "body", "requests", "RSS at start MB", "RSS at end MB", "growth MB",
        "< 5 MB growth" }, rows2, "llrrrrl"), "")
  end
  if g.targets then
    local rows3 = {}
    for _, t in ipairs(g.targets) do
      rows3[#rows3 + 1] = { t.what, t.measured, t.needed, t.ceiling or "", t.met and "**met**" or "**not met**" }
    end
    add("Targets (\"reachable\": the floor handler's own requests/s over lua-cjson's; for the share of the "
      .. "floor, the bound's share, the least a handler doing the job can cost):", "",
      util.md_table({ "target", "measured", "needed", "reachable", "verdict" }, rows3, "lrrrl"), "")
  end
  add(M.gateway_costs(g), "")
  add("![requests/s and p99 latency per body size](bench-gateway.png)", "")
  return concat(L, "\n")
end

-- Time per request (1 / requests/s) and what each handler adds to the
-- floor's: the JSON job's own cost, which the ratios of whole requests
-- dilute where the floor is most of a request (small bodies).
function M.gateway_costs(g)
  local by = {}
  for _, r in ipairs(g.rows) do
    by[r.body_label .. "/" .. r.mode .. "/" .. r.handler] = r
  end
  local rows = {}
  for _, r in ipairs(g.rows) do
    local key = r.body_label .. "/" .. r.mode .. "/"
    local floor, cj, bound = by[key .. "floor (no JSON)"], by[key .. "lua-cjson"],
      by[key .. "bound (strict parse + output)"]
    if (r.handler == "qjson" or r.handler == "qjson select+patch") and floor and cj then
      local us = function(x)
        return 1e6 / x.rps
      end
      local q_job, c_job = us(r) - us(floor), us(cj) - us(floor)
      rows[#rows + 1] = { r.body_label, r.mode, r.handler, format("%.1f", us(floor)),
        bound and format("%.1f", us(bound) - us(floor)) or "", format("%.1f", us(cj)),
        format("%.1f", us(r)), format("%.1f", c_job), q_job > 0 and format("%.1f", q_job) or "below the floor",
        q_job > 0 and fmt_sig(c_job / q_job, "×") or "" }
    end
  end
  return "Where a request's time goes (µs a request = 1 / requests/s; \"job\" = a handler's time beyond the "
    .. "floor's, the JSON work and the garbage it leaves; from the medians above, so as noisy as they are: a "
    .. "handler can measure below the floor; \"bound job\": the bound's, the strict parse and the output "
    .. "string). Where the floor is most of a request, as at 2 KB, the "
    .. "requests/s ratio stays well below the ratio of the jobs (`luajit bench/gateway/parts.lua` splits "
    .. "the job into its steps outside nginx, with and without the collector):\n\n"
    .. util.md_table({ "body", "body in", "handler", "floor µs", "bound job µs", "lua-cjson µs", "qjson µs",
      "lua-cjson job µs", "qjson job µs", "job × cjson" }, rows, "lllrrrrrrr")
end

return M
