-- The jobs each library is timed on, "parse and read fields" and
-- "encode", written the way a user of that library would write them.
--
-- Chat request: `model` (string), `temperature` (number), then for every
-- message its `content` array and, for each part, its `type` and, for a
-- text part, its `text`. The image URL is not read: a gateway doesn't.
-- Issues list: for every issue `number`, `title`, `state` and `user.login`.
-- Tiny object (~200 bytes): every field (below).
-- Encode: the table cjson.decode built, to a string (below).
--
-- A reader is `read(s, out)`: it parses `s`, reads the fields and returns
-- a checksum (total length of the strings read plus the sum of the numbers
-- read) and what it parsed (so that the caller can keep it alive). When
-- `out` is a table, every value read is also appended to it, in order, so
-- that the libraries can be checked to read the same values with the very
-- code that is timed (the `if out` test costs nothing measurable).
local ffi = require("ffi")

local M = {}

-- name -> { kind -> reader }, plus `version()` and `load()`.
M.libs = {}

-- The libraries `run.lua` compares, in table order, and the floor.
M.default = { "qjson", "lua-cjson", "dkjson", "memchr" }
-- Other ways to write the qjson reader with the public API, timed too
-- (not in --quick) to show what the API style costs.
M.variants = { "qjson-cursor", "qjson-ipairs" }
M.FLOOR = "memchr"
M.BASELINE = "lua-cjson"

local function qjson_readers(variant)
  local qjson = require("qjson")
  local path = qjson.path
  -- Paths compiled once, at load time, as a gateway module would.
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
        out[#out + 1] = model
        out[#out + 1] = temperature
      end
      for _, msg in d:ipairs(MESSAGES) do
        for _, part in msg:ipairs(CONTENT) do
          local t = part:get_str(TYPE)
          sum = sum + #t
          if out then
            out[#out + 1] = t
          end
          if t == "text" then
            local text = part:get_str(TEXT)
            sum = sum + #text
            if out then
              out[#out + 1] = text
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
          out[#out + 1] = number
          out[#out + 1] = title
          out[#out + 1] = state
          out[#out + 1] = login
        end
      end
      return sum, d
    end
  elseif variant == "paths" then
    -- Indexed paths from the root ("messages[i].content[j].type"),
    -- compiled once per index and kept.
    local function memo(make)
      return setmetatable({}, {
        __index = function(t, k)
          local v = make(k)
          t[k] = v
          return v
        end,
      })
    end
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
        out[#out + 1] = model
        out[#out + 1] = temperature
      end
      for i = 0, d:len(MESSAGES) - 1 do
        local m = MSG[i]
        for j = 0, d:len(m.content) - 1 do
          local t = d:get_str(m.type[j])
          sum = sum + #t
          if out then
            out[#out + 1] = t
          end
          if t == "text" then
            local text = d:get_str(m.text[j])
            sum = sum + #text
            if out then
              out[#out + 1] = text
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
          out[#out + 1] = number
          out[#out + 1] = title
          out[#out + 1] = state
          out[#out + 1] = login
        end
      end
      return sum, d
    end
  else
    assert(variant == "cursor", variant)
    -- Cursors from doc:len and doc:open with index paths ("[i]", compiled
    -- once per index and kept: the set is as small as the largest array).
    local INDEX = setmetatable({}, {
      __index = function(t, i)
        local p = path("[" .. i .. "]")
        t[i] = p
        return p
      end,
    })
    function r.chat(s, out)
      local d = parse(s)
      local model, temperature = d:get_str(MODEL), d:get_num(TEMPERATURE)
      local sum = #model + temperature
      if out then
        out[#out + 1] = model
        out[#out + 1] = temperature
      end
      local messages = d:open(MESSAGES)
      for i = 0, messages:len() - 1 do
        local content = messages:open(INDEX[i]):open(CONTENT)
        for j = 0, content:len() - 1 do
          local part = content:open(INDEX[j])
          local t = part:get_str(TYPE)
          sum = sum + #t
          if out then
            out[#out + 1] = t
          end
          if t == "text" then
            local text = part:get_str(TEXT)
            sum = sum + #text
            if out then
              out[#out + 1] = text
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
          out[#out + 1] = number
          out[#out + 1] = title
          out[#out + 1] = state
          out[#out + 1] = login
        end
      end
      return sum, d
    end
  end
  return r
end

-- Readers over plain Lua tables, as lua-cjson and dkjson decode them.
local function table_readers(decode)
  local r = {}
  function r.chat(s, out)
    local t = decode(s)
    local model, temperature = t.model, t.temperature
    local sum = #model + temperature
    if out then
      out[#out + 1] = model
      out[#out + 1] = temperature
    end
    local messages = t.messages
    for i = 1, #messages do
      local content = messages[i].content
      for j = 1, #content do
        local part = content[j]
        local ty = part.type
        sum = sum + #ty
        if out then
          out[#out + 1] = ty
        end
        if ty == "text" then
          local text = part.text
          sum = sum + #text
          if out then
            out[#out + 1] = text
          end
        end
      end
    end
    return sum, t
  end
  function r.issues(s, out)
    local t = decode(s)
    local sum = 0
    for i = 1, #t do
      local issue = t[i]
      local number, title, state, login = issue.number, issue.title, issue.state, issue.user.login
      sum = sum + number + #title + #state + #login
      if out then
        out[#out + 1] = number
        out[#out + 1] = title
        out[#out + 1] = state
        out[#out + 1] = login
      end
    end
    return sum, t
  end
  return r
end

-- The ~200-byte object (workloads.TINY), parsed and every field read, in
-- this order: id, user, each scope, active, quota.limit, quota.used,
-- quota.ratio, region, note, expires. The checksum adds the numbers, the
-- strings' lengths and 1 for `active`, in that same order in every reader
-- (floating-point sums must match exactly).
local function tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires)
  return id + #user + scope_len + (active and 1 or 0) + limit + used + ratio + #region + #note + expires
end

local function tiny_out(out, id, user, scope, active, limit, used, ratio, region, note, expires)
  out[#out + 1] = id
  out[#out + 1] = user
  for i = 1, #scope do
    out[#out + 1] = scope[i]
  end
  out[#out + 1] = active
  out[#out + 1] = limit
  out[#out + 1] = used
  out[#out + 1] = ratio
  out[#out + 1] = region
  out[#out + 1] = note
  out[#out + 1] = expires
end

local function qjson_tiny_reader()
  local qjson = require("qjson")
  local path, parse = qjson.path, qjson.parse
  local ID, USER, SCOPE, ACTIVE = path("id"), path("user"), path("scope"), path("active")
  local LIMIT, USED, RATIO = path("quota.limit"), path("quota.used"), path("quota.ratio")
  local REGION, NOTE, EXPIRES = path("region"), path("note"), path("expires")
  local SCOPE_I = setmetatable({}, {
    __index = function(t, i)
      local p = path("scope[" .. i .. "]")
      t[i] = p
      return p
    end,
  })
  return function(s, out)
    local d = parse(s)
    local id, user = d:get_num(ID), d:get_str(USER)
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
      tiny_out(out, id, user, scope, active, limit, used, ratio, region, note, expires)
    end
    return tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires), d
  end
end

local function table_tiny_reader(decode)
  return function(s, out)
    local t = decode(s)
    local id, user = t.id, t.user
    local scope = t.scope
    local scope_len = 0
    for i = 1, #scope do
      scope_len = scope_len + #scope[i]
    end
    local active = t.active
    local quota = t.quota
    local limit, used, ratio = quota.limit, quota.used, quota.ratio
    local region, note, expires = t.region, t.note, t.expires
    if out then
      tiny_out(out, id, user, scope, active, limit, used, ratio, region, note, expires)
    end
    return tiny_sum(id, user, scope_len, active, limit, used, ratio, region, note, expires), t
  end
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

-- Does library `name` time workloads of this kind?
function M.supports(name, kind)
  local kinds = M.libs[name].kinds
  return kinds == nil or kinds[kind] == true
end

-- Does library `name` run a workload of this kind and size? `max_size`
-- limits parsing only: every library encodes every table.
function M.runs(name, kind, size)
  local lib = M.libs[name]
  return M.supports(name, kind) and (kind == "encode" or not lib.max_size or size <= lib.max_size)
end

local function qjson_lib(variant, note)
  local main = variant == "paths"
  return {
    note = note,
    -- The API variants only for the parse ladder and the issues list.
    kinds = { chat = true, issues = true, encode = main, tiny = main },
    encode_check = "bytes",
    load = function()
      local r = qjson_readers(variant)
      if main then
        r.encode = encoder(require("qjson").encode)
        r.tiny = qjson_tiny_reader()
      end
      return r
    end,
    version = function()
      local qjson = require("qjson")
      return qjson._VERSION .. " (" .. qjson.backend() .. ")"
    end,
  }
end

M.libs["qjson"] = qjson_lib("paths", "qjson.parse + indexed paths from the root, compiled once per index")
M.libs["qjson-cursor"] = qjson_lib("cursor", "qjson.parse + doc:len/doc:open cursors, compiled paths")
M.libs["qjson-ipairs"] = qjson_lib("ipairs", "qjson.parse + doc:ipairs cursors, compiled paths")

M.libs["lua-cjson"] = {
  note = "cjson.decode + table reads",
  encode_check = "bytes", -- the reference
  load = function()
    local cjson = require("cjson")
    local r = table_readers(cjson.decode)
    r.encode = encoder(cjson.encode)
    r.tiny = table_tiny_reader(cjson.decode)
    return r
  end,
  version = function()
    return require("cjson")._VERSION
  end,
}

M.libs["dkjson"] = {
  note = "dkjson.decode (pure Lua, no LPeg) + table reads",
  max_size = 1024 * 1024 + 1024, -- parsing too slow beyond 1 MB
  -- Members in pairs order too, numbers via tostring (%.14g, as cjson),
  -- but its own escapes ("/" as is, some non-ASCII as \u) and [] for {}.
  encode_check = "roundtrip",
  load = function()
    local dkjson = require("dkjson")
    local r = table_readers(dkjson.decode)
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
    r.encode = encoder(function(t)
      return dkjson.encode(t, state)
    end)
    r.tiny = table_tiny_reader(dkjson.decode)
    return r
  end,
  version = function()
    return (require("dkjson").version:gsub("^dkjson ", ""))
  end,
}

-- The floor: one pass of C memchr over every byte, looking for a byte the
-- document does not hold (0x01 is a control byte: never in valid JSON).
M.libs["memchr"] = {
  note = "memchr(s, 0x01, #s): one pass over every byte, nothing found",
  floor = true,
  kinds = { chat = true, issues = true },
  load = function()
    ffi.cdef("void *memchr(const void *s, int c, size_t n);")
    local memchr = ffi.C.memchr
    local function read(s)
      if memchr(s, 1, #s) ~= nil then
        error("memchr floor: the document holds a 0x01 byte")
      end
      return 0, nil
    end
    return { chat = read, issues = read }
  end,
  version = function()
    return "libc"
  end,
}

return M
