-- The differential test of qjson.openapi against api7's
-- lua-resty-openapi-validator 1.0.4 (built from ../shared/vendor by
-- tools/api7-openapi.sh). api7's validator runs only inside nginx (ngx.re,
-- resty.core), so this runs there: bench/openapi/nginx.conf's
-- /differential location calls run(); as a script (tools/test-openapi-api7.sh
-- runs it through bench/openapi/run.sh) it asks for that page and fails
-- unless every case passed.
--
-- AGREE: requests on which both validators must give the same verdict
-- (the founding scenario's kinds, then parameter styles api7 supports).
-- API7_WRONG: api7's known mistakes, each asserted as api7's actual
-- behaviour and qjson's, so that the list stays true: when api7 (or qjson)
-- changes, its case fails and the list is corrected.
if not ngx then -- luacheck: globals ngx
  local here = (arg[0]:match("^(.*)/[^/]*$") or ".")
  package.path = here .. "/../bench/?.lua;" .. here .. "/../bench/openapi/?.lua;" .. here .. "/../lua/?.lua;"
    .. here .. "/../lua/?/init.lua;" .. package.path
  local report = require("openapi_report")
  local opts = report.options("spec/openapi_api7_diff.lua --port=P --prefix=DIR")
  local t0 = os.time()
  local status, body = report.get(tonumber(opts.port), "/differential")
  io.write(body or "", "\n")
  if status ~= 200 or not (body or ""):find("\nPASS:", 1, true) then
    io.stderr:write(string.format("openapi-api7 differential: FAILED (HTTP %s; nginx log: %s/error.log)\n",
      tostring(status), opts.prefix))
    os.exit(1)
  end
  io.write(string.format("openapi-api7 differential: passed in %d s\n", os.time() - t0))
  os.exit(0)
end

local ngx = ngx -- luacheck: globals ngx
local qjson = require("qjson")
local api7 = require("resty.openapi_validator")
local cases = require("openapi_cases")

local format, concat = string.format, table.concat

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- A spec of parameter styles api7 deserializes (its params.lua): path
-- simple arrays, query form (exploded and not), pipe- and space-delimited
-- arrays, deepObject, booleans, a simple-array header.
local STYLES = [[{
  "openapi": "3.0.3", "info": {"title": "styles", "version": "1"},
  "paths": {"/items/{ids}": {"get": {
    "parameters": [
      {"name": "ids", "in": "path", "required": true,
       "schema": {"type": "array", "items": {"type": "integer", "minimum": 1}}},
      {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"enum": ["a", "b", "c"]}}},
      {"name": "nums", "in": "query", "explode": false, "schema": {"type": "array", "items": {"type": "integer"}}},
      {"name": "pipe", "in": "query", "style": "pipeDelimited", "explode": false,
       "schema": {"type": "array", "items": {"type": "integer"}}},
      {"name": "space", "in": "query", "style": "spaceDelimited", "explode": false,
       "schema": {"type": "array", "items": {"type": "integer"}}},
      {"name": "filter", "in": "query", "style": "deepObject", "explode": true,
       "schema": {"type": "object", "properties": {"color": {"enum": ["red", "blue"]}, "size": {"type": "integer"}}}},
      {"name": "flag", "in": "query", "schema": {"type": "boolean"}},
      {"name": "X-Ids", "in": "header", "schema": {"type": "array", "items": {"type": "integer"}}}
    ],
    "responses": {"200": {"description": "OK"}}}}}
}]]

-- A body schema api7's jsonschema cannot generate code for ("type":
-- "foo"): api7 compiles the spec and skips the body's validation.
local UNCOMPILABLE = [[{
  "openapi": "3.0.3", "info": {"title": "bad", "version": "1"},
  "paths": {"/things": {"post": {
    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "foo"}}}},
    "responses": {"200": {"description": "OK"}}}}}
}]]

local SPECS = { founding = read_file(cases.SPEC_PATH), styles = STYLES }

-- A request: method (default POST for founding, GET for styles), path,
-- query (raw), headers (a table of lower-case names), body, content_type.
local function founding(kind, changes)
  local r = {
    spec = "founding", method = "POST", path = kind.path, query = kind.query,
    headers = kind.header and { ["x-request-id"] = "r1" } or {}, body = kind.body or nil,
    content_type = kind.content_type,
  }
  for k, v in pairs(changes or {}) do
    r[k] = v
  end
  return r
end

local function styles(path, query, headers, valid)
  return { spec = "styles", method = "GET", path = path, query = query, headers = headers or {}, valid = valid }
end

local AGREE = {}
for _, kind in ipairs(cases.KINDS) do
  if not kind.api7_accepts then
    local r = founding(kind)
    r.name, r.valid = kind.name, kind.valid == true
    AGREE[#AGREE + 1] = r
  end
end
for _, c in ipairs({
  { "invalid JSON body", founding(cases.KINDS[1], { body = '{"name": "A", ' }), false },
  { "no such path", founding(cases.KINDS[1], { path = "/nope/42" }), false },
  { "method not allowed", founding(cases.KINDS[1], { method = "GET" }), false },
  { "path array", styles("/items/1,2,3"), true },
  { "path array, an item not an integer", styles("/items/1,x"), false },
  { "path array, an item below minimum", styles("/items/1,0"), false },
  { "query form exploded array", styles("/items/1", "tags=a&tags=b"), true },
  { "query form exploded array, an item not in enum", styles("/items/1", "tags=a&tags=z"), false },
  { "query form array, explode false", styles("/items/1", "nums=1,2,3"), true },
  { "query form array, explode false, an item not an integer", styles("/items/1", "nums=1,b"), false },
  { "query pipeDelimited", styles("/items/1", "pipe=1%7C2"), true },
  { "query pipeDelimited, an item not an integer", styles("/items/1", "pipe=1%7Cx"), false },
  { "query spaceDelimited", styles("/items/1", "space=1%202"), true },
  { "query spaceDelimited, an item not an integer", styles("/items/1", "space=1%20x"), false },
  { "query deepObject", styles("/items/1", "filter[color]=red&filter[size]=3"), true },
  { "query deepObject, a property not an integer", styles("/items/1", "filter[size]=x"), false },
  { "query deepObject, a property not in enum", styles("/items/1", "filter[color]=green"), false },
  { "query boolean", styles("/items/1", "flag=true"), true },
  { "query boolean, not a boolean", styles("/items/1", "flag=yes"), false },
  { "header simple array", styles("/items/1", nil, { ["x-ids"] = "1,2" }), true },
  { "header simple array, an item not an integer", styles("/items/1", nil, { ["x-ids"] = "1,a" }), false },
}) do
  local r = c[2]
  r.name, r.valid = c[1], c[3]
  AGREE[#AGREE + 1] = r
end

-- The validators, compiled once.
local api7_apis, qjson_apis = {}, {}
for name, spec in pairs(SPECS) do
  api7_apis[name] = assert(api7.compile(spec))
end

local function api7_validate(r)
  return api7_apis[r.spec]:validate_request({
    method = r.method, path = r.path, query = r.query and ngx.decode_args(r.query) or {}, headers = r.headers,
    body = r.body, content_type = r.content_type,
  })
end

local function qjson_validate(r)
  return qjson_apis[r.spec]:validate_request({
    method = r.method, path = r.path, query = r.query, headers = r.headers, body = r.body,
    content_type = r.content_type,
  })
end

local function body_errors(errs)
  local n = 0
  for _, e in ipairs(errs) do
    n = n + (e.where == "body" and 1 or 0)
  end
  return n
end

local function with_kind(name, changes)
  local r = founding(cases.by_name.valid, changes)
  r.name = name
  return r
end

-- Each: a request, and check(api7_ok, api7_err, qjson_ok, qjson_errs)
-- returning nil when both behave as listed, else what differs.
local API7_WRONG = {
  { r = with_kind("limit=0x10 (hexadecimal)", { query = "limit=0x10" }), why = "api7 accepts: tonumber reads hex" },
  { r = with_kind("limit=' 10 ' (spaces)", { query = "limit=%2010%20" }),
    why = "api7 accepts: tonumber skips spaces" },
  { r = with_kind("limit=1e1 (exponent)", { query = "limit=1e1" }), why = "api7 accepts: tonumber reads 1e1 as 10" },
  { r = with_kind("content type application/jsonx", { content_type = "application/jsonx" }),
    why = "api7 accepts: it matches media types as substrings" },
  { r = with_kind("two body errors (role, zip)", {
      body = cases.by_name["body enum"].body:gsub('"zip":"94105"', '"zip":"9410x"') }),
    why = "api7 reports the first body error only",
    check = function(a_ok, a_err, q_ok, q_errs)
      local a_body = select(2, ("\n" .. tostring(a_err)):gsub("\nbody", ""))
      local q_body = q_ok == false and body_errors(q_errs) or 0
      return (a_ok or a_body ~= 1) and format("%d body errors, expected 1: %s", a_body, tostring(a_err)) or nil,
        q_body ~= 2 and format("%d body errors, expected 2", q_body) or nil
    end },
}

local function verdict(ok)
  return ok and "valid" or "invalid"
end

local function describe_qjson(errs)
  if type(errs) ~= "table" then
    return tostring(errs)
  end
  local parts = {}
  for _, e in ipairs(errs) do
    parts[#parts + 1] = format("%s %s: %s", e.where, e.name, e.message)
  end
  return format("%d: %s", errs.status or 0, concat(parts, "; "))
end

-- Runs every case, calling out(line) for each; a case fails when api7's
-- or qjson's answer is not the listed one. Without qjson.openapi, api7's
-- half is still checked, and the run fails.
local function run_cases(out)
  local failures, n = 0, 0
  local have_qjson = qjson.openapi ~= nil
  if have_qjson then
    for name, spec in pairs(SPECS) do
      qjson_apis[name] = qjson.openapi(spec)
    end
  else
    failures = 1
    out("FAIL qjson.openapi is missing: the LuaJIT binding (lua/qjson/openapi.lua) is not on this branch; "
      .. "api7's half alone is checked below")
  end
  local function result(name, api7_problem, qjson_problem)
    n = n + 1
    local problems = {}
    problems[#problems + 1] = api7_problem and "api7: " .. api7_problem or nil
    problems[#problems + 1] = have_qjson and qjson_problem and "qjson: " .. qjson_problem or nil
    if #problems > 0 then
      failures = failures + 1
      out(format("FAIL %s: %s", name, concat(problems, "; ")))
    else
      out("ok   " .. name)
    end
  end
  -- nil when the verdict is `want`, else what was answered.
  local function api7_differs(want, ok, err)
    return (ok == true) ~= want and format("%s, expected %s (%s)", verdict(ok), verdict(want), tostring(err)) or nil
  end
  local function qjson_differs(want, r)
    if not have_qjson then
      return nil
    end
    local ok, errs = qjson_validate(r)
    return (ok == true) ~= want and format("%s, expected %s (%s)", verdict(ok), verdict(want), describe_qjson(errs))
      or nil
  end

  out("-- both validators agree:")
  for _, r in ipairs(AGREE) do
    result(r.name, api7_differs(r.valid, api7_validate(r)), qjson_differs(r.valid, r))
  end

  out("-- api7's known mistakes (api7's behaviour, then qjson's):")
  for _, c in ipairs(API7_WRONG) do
    local a_problem, q_problem
    if c.check then
      local a_ok, a_err = api7_validate(c.r)
      local q_ok, q_errs
      if have_qjson then
        q_ok, q_errs = qjson_validate(c.r)
      end
      a_problem, q_problem = c.check(a_ok, a_err, q_ok, q_errs)
    else
      a_problem, q_problem = api7_differs(true, api7_validate(c.r)), qjson_differs(false, c.r)
    end
    result(c.r.name .. ": " .. c.why, a_problem, q_problem)
  end

  -- Fails open: api7 compiles a spec whose body schema it cannot
  -- generate code for, then accepts any body; qjson refuses the spec.
  local bad, bad_err = api7.compile(UNCOMPILABLE)
  local a_ok = bad and bad:validate_request({ method = "POST", path = "/things", body = "[1, 2]",
    content_type = "application/json" })
  local q_ok, q_err = pcall(function() return qjson.openapi(UNCOMPILABLE) end)
  result("an uncompilable body schema: api7 fails open (accepts any body), qjson refuses the spec",
    a_ok ~= true and "no longer fails open: " .. tostring(bad and a_ok or bad_err) or nil,
    (q_ok or not tostring(q_err):find("invalid OpenAPI spec at /paths/", 1, true))
      and (q_ok and "compiled the spec" or tostring(q_err)) or nil)

  out(format("%s: %d cases, %d failed", failures == 0 and "PASS" or "FAIL", n, failures))
  return failures == 0
end

local M = {}

function M.run()
  local lines = {}
  local ok, err = pcall(run_cases, function(s) lines[#lines + 1] = s end)
  if not ok then
    lines[#lines + 1] = "FAIL: " .. tostring(err)
  end
  ngx.say(concat(lines, "\n"))
end

return M
