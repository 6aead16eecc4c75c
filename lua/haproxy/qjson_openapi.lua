-- qjson's OpenAPI request validation as an HAProxy action (docs/haproxy.md).
-- Loaded after the spec's file (JSON) is named in the environment (HAProxy
-- 2.6's lua-load passes no arguments):
--   setenv QJSON_OPENAPI_SPEC /etc/haproxy/openapi.json
--   lua-load /path/to/qjson/lua/haproxy/qjson_openapi.lua
-- `http-request lua.qjson_openapi` then checks each request's method, path,
-- query, declared headers and body (buffered: `option http-buffer-request`
-- or `http-request wait-for-body`) against the spec. A request that does
-- not conform is answered with its RFC 9457 problem document
-- (application/problem+json) and status (400, 404, 405 or 415); a valid
-- one continues, with txn.openapi_operation and txn.openapi_template set.
-- An error of the action itself (a bug) answers 500: never let an
-- unchecked request through.
local qjson = require("qjson")

local spec_file = os.getenv("QJSON_OPENAPI_SPEC")
if not spec_file then
  error("qjson_openapi.lua: name the spec's file first: setenv QJSON_OPENAPI_SPEC /path/spec.json")
end
local f = assert(io.open(spec_file, "rb"))
local spec = f:read("*a")
f:close()
local api = qjson.openapi(spec)

local PROBLEM = { ["content-type"] = { "application/problem+json" } }

local function check(txn)
  -- Names in lower case; each value a line of the header, indexed from 0.
  local headers = txn.http:req_get_headers()
  local function header(name)
    local values = headers[name]
    if not values or values[0] == nil then
      return nil
    end
    local parts, i = {}, 0
    while values[i] ~= nil do
      parts[i + 1] = values[i]
      i = i + 1
    end
    return table.concat(parts, ", ")
  end
  local query = txn.sf:query()
  local ok, res = api:validate_request({
    method = txn.sf:method(),
    path = txn.sf:path(), -- raw: HAProxy does not decode it
    query = query ~= "" and query or nil,
    headers = header,
    body = txn.sf:req_body(),
    content_type = header("content-type"),
  })
  if ok then
    txn:set_var("txn.openapi_operation", res.operation_id or "")
    txn:set_var("txn.openapi_template", res.template)
    return nil
  end
  local body, status = api:problem(res)
  return txn:reply({ status = status, headers = PROBLEM, body = body })
end

core.register_action("qjson_openapi", { "http-req" }, function(txn)
  local ok, reply = pcall(check, txn)
  if not ok then
    core.Alert("qjson_openapi: " .. tostring(reply))
    reply = txn:reply({ status = 500, headers = PROBLEM,
      body = '{"type":"about:blank","title":"Internal Server Error","status":500}' })
  end
  if reply then
    txn:done(reply)
  end
end)
