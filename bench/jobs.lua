-- The plumbing every library's adapter (bench/libs/*.lua) shares: the
-- sets of job kinds, what each job adds to its checksum and records, the
-- edits, and the wrappers that turn a decode/encode pair into jobs.
--
-- Jobs (a workload's `kind`, bench/workloads.lua):
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
--   tiny      every field of the ~200-byte object (bench/workloads.lua).
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
--   encode    encode the table cjson.decode built.
--
-- A reader is `read(input, out)`: it parses `input`, does the job and
-- returns a checksum (total length of the strings read plus the sum of the
-- numbers read; for an encoding job the output's length) and what it
-- parsed or wrote (so that the caller can keep it alive). When `out` is a
-- table, every value read is also appended to it, in order, so that the
-- libraries can be checked to read the same values with the very code
-- that is timed (the `if out` test costs nothing measurable).
local M = {}

M.READ_KINDS = { chat = true, issues = true, mix = true, twitter = true, citm = true, canada = true, tiny = true }
M.EDIT_KINDS = { roundtrip = true, modify_top = true, add_field = true, modify_nested = true }
-- Streams of small values (not every library's readers have them).
M.STREAM_KINDS = { sse = true, ndjson = true }

-- A set of kinds from sets and single kinds.
function M.kinds(...)
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
M.push = push

-- What one step of a job adds to the checksum, recording the values read
-- when `out` is a table. The same arithmetic in the same order for every
-- library (floating-point sums must match exactly).
function M.chat_head(out, model, temperature)
  if out then
    push(out, model, temperature)
  end
  return #model + temperature
end
-- A content part: its type, and its text when `text` is a string.
function M.chat_part(sum, out, ty, text)
  sum = sum + #ty
  if out then
    push(out, ty)
  end
  if text then
    sum = sum + #text
    if out then
      push(out, text)
    end
  end
  return sum
end
function M.issue(sum, out, number, title, state, login)
  if out then
    push(out, number, title, state, login)
  end
  return sum + number + #title + #state + #login
end
function M.twitter(sum, out, id, text, name, followers, retweets)
  if out then
    push(out, id, text, name, followers, retweets)
  end
  return sum + id % 65536 + #text + #name + followers + retweets
end
function M.citm(sum, out, id, event_id, start, venue, seats, prices, name)
  if out then
    push(out, id, event_id, start, venue, seats, prices, name)
  end
  return sum + id + event_id + start % 1e6 + #venue + seats + prices + #name
end
function M.canada_feature(sum, out, name, gtype)
  if out then
    push(out, name, gtype)
  end
  return sum + #name + #gtype
end
function M.canada_ring(sum, out, n, lon, lat)
  if out then
    push(out, n, lon, lat)
  end
  return sum + n + lon + lat
end
function M.sse(sum, out, content, finish)
  if out then
    push(out, content or false, finish)
  end
  return sum + 1 + (content and #content or 0) + (type(finish) == "string" and #finish or 0)
end
-- The complete events of the SSE text `buf`, each decoded to a table by
-- `decode`, added to `sum` by the sse job; also where the unfinished
-- tail starts (as an OpenResty handler splits a stream with lua-cjson).
function M.sse_decoded(sum, out, buf, decode)
  local last = 1
  for data, after in string.gmatch(buf, "data: ?([^\r\n]*)\r?\n\r?\n()") do
    if data ~= "[DONE]" then
      local choice = decode(data).choices[1]
      sum = M.sse(sum, out, choice.delta.content, choice.finish_reason)
    end
    last = after
  end
  return sum, last
end
function M.ndjson(sum, out, ts, level, status)
  if out then
    push(out, ts, level, status)
  end
  return sum + #ts + #level + status
end
-- The tiny object: `scope` the array of scopes read (recorded only).
function M.tiny(out, id, user, scope, scope_len, active, limit, used, ratio, region, note, expires)
  if out then
    push(out, id, user, unpack(scope))
    push(out, active, limit, used, ratio, region, note, expires)
  end
  return id + #user + scope_len + (active and 1 or 0) + limit + used + ratio + #region + #note + expires
end

-- A stream's 4 KB chunks (cut once per stream, outside the timed job).
local chunk_cache = {}
function M.chunks_of(s)
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

-- A table that compiles (or builds) on first use and keeps the result.
function M.memo(make)
  return setmetatable({}, {
    __index = function(t, k)
      local v = make(k)
      t[k] = v
      return v
    end,
  })
end

-- The interleaved mix: the chat job on each document of the cycle.
function M.mix_reader(chat)
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

-- The edits, applied the same way to a view or a plain table (--verify
-- applies them to cjson.decode's table too).
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

-- Adds to `r` the decode, edit, encode jobs.
function M.edit_jobs(r, decode, encode)
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
-- and the output. An adapter's `encode_check` says how --verify checks
-- the output: "bytes", equal to cjson.encode's byte for byte;
-- "roundtrip", decoded by cjson.decode to a structure deep-equal to the
-- table.
function M.encoder(encode)
  return function(t)
    local o = encode(t)
    return #o, o
  end
end

return M
