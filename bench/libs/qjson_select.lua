-- qjson.select, batched reads: a selector per job, compiled once; one
-- native call per document (the stream jobs: per value, after one call
-- that splits the buffer), qjson.stream for streams.
local jobs = require("jobs")
local qjson_lib = require("libs.qjson")

local function load()
  local qjson = require("qjson")
  local select, each = qjson.select, qjson.stream.each
  local r = {}
  local TINY = select({ "id", "user", "scope[*]", "active", "quota.limit", "quota.used", "quota.ratio", "region",
    "note", "expires" })
  function r.tiny(s, out)
    local id, user, scope, active, limit, used, ratio, region, note, expires = TINY(s)
    local scope_len = 0
    for i = 1, #scope do
      scope_len = scope_len + #scope[i]
    end
    return jobs.tiny(out, id, user, scope, scope_len, active, limit, used, ratio, region, note, expires), s
  end
  local SSE = select({ "choices[0].delta.content", "choices[0].finish_reason" })
  local sse = jobs.sse
  function r.sse(s, out)
    local sum = 0
    for _, content, finish in each(s, "sse", SSE) do
      sum = sse(sum, out, content, finish)
    end
    return sum, s
  end
  local feeder = qjson.stream.feeder
  function r.sse_feed(s, out)
    local sum = 0
    local chunks = jobs.chunks_of(s)
    local f = feeder("sse", SSE)
    for k = 1, #chunks do
      for _, content, finish in f:feed(chunks[k], k == #chunks) do
        sum = sse(sum, out, content, finish)
      end
    end
    return sum, s
  end
  local LOG = select({ "ts", "level", "http.status" })
  function r.ndjson(s, out)
    local sum = 0
    for _, ts, level, status in each(s, "ndjson", LOG) do
      sum = jobs.ndjson(sum, out, ts, level, status)
    end
    return sum, s
  end
  return r
end

return {
  note = "qjson.select (batched reads: one native call per document), qjson.stream for streams",
  kinds = jobs.kinds("tiny", "sse", "ndjson", "sse_feed"),
  load = load,
  version = qjson_lib.version,
}
