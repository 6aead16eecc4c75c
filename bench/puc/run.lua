-- The PUC Lua benchmark (a harness of its own until `make bench` learns
-- PUC Lua): qjson's native module against lua-cjson built for the same
-- Lua (Debian's 2.1.0 and OpenResty's 2.1.0.17; the faster of the two is
-- the baseline) and dkjson, in one process, rounds alternated.
--
--   lua5.X bench/puc/run.lua [--quick] [--rounds N] [--only name,...]
--
-- Workloads: decode and encode of the ~200-byte object
-- (bench/workloads.lua's TINY), twitter.json, citm_catalog.json and
-- canada.json; `parse` + three reads of twitter.json against a decode +
-- the same reads; the chat job (bench/jobs.lua's: model, temperature,
-- every content part's type and text) on a 100 KB chat request whose bulk
-- is a base64 image. Prints ops/s (best round) and each library's ratio
-- to the baseline. The decode and encode rows also time "C API floor"
-- (bench/puc/floor.c, built here with cc): the same tables built, or
-- walked, through Lua's C API with no JSON at all, the ceiling of any
-- library's ratio.
--
-- On LuaJIT (issue 41's item 6: does the C-API module beat the FFI
-- binding there?): `luajit bench/puc/run.lua` compares the 5.1 module
-- (target/lua/5.1/qjson.so, which LuaJIT loads: it has Lua 5.1's C API)
-- with the FFI binding's qjson.cjson (lua/qjson/, target/release/libqjson.so)
-- and OpenResty's lua-cjson built for LuaJIT (tools/lua-cjson.sh).
local root = debug.getinfo(1, "S").source:sub(2):match("^(.*)/bench/puc/[^/]*$") or "."
local luajit = rawget(_G, "jit") ~= nil
local version = _VERSION:match("%d+%.%d+")
package.cpath = root .. "/target/lua/" .. version .. "/?.so;" .. package.cpath
if luajit then
  package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
end

local quick, rounds, only = false, 5, nil
do
  local i = 1
  while arg[i] do
    if arg[i] == "--quick" then
      quick, rounds = true, 3
    elseif arg[i] == "--rounds" then
      i = i + 1
      rounds = tonumber(arg[i])
    elseif arg[i] == "--only" then
      i = i + 1
      only = {}
      for name in arg[i]:gmatch("[^,]+") do
        only[name] = true
      end
    end
    i = i + 1
  end
end
local ROUND_SECONDS = quick and 0.1 or 0.25

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function load_cjson(path)
  local open = package.loadlib(path, "luaopen_cjson")
  return open and open() or nil
end

local qjson = require("qjson")
local debian_cjson = load_cjson("/usr/lib/x86_64-linux-gnu/lua/" .. version .. "/cjson.so")
local libs = {
  { name = "qjson.cjson", m = require("qjson.cjson") },
  { name = "qjson", m = qjson, qjson = true },
  { name = "cjson 2.1.0.17", m = load_cjson(root .. "/.deps/lua-cjson-" .. version .. "/cjson.so"), baseline = true },
  { name = "cjson 2.1.0 (Debian)", m = debian_cjson, baseline = true },
}
if luajit then
  -- The FFI binding (above, from lua/qjson/) against the C-API module.
  qjson.decode_views(false)
  local open = assert(package.loadlib(root .. "/target/lua/5.1/qjson.so", "luaopen_qjson_cjson"))
  libs[1].name, libs[2].name = "qjson.cjson (FFI)", "qjson (FFI)"
  table.insert(libs, 2, { name = "qjson.cjson (C API)", m = open() })
  libs[4].m = load_cjson(root .. "/.deps/lua-cjson/cjson.so")
  table.remove(libs, 5)
end
do
  local ok, dkjson = pcall(require, "dkjson")
  if ok then
    libs[#libs + 1] = { name = "dkjson", m = { decode = dkjson.decode, encode = dkjson.encode } }
  end
end
-- The C API's part alone (bench/puc/floor.c): the tables built or walked
-- with no JSON, the most any library could reach through Lua's C API.
local floor
if not luajit then
  local so = root .. "/target/lua/" .. version .. "/qjson_floor.so"
  local src = root .. "/bench/puc/floor.c"
  local ok = os.execute(("[ %s -nt %s ] || cc -O2 -fPIC -shared -I/usr/include/lua%s -o %s %s")
    :format(so, src, version, so, src))
  if ok == true or ok == 0 then
    floor = package.loadlib(so, "luaopen_qjson_floor")()
    libs[#libs + 1] = { name = "C API floor", m = floor, floor = true }
  else
    io.stderr:write("bench/puc: " .. src .. " did not build (cc, Lua " .. version .. "'s headers), floor left out\n")
  end
end
for i = #libs, 1, -1 do
  if not libs[i].m then
    io.stderr:write("bench/puc: " .. libs[i].name .. " not found, left out (tools/lua-cjson.sh " .. version .. ")\n")
    table.remove(libs, i)
  end
end

local CORPUS = root .. "/../shared/data/corpus/"
local TINY = '{"id":1234567,"user":"ada@example.com","scope":["read","write"],"active":true,'
  .. '"quota":{"limit":1000,"used":371,"ratio":0.371},"region":"eu-west-1","note":"caf\\u00e9 \\"ok\\"",'
  .. '"expires":1767225600}'

-- The chat request and job (bench/puc/chat.lua, shared with ab.lua).
local chat_job = dofile(root .. "/bench/puc/chat.lua")
local chat_request, chat_tables, chat_doc = chat_job.request, chat_job.tables, chat_job.doc

-- parse + three reads of twitter.json: a count, a nested name, a late id.
local function twitter_tables(t)
  return t.search_metadata.count + #t.statuses[1].user.screen_name + #t.statuses[100].id_str
end
local function twitter_doc(d)
  return d:get_num("search_metadata.count") + #d:get_str("statuses[0].user.screen_name")
    + #d:get_str("statuses[99].id_str")
end

-- Deep equality of decoded values (the floor's check of its own tables).
local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then
    return a == b or (a ~= a and b ~= b)
  end
  for k, v in pairs(a) do
    if not same(v, b[k]) then
      return false
    end
  end
  for k in pairs(b) do
    if a[k] == nil then
      return false
    end
  end
  return true
end

-- A workload's data is made by its `setup` when its turn comes and dropped
-- after it, so that no row is timed with another's tables alive (the
-- collector would traverse them on every step, on 5.1 and 5.3 a large share
-- of a small decode's time).
local workloads = {}
local function add(w)
  if not only or only[w.name] then
    workloads[#workloads + 1] = w
  end
end
local function cjson_decode(text)
  return (debian_cjson or qjson).decode(text)
end
local docs = {
  { "tiny", TINY },
  { "twitter", read(CORPUS .. "twitter.json") },
  { "citm", read(CORPUS .. "citm_catalog.json") },
  { "canada", read(CORPUS .. "canada.json") },
}
for _, d in ipairs(docs) do
  local name, text = d[1], d[2]
  add({ name = "decode-" .. name, floor = true, setup = function()
    if floor then
      local value = cjson_decode(text)
      floor.record(text, value)
      assert(same(floor.decode(text), value), "bench/puc: the floor's tables differ from the document's")
    end
  end, run = function(lib)
    return lib.m.decode(text)
  end })
end
for _, d in ipairs(docs) do
  local name, text = d[1], d[2]
  -- (The same table for every library: lua-cjson's decode of the text.)
  add({ name = "encode-" .. name, floor = true, setup = function()
    return cjson_decode(text)
  end, run = function(lib, value)
    return lib.m.encode(value)
  end })
end
do
  local text = read(CORPUS .. "twitter.json")
  add({ name = "read3-twitter", run = function(lib)
    if lib.qjson then
      return twitter_doc(qjson.parse(text))
    end
    return twitter_tables(lib.m.decode(text))
  end })
  local chat = chat_request(100 * 1024)
  add({ name = "chat-100k", run = function(lib)
    if lib.qjson then
      return chat_doc(qjson.parse(chat))
    end
    return chat_tables(lib.m.decode(chat))
  end })
end

-- Ops per second of `f` over about ROUND_SECONDS.
local clock = os.clock
local function measure(f)
  local n, t0 = 0, clock()
  local batch = 1
  while true do
    for _ = 1, batch do
      f()
    end
    n = n + batch
    local dt = clock() - t0
    if dt >= ROUND_SECONDS then
      return n / dt
    end
    if dt < ROUND_SECONDS / 10 then
      batch = batch * 2
    end
  end
end

print(("PUC Lua benchmark on %s, %d rounds alternated, best round (ops/s); ratio to the faster lua-cjson")
  :format(_VERSION, rounds))
print(("%-16s %-22s %12s %8s"):format("workload", "library", "ops/s", "ratio"))
for _, w in ipairs(workloads) do
  local best = {}
  local data = w.setup and w.setup()
  collectgarbage()
  for r = 1, rounds do
    -- Alternate the order from round to round.
    for k = 1, #libs do
      local i = (r % 2 == 1) and k or (#libs - k + 1)
      local lib = libs[i]
      local ok, v = false, nil
      if w.floor or not lib.floor then
        ok, v = pcall(measure, function()
          return w.run(lib, data)
        end)
      end
      if ok then
        best[i] = math.max(best[i] or 0, v)
      end
      collectgarbage()
    end
  end
  local base = 0
  for i, lib in ipairs(libs) do
    if lib.baseline and best[i] then
      base = math.max(base, best[i])
    end
  end
  for i, lib in ipairs(libs) do
    local ops = best[i]
    if w.floor or not lib.floor then
      print(("%-16s %-22s %12s %8s"):format(w.name, lib.name, ops and ("%.0f"):format(ops) or "failed",
        (ops and base > 0) and ("%.2f"):format(ops / base) or ""))
    end
  end
end
