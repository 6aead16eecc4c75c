-- The OpenAPI benchmark's nginx side (bench/openapi/nginx.conf, one
-- worker): api7's lua-resty-openapi-validator and qjson.openapi on the
-- same requests, in the same worker.
--
-- loop(): api7's single-thread loop (its benchmark/bench.lua: the request
-- table built per call, 100 warm-up calls, then `n` timed with os.clock,
-- the worker's CPU time) for one validator and one kind of request
-- (bench/openapi/cases.lua); answers JSON: microseconds per call and how
-- many answers were not the expected verdict. bench/openapi/run.lua calls
-- it for each validator in turn, round after round.
--
-- floor(), api7(), qjson(): the gateway's locations for wrk
-- (bench/openapi/gateway.lua): read the body; floor answers 200, the
-- others validate and answer 200 or 400 with the errors.
--
-- qjson's side needs qjson.openapi (the LuaJIT binding, lua/qjson/
-- openapi.lua): without it, its calls fail with a message that says so,
-- and api7's and the floor's still run.
local ngx = ngx -- luacheck: globals ngx
local cjson = require("cjson")
local qjson = require("qjson")
local api7 = require("resty.openapi_validator")
local cases = require("openapi_cases")

local format = string.format
local clock = os.clock

local M = {}

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- The APIs: the founding spec and the chat-completions one.
local SPECS = {
  founding = read_file(cases.SPEC_PATH),
  chat = cases.chat_spec(require("chat_schema")),
}

local api7_apis = {}
for name, spec in pairs(SPECS) do
  api7_apis[name] = assert(api7.compile(spec))
end

-- qjson's: compiled at first use; the error is kept and raised again.
-- `first` = true: max_errors = 1, the first error only (the loop's
-- time-to-first-error); else qjson's defaults (the gateway's 400 lists
-- every error).
local qjson_apis, qjson_failed = {}, nil
local function qjson_api(name, first)
  local key = name .. (first and "/first" or "")
  local api = qjson_apis[key]
  if api then
    return api
  end
  if not qjson_failed and not qjson.openapi then
    qjson_failed = "qjson.openapi is missing: the LuaJIT binding (lua/qjson/openapi.lua) is not on this "
      .. "branch, so qjson's side cannot run"
  end
  if qjson_failed then
    error(qjson_failed, 0)
  end
  api = qjson.openapi(SPECS[name], first and { max_errors = 1 } or nil)
  qjson_apis[key] = api
  return api
end

-- The request of `kind` as each validator takes it, a new table per call
-- as bench.lua makes them: api7's query is a table (ngx.req.get_uri_args'
-- shape: every founding kind's query is `limit` alone, as in bench.lua),
-- qjson's the raw query string ngx.var.args gives; headers a table of
-- lower-case names for both (i: the X-Request-Id's number, as bench.lua).
local function api7_request(kind, limit, i)
  return {
    method = "POST", path = kind.path, query = { limit = limit },
    headers = kind.header and { ["x-request-id"] = "bench-" .. i } or {},
    body = kind.body or nil, content_type = kind.content_type,
  }
end

local function qjson_request(kind, _, i)
  return {
    method = "POST", path = kind.path, query = kind.query,
    headers = kind.header and { ["x-request-id"] = "bench-" .. i } or {},
    body = kind.body or nil, content_type = kind.content_type,
  }
end

-- n calls of `validate` on `kind`'s request after 100 warm-up calls;
-- seconds of worker CPU per call, and the number of answers that were not
-- `expect`. Each run starts with no compiled traces, so that traces left
-- by another kind or validator do not slow this one.
local function time_loop(validate, request, kind, expect, n)
  local limit = ngx.decode_args(kind.query).limit
  jit.flush()
  for i = 1, 100 do
    validate(request(kind, limit, i))
  end
  local wrong = 0
  local t0 = clock()
  for i = 1, n do
    local ok = validate(request(kind, limit, i))
    if (ok == true) ~= expect then
      wrong = wrong + 1
    end
  end
  return (clock() - t0) / n, wrong
end

-- GET /loop?impl=api7|qjson&kind=<name>&n=N
function M.loop()
  local args = ngx.req.get_uri_args()
  local impl, kind, n = args.impl, cases.KINDS[tonumber(args.kind)], tonumber(args.n) or 50000
  local validate, request
  local ok, err = pcall(function()
    if not kind then
      error("unknown kind " .. tostring(args.kind), 0)
    end
    if impl == "api7" then
      local api = api7_apis.founding
      validate = function(req) return api:validate_request(req) end
      request = api7_request
    elseif impl == "qjson" then
      local api = qjson_api("founding", true)
      validate = function(req) return api:validate_request(req) end
      request = qjson_request
    else
      error("unknown impl " .. tostring(impl), 0)
    end
  end)
  if not ok then
    ngx.say(cjson.encode({ error = err }))
    return
  end
  -- One call's answer, for the report (api7's message or qjson's first error).
  local valid, answer = validate(request(kind, ngx.decode_args(kind.query).limit, 0))
  if type(answer) == "table" then
    answer = answer[1] and format("%s %s: %s (%d)", answer[1].where, answer[1].name, answer[1].message, answer.status)
  end
  local per_call, wrong = time_loop(validate, request, kind, cases.expect(kind, impl), n)
  ngx.say(cjson.encode({ us = per_call * 1e6, n = n, wrong = wrong, valid = valid == true,
    answer = answer and tostring(answer) or nil }))
end

-- The gateway's locations: /<who>/<api>/..., the API's name fixed in
-- nginx.conf; the path is the URI after that prefix.
local sub = string.sub
local function api_path(who, name)
  return sub(ngx.var.uri, #who + #name + 3)
end

local function read_body()
  ngx.req.read_body()
  return ngx.req.get_body_data()
end

function M.floor()
  read_body()
  ngx.say("OK")
end

-- api7: its own conf's handler (BUILD.md, from gen_nginx_conf.lua).
function M.api7(name)
  local body = read_body()
  local ok, err = api7_apis[name]:validate_request({
    method = ngx.req.get_method(), path = api_path("api7", name), query = ngx.req.get_uri_args(),
    headers = ngx.req.get_headers(0, true), body = body, content_type = ngx.var.content_type,
  })
  if ok then
    ngx.say("OK")
  else
    ngx.status = 400
    ngx.say(tostring(err))
  end
end

-- qjson: the headers read through a function, asked only for the names
-- the operation declares (nginx's $http_<name> variables).
local var_names = setmetatable({}, { __index = function(t, name)
  local v = "http_" .. name:gsub("-", "_")
  t[name] = v
  return v
end })
local function header(name)
  return ngx.var[var_names[name]]
end

function M.qjson(name)
  local api = qjson_api(name)
  local body = read_body()
  local ok, errors = api:validate_request({
    method = ngx.req.get_method(), path = api_path("qjson", name), query = ngx.var.args, headers = header,
    body = body,
    content_type = ngx.var.content_type,
  })
  if ok then
    ngx.say("OK")
  else
    local problem, status = api:problem(errors)
    ngx.status = status
    ngx.say(problem)
  end
end

return M
