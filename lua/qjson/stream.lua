-- Streams of JSON values: NDJSON, concatenated JSON, server-sent events.
-- One native call finds every value of a buffer (crates/core/src/stream/,
-- crates/luajit/src/stream.rs); each value is then parsed (a document), selected
-- (a qjson.select selector's values) or handed out as its JSON text.
-- See docs/api.md, "Streams".
--
--   for i, doc in stream.each(body, "ndjson") do ... end
--   for i, content, finish in stream.each(body, "sse", sel) do ... end
--   local f = stream.feeder("sse", sel, { max_size = 1048576 })
--   for i, content in f:feed(chunk, eof) do ... end   -- body_filter
local ffi = require("ffi")
local base = require("qjson.base")
local C = base.C
local doc = require("qjson.doc")
local parse = require("qjson.parse")
local options = require("qjson.parse.options")
local selector = require("qjson.select")
local arg_error = require("qjson.base").arg_error

local type, error, tostring, tonumber, setmetatable, getmetatable, next, pcall =
  type, error, tostring, tonumber, setmetatable, getmetatable, next, pcall
local ffi_string, ffi_copy = ffi.string, ffi.copy
local holds = base.holds
local read_span = selector.read_span
local SelectorMT = selector.SelectorMT
local DocMT = doc.DocMT

local new_tab = (function()
  local ok, f = pcall(require, "table.new")
  return ok and f or function() return {} end
end)()

local M = {}

local FORMATS = {
  ndjson = C.QJSON_STREAM_FORMAT_NDJSON,
  json = C.QJSON_STREAM_FORMAT_CONCAT,
  sse = C.QJSON_STREAM_FORMAT_SSE,
}

-- The most bytes an unfinished value may hold, by default, and at most
-- (a value's length crosses the C ABI as 32 bits).
M.DEFAULT_MAX_SIZE = 8 * 1024 * 1024
M.MAX_SIZE = tonumber(C.qjson_stream_max_size())

local out_type = ffi.typeof("qjson_stream_out")
local error_type = ffi.typeof("qjson_error")
local span_array = ffi.typeof("qjson_span[?]")
local SPAN_BYTES = ffi.sizeof("qjson_span")
local splitter_ref = ffi.typeof("qjson_stream *[1]")
local char_ptr = ffi.typeof("const char *")

-- Checks (format, how, opts) for `name`: the native format, the way
-- values are handed out ("doc", "raw" or "select"), the selector (reading
-- with the stream's parse options, when given), max_size and packed parse
-- options (or nil). Raises at the caller's caller.
local function settings(name, format, how, opts)
  -- (each's first argument is the stream.)
  local first = name == "each" and 1 or 0
  local f = FORMATS[format]
  if f == nil then
    arg_error(first + 1, name, '"ndjson", "json" or "sse" expected, got ' .. tostring(format), 3)
  end
  local sel
  if how == nil or how == "doc" then
    how = "doc"
  elseif how ~= "raw" then
    if type(how) ~= "table" or getmetatable(how) ~= SelectorMT then
      arg_error(first + 2, name, '"doc", "raw" or a qjson.select selector expected, got ' .. type(how), 3)
    end
    sel, how = how, "select"
  end
  local max, o = M.DEFAULT_MAX_SIZE, nil
  if opts ~= nil then
    if type(opts) ~= "table" then
      arg_error(first + 3, name, "table expected, got " .. type(opts), 3)
    end
    local rest = {}
    -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
    local k, v = next(opts)
    while k ~= nil do
      if k == "max_size" then
        if type(v) ~= "number" or v < 1 or v > M.MAX_SIZE or v % 1 ~= 0 then
          error("bad option 'max_size' (integer from 1 to " .. M.MAX_SIZE .. " expected, got " .. tostring(v) .. ")", 3)
        end
        max = v
      else
        rest[k] = v
      end
      k, v = next(opts, k)
    end
    if next(rest) ~= nil then
      local oerr
      o, oerr = options.pack(rest)
      if oerr then
        error("bad argument to '" .. name .. "' (" .. oerr .. ")", 3)
      end
    end
    -- Parse options apply to every value parsed or selected: none is
    -- accepted where nothing would use it.
    if o ~= nil and how == "raw" then
      error("bad argument to '" .. name .. "' (parse options with \"raw\": the values are not parsed)", 3)
    elseif o ~= nil and sel ~= nil then
      if sel.opts ~= nil then
        error("bad argument to '" .. name .. "' (parse options given both to the selector and to the stream)", 3)
      end
      sel = selector.with_options(sel, o)
    end
  end
  return f, how, sel, max, o
end

-- A new splitter, in its ref (qjson.base: freed by the collector).
local function splitter(f, max)
  local ref = base.new_ref(splitter_ref, C.qjson_stream_release)
  local e = error_type()
  if C.qjson_stream_new_in(f, max, ref, e) == 0 then
    error("qjson: " .. ffi_string(e.message), 0)
  end
  return ref
end

-- Splitters for whole buffers, by format, then max_size, reused: each()
-- takes one for its split and puts it back at once, trimmed (the native
-- memory it holds beyond a small bound given back: the collector does
-- not see it). At most 4 per format and max_size.
local idle = {}
for _, f in next, FORMATS do
  idle[f] = {}
end

local function take_splitter(f, max)
  local list = idle[f][max]
  local n = list and #list or 0
  while n > 0 do
    local ref = list[n]
    list[n] = nil
    n = n - 1
    -- (lua_close's finalizers may have freed it: dropped.)
    if holds(ref) then
      return ref
    end
  end
  return splitter(f, max)
end

local function put_splitter(ref, f, max)
  if not holds(ref) then
    return
  end
  C.qjson_stream_trim(ref)
  local list = idle[f][max]
  if list == nil then
    list = {}
    idle[f][max] = list
  end
  if #list < 4 then
    list[#list + 1] = ref
  end
end

-- "qjson: <message> in the value at byte <at> of the stream".
local function located(msg, at)
  return msg .. " in the value at byte " .. tostring(at) .. " of the stream"
end

-- A value that does not parse (or select) ends the iteration, and a
-- feeder's stream: every later step and feed raises `msg` again, so the
-- values handed out do not depend on where the stream was cut.
local function bad_value(it, msg)
  it.failed = msg
  local f = it.feeder
  if f then
    f.failed = msg
  end
  error(msg, 0)
end

-- Hands out value `i`: `len` bytes at `ptr`, which `anchor` keeps alive,
-- found at byte `at` of the stream.
local function hand_out(it, i, anchor, ptr, len, at)
  local how = it.how
  if how == "raw" then
    if type(ptr) == "string" then
      return i, ptr
    end
    return i, ffi_string(ptr, len)
  elseif how == "select" then
    local sel = it.sel
    local vals = it.vals
    if sel.named then
      vals = {}
    end
    local err = read_span(sel, vals, anchor, ptr, len)
    if err then
      bad_value(it, located(err, at))
    end
    if sel.named then
      local out = {}
      for k = 1, sel.n do
        out[sel.keys[k]] = vals[k]
      end
      return i, out
    end
    return i, sel.spread(nil, vals)
  end
  local h, msg = parse.open(ptr, it.opts, len)
  if h == nil then
    bad_value(it, located("qjson: " .. msg, at))
  end
  return i, setmetatable({ ptr = h, node = 0, src = anchor }, DocMT)
end

-- The end of an iteration: raises the error the stream held back, if any.
local function finish(it)
  local err = it.err
  if err then
    it.err = nil
    error(err, 0)
  end
  return nil
end

-- Iteration over a whole buffer: the spans and the joined SSE data were
-- copied out of the splitter (which went back to its pool), the values
-- are in the buffer it anchors.
local function each_step(it, i)
  if it.failed then
    error(it.failed, 0)
  end
  i = i + 1
  if i > it.n then
    return finish(it)
  end
  local sp = it.spans[i - 1]
  local start, len, at = tonumber(sp.start), sp.len, tonumber(sp.at)
  if sp.joined ~= 0 then
    local s = ffi_string(it.joined + start, len)
    return hand_out(it, i, s, s, len, at)
  end
  return hand_out(it, i, it.src, it.base + start, len, at)
end

-- Iterates the values of `buf`, a whole stream in `format` ("ndjson",
-- "json" for concatenated JSON, "sse"): `i, doc` (a qjson document),
-- `i, text` with how = "raw", or `i, <the selector's values>`. A stream
-- that cannot be split raises after the values before the fault; each
-- value's error names its position in the stream.
function M.each(buf, format, how, opts)
  if type(buf) ~= "string" then
    arg_error(1, "each", "string expected, got " .. type(buf), 2)
  end
  local f, h, sel, max, o = settings("each", format, how, opts)
  local ref = take_splitter(f, max)
  local out = out_type()
  local rc = C.qjson_stream_split(ref, buf, #buf, out)
  local n = out.count
  -- (No one else calls this splitter until it is put back: its output
  -- stays put while it is copied.)
  local spans = span_array(n)
  ffi_copy(spans, out.spans, n * SPAN_BYTES)
  local joined = ffi_string(out.joined, tonumber(out.joined_len))
  local err = rc ~= 1 and "qjson: " .. ffi_string(out.err.message) or nil
  put_splitter(ref, f, max)
  return each_step, {
    n = n, spans = spans, joined = ffi.cast(char_ptr, joined), joined_str = joined, err = err,
    src = buf, base = ffi.cast(char_ptr, buf), how = h, sel = sel, vals = sel and new_tab(sel.n, 0) or nil, opts = o,
  }, 0
end

local Feeder = {}
local FeederMT = { __index = Feeder }

-- An incremental splitter for nginx's body_filter_by_lua*: feed it each
-- chunk; it keeps the unfinished tail (at most opts.max_size bytes).
function M.feeder(format, how, opts)
  local f, h, sel, max, o = settings("feeder", format, how, opts)
  return setmetatable({
    ref = splitter(f, max), out = out_type(), how = h, sel = sel, opts = o,
    done = base.NO, busy = base.NO, failed = base.NO, -- (see qjson.base)
  }, FeederMT)
end

local function feed_step(it, i)
  if it.failed then
    error(it.failed, 0)
  end
  i = i + 1
  if i > it.n then
    return finish(it)
  end
  local s = it.texts[i]
  return hand_out(it, i, s, s, #s, it.at[i])
end

-- Feeds the splitter and copies the values it completed out of it, into
-- an iteration of this feed's own (a finalizer's feed gets its own: no
-- table is shared across feeds); then tells the splitter they were taken
-- (out.unread). A copy cut short by an error (a finalizer's, out of
-- memory) leaves them unread: the next feed gets them again, first.
local function take_values(self, chunk, last)
  local out = self.out
  local rc = C.qjson_stream_feed(self.ref, chunk, #chunk, last and 1 or 0, out)
  local n = out.count
  local texts, at = new_tab(n, 0), new_tab(n, 0)
  for k = 0, n - 1 do
    local sp = out.spans[k]
    local area = sp.joined ~= 0 and out.joined or out.data
    texts[k + 1] = ffi_string(area + tonumber(sp.start), sp.len)
    at[k + 1] = tonumber(sp.at)
  end
  local sel = self.sel
  local it = {
    feeder = self, n = n, texts = texts, at = at, done = out.done ~= 0,
    err = rc ~= 1 and "qjson: " .. ffi_string(out.err.message) or nil,
    how = self.how, sel = sel, vals = sel and new_tab(sel.n, 0) or nil, opts = self.opts,
  }
  out.unread = 0
  return it
end

-- Adds `chunk` (nil or "" for none; `last` true at the end of the
-- stream) and iterates the values it completes, as each() does. Raises
-- (after those values) when the stream cannot be split, a value grows
-- past max_size or does not parse; every later call raises the same
-- error. A call after the end of the stream raises.
function Feeder:feed(chunk, last)
  if chunk == nil then
    chunk = ""
  elseif type(chunk) ~= "string" then
    arg_error(1, "feed", "string expected, got " .. type(chunk), 2)
  end
  if self.failed then
    error(self.failed, 0)
  end
  if self.busy then
    error("qjson: feeder is already feeding (a finalizer fed it?)", 2)
  end
  -- (Whatever raises inside, busy is cleared: the pcall.)
  self.busy = true
  local ok, it = pcall(take_values, self, chunk, last)
  self.busy = false
  if not ok then
    error(it, 0)
  end
  self.done = it.done
  if it.n == 0 and it.err then
    error(it.err, 0)
  end
  return feed_step, it, 0
end

-- Ends the stream: iterates what the tail still held.
function Feeder:finish()
  return self:feed("", true)
end

return M
