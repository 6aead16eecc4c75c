-- What an edit of a large document must cost at least, beside what the
-- edit and the unmodified round trip cost, in one process:
--
--   luajit bench/edit_floor.lua [workload] [seconds per row] [rounds]
--
-- An untouched view encodes to the very string it was decoded from, so
-- decode + encode unmodified costs the parse alone. Any edit returns a new
-- string of about the document's size, so it costs at least the parse
-- plus writing that many bytes once. The rows, each timed for the given
-- CPU seconds (default 1) after a warm-up, `rounds` times (default 1) in
-- turn, in ms per call (the fastest round) and as a ratio to the
-- parse+copy row's speed:
--   roundtrip    qjson.decode + qjson.encode, unmodified (make bench's job)
--   modtop       qjson.decode, set temperature, qjson.encode (make bench's)
--   parse+copy   make bench's floor for modtop (bench/libs/parse_copy.lua):
--                qjson.decode + one copy of the edited body into a new string
--   parse+2copy  qjson.decode + the edited body written into a string.buffer
--                (the text before the value, the value, the text after it)
--                and the string made from the buffer: what any encoder that
--                writes pieces costs at least, LuaJIT making a string from
--                contiguous bytes only
--   patch        qjson.patcher's replace of temperature (make bench's
--                qjson.patch row): the edit with no views
--   copy         ffi.copy of the document into a buffer allocated once: one
--                pass writing the output's bytes, no Lua string made
-- Default workload: modtop-10m (the 10 MB chat request).
local bench_dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
package.path = bench_dir .. "/?.lua;" .. root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path

local ffi = require("ffi")
local buffer = require("string.buffer")
local libs = require("libs")
local workloads = require("workloads")

local name = arg[1] or "modtop-10m"
local seconds = tonumber(arg[2]) or 1
local rounds = tonumber(arg[3]) or 1
local s = workloads.load(name, bench_dir .. "/data")
local n = #s
local views = libs.libs["qjson.decode"].load()
local decode = require("qjson").decode

local out = ffi.new("char[?]", n)
-- The edited body's pieces: where temperature's value is in the input.
local from = assert(s:find('"temperature":', 1, true), "no temperature member") + #'"temperature":' - 1
local to = assert(s:find("[,}]", from + 1)) - 1
local input = ffi.cast("const char *", s)
local buf = buffer.new()
local patcher = require("qjson").patcher({ { op = "replace", path = "/temperature" } })

local rows = {
  { "roundtrip", views.roundtrip },
  { "modtop", views.modify_top },
  { "parse+copy", libs.libs["parse+copy"].load().modify_top },
  { "parse+2copy", function()
      decode(s)
      buf:putcdata(input, from):put("0.5"):putcdata(input + to, n - to)
      local o = buf:get()
      return #o, o
    end },
  { "patch", function()
      local o = patcher:apply(s, 0.5)
      return #o, o
    end },
  { "copy", function()
      ffi.copy(out, s, n)
      return n
    end },
}

-- The rows that write the edited body write the same bytes.
do
  local _, want = views.modify_top(s)
  for _, i in ipairs({ 3, 4, 5 }) do
    local _, got = rows[i][2](s)
    assert(got == want, rows[i][1] .. " does not write modtop's output")
  end
end

-- Results are stored, so the compiler cannot drop the work.
local sink = {}
local function time(f)
  for _ = 1, 20 do
    sink[1], sink[2] = f(s)
  end
  local calls, t0 = 0, os.clock()
  repeat
    sink[1], sink[2] = f(s)
    calls = calls + 1
  until os.clock() - t0 >= seconds
  assert(sink[1] ~= nil)
  return (os.clock() - t0) / calls * 1e3
end

print(string.format("%s, %d bytes, %s", name, n, jit.version))
local best = {}
for _ = 1, rounds do
  for i, row in ipairs(rows) do
    local ms = time(row[2])
    best[i] = math.min(best[i] or ms, ms)
  end
end
for i, row in ipairs(rows) do
  print(string.format("%-12s %8.3f ms  %6.3fx parse+copy's speed", row[1], best[i], best[3] / best[i]))
end
