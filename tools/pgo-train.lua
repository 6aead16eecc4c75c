-- The training run of the profile-guided build (tools/build.sh): drives
-- an instrumented libqjson.so (QJSON_LIB) through every public API the way
-- a gateway does, so that the profile says which code is hot.
--
--   QJSON_LIB=<instrumented .so> luajit tools/pgo-train.lua [full|parse]
--
-- `full` (the default) runs everything; `parse` only parses and walks the
-- documents (run once per extra stage 1 backend, forced with
-- QJSON_BACKEND). The documents are generated here, from their own seeds:
-- none is a benchmark's document, so the benchmarks do not measure a
-- build trained on their own inputs.
local root = (arg and arg[0] or ""):match("^(.*)/tools/[^/]*$") or "."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local qjson = require("qjson")
local cjson = require("qjson.cjson")
local buffer = require("string.buffer")

local mode = arg and arg[1] or "full"
assert(mode == "full" or mode == "parse", "usage: pgo-train.lua [full|parse]")
qjson.decode_views(true)

-- A linear congruential generator: the same documents on every run.
local seed = 20261126
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end
local function pick(t)
  return t[1 + rand(#t)]
end

local WORDS = { "route", "upstream", "caf\195\169", "token", "\\\"quoted\\\"", "line\\nbreak", "\\u00e9t\\u00e9",
  "\226\130\172", "plain", "\240\159\154\128", "tab\\there", "consumer", "a/b\\/c" }
local function words(n)
  local b = buffer.new()
  for i = 1, n do
    b:put(i > 1 and " " or "", pick(WORDS))
  end
  return b:tostring()
end
local function number()
  local k = rand(4)
  if k == 0 then
    return tostring(rand(100000))
  elseif k == 1 then
    return tostring(-rand(1000))
  elseif k == 2 then
    return string.format("%.17g", rand(1000000) / 7919)
  end
  return string.format("%de%d", rand(90) + 1, rand(20) - 10)
end

-- A small API request (150-600 bytes).
local function request()
  local msgs = {}
  for i = 1, 1 + rand(3) do
    msgs[i] = string.format('{"role":"%s","content":"%s"}', pick({ "system", "user", "assistant" }), words(2 + rand(8)))
  end
  return string.format('{"model":"m-%d","temperature":%s,"max_tokens":%d,"stream":%s,"user":"%s",'
    .. '"metadata":null,"tags":["%s","%s"],"messages":[%s]}', rand(9), number(), rand(4096),
    pick({ "true", "false" }), words(1), pick(WORDS), pick(WORDS), table.concat(msgs, ","))
end

-- A list of records, nested objects and arrays of every type.
local function records(n)
  local out = {}
  for i = 1, n do
    out[i] = string.format('{"id":%d,"name":"%s","text":"%s","score":%s,"ok":%s,"parent":null,'
      .. '"owner":{"id":%d,"login":"%s","admin":%s,"site":null},"labels":["%s","%s","%s"],"at":[%s,%s]}',
      i, words(2), words(5 + rand(30)), number(), pick({ "true", "false" }), rand(1e6), words(1),
      pick({ "true", "false" }), pick(WORDS), pick(WORDS), pick(WORDS), number(), number())
  end
  return "[" .. table.concat(out, ",\n ") .. "]"
end

-- Coordinates: long arrays of floats.
local function coordinates(n)
  local pts = {}
  for i = 1, n do
    pts[i] = string.format("[%.15g,%.14g]", rand(36000000) / 100000 - 180, rand(18000000) / 100000 - 90)
  end
  return '{"type":"Polygon","coordinates":[[' .. table.concat(pts, ",") .. "]]}"
end

-- A chat request carrying a long base64 string.
local function upload(size)
  local chunk = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg"
  return string.format('{"model":"vision","messages":[{"role":"user","content":[{"type":"text","text":"%s"},'
    .. '{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]}]}', words(40),
    chunk:rep(math.floor(size / #chunk)))
end

local function event(i, last)
  return string.format('{"id":"c-%d","object":"chunk","choices":[{"index":0,"delta":{"content":"%s"},'
    .. '"finish_reason":%s}]}', i, words(1 + rand(3)), last and '"stop"' or "null")
end

-- The same records pretty-printed: indentation is most of such a text.
local function pretty(s)
  local c = cjson.new()
  c.encode_indent("    ")
  return c.encode(cjson.decode(s))
end

local docs = { records(8), records(300), pretty(records(200)), coordinates(3000), upload(40000), upload(400000) }
local requests = {}
for i = 1, 64 do
  requests[i] = request()
end

-- Every value through the document API's readers, recursively.
local function walk(c)
  local t = c:typeof()
  if t == "object" or t == "array" then
    local n = 0
    local iter, state, init
    if t == "object" then
      iter, state, init = c:pairs()
    else
      iter, state, init = c:ipairs()
    end
    for k, v in iter, state, init do
      n = n + 1
      if type(v) == "table" then
        walk(v)
      end
      if t == "object" and c:typeof(k) == "string" then
        n = n + #c:get_str(k)
      end
    end
    return n + c:len()
  end
  return 0
end

-- Every value of a view (or plain table), through qjson.pairs.
local function visit(v)
  local n = 0
  if type(v) == "table" then
    for _, x in qjson.pairs(v) do
      n = n + 1 + visit(x)
    end
  end
  return n
end

local function parse_and_read(s)
  for _, m in ipairs({ "strict", "lazy" }) do
    local doc = qjson.parse(s, { mode = m })
    walk(doc)
    doc:close()
  end
end

-- Takes the values read, so that no read is left out as unused.
local function use(...)
  return select("#", ...)
end

local function request_reads(s, sel)
  local doc = qjson.parse(s)
  use(doc:get_str("model"), doc:get_num("temperature"), doc:get_bool("stream"), doc:is_null("metadata"),
    doc:get_i64("max_tokens"), doc:raw("tags"), doc:get("messages"))
  for _, m in doc:ipairs("messages") do
    use(m:get_str("role"), m:get_str("content"))
  end
  use(doc:open("messages[0]"):get_str("content"))
  sel(s)
  sel(doc)
end

local function decode_edit_encode(s)
  local v = qjson.decode(s)
  visit(v)
  qjson.encode(v)
  if type(v) == "table" and not v[1] then
    v.model = "edited"
    v.added = { 1, "two", { three = 3 } }
    if type(v.messages) == "table" and v.messages[1] then
      v.messages[1].role = "system"
    end
  elseif type(v) == "table" then
    v[1].name = "edited"
    v[qjson.len(v)] = nil
  end
  qjson.encode(v)
  qjson.encode(qjson.materialize(v))
end

local function cjson_round_trip(s)
  local t = cjson.decode(s)
  cjson.encode(t)
  qjson.encode(t)
end

local function streams(sel)
  local sse, nd = buffer.new(), buffer.new()
  for i = 1, 200 do
    sse:put("data: ", event(i, i == 200), "\n\n")
    if i % 50 == 0 then
      sse:put(": keep-alive\n\n")
    end
    nd:put(records(1):sub(2, -2), "\n")
  end
  sse:put("data: [DONE]\n\n")
  sse, nd = sse:tostring(), nd:tostring()
  for _ in qjson.stream.each(sse, "sse", sel) do
  end
  for _, doc in qjson.stream.each(nd, "ndjson") do
    use(doc:get_num("id"), doc:get_str("name"), doc:get_bool("ok"))
  end
  for _ in qjson.stream.each(nd, "ndjson", "raw") do
  end
  local f = qjson.stream.feeder("sse", sel)
  for at = 1, #sse, 4096 do
    for _ in f:feed(sse:sub(at, at + 4095), at + 4096 > #sse) do
    end
  end
end

local SCHEMA = [[{
  "type": "object", "required": ["model", "messages"],
  "properties": {
    "model": {"type": "string", "minLength": 1, "pattern": "^m-[0-9]$"},
    "temperature": {"type": "number", "minimum": -1000, "maximum": 1e12},
    "max_tokens": {"type": "integer", "minimum": 0},
    "stream": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    "messages": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["role", "content"],
      "properties": {"role": {"enum": ["system", "user", "assistant"]}, "content": {"type": "string"}}}}
  }
}]]

local function run(rounds)
  for _ = 1, rounds do
    for _, s in ipairs(docs) do
      parse_and_read(s)
    end
    for _, s in ipairs(requests) do
      parse_and_read(s)
    end
  end
  if mode == "parse" then
    return
  end
  local sel = qjson.select({ "model", "temperature:number", "stream:boolean", "max_tokens:int", "metadata",
    "tags[*]", "messages[*].role", "messages[0].content:string", "messages[1].content" })
  local events = qjson.select({ "choices[0].delta.content", "choices[0].finish_reason" })
  local validator = qjson.schema(SCHEMA)
  for _ = 1, rounds do
    for _, s in ipairs(requests) do
      for _ = 1, 20 do
        request_reads(s, sel)
        decode_edit_encode(s)
        cjson_round_trip(s)
        validator:is_valid(s)
      end
      validator:validate(s)
      validator:validate(qjson.parse(s))
    end
    for _, s in ipairs(docs) do
      decode_edit_encode(s)
      cjson_round_trip(s)
    end
    streams(events)
  end
end

local start = os.clock()
run(mode == "full" and 30 or 4)
io.write(string.format("pgo-train: %s, backend %s, %.1f s\n", mode, qjson.backend(), os.clock() - start))
