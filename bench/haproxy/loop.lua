-- The seed blog's loop on PUC Lua (make bench-haproxy, part 2): one
-- small object encoded and its text decoded, 500,000 times, for qjson,
-- OpenResty's lua-cjson 2.1.0.17 built for this Lua (tools/lua-cjson.sh)
-- and dkjson; three rounds, the libraries alternated, the median time.
--
--   lua5.X bench/haproxy/loop.lua OBJECT.json [--quick]
--
-- OBJECT.json: the object's text (bench/haproxy/run.sh writes
-- bench/workloads.lua's TINY, about 200 bytes). --quick: 20,000 times,
-- one round.
local root = debug.getinfo(1, "S").source:sub(2):match("^(.*)/bench/haproxy/[^/]*$") or "."
local version = _VERSION:match("%d+%.%d+")
package.cpath = root .. "/target/lua/" .. version .. "/?.so;" .. package.cpath

local path, quick = arg[1], arg[2] == "--quick"
if not path or (arg[2] and not quick) then
  io.stderr:write("usage: lua5.X bench/haproxy/loop.lua OBJECT.json [--quick]\n")
  os.exit(2)
end
local f = assert(io.open(path, "rb"))
local text = f:read("a")
f:close()
local N, ROUNDS = quick and 20000 or 500000, quick and 1 or 3

local function load_cjson()
  local file = root .. "/.deps/lua-cjson-" .. version .. "/cjson.so"
  return assert(package.loadlib(file, "luaopen_cjson"), file .. " not built (tools/lua-cjson.sh " .. version .. ")")()
end
local qjson, cjson, dkjson = require("qjson"), load_cjson(), require("dkjson")
local libs = {
  { name = "qjson", encode = qjson.encode, decode = qjson.decode },
  { name = "lua-cjson 2.1.0.17", encode = cjson.encode, decode = cjson.decode, baseline = true },
  { name = "dkjson " .. dkjson.version:match("[%d.]+$"), encode = dkjson.encode, decode = dkjson.decode },
}

-- The same object for every library; each round checks what came back.
local object = cjson.decode(text)
local function loop(lib)
  local encode, decode = lib.encode, lib.decode
  local back
  local t0 = os.clock()
  for _ = 1, N do
    back = decode(encode(object))
  end
  local dt = os.clock() - t0
  assert(back.id == object.id and back.quota.ratio == object.quota.ratio and back.note == object.note,
    lib.name .. ": the object did not come back")
  return dt
end

local times = {}
for r = 1, ROUNDS do
  for k = 1, #libs do
    local i = r % 2 == 1 and k or #libs - k + 1
    collectgarbage()
    times[i] = times[i] or {}
    times[i][#times[i] + 1] = loop(libs[i])
  end
end
local function median(list)
  table.sort(list)
  return list[(#list + 1) // 2]
end
local base
for i, lib in ipairs(libs) do
  lib.seconds = median(times[i])
  if lib.baseline then
    base = lib.seconds
  end
end
print(("The seed blog's loop on %s: encode + decode of a %d-byte object, %d times; median of %d round%s (CPU s)")
  :format(_VERSION, #text, N, ROUNDS, ROUNDS > 1 and "s" or ""))
print(("%-20s %10s %12s %16s"):format("library", "seconds", "loops/s", "x lua-cjson"))
for _, lib in ipairs(libs) do
  print(("%-20s %10.3f %12.0f %16.2f"):format(lib.name, lib.seconds, N / lib.seconds, base / lib.seconds))
end
