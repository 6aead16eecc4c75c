-- Readers over values indexed like Lua tables: the plain tables lua-cjson,
-- dkjson, resty.simdjson and qjson.cjson decode, and qjson.decode's lazy
-- views. `len` is `#` for plain tables, qjson.len for views (whose `#`
-- needs a LuaJIT built with LUAJIT_ENABLE_LUA52COMPAT).
local jobs = require("jobs")

local format, gmatch = string.format, string.gmatch
local push, sse_decoded = jobs.push, jobs.sse_decoded
local issue, twitter, citm = jobs.issue, jobs.twitter, jobs.citm
local canada_feature, canada_ring, sse, ndjson, tiny = jobs.canada_feature, jobs.canada_ring, jobs.sse, jobs.ndjson,
  jobs.tiny

local function plain_len(t)
  return #t
end

-- Streams split the way an OpenResty handler does: gmatch over the buffer,
-- each value decoded.
local function stream_readers(r, decode)
  function r.sse(s, out)
    local sum = 0
    for data in gmatch(s, "data: ?([^\r\n]*)") do
      if data ~= "[DONE]" then
        local choice = decode(data).choices[1]
        sum = sse(sum, out, choice.delta.content, choice.finish_reason)
      end
    end
    return sum, s
  end
  -- As a body_filter: the previous tail and the chunk, complete events
  -- decoded, the rest kept.
  function r.sse_feed(s, out)
    local sum = 0
    local chunks = jobs.chunks_of(s)
    local tail = ""
    for k = 1, #chunks do
      local buf = tail .. chunks[k]
      local last
      sum, last = sse_decoded(sum, out, buf, decode)
      tail = buf:sub(last)
    end
    return sum, s
  end
  function r.ndjson(s, out)
    local sum = 0
    for line in gmatch(s, "[^\n]+") do
      local t = decode(line)
      sum = ndjson(sum, out, t.ts, t.level, t.http.status)
    end
    return sum, s
  end
  return r
end

return function(decode, len)
  len = len or plain_len
  local r = {}
  -- (Written out, not through jobs.chat_part: the baseline's row measured
  -- a little slower through the helper on small documents.)
  function r.chat(s, out)
    local t = decode(s)
    local model, temperature = t.model, t.temperature
    local sum = #model + temperature
    if out then
      push(out, model, temperature)
    end
    local messages = t.messages
    for i = 1, len(messages) do
      local content = messages[i].content
      for j = 1, len(content) do
        local part = content[j]
        local ty = part.type
        sum = sum + #ty
        if out then
          push(out, ty)
        end
        if ty == "text" then
          local text = part.text
          sum = sum + #text
          if out then
            push(out, text)
          end
        end
      end
    end
    return sum, t
  end
  function r.issues(s, out)
    local t = decode(s)
    local sum = 0
    for i = 1, len(t) do
      local it = t[i]
      sum = issue(sum, out, it.number, it.title, it.state, it.user.login)
    end
    return sum, t
  end
  function r.twitter(s, out)
    local t = decode(s)
    local statuses = t.statuses
    local sum = 0
    for i = 1, len(statuses) do
      local st = statuses[i]
      local user = st.user
      sum = twitter(sum, out, st.id, st.text, user.screen_name, user.followers_count, st.retweet_count)
    end
    return sum, t
  end
  -- Event ids to keys, built once and kept (as qjson keeps its paths).
  local KEY = jobs.memo(function(event_id)
    return format("%d", event_id)
  end)
  function r.citm(s, out)
    local t = decode(s)
    local events, performances = t.events, t.performances
    local sum = 0
    for i = 1, len(performances) do
      local p = performances[i]
      local event_id = p.eventId
      local seats, prices = len(p.seatCategories), len(p.prices)
      sum = citm(sum, out, p.id, event_id, p.start, p.venueCode, seats, prices, events[KEY[event_id]].name)
    end
    return sum, t
  end
  function r.canada(s, out)
    local t = decode(s)
    local ty = t.type
    local sum = #ty
    if out then
      jobs.push(out, ty)
    end
    local features = t.features
    for i = 1, len(features) do
      local f = features[i]
      local geometry = f.geometry
      sum = canada_feature(sum, out, f.properties.name, geometry.type)
      local rings = geometry.coordinates
      for j = 1, len(rings) do
        local ring = rings[j]
        local first = ring[1]
        sum = canada_ring(sum, out, len(ring), first[1], first[2])
      end
    end
    return sum, t
  end
  function r.tiny(s, out)
    local t = decode(s)
    local scope, scope_len = t.scope, 0
    local read = out and {}
    for i = 1, len(scope) do
      local v = scope[i]
      scope_len = scope_len + #v
      if out then
        read[i] = v
      end
    end
    local quota = t.quota
    return tiny(out, t.id, t.user, read, scope_len, t.active, quota.limit, quota.used, quota.ratio, t.region, t.note,
      t.expires), t
  end
  return stream_readers(r, decode)
end
