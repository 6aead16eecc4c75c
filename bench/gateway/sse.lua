-- The streaming gateway job (make bench-gateway): nginx relays a streamed
-- chat completion (bench/workloads.lua's sse-chat: 1,000 server-sent
-- events) from an upstream location of its own, and a
-- body_filter_by_lua handler reads every event as the chunks pass, split
-- wherever the upstream's reads split them: each delta's content and the
-- finish reason, summed as bench/jobs.lua's sse job does. The stream goes
-- on unchanged, with one SSE comment line appended at its end that carries
-- the sum (clients ignore comments; a gateway would log token counts
-- there), so that wrk can check every response.
--
-- The same job runs outside nginx (M.run) for bench/gateway/run.lua's
-- check of what each handler must answer.
local cjson = require("cjson")
local qjson = require("qjson")
local jobs = require("jobs")

local format, sub = string.format, string.sub
local sse, sse_decoded = jobs.sse, jobs.sse_decoded

local M = {}

M.HANDLERS = { "qjson", "cjson", "floor" }

local function trailer(sum)
  return format(": sum %d\n\n", sum)
end

-- Per handler: a state for one response, and the step for one chunk
-- (`eof` on the last).
local new, step = {}, {}

-- qjson: a stream feeder with a selector (one native call per chunk finds
-- the complete events and reads both fields of each).
local SELECT = qjson.select({ "choices[0].delta.content", "choices[0].finish_reason" })
local feeder = qjson.stream.feeder
function new.qjson()
  return { sum = 0, feeder = feeder("sse", SELECT) }
end
function step.qjson(st, chunk, eof)
  local sum = st.sum
  for _, content, finish in st.feeder:feed(chunk, eof) do
    sum = sse(sum, nil, content, finish)
  end
  st.sum = sum
end

-- lua-cjson: the unfinished tail kept and prepended to the next chunk,
-- complete events found by gmatch, each decoded (bench/jobs.lua, as
-- bench/libs/tables.lua's sse_feed does).
local decode = cjson.decode
function new.cjson()
  return { sum = 0, tail = "" }
end
function step.cjson(st, chunk)
  local buf = st.tail .. chunk
  local sum, last = sse_decoded(st.sum, nil, buf, decode)
  st.sum, st.tail = sum, sub(buf, last)
end

-- The floor: the stream relayed, no JSON work; the sum counts bytes.
function new.floor()
  return { sum = 0 }
end
function step.floor(st, chunk)
  st.sum = st.sum + #chunk
end

-- The job outside nginx: the stream `s` cut into `size`-byte chunks; what
-- the handler `h` appends to it.
function M.run(h, s, size)
  local st = new[h]()
  for i = 1, #s, size do
    step[h](st, sub(s, i, i + size - 1), i + size > #s)
  end
  return trailer(st.sum)
end

-- nginx entry points: the header filter (the length changes) and the body
-- filter.
function M.header_filter()
  ngx.header.content_length = nil -- luacheck: globals ngx
end

function M.body_filter(h)
  local ngx = ngx -- luacheck: globals ngx
  local ctx = ngx.ctx
  local st = ctx.sse
  if not st then
    st = new[h]()
    ctx.sse = st
  end
  local chunk, eof = ngx.arg[1], ngx.arg[2]
  step[h](st, chunk, eof)
  if eof then
    ngx.arg[1] = chunk .. trailer(st.sum)
  end
end

return M
