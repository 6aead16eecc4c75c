-- qjson's document API (qjson.parse): paths compiled once, at load time,
-- as a gateway module would. Three ways to walk the chat ladder and the
-- issues list (`variant`): indexed paths from the root ("paths", the main
-- row, which also has every other reading job), doc:len/doc:open cursors
-- ("cursor"), doc:ipairs cursors ("ipairs").
local jobs = require("jobs")

local format = string.format
local memo, chat_head, chat_part, issue = jobs.memo, jobs.chat_head, jobs.chat_part, jobs.issue

local A = {}

-- What the three variants share: the compiled paths and the steps of the
-- chat and issues jobs on a document or cursor.
local function common()
  local qjson = require("qjson")
  local path = qjson.path
  local c = { parse = qjson.parse, path = path, MESSAGES = path("messages"), CONTENT = path("content") }
  local MODEL, TEMPERATURE, TYPE, TEXT = path("model"), path("temperature"), path("type"), path("text")
  local NUMBER, TITLE, STATE, LOGIN = path("number"), path("title"), path("state"), path("user.login")
  function c.head(d, out)
    return chat_head(out, d:get_str(MODEL), d:get_num(TEMPERATURE))
  end
  -- A part reached by a cursor.
  function c.part_of(sum, out, part)
    local t = part:get_str(TYPE)
    return chat_part(sum, out, t, t == "text" and part:get_str(TEXT))
  end
  function c.issue_of(sum, out, it)
    return issue(sum, out, it:get_num(NUMBER), it:get_str(TITLE), it:get_str(STATE), it:get_str(LOGIN))
  end
  return c
end

local variants = {}

-- Cursors from doc:ipairs.
function variants.ipairs(c)
  local parse, head, part_of, issue_of, MESSAGES, CONTENT = c.parse, c.head, c.part_of, c.issue_of, c.MESSAGES,
    c.CONTENT
  local r = {}
  function r.chat(s, out)
    local d = parse(s)
    local sum = head(d, out)
    for _, msg in d:ipairs(MESSAGES) do
      for _, part in msg:ipairs(CONTENT) do
        sum = part_of(sum, out, part)
      end
    end
    return sum, d
  end
  function r.issues(s, out)
    local d = parse(s)
    local sum = 0
    for _, it in d:ipairs() do
      sum = issue_of(sum, out, it)
    end
    return sum, d
  end
  return r
end

-- Indexed paths from the root ("messages[i].content[j].type"), compiled
-- once per index and kept.
function variants.paths(c)
  local parse, path, head, MESSAGES = c.parse, c.path, c.head, c.MESSAGES
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
  local r = {}
  function r.chat(s, out)
    local d = parse(s)
    local sum = head(d, out)
    for i = 0, d:len(MESSAGES) - 1 do
      local m = MSG[i]
      for j = 0, d:len(m.content) - 1 do
        local t = d:get_str(m.type[j])
        sum = chat_part(sum, out, t, t == "text" and d:get_str(m.text[j]))
      end
    end
    return sum, d
  end
  function r.issues(s, out)
    local d = parse(s)
    local sum = 0
    for i = 0, d:len() - 1 do
      local p = ISSUE[i]
      sum = issue(sum, out, d:get_num(p[1]), d:get_str(p[2]), d:get_str(p[3]), d:get_str(p[4]))
    end
    return sum, d
  end
  return r
end

-- Cursors from doc:len and doc:open with index paths ("[i]", compiled once
-- per index and kept: the set is as small as the largest array).
function variants.cursor(c)
  local parse, path, head, part_of, issue_of, MESSAGES, CONTENT = c.parse, c.path, c.head, c.part_of, c.issue_of,
    c.MESSAGES, c.CONTENT
  local INDEX = memo(function(i)
    return path("[" .. i .. "]")
  end)
  local r = {}
  function r.chat(s, out)
    local d = parse(s)
    local sum = head(d, out)
    local messages = d:open(MESSAGES)
    for i = 0, messages:len() - 1 do
      local content = messages:open(INDEX[i]):open(CONTENT)
      for j = 0, content:len() - 1 do
        sum = part_of(sum, out, content:open(INDEX[j]))
      end
    end
    return sum, d
  end
  function r.issues(s, out)
    local d = parse(s)
    local sum = 0
    for i = 0, d:len() - 1 do
      sum = issue_of(sum, out, d:open(INDEX[i]))
    end
    return sum, d
  end
  return r
end

-- The real documents, the tiny object and the streams with the document
-- API (cursors from doc:ipairs, compiled relative paths).
local function document_readers()
  local qjson = require("qjson")
  local path, parse = qjson.path, qjson.parse
  local r = {}

  local STATUSES, ID, TEXT, SCREEN_NAME, FOLLOWERS, RETWEETS = path("statuses"), path("id"), path("text"),
    path("user.screen_name"), path("user.followers_count"), path("retweet_count")
  function r.twitter(s, out)
    local d = parse(s)
    local sum = 0
    for _, st in d:ipairs(STATUSES) do
      sum = jobs.twitter(sum, out, st:get_num(ID), st:get_str(TEXT), st:get_str(SCREEN_NAME), st:get_num(FOLLOWERS),
        st:get_num(RETWEETS))
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
      local event_id = p:get_num(EVENT_ID)
      sum = jobs.citm(sum, out, p:get_num(ID), event_id, p:get_num(START), p:get_str(VENUE), p:len(SEATS),
        p:len(PRICES), events:get_str(EVENT_NAME[event_id]))
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
      jobs.push(out, ty)
    end
    for _, f in d:ipairs(FEATURES) do
      sum = jobs.canada_feature(sum, out, f:get_str(NAME), f:get_str(GEOMETRY_TYPE))
      for _, ring in f:ipairs(COORDINATES) do
        sum = jobs.canada_ring(sum, out, ring:len(), ring:get_num(LON), ring:get_num(LAT))
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
    local scope_len = 0
    local scope = out and {}
    for i = 0, d:len(SCOPE) - 1 do
      local v = d:get_str(SCOPE_I[i])
      scope_len = scope_len + #v
      if out then
        scope[i + 1] = v
      end
    end
    return jobs.tiny(out, d:get_num(TID), d:get_str(USER), scope, scope_len, d:get_bool(ACTIVE), d:get_num(LIMIT),
      d:get_num(USED), d:get_num(RATIO), d:get_str(REGION), d:get_str(NOTE), d:get_num(EXPIRES)), d
  end

  return r
end

-- Streams: qjson.stream finds every value in one call; each is parsed
-- into a document and read by compiled paths.
local function stream_readers(r)
  local qjson = require("qjson")
  local path = qjson.path
  local each = qjson.stream.each
  local CONTENT, FINISH = path("choices[0].delta.content"), path("choices[0].finish_reason")
  function r.sse(s, out)
    local sum = 0
    for _, d in each(s, "sse") do
      sum = jobs.sse(sum, out, d:get_str(CONTENT), d:get(FINISH))
    end
    return sum, s
  end
  local TS, LEVEL, STATUS = path("ts"), path("level"), path("http.status")
  function r.ndjson(s, out)
    local sum = 0
    for _, d in each(s, "ndjson") do
      sum = jobs.ndjson(sum, out, d:get_str(TS), d:get_str(LEVEL), d:get_num(STATUS))
    end
    return sum, s
  end
  return r
end

function A.version()
  local qjson = require("qjson")
  return qjson._VERSION .. " (" .. qjson.backend() .. ")"
end

-- The adapter of one variant.
function A.lib(variant, note)
  local main = variant == "paths"
  return {
    note = note,
    -- The API variants only for the chat ladder and the issues list.
    kinds = main and jobs.kinds(jobs.READ_KINDS, jobs.STREAM_KINDS, "encode") or jobs.kinds("chat", "issues"),
    encode_check = "bytes",
    load = function()
      local r = assert(variants[variant], variant)(common())
      if main then
        for k, f in pairs(stream_readers(document_readers())) do
          r[k] = f
        end
        r.mix = jobs.mix_reader(r.chat)
        r.encode = jobs.encoder(require("qjson").encode)
      end
      return r
    end,
    version = A.version,
  }
end

return A
