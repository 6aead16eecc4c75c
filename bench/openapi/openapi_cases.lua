-- The founding scenario of the OpenAPI benchmark: api7's own
-- (lua-resty-openapi-validator's benchmark/: spec.json and bench.lua's
-- request, POST /users/42?limit=10 with X-Request-Id and a ~300-byte
-- body), and one request per kind of invalid request, each differing from
-- the valid one in one place. Used by the in-nginx loop and the gateway
-- (bench/openapi/handlers.lua) and by the drivers outside nginx
-- (bench/openapi/run.lua, gateway.lua): needs cjson (OpenResty's or
-- Debian's) and nothing from nginx.
local cjson = require("cjson")

local M = {}

-- Where the vendored sources are: ../shared/vendor beside the checkout.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
M.ROOT = here .. "/../.."
M.VENDOR = M.ROOT .. "/../shared/vendor"
M.SPEC_PATH = M.VENDOR .. "/lua-resty-openapi-validator/benchmark/spec.json"

-- bench.lua's body, a table cjson.encode turns into its ~300 bytes.
local function body_table()
  return {
    name = "Alice Johnson", email = "alice@example.com", age = 30, role = "admin", active = true,
    tags = { "vip", "enterprise" },
    address = { street = "123 Main St", city = "San Francisco", zip = "94105" },
    metadata = { department = "Engineering", level = "senior" },
    score = 95.5, notes = "Premium customer with extended support plan.",
  }
end

local function body_with(edit)
  local t = body_table()
  edit(t)
  return cjson.encode(t)
end

-- Each kind: the request's parts that differ from the valid one (path,
-- query as a raw query string, headers: a table or false for none, body:
-- a string or false for none, content_type), and `api7_accepts` when
-- api7's validator wrongly answers valid (the reason in it).
M.VALID = {
  path = "/users/42", query = "limit=10", header = "bench", body = cjson.encode(body_table()),
  content_type = "application/json",
}
M.KINDS = {
  { name = "valid", valid = true },
  { name = "path below minimum", path = "/users/0" },
  { name = "path not an integer", path = "/users/abc" },
  { name = "query above maximum", query = "limit=1000" },
  { name = "query limit=0x10", query = "limit=0x10",
    api7_accepts = "tonumber() reads 0x10 as 16, within 1..100" },
  { name = "header missing", header = false },
  { name = "body missing", body = false },
  { name = "content type text/plain", content_type = "text/plain" },
  { name = "body type", body = body_with(function(t) t.age = "30" end) },
  { name = "body enum", body = body_with(function(t) t.role = "root" end) },
  { name = "body pattern", body = body_with(function(t) t.address.zip = "9410x" end) },
  { name = "body required", body = body_with(function(t) t.email = nil end) },
  { name = "body additionalProperties", body = body_with(function(t) t.metadata.level = 3 end) },
}
M.by_name = {}
for _, k in ipairs(M.KINDS) do
  for _, part in ipairs({ "path", "query", "header", "body", "content_type" }) do
    if k[part] == nil then
      k[part] = M.VALID[part]
    end
  end
  M.by_name[k.name] = k
end

-- What a validator should answer (api7's expected verdict includes its
-- listed mistakes).
function M.expect(kind, who)
  return kind.valid or (who == "api7" and kind.api7_accepts ~= nil) or false
end

-- The chat-completions API for the 100 KB gateway body: POST
-- /v1/chat/completions whose JSON body follows the chat-completions
-- schema of the JSON Schema benchmarks (bench/schema/chat_schema.lua:
-- model, messages of {role enum, content string or parts}, temperature
-- 0..2, max_tokens, stream).
function M.chat_spec(chat_schema)
  return '{"openapi":"3.0.3","info":{"title":"chat","version":"1"},"paths":{"/v1/chat/completions":{"post":{'
    .. '"operationId":"createChatCompletion","requestBody":{"required":true,"content":{"application/json":'
    .. '{"schema":' .. chat_schema .. '}}},"responses":{"200":{"description":"OK"}}}}}}'
end

return M
