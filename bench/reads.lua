-- Read timings: each read kind of the document API and of lazy views,
-- in a compiled loop (qjson.base's readers; docs/performance-log.md has
-- the comparisons made with it).
--
--   luajit bench/reads.lua [rounds]
--
-- Prints one line per read: nanoseconds per read, the best of `rounds`
-- (default 5) timed runs.
local bench_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local qjson = require("qjson")
qjson.decode_views(true)
local clock = os.clock

local rounds = tonumber(arg and arg[1]) or 5
local N = 200000

local text = '{"id":1234567,"user":"ada@example.com","esc":"caf\\u00e9 \\"q\\"","ratio":0.25,"active":true,'
  .. '"big":-9007199254740993,"nil":null,"scope":["read","write","admin"],'
  .. '"meta":{"region":"eu-west-1","tier":3,"tags":{"a":1,"b":2}},"dup":{"k":1,"k":2}}'
local d = qjson.parse(text)
local p_user, p_tier = qjson.path("user"), qjson.path("meta.tier")
local v = qjson.decode(text)
local wide = {}
for i = 1, 20 do
  wide[i] = ('"k%d":%s'):format(i, i % 3 == 0 and '"s"' or i % 3 == 1 and tostring(i) or '{"x":1}')
end
local w = qjson.decode("{" .. table.concat(wide, ",") .. "}")

local sink
local cases = {
  { "doc:get_str", function() sink = d:get_str("user") end },
  { "doc:get_str (escaped)", function() sink = d:get_str("esc") end },
  { "doc:get_str (compiled path)", function() sink = d:get_str(p_user) end },
  { "doc:get_num", function() sink = d:get_num("ratio") end },
  { "doc:get_num (compiled path)", function() sink = d:get_num(p_tier) end },
  { "doc:get_i64", function() sink = d:get_i64("big") end },
  { "doc:get_bool", function() sink = d:get_bool("active") end },
  { "doc:len", function() sink = d:len("scope") end },
  { "doc:raw", function() sink = d:raw("meta.tags") end },
  { "doc:typeof", function() sink = d:typeof("meta") end },
  { "doc:get (string)", function() sink = d:get("scope[1]") end },
  { "doc:pairs (4 members)", function()
    for k in d:pairs("meta") do
      sink = k
    end
  end },
  { "view string", function() sink = v.user end },
  { "view number", function() sink = v.ratio end },
  { "view child, its field", function() sink = v.meta.region end },
  { "view array element", function() sink = v.scope[2] end },
  { "view length", function() sink = #v.scope end },
  { "view pairs (3 members)", function()
    for k in qjson.pairs(v.meta) do
      sink = k
    end
  end },
  { "view pairs (20 members)", function()
    for k in qjson.pairs(w) do
      sink = k
    end
  end },
  { "view pairs, repeated key", function()
    for k in qjson.pairs(v.dup) do
      sink = k
    end
  end },
  { "decode + 6 reads", function()
    local x = qjson.decode(text)
    sink = x.id + x.ratio + #x.user + x.meta.tier + #x.scope[1] + (x.active and 1 or 0)
  end },
}

for _, case in ipairs(cases) do
  local name, f = case[1], case[2]
  for _ = 1, N / 10 do
    f()
  end
  local best = math.huge
  for _ = 1, rounds do
    collectgarbage()
    local t0 = clock()
    for _ = 1, N do
      f()
    end
    local t = clock() - t0
    if t < best then
      best = t
    end
  end
  io.write(string.format("%-30s %8.1f ns\n", name, best / N * 1e9))
end
-- (Each case stores its result, so that LuaJIT cannot drop the read.)
assert(sink ~= nil)
