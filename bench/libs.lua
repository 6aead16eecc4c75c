-- The job each library is timed on, "parse and read fields", written the
-- way a user of that library would write it.
--
-- Chat request: `model` (string), `temperature` (number), then for every
-- message its `content` array and, for each part, its `type` and, for a
-- text part, its `text`. The image URL is not read: a gateway doesn't.
-- Issues list: for every issue `number`, `title`, `state` and `user.login`.
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

-- Encoding: each library encodes the table its own decoder built from the
-- document, once per process, outside the timed work (qjson has no decoder
-- to tables yet, so it encodes lua-cjson's). The timed work is one encode;
-- the checksum is 0 and, for the check that all agree, `out` gets the
-- output in a canonical form (sorted keys, 14 significant digits as
-- lua-cjson writes them), since dkjson orders keys and prints numbers its
-- own way.
local function encoder(decode, encode)
  local cjson = require("cjson")
  local last_s, t
  return function(s, out)
    if s ~= last_s then
      last_s, t = s, decode(s)
    end
    local o = encode(t)
    if out then
      out[1] = require("qjson").encode(cjson.decode(o), { sort_keys = true, precision = 14 })
    end
    return 0, o
  end
end

-- Does library `name` time workloads of this kind?
function M.supports(name, kind)
  local kinds = M.libs[name].kinds
  return kinds == nil or kinds[kind] == true
end

local function qjson_lib(variant, note)
  return {
    note = note,
    kinds = { chat = true, issues = true, encode = variant == "paths" },
    load = function()
      local r = qjson_readers(variant)
      if variant == "paths" then
        r.encode = encoder(require("cjson").decode, require("qjson").encode)
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
  load = function()
    local cjson = require("cjson")
    local r = table_readers(cjson.decode)
    r.encode = encoder(cjson.decode, cjson.encode)
    return r
  end,
  version = function()
    return require("cjson")._VERSION
  end,
}

M.libs["dkjson"] = {
  note = "dkjson.decode (pure Lua, no LPeg) + table reads",
  max_size = 1024 * 1024 + 1024, -- too slow beyond 1 MB
  load = function()
    local dkjson = require("dkjson")
    local r = table_readers(dkjson.decode)
    -- Nulls kept as dkjson.null (its decode drops them by default).
    r.encode = encoder(function(s)
      return dkjson.decode(s, 1, dkjson.null)
    end, dkjson.encode)
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
