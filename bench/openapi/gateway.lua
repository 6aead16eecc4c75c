-- The OpenAPI validation gateway under load: nginx (one worker,
-- bench/openapi/nginx.conf) and wrk (bench/gateway/driver.lua, one thread
-- on the other CPU). Three locations take the same request: floor (the
-- body read, 200, no validation), api7 (lua-resty-openapi-validator: 200
-- or 400 with its message) and qjson (qjson.openapi: 200 or 400 with the
-- problem+json); on api7's founding request (bench/openapi/openapi_cases.lua)
-- and on a 100 KB chat-completions request (bench/data/chat-100k against
-- the chat-completions API of openapi_cases.chat_spec). The answers are
-- checked first (the valid request 200 everywhere, an invalid one 400 from
-- both validators), and every timed answer must be 200 "OK". The
-- locations take turns, round after round (the first one alternates);
-- figures are medians, ratios qjson/api7 and qjson/floor.
--
--   bench/openapi/run.sh bench/openapi/gateway.lua [--quick] [--no-docs]
--
-- A full run writes bench/results/openapi-gateway-<date>.json, its section
-- of docs/benchmarks.md and docs/openapi-gateway.png.
local here = (arg[0]:match("^(.*)/[^/]*$") or ".")
package.path = here .. "/?.lua;" .. here .. "/../?.lua;" .. here .. "/../gateway/?.lua;" .. here
  .. "/../../lua/?.lua;" .. here .. "/../../lua/?/init.lua;" .. package.path

local util = require("util")
local workloads = require("workloads")
local driver = require("driver")
local cases = require("openapi_cases")
local report = require("openapi_report")

local format = string.format

local opts = report.options("bench/openapi/gateway.lua --port=P --prefix=DIR [--quick] [--no-docs]")
local port = tonumber(opts.port)
local rounds, seconds = opts.quick and 1 or 3, opts.quick and 2 or 3
local publish = not opts.quick and not opts["no-docs"]
local WHO = { "floor", "api7", "qjson" }

local chat = assert(workloads.load("chat-100k", report.ROOT .. "/bench/data"))
local SCENARIOS = {
  { name = "founding", label = format("founding request (%d bytes)", #cases.VALID.body),
    path = "/founding/users/42?limit=10", body = cases.VALID.body, headers = "X-Request-Id: wrk-benchmark-001",
    invalid_path = "/founding/users/42?limit=1000" },
  { name = "chat-100k", label = format("chat completions (%d bytes)", #chat),
    path = "/chat/v1/chat/completions", body = chat, headers = "",
    invalid_body = (chat:gsub('"role":"user"', '"role":"robot"', 1)) },
}

local function curl(path, body_file, headers)
  local h = headers ~= "" and "-H " .. util.shell_quote(headers) or ""
  return util.sh(format("curl -s -o /dev/null -w '%%{http_code}' -H 'Content-Type: application/json' %s "
    .. "--data-binary @%s 'http://127.0.0.1:%d%s'", h, util.shell_quote(body_file), port, path))
end

local failures, qjson_error = {}, nil
local rows, results_rows = {}, {}
for _, s in ipairs(SCENARIOS) do
  local file, bad_file = os.tmpname(), os.tmpname()
  util.write_file(file, s.body)
  util.write_file(bad_file, s.invalid_body or s.body)
  local who_runs = {}
  for _, who in ipairs(WHO) do
    local got = curl("/" .. who .. s.path, file, s.headers)
    if got == "200" then
      who_runs[#who_runs + 1] = who
    elseif who == "qjson" then
      -- Why: the handler's error, from nginx's log.
      local log = util.read_file(opts.prefix .. "/error.log") or ""
      local why = log:match(".*%[error%][^\n]-(qjson[^\n]*)") or "see " .. opts.prefix .. "/error.log"
      qjson_error = format("the qjson location answered %s: %s", got, why)
    else
      error(format("%s answered %s to the valid %s request", who, got, s.name), 0)
    end
    if who ~= "floor" and got == "200" then
      local bad = curl("/" .. who .. (s.invalid_path or s.path), bad_file, s.headers)
      if bad ~= "400" then
        failures[#failures + 1] = format("%s answered %s to the invalid %s request", who, bad, s.name)
      end
    end
  end
  local rps = {}
  for _, who in ipairs(who_runs) do
    rps[who] = {}
  end
  for r = 1, rounds do
    for j = 1, #who_runs do
      local who = who_runs[(j + r - 2) % #who_runs + 1]
      local res = driver.wrk(port, "/" .. who .. s.path, file, seconds, 4,
        { QJSON_HEADERS = s.headers, QJSON_EXPECT = "OK" })
      if res.wrong > 0 or res.errors > 0 or res.non2xx > 0 then
        failures[#failures + 1] = format("%s on %s: %d wrong answers, %d errors, %d non-2xx", who, s.name,
          res.wrong, res.errors, res.non2xx)
      end
      rps[who][#rps[who] + 1] = res.requests / (res.duration_us / 1e6)
    end
  end
  os.remove(file)
  os.remove(bad_file)
  local mid = {}
  for who, xs in pairs(rps) do
    mid[who] = util.median(xs)
  end
  local q = mid.qjson
  -- The three within 15% of each other: wrk (one thread on its own CPU),
  -- not the nginx worker, set the rate, and the row cannot tell the
  -- validators apart; it is marked so.
  local lo, hi = math.min(mid.floor, mid.api7, q or mid.floor), math.max(mid.floor, mid.api7, q or mid.floor)
  local client_bound = hi / lo < 1.15
  results_rows[#results_rows + 1] = { scenario = s.name, label = s.label, rps = mid, rounds = rps,
    qjson_over_api7 = q and q / mid.api7, qjson_over_floor = q and q / mid.floor,
    api7_over_floor = mid.api7 / mid.floor, client_bound = client_bound }
  rows[#rows + 1] = { s.label .. (client_bound and " *" or ""), format("%.0f", mid.floor), format("%.0f", mid.api7),
    q and format("%.0f", q) or "-",
    q and format("%.1fx", q / mid.api7) or "-", q and format("%.2f", q / mid.floor) or "-",
    format("%.2f", mid.api7 / mid.floor) }
end

local header = { "request", "floor req/s", "api7 req/s", "qjson req/s", "qjson / api7", "qjson / floor",
  "api7 / floor" }
io.write(format("\nOpenAPI validation in nginx (one worker) + wrk (1 thread, 4 connections), median of %d runs "
  .. "of %d s:\n", rounds, seconds))
io.write(util.text_table(header, rows), "\n")
io.write("(* the three within 15%: the client, not nginx, set the rate)\n")

if qjson_error then
  failures[#failures + 1] = "qjson's side did not run: " .. qjson_error
end

if publish and not qjson_error then
  local machine = report.machine()
  local results = { machine = machine, rounds = rounds, seconds = seconds, connections = 4, rows = results_rows }
  local rel = report.write_results("openapi-gateway", results)
  local md = {
    "## OpenAPI request validation in nginx under load",
    "",
    format("Measured %s by `make bench-gateway-openapi` (bench/openapi/gateway.lua; results: `%s`), %s, nginx %s "
      .. "with one worker on CPU 0, wrk (one thread, 4 connections) on CPU 1, load average %s at the start.",
      machine.date, rel, machine.cpu, machine.nginx or "?", machine.loadavg_start or "?"),
    "",
    "Three locations take the same valid request: **floor** reads the body and answers 200 (no validation), "
      .. "**api7** validates it with lua-resty-openapi-validator 1.0.4 (its own handler: query from "
      .. "`ngx.req.get_uri_args`, headers from `ngx.req.get_headers`), **qjson** with `qjson.openapi` (query "
      .. "`ngx.var.args`, headers read through a function from `$http_<name>`, only those the operation declares). "
      .. "The requests: api7's founding one (`POST /users/42?limit=10`, `X-Request-Id`) and a 100 KB "
      .. "chat-completions body (`bench/data/chat-100k`) against a chat-completions API "
      .. "(`bench/openapi/openapi_cases.lua`: model, messages of role and content or parts, temperature 0..2, "
      .. format("max_tokens, stream). The locations take turns; each figure is the median of %d wrk runs of %d s; "
      .. "every answer was checked to be 200 `OK`.", rounds, seconds),
    "",
    util.md_table(header, rows, "lrrrrrr"),
    "",
    "A row marked * had its three locations within 15% of each other: the client (wrk, one thread), not the "
      .. "nginx worker, set the rate, and the row does not compare the validators; the single-thread loop above "
      .. "does.",
    "",
    "![qjson / api7 and qjson / floor, requests/s](openapi-gateway.png)",
  }
  local doc = report.write_block("openapi-gateway", table.concat(md, "\n"))
  local plot_rows = {}
  for _, r in ipairs(results_rows) do
    plot_rows[#plot_rows + 1] = { "qjson / api7, " .. r.scenario, r.qjson_over_api7 }
    plot_rows[#plot_rows + 1] = { "qjson / floor, " .. r.scenario, r.qjson_over_floor }
  end
  local png = report.plot_ratios("openapi-gateway.png", "OpenAPI validation in nginx: requests/s ratios",
    "ratio of requests/s", plot_rows, nil, machine)
  io.write(format("results: %s\ndocs:    %s\nplot:    %s\n", rel, doc, png or "(gnuplot failed)"))
end

if #failures > 0 then
  io.stderr:write("\nopenapi gateway: FAILED:\n  " .. table.concat(failures, "\n  ") .. "\n")
  os.exit(1)
end
