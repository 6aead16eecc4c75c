-- The OpenAPI validation loop: api7's lua-resty-openapi-validator against
-- qjson.openapi on api7's founding scenario (bench/openapi/openapi_cases.lua),
-- the valid request and each kind of invalid one, in api7's single-thread
-- loop inside ONE nginx worker (bench/openapi/openapi_handlers.lua's
-- loop()). The two validators take turns, round after round (the first to
-- go alternates); each figure is the median of the rounds, the ratio
-- api7's time over qjson's. For an invalid request both stop at their
-- first error: qjson with max_errors = 1, api7 as it is (it has no such
-- option).
--
--   bench/openapi/run.sh bench/openapi/run.lua [--quick | --smoke] [--no-docs]
--
-- A full run writes bench/results/openapi-<date>.json, its section of
-- docs/benchmarks.md and docs/openapi-bench.png. --smoke (make
-- bench-smoke) runs a few calls of each kind and checks the answers: both
-- validators' verdicts, the same except the listed api7 mistakes; exit 1
-- on any other answer, or when qjson's side cannot run.
local here = (arg[0]:match("^(.*)/[^/]*$") or ".")
package.path = here .. "/?.lua;" .. here .. "/../?.lua;" .. here .. "/../../lua/?.lua;" .. here
  .. "/../../lua/?/init.lua;" .. package.path

local cjson = require("cjson")
local util = require("util")
local cases = require("openapi_cases")
local report = require("openapi_report")

local format = string.format

local opts = report.options("bench/openapi/run.lua --port=P --prefix=DIR [--quick | --smoke] [--no-docs]")
local port = tonumber(opts.port)
local rounds = opts.smoke and 1 or opts.quick and 3 or 7
local n = opts.smoke and 20 or opts.quick and 5000 or 50000
local publish = not opts.smoke and not opts.quick and not opts["no-docs"]
local TARGET = 5 -- the issue's goal: qjson 5x faster than api7 on every kind

-- One loop run: its decoded answer (us, wrong, valid, answer) or error.
local function loop(impl, index)
  local status, body = report.get(port, format("/loop?impl=%s&kind=%d&n=%d", impl, index, n))
  local ok, r = pcall(cjson.decode, body or "")
  if status ~= 200 or not ok then
    return { error = format("HTTP %s: %s", tostring(status), tostring(body)) }
  end
  return r
end

local INDEX = {}
for i, k in ipairs(cases.KINDS) do
  INDEX[k.name] = i
end

local failures = {}
local qjson_error
local rows, results_kinds = {}, {}
for i, kind in ipairs(cases.KINDS) do
  local times = { api7 = {}, qjson = {} }
  local last = {}
  for r = 1, rounds do
    local order = r % 2 == 1 and { "api7", "qjson" } or { "qjson", "api7" }
    for _, impl in ipairs(order) do
      if not (impl == "qjson" and qjson_error) then
        local res = loop(impl, INDEX[kind.name])
        if res.error then
          if impl == "qjson" then
            qjson_error = res.error
          else
            error(format("api7's loop failed on %q: %s", kind.name, res.error), 0)
          end
        else
          times[impl][#times[impl] + 1] = res.us
          last[impl] = res
          if res.wrong > 0 or res.valid ~= cases.expect(kind, impl) then
            failures[#failures + 1] = format("%s on %q: %d of %d answers not %s (one: %s)", impl, kind.name,
              res.wrong, n, cases.expect(kind, impl) and "valid" or "invalid", tostring(res.answer))
          end
        end
      end
    end
  end
  local a = util.median(times.api7)
  local q = #times.qjson > 0 and util.median(times.qjson) or nil
  results_kinds[i] = {
    kind = kind.name, api7_us = a, qjson_us = q, ratio = q and a / q, api7_rounds = times.api7,
    qjson_rounds = times.qjson, api7_answer = last.api7 and last.api7.answer,
    qjson_answer = last.qjson and last.qjson.answer, api7_accepts = kind.api7_accepts,
  }
  rows[i] = { kind.name, format("%.2f", a), q and format("%.2f", q) or "-", q and format("%.1fx", a / q) or "-",
    kind.api7_accepts and "api7 accepts it" or "" }
end

io.write(format("\nOpenAPI request validation, one nginx worker, %d calls a run, median of %d rounds (us per call):\n",
  n, rounds))
io.write(util.text_table({ "request", "api7", "qjson", "api7/qjson", "note" }, rows), "\n")

if qjson_error then
  failures[#failures + 1] = "qjson's side did not run: " .. qjson_error
end

if publish and not qjson_error then
  local machine = report.machine()
  local results = { machine = machine, calls = n, rounds = rounds, target = TARGET, kinds = results_kinds }
  local rel = report.write_results("openapi", results)
  local md = {
    "## OpenAPI request validation: api7's loop",
    "",
    format("Measured %s by `make bench` (bench/openapi/run.lua; results: `%s`), %s, LuaJIT %s in nginx %s, "
      .. "qjson %s (%s), load average %s at the start.", machine.date, rel, machine.cpu,
      machine.luajit:gsub("^LuaJIT ", ""), machine.nginx or "?", machine.qjson, machine.qjson_backend,
      machine.loadavg_start or "?"),
    "",
    "api7's lua-resty-openapi-validator 1.0.4 (the peer; built from `../shared/vendor` by "
      .. "`tools/api7-openapi.sh`) and `qjson.openapi` validate api7's founding request (its "
      .. "`benchmark/spec.json`, `POST /users/42?limit=10` with `X-Request-Id` and a 315-byte body) and one "
      .. "invalid request of each kind, in api7's `benchmark/bench.lua` loop (the request table built per call; "
      .. "api7 gets the query as a table, qjson the raw query string `ngx.var.args` gives) inside one nginx "
      .. format("worker, %d calls per run after 100 warm-up calls, timed with `os.clock` (the worker's CPU time). ", n)
      .. format("The two take turns for %d rounds; each figure is the median. On an invalid request both stop at "
      .. "their first error: qjson with `max_errors = 1`, api7 as it is. The target is %dx.", rounds, TARGET),
    "",
    util.md_table({ "request", "api7 µs", "qjson µs", "api7 / qjson", "note" }, rows, "lrrrl"),
    "",
    "`limit=0x10`: api7 answers valid (Lua's `tonumber` reads hexadecimal; 16 is within 1..100); qjson "
      .. "answers 400. Its row times api7's acceptance against qjson's rejection.",
    "",
    "![api7 / qjson per request kind](openapi-bench.png)",
  }
  local doc = report.write_block("openapi-loop", table.concat(md, "\n"))
  local plot_rows = {}
  for _, k in ipairs(results_kinds) do
    plot_rows[#plot_rows + 1] = { k.kind, k.ratio }
  end
  local png = report.plot_ratios("openapi-bench.png", "OpenAPI validation: api7 time / qjson time (higher: qjson "
    .. "faster)", "api7 / qjson", plot_rows, TARGET, machine)
  io.write(format("results: %s\ndocs:    %s\nplot:    %s\n", rel, doc, png or "(gnuplot failed)"))
end

if #failures > 0 then
  io.stderr:write("\nopenapi-bench: FAILED:\n  " .. table.concat(failures, "\n  ") .. "\n")
  os.exit(1)
end
if opts.smoke then
  io.write("openapi-bench --smoke: every answer as expected (api7's listed mistakes included)\n")
end
