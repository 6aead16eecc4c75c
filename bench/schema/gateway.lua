-- The gateway's validation handler, done with qjson.schema and with
-- lua-cjson + api7's jsonschema, for nginx's content_by_lua
-- (bench/gateway/nginx.conf, /schema-qjson and /schema-cjson): read the
-- body, validate it against the chat-completions schema, answer 400 with
-- the errors as JSON, or "forward" it (answer its length: there is no
-- upstream here, as in bench/gateway's handlers).
--
-- As a script (bench/gateway/run.sh runs it when QJSON_GATEWAY_SCRIPT
-- names it): checks both handlers' answers, then times them with wrk,
-- taking turns, and prints requests/s and the ratio.
if not ngx then -- luacheck: globals ngx
  local here = (arg[0]:match("^(.*)/[^/]*$") or ".")
  package.path = here .. "/?.lua;" .. here .. "/../?.lua;" .. here .. "/../gateway/?.lua;"
    .. here .. "/../../lua/?.lua;" .. here .. "/../../lua/?/init.lua;"
    .. here .. "/../../../shared/vendor/jsonschema-lua/lib/?.lua;" .. package.path
end
local qjson = require("qjson")
local cjson = require("cjson")

package.preload["net.url"] = package.preload["net.url"] or function() return require("net_url") end
local api7 = require("jsonschema")

local M = {}

local SCHEMA = require("chat_schema")
M.SCHEMA = SCHEMA

local validator = qjson.schema(SCHEMA)
local api7_validator = api7.generate_validator(cjson.decode(SCHEMA))

-- (status, answer) for a body.
function M.qjson_job(body)
  local ok, errors = validator:validate(body)
  if ok then
    return 200, tostring(#body)
  end
  return 400, qjson.encode({ errors = errors })
end

function M.cjson_job(body)
  local t = cjson.decode(body)
  local ok, err = api7_validator(t)
  if ok then
    return 200, tostring(#body)
  end
  return 400, cjson.encode({ errors = { { message = err } } })
end

local function respond(job)
  local ngx = ngx -- luacheck: globals ngx
  ngx.req.read_body()
  local status, out = job(ngx.req.get_body_data())
  ngx.status = status
  ngx.say(out)
end

function M.qjson()
  respond(M.qjson_job)
end

function M.cjson()
  respond(M.cjson_job)
end

if ngx then -- luacheck: globals ngx
  return M
end

-- The script: bench/gateway/run.sh passes --port=P --master=PID --prefix=DIR [--quick].
local workloads = require("workloads")
local util = require("util")
local format = string.format
local driver = require("driver")
local opts = driver.options("luajit bench/schema/gateway.lua --port=P --master=PID --prefix=DIR [--quick]")
local port = assert(tonumber(opts.port), "--port")
local runs, seconds = opts.quick and 1 or 3, opts.quick and 2 or 3

local function wrk(path, body_file)
  return driver.wrk(port, path, body_file, seconds, 4)
end

local function curl(path, body_file)
  return util.sh(format("curl -s -o /dev/null -w '%%{http_code}' --data-binary @%s http://127.0.0.1:%d%s",
    util.shell_quote(body_file), port, path))
end

local bodies = {
  { "2 KB", workloads.chat(2048) },
  { "100 KB", workloads.chat(102400) },
  { "1 MB", workloads.chat(1048576) },
  { "1 MB invalid", (workloads.chat(1048576):gsub('"role":"user"', '"role":"robot"', 1)) },
}
local rows = {}
for _, b in ipairs(bodies) do
  local file = os.tmpname()
  util.write_file(file, b[2])
  local want = b[1]:find("invalid") and "400" or "200"
  for _, h in ipairs({ "qjson", "cjson" }) do
    local got = curl("/schema-" .. h, file)
    if got ~= want then
      error(format("%s handler answered %s for the %s body, expected %s", h, got, b[1], want), 0)
    end
  end
  -- The floor (bench/gateway's /floor: the body read and its length
  -- answered, no JSON) bounds what any handler can reach here.
  local paths = { qjson = "/schema-qjson", cjson = "/schema-cjson", floor = "/floor" }
  local rps = { qjson = {}, cjson = {}, floor = {} }
  for _ = 1, runs do
    for _, h in ipairs({ "qjson", "cjson", "floor" }) do
      local r = wrk(paths[h], file)
      rps[h][#rps[h] + 1] = r.requests / (r.duration_us / 1e6)
    end
  end
  os.remove(file)
  local mid = {}
  for h, xs in pairs(rps) do
    mid[h] = util.median(xs)
  end
  rows[#rows + 1] = { b[1], format("%.0f", mid.qjson), format("%.0f", mid.cjson), format("%.0f", mid.floor),
    format("%.1fx", mid.qjson / mid.cjson), format("%.1fx", mid.floor / mid.cjson),
    format("%.2f", mid.qjson / mid.floor) }
end
io.write("\nvalidation handler (validate; 400 with the errors as JSON, or forward), median of ", runs,
  " wrk runs of ", seconds, " s:\n")
io.write(util.text_table({ "body", "qjson req/s", "cjson+api7 req/s", "floor req/s", "qjson/cjson",
  "floor/cjson", "qjson of floor" }, rows), "\n")
