-- Side-by-side timing of a one-field JSON Patch (qjson.patcher, replace
-- /temperature) against lua-cjson's decode + edit + encode and against
-- parse+copy (bench/libs/parse_copy.lua's reference: qjson.decode and one
-- ffi.string of the edited body), on a bench/workloads.lua chat request,
-- the three alternated in rounds (medians of 7), in one process: the
-- measurement docs/performance-log.md's patch figures come from.
--   luajit bench/patch_ab.lua chat-2k 20000
--   luajit bench/patch_ab.lua chat-10m 5
package.path = "bench/?.lua;lua/?.lua;lua/?/init.lua;" .. package.path
local workloads = require("workloads")
local qjson = require("qjson")
local ok, cjson = pcall(require, "cjson")
if not ok then cjson = require("qjson.cjson") end
local ffi = require("ffi")
local clock = os.clock
-- Results are stored: LuaJIT's compiler drops a string nothing uses (the
-- parse+copy row then timed the parse alone).
local sink = {}
local function time(f, s, n)
  local t0 = clock()
  for _ = 1, n do sink[1] = f(s) end
  local t = (clock() - t0) / n
  assert(sink[1] ~= nil)
  return t
end
local size = arg[1]
local s = workloads.generate(size)
local p = qjson.patcher({ { op = "replace", path = "/temperature" } })
local A = function(b) return p:apply(b, 0.5) end
local B = function(b) local v = cjson.decode(b); v.temperature = 0.5; return cjson.encode(v) end
-- parse+copy: qjson.decode + ffi.string of the edited body, as bench/libs/parse_copy.lua
qjson.decode_views(true)
local o = A(s)
local buf = ffi.new("char[?]", #o)
ffi.copy(buf, o, #o)
local Cf = function(b) qjson.decode(b); return ffi.string(buf, #o) end
assert(cjson.decode(A(s)).temperature == 0.5)
local n = tonumber(arg[2])
local ra, rb, rc = {}, {}, {}
for round = 1, 7 do -- A/B/C alternated
  ra[round] = time(A, s, n); rb[round] = time(B, s, n); rc[round] = time(Cf, s, n)
end
table.sort(ra); table.sort(rb); table.sort(rc)
print(("%s (%d bytes): patcher %.2f us, cjson decode+edit+encode %.2f us, parse+copy %.2f us"):format(
  size, #s, ra[4] * 1e6, rb[4] * 1e6, rc[4] * 1e6))
print(("  medians of 7 alternated rounds of %d; cjson/patch %.2fx, parse+copy/patch %.2fx; cjson=%s"):format(
  n, rb[4] / ra[4], rc[4] / ra[4], ok and "lua-cjson" or "qjson.cjson"))
