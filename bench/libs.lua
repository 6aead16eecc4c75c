-- The jobs each library is timed on, written the way a user of that
-- library would write them. Jobs (a workload's `kind`, bench/workloads.lua):
--
--   chat      `model` (string), `temperature` (number), then for every
--             message its `content` array and, for each part, its `type`
--             and, for a text part, its `text`. The image URL is not read:
--             a gateway doesn't.
--   issues    for every issue `number`, `title`, `state` and `user.login`.
--   mix       the chat job on each document of an interleaved cycle.
--   twitter   for every status `id`, `text`, `user.screen_name`,
--             `user.followers_count`, `retweet_count`.
--   citm      for every performance `id`, `eventId`, `start`, `venueCode`,
--             the number of `seatCategories` and `prices`, and the `name`
--             of its event (looked up in `events` by id).
--   canada    `type`; per feature `properties.name`, `geometry.type`, and
--             per ring of the polygon its point count and first point.
--   tiny      every field of the ~200-byte object (below).
--   sse       every event of a streamed chat completion (server-sent
--             events, one buffer): `choices[0].delta.content` (missing in
--             some events) and `choices[0].finish_reason` (null but last).
--   ndjson    every line of an NDJSON log: `ts`, `level`, `http.status`.
--   sse_feed  the sse job on the stream cut into 4 KB chunks, each chunk
--             handled as a body_filter does: complete events read, the
--             unfinished tail kept for the next chunk.
--   roundtrip, modify_top, add_field, modify_nested
--             decode a chat request, change nothing / set `temperature` /
--             add `new_field` / set `messages[1].role`, encode.
--   encode    encode the table cjson.decode built (below).
--
-- A reader is `read(input, out)`: it parses `input`, does the job and
-- returns a checksum (total length of the strings read plus the sum of the
-- numbers read; for an encoding job the output's length) and what it
-- parsed or wrote (so that the caller can keep it alive). When `out` is a
-- table, every value read is also appended to it, in order, so that the
-- libraries can be checked to read the same values with the very code
-- that is timed (the `if out` test costs nothing measurable).
local ffi = require("ffi")

local format = string.format

local M = {}

-- name -> { load(), version(), available(), kinds, ... }.
M.libs = {}

-- The libraries run.lua compares, in table order, and the floor.
M.default = { "qjson", "qjson.select", "qjson.decode", "qjson.cjson", "lua-cjson", "lua-cjson-2.1.0", "dkjson",
  "resty.simdjson", "memchr" }
-- Other ways to write the qjson reader with the document API, timed too
-- (not in --quick) to show what the API style costs.
M.variants = { "qjson-cursor", "qjson-ipairs" }
M.FLOOR = "memchr"
M.BASELINE = "lua-cjson"

local READ_KINDS = { chat = true, issues = true, mix = true, twitter = true, citm = true, canada = true, tiny = true }
local EDIT_KINDS = { roundtrip = true, modify_top = true, add_field = true, modify_nested = true }
-- Streams of small values (not every library's readers have them).
local STREAM_KINDS = { sse = true, ndjson = true }
M.READ_KINDS, M.EDIT_KINDS, M.STREAM_KINDS = READ_KINDS, EDIT_KINDS, STREAM_KINDS

local function kinds(...)
  local t = {}
  for _, set in ipairs({ ... }) do
    if type(set) == "table" then
      for k in pairs(set) do
        t[k] = true
      end
    else
      t[set] = true
    end
  end
  return t
end

local function push(out, ...)
  for i = 1, select("#", ...) do
    out[#out + 1] = (select(i, ...))
  end
end

-- Checksums, the same arithmetic in the same order in every reader
-- (floating-point sums must match exactly).
local function twitter_sum(sum, id, text, name, followers, retweets)
  return sum + id % 65536 + #text + #name + followers + retweets
end
local function citm_sum(sum, id, event_id, start, venue, seats, prices, name)
  return sum + id + event_id + start % 1e6 + #venue + seats + prices + #name
end
local function sse_sum(sum, content, finish)
  return sum + 1 + (content and #content or 0) + (type(finish) == "string" and #finish or 0)
end
local function ndjson_sum(sum, ts, level, status)
  return sum + #ts + #level + status
end
-- A stream's 4 KB chunks (cut once per stream, outside the timed job).
local chunk_cache = {}
local function chunks_of(s)
  local c = chunk_cache[s]
  if not c then
    c = {}
    for i = 1, #s, 4096 do
      c[#c + 1] = s:sub(i, i + 4095)
    end
    chunk_cache = { [s] = c }
  end
  return c
end
local function tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires)
  return id + #user + scope_len + (active and 1 or 0) + limit + used + ratio + #region + #note + expires
end

----------------------------------------------------------------------
-- qjson's document API (qjson.parse): paths compiled once, at load time,
-- as a gateway module would.
----------------------------------------------------------------------

-- A table that compiles (or builds) on first use and keeps the result.
local function memo(make)
  return setmetatable({}, {
    __index = function(t, k)
      local v = make(k)
      t[k] = v
      return v
    end,
  })
end

local function qjson_readers(variant)
  local qjson = require("qjson")
  local path = qjson.path
  local MODEL, TEMPERATURE, MESSAGES, CONTENT = path("model"), path("temperature"), path("messages"), path("content")
  local TYPE, TEXT = path("type"), path("text")
  local NUMBER, TITLE, STATE, LOGIN = path("number"), path("title"), path("state"), path("user.login")
  local parse = qjson.parse
  local r = {}

  if variant == "ipairs" then
    -- Cursors from doc:ipairs.
    function r.chat(s, out)
      local d = parse(s)
      local model, temperature = d:get_str(MODEL), d:get_num(TEMPERATURE)
      local sum = #model + temperature
      if out then
        push(out, model, temperature)
      end
      for _, msg in d:ipairs(MESSAGES) do
        for _, part in msg:ipairs(CONTENT) do
          local t = part:get_str(TYPE)
          sum = sum + #t
          if out then
            push(out, t)
          end
          if t == "text" then
            local text = part:get_str(TEXT)
            sum = sum + #text
            if out then
              push(out, text)
            end
          end
        end
      end
      return sum, d
    end
    function r.issues(s, out)
      local d = parse(s)
      local sum = 0
      for _, issue in d:ipairs() do
        local number, title, state, login =
          issue:get_num(NUMBER), issue:get_str(TITLE), issue:get_str(STATE), issue:get_str(LOGIN)
        sum = sum + number + #title + #state + #login
        if out then
          push(out, number, title, state, login)
        end
      end
      return sum, d
    end
  elseif variant == "paths" then
    -- Indexed paths from the root ("messages[i].content[j].type"),
    -- compiled once per index and kept.
    local MSG = memo(function(i)
      local base = "messages[" .. i .. "].content"
      return {
        content = path(base),
        type = memo(function(j)
          return path(base .. "[" .. j .. "].type")
        end),
        text = memo(function(j)
          return path(base .. "[" .. j .. "].text")
        end),
      }
    end)
    local ISSUE = memo(function(i)
      local base = "[" .. i .. "]."
      return { path(base .. "number"), path(base .. "title"), path(base .. "state"), path(base .. "user.login") }
    end)
    function r.chat(s, out)
      local d = parse(s)
      local model, temperature = d:get_str(MODEL), d:get_num(TEMPERATURE)
      local sum = #model + temperature
      if out then
        push(out, model, temperature)
      end
      for i = 0, d:len(MESSAGES) - 1 do
        local m = MSG[i]
        for j = 0, d:len(m.content) - 1 do
          local t = d:get_str(m.type[j])
          sum = sum + #t
          if out then
            push(out, t)
          end
          if t == "text" then
            local text = d:get_str(m.text[j])
            sum = sum + #text
            if out then
              push(out, text)
            end
          end
        end
      end
      return sum, d
    end
    function r.issues(s, out)
      local d = parse(s)
      local sum = 0
      for i = 0, d:len() - 1 do
        local p = ISSUE[i]
        local number, title, state, login = d:get_num(p[1]), d:get_str(p[2]), d:get_str(p[3]), d:get_str(p[4])
        sum = sum + number + #title + #state + #login
        if out then
          push(out, number, title, state, login)
        end
      end
      return sum, d
    end
  else
    assert(variant == "cursor", variant)
    -- Cursors from doc:len and doc:open with index paths ("[i]", compiled
    -- once per index and kept: the set is as small as the largest array).
    local INDEX = memo(function(i)
      return path("[" .. i .. "]")
    end)
    function r.chat(s, out)
      local d = parse(s)
      local model, temperature = d:get_str(MODEL), d:get_num(TEMPERATURE)
      local sum = #model + temperature
      if out then
        push(out, model, temperature)
      end
      local messages = d:open(MESSAGES)
      for i = 0, messages:len() - 1 do
        local content = messages:open(INDEX[i]):open(CONTENT)
        for j = 0, content:len() - 1 do
          local part = content:open(INDEX[j])
          local t = part:get_str(TYPE)
          sum = sum + #t
          if out then
            push(out, t)
          end
          if t == "text" then
            local text = part:get_str(TEXT)
            sum = sum + #text
            if out then
              push(out, text)
            end
          end
        end
      end
      return sum, d
    end
    function r.issues(s, out)
      local d = parse(s)
      local sum = 0
      for i = 0, d:len() - 1 do
        local issue = d:open(INDEX[i])
        local number, title, state, login =
          issue:get_num(NUMBER), issue:get_str(TITLE), issue:get_str(STATE), issue:get_str(LOGIN)
        sum = sum + number + #title + #state + #login
        if out then
          push(out, number, title, state, login)
        end
      end
      return sum, d
    end
  end
  return r
end

-- The real documents and the tiny object with the document API
-- (cursors from doc:ipairs, compiled relative paths).
local function qjson_document_readers()
  local qjson = require("qjson")
  local path, parse = qjson.path, qjson.parse
  local r = {}

  local STATUSES, ID, TEXT, SCREEN_NAME, FOLLOWERS, RETWEETS = path("statuses"), path("id"), path("text"),
    path("user.screen_name"), path("user.followers_count"), path("retweet_count")
  function r.twitter(s, out)
    local d = parse(s)
    local sum = 0
    for _, st in d:ipairs(STATUSES) do
      local id, text, name = st:get_num(ID), st:get_str(TEXT), st:get_str(SCREEN_NAME)
      local followers, retweets = st:get_num(FOLLOWERS), st:get_num(RETWEETS)
      sum = twitter_sum(sum, id, text, name, followers, retweets)
      if out then
        push(out, id, text, name, followers, retweets)
      end
    end
    return sum, d
  end

  local EVENTS, PERFORMANCES, EVENT_ID, START, VENUE, SEATS, PRICES = path("events"), path("performances"),
    path("eventId"), path("start"), path("venueCode"), path("seatCategories"), path("prices")
  local EVENT_NAME = memo(function(event_id)
    return path(format("%d.name", event_id))
  end)
  function r.citm(s, out)
    local d = parse(s)
    local events = d:open(EVENTS)
    local sum = 0
    for _, p in d:ipairs(PERFORMANCES) do
      local id, event_id, start, venue = p:get_num(ID), p:get_num(EVENT_ID), p:get_num(START), p:get_str(VENUE)
      local seats, prices = p:len(SEATS), p:len(PRICES)
      local name = events:get_str(EVENT_NAME[event_id])
      sum = citm_sum(sum, id, event_id, start, venue, seats, prices, name)
      if out then
        push(out, id, event_id, start, venue, seats, prices, name)
      end
    end
    return sum, d
  end

  local TYPE, FEATURES, NAME, GEOMETRY_TYPE, COORDINATES = path("type"), path("features"), path("properties.name"),
    path("geometry.type"), path("geometry.coordinates")
  local LON, LAT = path("[0][0]"), path("[0][1]")
  function r.canada(s, out)
    local d = parse(s)
    local ty = d:get_str(TYPE)
    local sum = #ty
    if out then
      push(out, ty)
    end
    for _, f in d:ipairs(FEATURES) do
      local name, gtype = f:get_str(NAME), f:get_str(GEOMETRY_TYPE)
      sum = sum + #name + #gtype
      if out then
        push(out, name, gtype)
      end
      for _, ring in f:ipairs(COORDINATES) do
        local n, lon, lat = ring:len(), ring:get_num(LON), ring:get_num(LAT)
        sum = sum + n + lon + lat
        if out then
          push(out, n, lon, lat)
        end
      end
    end
    return sum, d
  end

  local TID, USER, SCOPE, ACTIVE = path("id"), path("user"), path("scope"), path("active")
  local LIMIT, USED, RATIO = path("quota.limit"), path("quota.used"), path("quota.ratio")
  local REGION, NOTE, EXPIRES = path("region"), path("note"), path("expires")
  local SCOPE_I = memo(function(i)
    return path("scope[" .. i .. "]")
  end)
  function r.tiny(s, out)
    local d = parse(s)
    local id, user = d:get_num(TID), d:get_str(USER)
    local scope_len = 0
    local scope = out and {}
    for i = 0, d:len(SCOPE) - 1 do
      local v = d:get_str(SCOPE_I[i])
      scope_len = scope_len + #v
      if out then
        scope[i + 1] = v
      end
    end
    local active = d:get_bool(ACTIVE)
    local limit, used, ratio = d:get_num(LIMIT), d:get_num(USED), d:get_num(RATIO)
    local region, note, expires = d:get_str(REGION), d:get_str(NOTE), d:get_num(EXPIRES)
    if out then
      push(out, id, user, unpack(scope))
      push(out, active, limit, used, ratio, region, note, expires)
    end
    return tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires), d
  end

  -- Streams: qjson.stream finds every value in one call; each is parsed
  -- into a document and read by compiled paths.
  local each = qjson.stream.each
  local CONTENT, FINISH = path("choices[0].delta.content"), path("choices[0].finish_reason")
  function r.sse(s, out)
    local sum = 0
    for _, d in each(s, "sse") do
      local content, finish = d:get_str(CONTENT), d:get(FINISH)
      sum = sse_sum(sum, content, finish)
      if out then
        push(out, content or false, finish)
      end
    end
    return sum, s
  end
  local TS, LEVEL, STATUS = path("ts"), path("level"), path("http.status")
  function r.ndjson(s, out)
    local sum = 0
    for _, d in each(s, "ndjson") do
      local ts, level, status = d:get_str(TS), d:get_str(LEVEL), d:get_num(STATUS)
      sum = ndjson_sum(sum, ts, level, status)
      if out then
        push(out, ts, level, status)
      end
    end
    return sum, s
  end
  return r
end

-- Batched reads: a qjson.select selector per job, compiled once; one
-- native call per document (the stream jobs: per value, after one call
-- that splits the buffer).
local function qjson_select_readers()
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
    if out then
      push(out, id, user, unpack(scope))
      push(out, active, limit, used, ratio, region, note, expires)
    end
    return tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires), s
  end
  local SSE = select({ "choices[0].delta.content", "choices[0].finish_reason" })
  function r.sse(s, out)
    local sum = 0
    for _, content, finish in each(s, "sse", SSE) do
      sum = sse_sum(sum, content, finish)
      if out then
        push(out, content or false, finish)
      end
    end
    return sum, s
  end
  local feeder = qjson.stream.feeder
  function r.sse_feed(s, out)
    local sum = 0
    local chunks = chunks_of(s)
    local f = feeder("sse", SSE)
    for k = 1, #chunks do
      for _, content, finish in f:feed(chunks[k], k == #chunks) do
        sum = sse_sum(sum, content, finish)
        if out then
          push(out, content or false, finish)
        end
      end
    end
    return sum, s
  end
  local LOG = select({ "ts", "level", "http.status" })
  function r.ndjson(s, out)
    local sum = 0
    for _, ts, level, status in each(s, "ndjson", LOG) do
      sum = ndjson_sum(sum, ts, level, status)
      if out then
        push(out, ts, level, status)
      end
    end
    return sum, s
  end
  return r
end

----------------------------------------------------------------------
-- Readers over values indexed like Lua tables: the plain tables lua-cjson,
-- dkjson, resty.simdjson and qjson.cjson decode, and qjson.decode's lazy
-- views. `len` is `#` for plain tables, qjson.len for views (whose `#`
-- needs a LuaJIT built with LUAJIT_ENABLE_LUA52COMPAT).
----------------------------------------------------------------------

local function plain_len(t)
  return #t
end

local function table_readers(decode, len)
  len = len or plain_len
  local r = {}
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
      local issue = t[i]
      local number, title, state, login = issue.number, issue.title, issue.state, issue.user.login
      sum = sum + number + #title + #state + #login
      if out then
        push(out, number, title, state, login)
      end
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
      local id, text, name, followers, retweets = st.id, st.text, user.screen_name, user.followers_count,
        st.retweet_count
      sum = twitter_sum(sum, id, text, name, followers, retweets)
      if out then
        push(out, id, text, name, followers, retweets)
      end
    end
    return sum, t
  end
  -- Event ids to keys, built once and kept (as qjson keeps its paths).
  local KEY = memo(function(event_id)
    return format("%d", event_id)
  end)
  function r.citm(s, out)
    local t = decode(s)
    local events, performances = t.events, t.performances
    local sum = 0
    for i = 1, len(performances) do
      local p = performances[i]
      local id, event_id, start, venue = p.id, p.eventId, p.start, p.venueCode
      local seats, prices = len(p.seatCategories), len(p.prices)
      local name = events[KEY[event_id]].name
      sum = citm_sum(sum, id, event_id, start, venue, seats, prices, name)
      if out then
        push(out, id, event_id, start, venue, seats, prices, name)
      end
    end
    return sum, t
  end
  function r.canada(s, out)
    local t = decode(s)
    local ty = t.type
    local sum = #ty
    if out then
      push(out, ty)
    end
    local features = t.features
    for i = 1, len(features) do
      local f = features[i]
      local geometry = f.geometry
      local name, gtype = f.properties.name, geometry.type
      sum = sum + #name + #gtype
      if out then
        push(out, name, gtype)
      end
      local rings = geometry.coordinates
      for j = 1, len(rings) do
        local ring = rings[j]
        local first = ring[1]
        local n, lon, lat = len(ring), first[1], first[2]
        sum = sum + n + lon + lat
        if out then
          push(out, n, lon, lat)
        end
      end
    end
    return sum, t
  end
  function r.tiny(s, out)
    local t = decode(s)
    local id, user = t.id, t.user
    local scope = t.scope
    local scope_len = 0
    local n = len(scope)
    for i = 1, n do
      scope_len = scope_len + #scope[i]
    end
    local active = t.active
    local quota = t.quota
    local limit, used, ratio = quota.limit, quota.used, quota.ratio
    local region, note, expires = t.region, t.note, t.expires
    if out then
      push(out, id, user)
      for i = 1, n do
        push(out, scope[i])
      end
      push(out, active, limit, used, ratio, region, note, expires)
    end
    return tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires), t
  end
  -- Streams split the way an OpenResty handler does: gmatch over the
  -- buffer, each value decoded.
  local gmatch = string.gmatch
  function r.sse(s, out)
    local sum = 0
    for data in gmatch(s, "data: ?([^\r\n]*)") do
      if data ~= "[DONE]" then
        local choice = decode(data).choices[1]
        local content, finish = choice.delta.content, choice.finish_reason
        sum = sse_sum(sum, content, finish)
        if out then
          push(out, content or false, finish)
        end
      end
    end
    return sum, s
  end
  -- As a body_filter: the previous tail and the chunk, complete events
  -- decoded, the rest kept.
  function r.sse_feed(s, out)
    local sum = 0
    local chunks = chunks_of(s)
    local tail = ""
    for k = 1, #chunks do
      local buf = tail .. chunks[k]
      local last = 1
      for data, after in gmatch(buf, "data: ?([^\r\n]*)\r?\n\r?\n()") do
        if data ~= "[DONE]" then
          local choice = decode(data).choices[1]
          local content, finish = choice.delta.content, choice.finish_reason
          sum = sse_sum(sum, content, finish)
          if out then
            push(out, content or false, finish)
          end
        end
        last = after
      end
      tail = buf:sub(last)
    end
    return sum, s
  end
  function r.ndjson(s, out)
    local sum = 0
    for line in gmatch(s, "[^\n]+") do
      local t = decode(line)
      local ts, level, status = t.ts, t.level, t.http.status
      sum = ndjson_sum(sum, ts, level, status)
      if out then
        push(out, ts, level, status)
      end
    end
    return sum, s
  end
  return r
end

-- The interleaved mix: the chat job on each document of the cycle.
local function mix_reader(chat)
  return function(list, out)
    local sum, last = 0, nil
    for i = 1, #list do
      local s
      s, last = chat(list[i], out)
      sum = sum + s
    end
    return sum, last
  end
end

----------------------------------------------------------------------
-- Decode, edit, encode. The edits, applied the same way to a view or a
-- plain table (--verify applies them to cjson.decode's table too).
----------------------------------------------------------------------
M.EDITS = {
  roundtrip = function() end,
  modify_top = function(v)
    v.temperature = 0.5
  end,
  add_field = function(v)
    v.new_field = "x"
  end,
  modify_nested = function(v)
    v.messages[1].role = "system"
  end,
}

local function edit_jobs(r, decode, encode)
  for kind, edit in pairs(M.EDITS) do
    r[kind] = function(s)
      local v = decode(s)
      edit(v)
      local o = encode(v)
      return #o, o
    end
  end
  return r
end

-- Encoding: the reader for kind "encode" is `encode(t)`, where `t` is the
-- table cjson.decode built from the workload, once per process, outside
-- the timed work (bench/one.lua); every library encodes that same table.
-- It returns a checksum (the output's length, whatever the key order)
-- and the output. `encode_check` says how --verify checks the output:
-- "bytes", equal to cjson.encode's byte for byte; "roundtrip", decoded
-- by cjson.decode to a structure deep-equal to the table.
local function encoder(encode)
  return function(t)
    local o = encode(t)
    return #o, o
  end
end

----------------------------------------------------------------------
-- The libraries.
----------------------------------------------------------------------

-- Does library `name` time this workload (a kind, a size in bytes, and
-- for a mix the size of its largest document)? Ask M.available first.
function M.runs(name, w)
  local lib = M.libs[name]
  if not lib.kinds[w.kind] then
    return false
  end
  return w.kind == "encode" or not lib.max_size or (w.largest or w.size) <= lib.max_size
end

-- Can library `name` be loaded here? true, or false and why not.
function M.available(name)
  local lib = M.libs[name]
  if not lib.available then
    return true
  end
  return lib.available()
end

local function qjson_version()
  local qjson = require("qjson")
  return qjson._VERSION .. " (" .. qjson.backend() .. ")"
end

local function qjson_lib(variant, note)
  local main = variant == "paths"
  return {
    note = note,
    -- The API variants only for the chat ladder and the issues list.
    kinds = main and kinds(READ_KINDS, STREAM_KINDS, "encode") or kinds("chat", "issues"),
    encode_check = "bytes",
    load = function()
      local r = qjson_readers(variant)
      if main then
        for k, f in pairs(qjson_document_readers()) do
          r[k] = f
        end
        r.mix = mix_reader(r.chat)
        r.encode = encoder(require("qjson").encode)
      end
      return r
    end,
    version = qjson_version,
  }
end

M.libs["qjson"] = qjson_lib("paths", "qjson.parse + document reads on compiled paths")
M.libs["qjson-cursor"] = qjson_lib("cursor", "qjson.parse + doc:len/doc:open cursors, compiled paths")
M.libs["qjson-ipairs"] = qjson_lib("ipairs", "qjson.parse + doc:ipairs cursors, compiled paths")

M.libs["qjson.select"] = {
  note = "qjson.select (batched reads: one native call per document), qjson.stream for streams",
  kinds = kinds("tiny", "sse", "ndjson", "sse_feed"),
  load = qjson_select_readers,
  version = qjson_version,
}

M.libs["qjson.decode"] = {
  note = "qjson.decode (lazy views) + table-style reads, qjson.len; qjson.encode of the view",
  kinds = kinds(READ_KINDS, EDIT_KINDS, STREAM_KINDS),
  -- Unmodified, the view must encode to the input byte for byte.
  passthrough = true,
  available = function()
    local qjson = require("qjson")
    if qjson.decode == nil or qjson.len == nil then
      return false, "qjson.decode (lazy views) is not built yet"
    end
    return true
  end,
  load = function()
    local qjson = require("qjson")
    -- Views on every build: these readers use qjson.len, which a LuaJIT
    -- without LUA52COMPAT (where views are opt-in) needs.
    if qjson.decode_views then
      qjson.decode_views(true)
    end
    local r = table_readers(qjson.decode, qjson.len)
    r.mix = mix_reader(r.chat)
    return edit_jobs(r, qjson.decode, qjson.encode)
  end,
  -- Plain tables equal to cjson.decode's, for --verify.
  materialize = function(v)
    return require("qjson").materialize(v)
  end,
  version = qjson_version,
}

M.libs["qjson.cjson"] = {
  note = "require('qjson.cjson').decode (plain tables) + table reads",
  kinds = kinds("twitter", "citm", "canada", "tiny", STREAM_KINDS),
  available = function()
    local ok, err = pcall(require, "qjson.cjson")
    if not ok then
      return false, "qjson.cjson is not built yet (" .. tostring(err):match("^[^\n]*"):gsub(":$", "") .. ")"
    end
    return true
  end,
  load = function()
    return table_readers(require("qjson.cjson").decode)
  end,
  materialize = function(t)
    return t
  end,
  version = qjson_version,
}

-- The lua-cjson every ratio is taken against: the one OpenResty, Kong and
-- APISIX ship. In order: OpenResty's lua-cjson 2.1.0.17 built from
-- ../shared/vendor/lua-cjson by tools/lua-cjson.sh (its own Makefile's
-- flags, into .deps/); else an installed OpenResty's; else Debian's 2.1.0.
-- Returns { module, which (what was measured), debian (true when it is
-- Debian's) }, made once.
local ROOT = (debug.getinfo(1, "S").source:match("^@(.*)/bench/[^/]*$")) or "."
local DEBIAN_CJSON = "/usr/lib/x86_64-linux-gnu/lua/5.1/cjson.so"
local baseline
function M.cjson_baseline()
  if baseline then
    return baseline
  end
  local p = io.popen(ROOT .. "/tools/lua-cjson.sh 2>/dev/null")
  local dir = p:read("*a"):match("([^\n]*)\n?$")
  p:close()
  local candidates = {
    { path = dir .. "/cjson.so", which = "OpenResty's lua-cjson 2.1.0.17, built from ../shared/vendor/lua-cjson" },
    { path = "/usr/local/openresty/lualib/cjson.so",
      which = "OpenResty's lua-cjson, installed (/usr/local/openresty/lualib/cjson.so)" },
  }
  for _, c in ipairs(candidates) do
    local f = io.open(c.path, "rb")
    if f then
      f:close()
      local open = package.loadlib(c.path, "luaopen_cjson")
      if open then
        baseline = { module = open(), which = c.which, path = c.path, debian = false }
        return baseline
      end
    end
  end
  baseline = { module = require("cjson"), which = "Debian's lua-cjson 2.1.0 (no OpenResty lua-cjson found)",
    path = package.searchpath("cjson", package.cpath), debian = true }
  return baseline
end

local function cjson_lib(get, note)
  return {
    note = note,
    kinds = kinds(READ_KINDS, EDIT_KINDS, STREAM_KINDS, "sse_feed", "encode"),
    encode_check = "bytes", -- the reference
    load = function()
      local cjson = get()
      local r = table_readers(cjson.decode)
      r.mix = mix_reader(r.chat)
      r.encode = encoder(cjson.encode)
      return edit_jobs(r, cjson.decode, cjson.encode)
    end,
    version = function()
      return get()._VERSION
    end,
  }
end

M.libs["lua-cjson"] = cjson_lib(function()
  return M.cjson_baseline().module
end, "cjson.decode + table reads; cjson.encode (the baseline: OpenResty's lua-cjson)")

-- Debian's lua-cjson 2.1.0 (2012), a row of its own beside the baseline.
M.libs["lua-cjson-2.1.0"] = cjson_lib(function()
  return require("cjson")
end, "Debian's lua-cjson 2.1.0: cjson.decode + table reads; cjson.encode")
M.libs["lua-cjson-2.1.0"].encode_check = "roundtrip"
M.libs["lua-cjson-2.1.0"].available = function()
  if M.cjson_baseline().debian then
    return false, "it is the baseline (no OpenResty lua-cjson found)"
  end
  local ok, cjson = pcall(require, "cjson")
  if not ok or package.searchpath("cjson", package.cpath) ~= DEBIAN_CJSON then
    return false, "Debian's lua-cjson (" .. DEBIAN_CJSON .. ") is not what require(\"cjson\") loads"
  end
  return cjson._VERSION ~= nil
end

M.libs["dkjson"] = {
  note = "dkjson.decode (pure Lua, no LPeg) + table reads; dkjson.encode",
  kinds = kinds(READ_KINDS, EDIT_KINDS, "encode"),
  max_size = 1024 * 1024 + 1024, -- parsing too slow beyond 1 MB
  -- Members in pairs order too, numbers via tostring (%.14g, as cjson),
  -- but its own escapes ("/" as is, some non-ASCII as \u) and [] for {}.
  encode_check = "roundtrip",
  load = function()
    local dkjson = require("dkjson")
    local r = table_readers(dkjson.decode)
    r.mix = mix_reader(r.chat)
    -- cjson.decode's nulls are cjson.null, a lightuserdata dkjson does
    -- not know: its `exception` hook writes them as null (called only
    -- for them; one state table for every call, as dkjson allows).
    local null = require("cjson").null
    local state = {
      exception = function(reason, value, _, message)
        if value == null then
          return "null"
        end
        return nil, message or reason
      end,
    }
    local function encode(t)
      return dkjson.encode(t, state)
    end
    r.encode = encoder(encode)
    return edit_jobs(r, dkjson.decode, encode)
  end,
  version = function()
    return (require("dkjson").version:gsub("^dkjson ", ""))
  end,
}

-- Kong's lua-resty-simdjson (simdjson's tape, then an eager Lua table),
-- when it is installed (it is not packaged in Debian). Outside nginx it
-- gets what OpenResty would give it: `ngx.null` (lua-cjson's null, which
-- is OpenResty's ngx.null too), resty.core.base's error-message box, and
-- the `array_mt`, `empty_array_mt` and `empty_array` of OpenResty's
-- lua-cjson, which Debian's lua-cjson 2.1.0 lacks and its encoder reads to
-- tell arrays from objects (qjson's: the values qjson takes from
-- OpenResty's lua-cjson).
local function simdjson_parser()
  if rawget(_G, "ngx") == nil then
    _G.ngx = { null = require("cjson").null, sleep = function() end }
  end
  if not pcall(require, "resty.core.base") then
    local errmsg = ffi.new("char *[1]")
    package.loaded["resty.core.base"] = { get_errmsg_ptr = function() return errmsg end }
  end
  local cjson, qjson = require("cjson"), require("qjson")
  for _, k in ipairs({ "array_mt", "empty_array_mt", "empty_array" }) do
    if cjson[k] == nil then
      cjson[k] = qjson[k]
    end
  end
  return require("resty.simdjson").new()
end

M.libs["resty.simdjson"] = {
  note = "lua-resty-simdjson parser:decode + table reads; parser:encode",
  -- Encoding jobs too when this version has parser:encode (below).
  kinds = kinds(READ_KINDS),
  encode_check = "roundtrip",
  available = function()
    local ok, parser = pcall(simdjson_parser)
    if not ok then
      return false, "require(\"resty.simdjson\") failed: "
        .. tostring(parser):match("^[^\n]*"):gsub("^[^:]*:%d+: ", ""):gsub(":$", "")
    end
    if parser.encode then
      M.libs["resty.simdjson"].kinds = kinds(READ_KINDS, EDIT_KINDS, "encode")
    end
    return true
  end,
  load = function()
    local parser = simdjson_parser()
    local function decode(s)
      return parser:decode(s)
    end
    local r = table_readers(decode)
    r.mix = mix_reader(r.chat)
    if parser.encode then
      local function encode(t)
        return parser:encode(t)
      end
      r.encode = encoder(encode)
      edit_jobs(r, decode, encode)
    end
    return r
  end,
  version = function()
    local ok, m = pcall(require, "resty.simdjson")
    if not ok then
      return "?"
    end
    -- (Not every version has _VERSION: then where it was loaded from.)
    return tostring(m._VERSION or package.searchpath("resty.simdjson", package.path) or "installed")
  end,
}

-- The floor: one pass of C memchr over every byte, looking for a byte the
-- document does not hold (0x01 is a control byte: never in valid JSON).
M.libs["memchr"] = {
  note = "memchr(s, 0x01, #s): one pass over every byte, nothing found",
  floor = true,
  kinds = kinds("chat", "issues", "mix"),
  load = function()
    ffi.cdef("void *memchr(const void *s, int c, size_t n);")
    local memchr = ffi.C.memchr
    local function read(s)
      if memchr(s, 1, #s) ~= nil then
        error("memchr floor: the document holds a 0x01 byte")
      end
      return 0, nil
    end
    return { chat = read, issues = read, mix = mix_reader(read) }
  end,
  version = function()
    return "libc"
  end,
}

return M
