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
local options = require("qjson.options")
local selector = require("qjson.select")
local arg_error = require("qjson.base").arg_error

local type, error, tostring, tonumber, setmetatable, getmetatable, next =
  type, error, tostring, tonumber, setmetatable, getmetatable, next
local ffi_string, ffi_gc, ffi_copy, ffi_sizeof = ffi.string, ffi.gc, ffi.copy, ffi.sizeof
local read_span = selector.read_span
local SelectorMT = selector.SelectorMT
local DocMT = doc.DocMT

local M = {}

local FORMATS = {
  ndjson = C.QJSON_STREAM_FORMAT_NDJSON,
  json = C.QJSON_STREAM_FORMAT_CONCAT,
  sse = C.QJSON_STREAM_FORMAT_SSE,
}

-- The most bytes an unfinished value may hold, by default.
M.DEFAULT_MAX_SIZE = 8 * 1024 * 1024

local out_type = ffi.typeof("qjson_stream_out")
local options_type = ffi.typeof("qjson_options")
local char_ptr = ffi.typeof("const char *")

-- Checks (format, how, opts) for `name`: the native format, the way
-- values are handed out ("doc", "raw" or a selector), max_size and packed
-- parse options (or nil). Raises at the caller's caller.
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
        if type(v) ~= "number" or v < 1 or v % 1 ~= 0 then
          error("bad option 'max_size' (positive integer expected, got " .. tostring(v) .. ")", 3)
        end
        max = v
      else
        rest[k] = v
      end
      k, v = next(opts, k)
    end
    local packed, oerr = options.pack(rest)
    if oerr then
      error("bad argument to '" .. name .. "' (" .. oerr .. ")", 3)
    end
    o = options_type()
    ffi_copy(o, packed, ffi_sizeof(options_type))
  end
  return f, how, sel, max, o
end

local function splitter(f, max)
  return ffi_gc(C.qjson_stream_new(f, max), C.qjson_stream_free)
end

-- Splitters for whole buffers, by format and max_size, reused: each()
-- takes one for its iteration and puts it back when the iteration ends
-- (an iteration left early leaves its splitter to the collector). The
-- native memory a splitter holds is invisible to the collector, so one
-- per call would pile up between collections.
local idle = {}

local function take_splitter(f, max)
  local key = f * 4294967296 + max
  local list = idle[key]
  local n = list and #list or 0
  if n > 0 then
    local st = list[n]
    list[n] = nil
    return st, key
  end
  return splitter(f, max), key
end

local function put_splitter(st, key)
  local list = idle[key]
  if list == nil then
    list = {}
    idle[key] = list
  end
  if #list < 4 then
    list[#list + 1] = st
  end
end

-- "qjson: <message> in the value at byte <at> of the stream".
local function located(msg, at)
  return msg .. " in the value at byte " .. tostring(at) .. " of the stream"
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
      error(located(err, at), 0)
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
    error(located("qjson: " .. msg, at), 0)
  end
  return i, setmetatable({ ptr = h, node = 0, src = anchor }, DocMT)
end

-- Iteration over a whole buffer: the spans stay in this iteration's own
-- splitter (no one else calls it), the values in the buffer it anchors.
-- The end of an iteration: raises the error the stream held back, if any.
local function finish(it)
  local err = it.err
  if err then
    it.err = nil
    error(err, 0)
  end
  return nil
end

local function each_step(it, i)
  i = i + 1
  if i > it.n then
    if it.st then
      put_splitter(it.st, it.key)
      it.st, it.out = nil, nil
    end
    return finish(it)
  end
  local sp = it.out.spans[i - 1]
  local start, len, at = tonumber(sp.start), tonumber(sp.len), tonumber(sp.at)
  if sp.joined ~= 0 then
    local s = ffi_string(it.out.joined + start, len)
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
  local st, key = take_splitter(f, max)
  local out = out_type()
  local rc = C.qjson_stream_split(st, buf, #buf, out)
  local it = {
    st = st, key = key, out = out, n = out.count, src = buf, base = ffi.cast(char_ptr, buf),
    how = h, sel = sel, vals = sel and {} or nil, opts = o,
  }
  if rc ~= 1 then
    it.err = "qjson: " .. ffi_string(out.err.message)
  end
  return each_step, it, 0
end

local Feeder = {}
local FeederMT = { __index = Feeder }

-- An incremental splitter for nginx's body_filter_by_lua*: feed it each
-- chunk; it keeps the unfinished tail (at most opts.max_size bytes).
function M.feeder(format, how, opts)
  local f, h, sel, max, o = settings("feeder", format, how, opts)
  return setmetatable({
    st = splitter(f, max), out = out_type(), how = h, sel = sel, vals = sel and {} or nil, opts = o,
    done = false, texts = {}, busy = false,
  }, FeederMT)
end

local function feed_step(it, i)
  i = i + 1
  local s = it.texts[i]
  if s == nil then
    return finish(it)
  end
  return hand_out(it, i, s, s, #s, it.at[i])
end

-- Adds `chunk` (nil or "" for none; `last` true at the end of the
-- stream) and iterates the values it completes, as each() does. Raises
-- (after those values) when the stream cannot be split or a value grows
-- past max_size; every later call raises the same error.
function Feeder:feed(chunk, last)
  if chunk == nil then
    chunk = ""
  elseif type(chunk) ~= "string" then
    arg_error(1, "feed", "string expected, got " .. type(chunk), 2)
  end
  if self.busy then
    error("qjson: feeder is already feeding (a finalizer fed it?)", 2)
  end
  self.busy = true
  local out = self.out
  local rc = C.qjson_stream_feed(self.st, chunk, #chunk, last and 1 or 0, out)
  -- Copy each value out before anything else can call the splitter.
  local n = out.count
  local texts, at = {}, {}
  for k = 0, n - 1 do
    local sp = out.spans[k]
    local area = sp.joined ~= 0 and out.joined or out.data
    texts[k + 1] = ffi_string(area + tonumber(sp.start), tonumber(sp.len))
    at[k + 1] = tonumber(sp.at)
  end
  self.done = out.done ~= 0
  local it = {
    texts = texts, at = at, how = self.how, sel = self.sel, vals = self.vals, opts = self.opts,
  }
  if rc ~= 1 then
    it.err = "qjson: " .. ffi_string(out.err.message)
  end
  self.busy = false
  return feed_step, it, 0
end

-- Ends the stream: iterates what the tail still held.
function Feeder:finish()
  return self:feed("", true)
end

return M
