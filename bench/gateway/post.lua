-- wrk script: POST the file $QJSON_BODY as JSON (without it, GET), with
-- the headers of $QJSON_HEADERS ("Name: value" lines), if any.
-- Prints one line "WRK <json>" at the end: requests, duration, latency
-- percentiles, errors. With $QJSON_EXPECT, checks every response body
-- against it; with $QJSON_EXPECT_TAIL and $QJSON_EXPECT_LEN, that it ends
-- with that text and has that length (both counted as "wrong").
-- luacheck: globals wrk response done setup seen wrong
local body_file = os.getenv("QJSON_BODY")
if body_file then
  local f = assert(io.open(body_file, "rb"))
  wrk.method = "POST"
  wrk.body = f:read("*a")
  f:close()
  wrk.headers["Content-Type"] = "application/json"
end

for name, value in (os.getenv("QJSON_HEADERS") or ""):gmatch("([^:\n]+):%s*([^\n]*)") do
  wrk.headers[name] = value
end

local expect = os.getenv("QJSON_EXPECT")
local tail, len = os.getenv("QJSON_EXPECT_TAIL"), tonumber(os.getenv("QJSON_EXPECT_LEN"))
-- Per thread (globals, so that done(), which runs in the main state, can
-- read them with thread:get).
seen, wrong = 0, 0

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
end

if expect then
  function response(status, _, body)
    seen = seen + 1
    if status ~= 200 or body ~= expect .. "\n" then
      wrong = wrong + 1
    end
  end
elseif tail then
  function response(status, _, body)
    seen = seen + 1
    if status ~= 200 or #body ~= len or body:sub(-#tail) ~= tail then
      wrong = wrong + 1
    end
  end
end

function done(summary, latency)
  local checked, bad = 0, 0
  for _, t in ipairs(threads) do
    checked, bad = checked + t:get("seen"), bad + t:get("wrong")
  end
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,'
    .. '"max_us":%d,"errors":%d,"non2xx":%d,"checked":%d,"wrong":%d}\n', summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect + e.read + e.write + e.timeout, e.status, checked, bad))
end
