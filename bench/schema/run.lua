-- JSON Schema validation benchmark: qjson.schema (parse + validate in one
-- native call, no Lua table) against lua-cjson's decode + api7's
-- jsonschema (the validator APISIX uses, generated once as Lua code), side
-- by side in one process, rounds interleaved.
--
--   luajit bench/schema/run.lua [--quick]
--
-- Workloads: a ~300-byte request with 10 fields and its schema (as api7's
-- own benchmark), the chat-completion ladder against a chat-completions
-- schema, and invalid bodies of each kind (how fast the verdict and the
-- errors come back). api7's jsonschema needs a regex library outside
-- nginx: Debian's lua-rex-pcre2 is loaded under the name `rex_pcre`, and
-- net_url.lua stands in for `net.url`. Either missing: qjson alone runs.
local dir = (arg and arg[0] or "bench/schema/run.lua"):match("^(.*)/[^/]*$") or "."
local root = dir .. "/../.."
package.path = dir .. "/?.lua;" .. dir .. "/../?.lua;" .. root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;"
  .. root .. "/../shared/vendor/jsonschema-lua/lib/?.lua;" .. package.path

local qjson = require("qjson")
local cjson = require("cjson.safe")
local workloads = require("workloads")
local util = require("util")

local format = string.format
local quick = arg and arg[1] == "--quick"

-- The process's CPU time, not wall time: on a machine shared with other
-- jobs, wall time also counts the time spent waiting for a CPU, which
-- inflated some rows several times over.
local function now()
  return util.clock(util.CPU)
end

package.preload["net.url"] = function() return require("net_url") end
package.preload["rex_pcre"] = function() return require("rex_pcre2") end
local have_api7, jsonschema = pcall(require, "jsonschema")
if not have_api7 then
  io.write("api7 jsonschema unavailable (", tostring(jsonschema), "): qjson alone\n")
end

local REQUEST_SCHEMA = [[{
  "type": "object",
  "required": ["id", "name", "email", "price", "active", "tags", "address", "status", "sku", "quantity"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "integer", "minimum": 1},
    "name": {"type": "string", "minLength": 1, "maxLength": 64},
    "email": {"type": "string", "maxLength": 128},
    "price": {"type": "number", "minimum": 0},
    "active": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
    "address": {"type": "object", "required": ["city", "zip"], "additionalProperties": false,
      "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}},
    "status": {"enum": ["new", "paid", "shipped"]},
    "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
    "quantity": {"type": "integer", "minimum": 1, "maximum": 100}
  }
}]]

local REQUEST = '{"id":12345,"name":"Wireless Ergonomic Mouse, graphite","email":"buyer.name@example.com",'
  .. '"price":24.99,"active":true,"tags":["electronics","accessories","sale","gift"],'
  .. '"address":{"city":"Springfield","zip":"12345"},"status":"paid","sku":"ABC-1234","quantity":2}'

-- One invalid body per kind of failure.
local INVALID = {
  { "type", (REQUEST:gsub('"id":12345', '"id":"12345"')) },
  { "required", (REQUEST:gsub('"email":"buyer.name@example.com",', '')) },
  { "additionalProperties", (REQUEST:gsub('"quantity":2}', '"quantity":2,"coupon":"X"}')) },
  { "enum", (REQUEST:gsub('"status":"paid"', '"status":"lost"')) },
  { "pattern", (REQUEST:gsub('"sku":"ABC%-1234"', '"sku":"abc-1234"')) },
  { "maximum", (REQUEST:gsub('"quantity":2', '"quantity":1000')) },
  { "nested", (REQUEST:gsub('"zip":"12345"', '"zip":"1234"')) },
}

local CHAT_SCHEMA = require("chat_schema")

-- Runs f for about `budget` seconds; seconds per call.
local function time(f, arg1, budget)
  local n, t0 = 0, now()
  local t
  repeat
    for _ = 1, 8 do
      f(arg1)
    end
    n = n + 8
    t = now()
  until t - t0 >= budget
  return (t - t0) / n
end

local median = util.median -- (of an odd number of rounds)

-- qjson and cjson + api7, interleaved for `rounds` rounds.
-- Each workload starts with no compiled traces: the timing loop is shared
-- by every workload, and traces left by earlier ones (side exits,
-- blacklisted loops) otherwise slowed later ones several times over.
local function compare(name, body, q, a, rounds, budget)
  jit.flush()
  local qs, as = {}, {}
  for r = 1, rounds do
    qs[r] = time(q, body, budget)
    if a then
      as[r] = time(a, body, budget)
    end
  end
  local tq = median(qs)
  local ta = a and median(as)
  io.write(format("%-34s %10.2f us %12s %9s\n", name, tq * 1e6,
    ta and format("%.2f us", ta * 1e6) or "-", ta and format("%.1fx", ta / tq) or "-"))
  return tq, ta
end

local function api7_validator(schema_json)
  if not have_api7 then
    return nil
  end
  local validator = jsonschema.generate_validator(cjson.decode(schema_json))
  return function(body)
    local t = cjson.decode(body)
    return validator(t)
  end
end

local function check_agree(what, v, a, body)
  local ok = v:is_valid(body)
  if a then
    local ok2 = a(body) and true or false
    if ok2 ~= ok then
      io.write(format("  note: %s: qjson says %s, api7 says %s\n", what, tostring(ok), tostring(ok2)))
    end
  end
  return ok
end

local rounds, budget = quick and 3 or 7, quick and 0.05 or 0.2
io.write(format("%-34s %13s %12s %9s\n", "workload (median of " .. rounds .. " rounds)", "qjson", "cjson+api7",
  "ratio"))

-- 1. The ~300-byte request.
local req = qjson.schema(REQUEST_SCHEMA)
local a_req = api7_validator(REQUEST_SCHEMA)
assert(check_agree("request", req, a_req, REQUEST), "the request must be valid")
compare(format("request %dB is_valid", #REQUEST), REQUEST, function(b) return req:is_valid(b) end, a_req, rounds,
  budget)
compare(format("request %dB validate", #REQUEST), REQUEST, function(b) return req:validate(b) end, a_req, rounds,
  budget)

-- 2. Invalid bodies: the verdict with the errors.
for _, case in ipairs(INVALID) do
  assert(not check_agree("invalid " .. case[1], req, a_req, case[2]), "must be invalid: " .. case[1])
  compare("invalid " .. case[1] .. " validate", case[2], function(b) return req:validate(b) end, a_req, rounds,
    budget)
end

-- 3. The chat ladder.
local chat = qjson.schema(CHAT_SCHEMA)
local a_chat = api7_validator(CHAT_SCHEMA)
local sizes = quick and { { "2k", 2048 }, { "100k", 102400 }, { "1m", 1048576 } }
  or { { "2k", 2048 }, { "100k", 102400 }, { "1m", 1048576 }, { "10m", 10485760 } }
for _, s in ipairs(sizes) do
  local body = workloads.chat(s[2])
  assert(check_agree("chat " .. s[1], chat, a_chat, body), "the chat body must be valid")
  compare("chat-" .. s[1] .. " is_valid", body, function(b) return chat:is_valid(b) end, a_chat, rounds, budget)
  compare("chat-" .. s[1] .. " validate", body, function(b) return chat:validate(b) end, a_chat, rounds, budget)
end
local bad_chat = workloads.chat(1048576):gsub('"role":"user"', '"role":"robot"', 1)
assert(not check_agree("chat invalid", chat, a_chat, bad_chat))
compare("chat-1m invalid role validate", bad_chat, function(b) return chat:validate(b) end, a_chat, rounds, budget)
io.write("(ratio: cjson+api7 time / qjson time; one process, rounds interleaved)\n")
