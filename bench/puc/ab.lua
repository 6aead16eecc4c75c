-- A/B of two builds of the PUC module, rounds alternated (the A, B order
-- swapped every round), best round of each; for the performance log's
-- figures of one change. Each round of each side is a process of its own
-- (two builds in one process would share their metatables' registry
-- names).
--
--   lua5.X bench/puc/ab.lua A/qjson.so B/qjson.so [--rounds N] [workload ...]
--
-- Workloads: decode-X and encode-X for X in tiny, twitter, citm, canada
-- (through `qjson.cjson`), encodef-X (encode-X of the value Debian's
-- lua-cjson 2.1.0 decodes, every number a float, as run.lua's rows),
-- read3-twitter (`parse` + three reads), chat-100k (`parse` + run.lua's
-- chat job on its 100 KB request). Prints
-- each side's ops/s and B/A.
local root = debug.getinfo(1, "S").source:sub(2):match("^(.*)/bench/puc/[^/]*$") or "."
local usage = "usage: bench/puc/ab.lua A/qjson.so B/qjson.so [--rounds N] [workload ...]"
local side = arg[1] == "--side" -- a child: one round of one build
local a_path, b_path = arg[1], arg[2]
if side then
  a_path, b_path = arg[2], nil
end
assert(a_path and (side or b_path), usage)
local rounds, names = 7, {}
do
  local i = 3
  while arg[i] do
    if arg[i] == "--rounds" then
      i = i + 1
      rounds = assert(tonumber(arg[i]))
    else
      names[#names + 1] = arg[i]
    end
    i = i + 1
  end
end
if #names == 0 then
  names = { "decode-tiny", "decode-twitter", "decode-citm", "decode-canada", "encode-tiny", "encode-twitter",
    "encode-citm", "encode-canada", "read3-twitter", "chat-100k" }
end

if not side then
  local lua = arg[-1]
  local script = debug.getinfo(1, "S").source:sub(2)
  local best = { {}, {} }
  for r = 1, rounds do
    for k = 1, 2 do
      local i = (r % 2 == 1) and k or 3 - k
      local cmd = ("%s %s --side %s %s"):format(lua, script, i == 1 and a_path or b_path, table.concat(names, " "))
      local p = assert(io.popen(cmd))
      for line in p:lines() do
        local name, ops = line:match("^(%S+) (%S+)$")
        best[i][name] = math.max(best[i][name] or 0, tonumber(ops))
      end
      assert(p:close(), cmd .. " failed")
    end
  end
  print(("A/B on %s, %d rounds alternated, best round (ops/s)"):format(_VERSION, rounds))
  print(("%-16s %12s %12s %7s"):format("workload", "A", "B", "B/A"))
  for _, name in ipairs(names) do
    local a, b = best[1][name], best[2][name]
    print(("%-16s %12.0f %12.0f %7.3f"):format(name, a, b, b / a))
  end
  return
end

local function open(path)
  local q = assert(package.loadlib(path, "luaopen_qjson"))()
  local cjson = assert(package.loadlib(path, "luaopen_qjson_cjson"))()
  return { qjson = q, cjson = cjson }
end
local m = open(a_path)

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end
local CORPUS = root .. "/../shared/data/corpus/"
local texts = {
  tiny = '{"id":1234567,"user":"ada@example.com","scope":["read","write"],"active":true,'
    .. '"quota":{"limit":1000,"used":371,"ratio":0.371},"region":"eu-west-1","note":"caf\\u00e9 \\"ok\\"",'
    .. '"expires":1767225600}',
  twitter = read(CORPUS .. "twitter.json"),
  citm = read(CORPUS .. "citm_catalog.json"),
  canada = read(CORPUS .. "canada.json"),
}
local chat = dofile(root .. "/bench/puc/chat.lua")
texts.chat = chat.request(100 * 1024)
local function workload(name)
  if name == "chat-100k" then
    return function()
      return chat.doc(m.qjson.parse(texts.chat))
    end
  end
  local kind, doc = name:match("^(%a+%d?)-(%a+)$")
  local text = assert(texts[doc], "unknown workload " .. name)
  if kind == "decode" then
    return function()
      return m.cjson.decode(text)
    end
  elseif kind == "encode" or kind == "encodef" then
    -- encodef: the value as bench/puc/run.lua's encode rows have it, from
    -- Debian's lua-cjson 2.1.0 (every number a float), when found.
    local debian_so = "/usr/lib/x86_64-linux-gnu/lua/" .. _VERSION:match("%d+%.%d+") .. "/cjson.so"
    local debian = kind == "encodef" and package.loadlib(debian_so, "luaopen_cjson")
    local value = (debian and debian() or m.cjson).decode(text)
    return function()
      return m.cjson.encode(value)
    end
  elseif kind == "read3" then
    return function()
      local d = m.qjson.parse(text)
      return d:get_num("search_metadata.count") + #d:get_str("statuses[0].user.screen_name")
        + #d:get_str("statuses[99].id_str")
    end
  end
  error("unknown workload " .. name)
end
local clock = os.clock
local function measure(f)
  local n, t0, batch = 0, clock(), 1
  while true do
    for _ = 1, batch do
      f()
    end
    n = n + batch
    local dt = clock() - t0
    if dt >= 0.25 then
      return n / dt
    end
    if dt < 0.025 then
      batch = batch * 2
    end
  end
end

for _, name in ipairs(names) do
  local f = workload(name)
  print(name .. " " .. measure(f))
  collectgarbage()
end
