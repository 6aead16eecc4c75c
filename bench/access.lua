-- Access-pattern timings (docs/security.md): reading an 80,000-element
-- array forwards and backwards, and an 80,000-key object by name, through
-- the document API, cursors and views.
--
--   luajit bench/access.lua [n]
--
-- Prints one line per case: seconds, and the ratio to its forward (or
-- `pairs`) baseline measured in the same run.
local bench_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local qjson = require("qjson")
local C = require("qjson.lib")
local clock = os.clock
local format = string.format

local n = tonumber(arg and arg[1]) or 80000

local function messages(count)
  local parts = {}
  for i = 1, count do
    parts[i] = i % 2 == 0 and '{"role":"user"}' or '{"role":"assistant"}'
  end
  return '{"model":"m","messages":[' .. table.concat(parts, ",") .. "]}"
end

local function wide(count)
  local parts = {}
  for i = 1, count do
    parts[i] = format('"k%d":%d', i, i)
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

local function time(f)
  collectgarbage()
  local t0 = clock()
  local r = f()
  return clock() - t0, r
end

local results = {}
local function report(name, secs, base)
  results[#results + 1] = { name, secs }
  print(format("%-34s %9.4f s%s", name, secs, base and format("  (%.1fx the baseline)", secs / base) or ""))
end

local body = messages(n)
print(format("array body: %d elements, %d bytes", n, #body))

-- Native bytes of a document's index: its tape, and after the loop, the
-- indexes built for random access.
local function index_bytes(d)
  return tonumber(C.qjson_index_bytes(d.ptr))
end
local function memory(what, before, after)
  print(format("  %s: index %d bytes after parse, %d after the loop (+%.2f bytes per element)", what, before, after,
    (after - before) / n))
end

local function doc_loop(from, to, step)
  local d = qjson.parse(body)
  local users, before = 0, index_bytes(d)
  for i = from, to, step do
    if d:get_str("messages[" .. i .. "].role") == "user" then
      users = users + 1
    end
  end
  if step < 0 then
    memory("reverse loop", before, index_bytes(d))
  end
  return users
end
local fwd = time(function() return doc_loop(0, n - 1, 1) end)
report("doc:get_str forward", fwd)
report("doc:get_str reverse", (time(function() return doc_loop(n - 1, 0, -1) end)), fwd)

local function cursor_loop(from, to, step)
  local c = qjson.parse(body):open("messages")
  local users = 0
  for i = from, to, step do
    if c:get_str("[" .. i .. "].role") == "user" then
      users = users + 1
    end
  end
  return users
end
fwd = time(function() return cursor_loop(0, n - 1, 1) end)
report("cursor forward", fwd)
report("cursor reverse", (time(function() return cursor_loop(n - 1, 0, -1) end)), fwd)

local function view_loop(from, to, step)
  local msgs = qjson.decode(body).messages
  local users = 0
  for i = from, to, step do
    if msgs[i].role == "user" then
      users = users + 1
    end
  end
  return users
end
fwd = time(function() return view_loop(1, n, 1) end)
report("view forward", fwd)
report("view reverse", (time(function() return view_loop(n, 1, -1) end)), fwd)

body = wide(n)
print(format("object body: %d keys, %d bytes", n, #body))
local keys = {}
for i = 1, n do
  keys[i] = "k" .. i
end

local base = time(function()
  local s = 0
  for _, v in qjson.pairs(qjson.decode(body)) do
    s = s + v
  end
  return s
end)
report("view pairs (baseline)", base)
report("view v[key] every key", (time(function()
  local v, s = qjson.decode(body), 0
  for i = 1, n do
    s = s + v[keys[i]]
  end
  return s
end)), base)
report("doc:get_num(key) every key", (time(function()
  local d, s = qjson.parse(body), 0
  local before = index_bytes(d)
  for i = 1, n do
    s = s + d:get_num(keys[i])
  end
  memory("keyed reads", before, index_bytes(d))
  return s
end)), base)
