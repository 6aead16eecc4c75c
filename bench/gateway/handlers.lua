-- The gateway's job, done with qjson, lua-cjson and lua-resty-simdjson,
-- for nginx's content_by_lua (bench/gateway/nginx.conf) and, outside
-- nginx, for the check of what the handlers answer (bench/gateway/run.lua):
--
-- read the request body, read `model` and every `messages[i].content`
-- (a string, or parts whose `type` and `text` are read), set
-- `temperature`, re-encode, and respond with the encoded body's length.
--
-- A body nginx kept in memory arrives as a string; one it buffered to a
-- temporary file is read from the file: `qjson.parse_file` (no Lua string
-- of the body is made), `io.open` + `cjson.decode` for lua-cjson.
-- The baseline lua-cjson: first on the cpath (bench/gateway/run.sh puts
-- OpenResty's there when it finds one).
local cjson = require("cjson")
local qjson = require("qjson")

-- Debian's lua-cjson 2.1.0, loaded from its file, when the baseline is
-- another one: a handler of its own (cjson_debian).
local DEBIAN = "/usr/lib/x86_64-linux-gnu/lua/5.1/cjson.so"
local cjson_debian
if package.searchpath("cjson", package.cpath) ~= DEBIAN then
  local open = package.loadlib(DEBIAN, "luaopen_cjson")
  cjson_debian = open and open() or nil
end

local type, open = type, io.open

local M = {}

M.has_debian = cjson_debian ~= nil

local function read_file(path)
  local f = assert(open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- The reads, over a lua-cjson table or a qjson view (`len`: # or qjson.len).
local function read_fields(t, len)
  local sum = #t.model
  local messages = t.messages
  for i = 1, len(messages) do
    local content = messages[i].content
    if type(content) == "string" then
      sum = sum + #content
    else
      for j = 1, len(content) do
        local part = content[j]
        sum = sum + #part.type
        local text = part.text
        if text then
          sum = sum + #text
        end
      end
    end
  end
  return sum
end

local function plain_len(t)
  return #t
end

-- (For bench/gateway/parts.lua, which times the job step by step, and
-- run.lua's check of the selectors.)
M.read_fields, M.plain_len = read_fields, plain_len

-- lua-cjson: body text (or file) -> the re-encoded body.
function M.cjson_job(body, file)
  local t = cjson.decode(body or read_file(file))
  read_fields(t, plain_len)
  t.temperature = 0.5
  return cjson.encode(t)
end

-- The same with Debian's lua-cjson 2.1.0.
function M.cjson_debian_job(body, file)
  local t = cjson_debian.decode(body or read_file(file))
  read_fields(t, plain_len)
  t.temperature = 0.5
  return cjson_debian.encode(t)
end

-- lua-resty-simdjson, when it loads (bench/libs/resty_simdjson.lua finds
-- the one tools/resty-simdjson.sh builds, and outside nginx gives it what
-- OpenResty would): a handler of its own (simdjson); else
-- M.simdjson_missing says why. Its parser:decode builds the table that its
-- parser:encode writes.
local simdjson_ok, simdjson = pcall(require("libs.resty_simdjson").parser)
M.has_simdjson = simdjson_ok
M.simdjson_missing = not simdjson_ok and tostring(simdjson) or nil

function M.simdjson_job(body, file)
  local t = assert(simdjson:decode(body or read_file(file)))
  read_fields(t, plain_len)
  t.temperature = 0.5
  return simdjson:encode(t)
end

-- qjson: lazy views; the untouched parts are written as their bytes.
-- (Views on every build: reads use qjson.len, see docs/api.md.)
qjson.decode_views(true)
local decode, encode, len, parse, parse_file = qjson.decode, qjson.encode, qjson.len, qjson.parse, qjson.parse_file
-- A document read from a file owns a copy of the body in native memory,
-- which the Lua GC does not see: it is closed as soon as the answer is
-- made, as docs/api.md advises.
function M.qjson_job(body, file)
  local v, d
  if body then
    v = decode(body)
  else
    d = parse_file(file)
    v = d:get()
  end
  read_fields(v, len)
  v.temperature = 0.5
  local out = encode(v)
  if d then
    d:close()
  end
  return out
end

-- qjson without views: one strict parse into a document, the fields read
-- from it with compiled selectors (qjson.select) and `temperature` set by
-- a compiled patch (qjson.patcher), which writes the document's untouched
-- bytes around the new value. Both read the document where it lies, so
-- the body is parsed once. A content that is a string or a list of parts:
-- a selector cannot ask which (a typed path raises on the other type), so
-- the messages are walked with the document's cursors and their
-- `typeof`; each content's values come from a selector over its message.
-- A file-backed body: qjson.parse_file, as the view handler (the document
-- owns the bytes; no Lua string of the body), closed once answered.
local select_model = qjson.select({ "model:string" })
local select_text = qjson.select({ "content:string" })
local select_parts = qjson.select({ "content[*].type:string", "content[*].text:string" })
local set_temperature = qjson.patcher({ { op = "replace", path = "/temperature" } })
M.set_temperature = set_temperature -- (for bench/gateway/parts.lua)

-- read_fields' reads (and its sum) over a document, with the selectors.
function M.select_fields(doc)
  local sum = #select_model(doc)
  for _, message in doc:ipairs("messages") do
    if message:typeof("content") == "string" then
      sum = sum + #select_text(message)
    else
      local types, texts = select_parts(message)
      for j = 1, #types do
        sum = sum + #types[j]
        local text = texts[j]
        if text then
          sum = sum + #text
        end
      end
    end
  end
  return sum
end
local select_fields = M.select_fields

function M.qjson_patch_job(body, file)
  local d = body and parse(body) or parse_file(file)
  select_fields(d)
  local out = set_temperature:apply(d, 0.5)
  if file then
    d:close()
  end
  return out
end

-- The floor: the body read (from memory or its file) and its length
-- answered, no JSON work: the most requests/s any handler can reach here.
function M.floor_job(body, file)
  return body or read_file(file)
end

-- The bound: the least a handler that checks the body as strictly as
-- qjson.decode does and answers a re-encoded body can do: the strict
-- parse (qjson.parse) and one new string of the body's size, the body
-- with `temperature`'s value replaced as text, found by a plain search
-- (right for these bodies, whose first members hold it; no JSON edit).
-- No handler that does the job reaches it; it shows how much of the gap
-- to the floor is left to remove.
local find, sub = string.find, string.sub
function M.bound_job(body, file)
  body = body or read_file(file)
  parse(body)
  local from = find(body, '"temperature":', 1, true) + 14
  local to = find(body, "[,}]", from)
  return sub(body, 1, from - 1) .. "0.5" .. sub(body, to)
end

-- nginx entry points.
local function respond(job)
  local ngx = ngx -- luacheck: globals ngx
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  local out = job(body, not body and ngx.req.get_body_file() or nil)
  ngx.say(#out)
end

function M.cjson()
  respond(M.cjson_job)
end

function M.qjson()
  respond(M.qjson_job)
end

function M.cjson_debian()
  respond(M.cjson_debian_job)
end

function M.simdjson()
  respond(M.simdjson_job)
end

function M.qjson_patch()
  respond(M.qjson_patch_job)
end

function M.floor()
  respond(M.floor_job)
end

function M.bound()
  respond(M.bound_job)
end

return M
