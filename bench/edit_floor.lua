-- What an edit of a large document must cost at least, beside what the
-- unmodified round trip costs, in one process:
--
--   luajit bench/edit_floor.lua [workload] [seconds per row]
--
-- An untouched view encodes to the very string it was decoded from, so
-- decode + encode unmodified costs the parse alone. Any edit returns a new
-- string of about the document's size, so it costs at least the parse
-- plus writing that many bytes once. The rows, each timed for the given
-- CPU seconds (default 1) after a warm-up, in ms per call and as a ratio
-- to the round trip (the edit targets ask for >= 0.5x):
--   roundtrip  qjson.decode + qjson.encode, unmodified
--   modtop     qjson.decode, set temperature, qjson.encode
--   copy       ffi.copy of the document into a buffer allocated once: one
--              pass writing the output's bytes, no Lua string made
--   parse+copy qjson.decode + that copy: below what any edit can cost
-- Default workload: modtop-10m (the 10 MB chat request).
local bench_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
package.path = bench_dir .. "/?.lua;" .. root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local ffi = require("ffi")
local qjson = require("qjson")
qjson.decode_views(true) -- lazy views on every build (docs/api.md)
local workloads = require("workloads")

local name = arg[1] or "modtop-10m"
local seconds = tonumber(arg[2]) or 1
local s = workloads.load(name, bench_dir .. "/data")
local n = #s
local out = ffi.new("char[?]", n)
local decode, encode, copy = qjson.decode, qjson.encode, ffi.copy

-- Results are stored, so the compiler cannot drop the work.
local sink = {}
local function time(f)
  for _ = 1, 20 do
    sink[1] = f()
  end
  local calls, t0 = 0, os.clock()
  repeat
    sink[1] = f()
    calls = calls + 1
  until os.clock() - t0 >= seconds
  assert(sink[1] ~= nil)
  return (os.clock() - t0) / calls * 1e3
end

local rows = {
  { "roundtrip", function() return encode(decode(s)) end },
  { "modtop", function()
      local v = decode(s)
      v.temperature = 0.5
      return encode(v)
    end },
  { "copy", function() copy(out, s, n) return out end },
  { "parse+copy", function()
      local v = decode(s)
      copy(out, s, n)
      return v
    end },
}
print(string.format("%s, %d bytes, %s", name, n, jit.version))
local base
for _, row in ipairs(rows) do
  local ms = time(row[2])
  base = base or ms
  print(string.format("%-11s %8.3f ms  %6.3fx the round trip's speed", row[1], ms, base / ms))
end
