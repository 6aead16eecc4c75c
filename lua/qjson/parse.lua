-- qjson.parse: the parse entry points. Text (qjson.parse, decode's
-- parse) and files (qjson.parse_file) into documents, and paths
-- (qjson.path) into compiled paths; each returns its result, or nil and
-- a message plus whether the message is about the caller's arguments
-- (base.raising makes the raising forms). Below them, `open` and
-- `open_file` parse into a native handle (for qjson.stream and the
-- encoder too).
local ffi = require("ffi")
local base = require("qjson.base")
local options = require("qjson.parse.options")
local doc = require("qjson.doc")
local arg_message = require("qjson.base").arg_message

local type, next, tostring, setmetatable = type, next, tostring, setmetatable
local ffi_string = ffi.string
local rshift, band = require("bit").rshift, require("bit").band

local C = base.C
local DocMT = doc.DocMT

local M = {}

-- Documents that need up to this many bytes are placed in Lua memory: a
-- `struct qjson_doc` cdata that holds the whole document (handle, tape,
-- room to unescape strings) and serves as its handle. The collector frees
-- it like a string, with no finalizer: an ffi.gc finalizer and the native
-- allocations cost more than parsing a few hundred bytes does. The size
-- follows the structure, not the length: a 1 MB chat request whose bulk
-- is one base64 string needs under 1 KB. Larger documents keep their tape
-- on the native heap, released by a finalizer; their handle is in Lua
-- memory too, so that it outlives that finalizer (at lua_close, LuaJIT
-- runs every cdata finalizer before any userdata's __gc: one that reads
-- a document then gets "document is closed", not freed memory). (Native
-- handles in a weak-valued slot table swept once per collection cycle
-- were tried too: faster, but they kept hundreds of KB of Lua heap
-- between sweeps.)
local PLACED_MAX = 16384
M.PLACED_MAX = PLACED_MAX

local doc_mem, HANDLE_SIZE = base.doc_mem, base.HANDLE_SIZE
local HANDLE_WORDS = rshift(HANDLE_SIZE + 7, 3)

local error_t = ffi.typeof("qjson_error")

-- The message in error box `e`, one of the call's own.
local function own_message(e)
  return ffi_string(ffi.cast("const char *", e.message))
end

-- `s` parsed with an error box of its own: the handle, or nil and the
-- message.
local function open_own(s, o, n)
  local mem, e = doc_mem(HANDLE_WORDS), error_t()
  if C.qjson_parse_measured_in(s, n, o, mem, HANDLE_SIZE, e) == 0 then
    return nil, own_message(e)
  end
  return ffi.gc(mem, C.qjson_finalize)
end

-- After a parse of `s` that failed with message `msg` from the shared
-- error box: nil and the message, or, when it is nil (a finalizer called
-- qjson meanwhile and may have written a message of its own there:
-- qjson.base's parse readers), the same parse made again with an error
-- box of its own. That one takes no ticket, so no finalizer can send it
-- round again (with the collector never pausing, a trace exit after each
-- native call could run one every time).
local function failed(msg, s, o, n)
  if msg == nil then
    return open_own(s, o, n)
  end
  return nil, msg
end

-- Parses `s` with packed options `o` (or nil): the document's handle, or
-- nil and the message. A placed document's handle is its memory, so
-- whatever holds the handle (documents, cursors, views) keeps the memory
-- alive. With `n`, `s` may also be a pointer to `n` bytes (a value inside
-- a larger string, which the caller keeps alive).
-- The memory the next parse tries first (one native call parses and
-- places when the document fits): sized after the last placed document,
-- so a run of similar documents parses in one call. A parse takes it
-- before calling (a finalizer parsing meanwhile allocates its own).
local spare, spare_bytes, want_bytes = nil, 0, 512

function M.open(s, o, n)
  n = n or #s
  local mem, bytes = spare, spare_bytes
  spare = nil
  if mem == nil then
    bytes = want_bytes
    mem = doc_mem(rshift(bytes, 3))
  end
  local r, msg = base.parse_into(s, n, o, mem, bytes)
  if r < 0 then
    -- Placed, using -r bytes: size the next spare after it. (The document
    -- is in memory of this call's own: a finalizer cannot have changed it.)
    want_bytes = band(-r + 7, -8)
    return mem
  end
  if r == 0 then
    spare, spare_bytes = mem, bytes
    return failed(msg, s, o, n)
  elseif r <= PLACED_MAX then
    -- The spare was too small: it is dropped, and the next parse takes
    -- one of this document's size. (Allocating may run finalizers that
    -- parse: qjson_parse_in then parses `s` again instead of taking the
    -- tape measured above.)
    want_bytes = band(r + 7, -8)
    mem = doc_mem(rshift(r + 7, 3))
    r, msg = base.parse_in(s, n, o, mem, r)
    if r == 0 then
      return failed(msg, s, o, n)
    end
    return mem
  end
  spare, spare_bytes = mem, bytes
  mem = doc_mem(HANDLE_WORDS)
  r, msg = base.parse_measured_in(s, n, o, mem, HANDLE_SIZE)
  if r == 0 then
    return failed(msg, s, o, n)
  end
  return ffi.gc(mem, C.qjson_finalize)
end

-- Parses the file at `path`, of at most `max_size` bytes (-1: the native
-- limit): the handle, or nil and the message. (The error box is the
-- call's own: a file is read once.)
function M.open_file(path, max_size, o)
  local mem, e = doc_mem(HANDLE_WORDS), error_t()
  if C.qjson_parse_file_in(path, #path, max_size, o, mem, HANDLE_SIZE, e) == 0 then
    return nil, own_message(e)
  end
  return ffi.gc(mem, C.qjson_finalize)
end

-- Whether a document parsed with options `opts` (checked: see
-- qjson.parse.options) was parsed in lazy mode, and with lua-cjson's numbers
-- beyond JSON (qjson.view.write tells the encoder how to copy its bytes).
local function lazy_mode(opts)
  return type(opts) == "table" and opts.mode == "lazy" or nil
end
local function lenient_numbers(opts)
  return type(opts) == "table" and opts.invalid_numbers == true and opts.ijson ~= true or nil
end

-- qjson.parse (and qjson.safe's, and decode's): a document of `s`, or nil
-- and a message plus whether the message is about the caller's arguments
-- (`name`: the function to name in those, "parse" by default).
function M.document(s, opts, mt, name)
  if type(s) ~= "string" then
    return nil, arg_message(1, name or "parse", "string expected, got " .. type(s)), true
  end
  local o, oerr = options.pack(opts)
  if oerr then
    return nil, arg_message(2, name or "parse", oerr), true
  end
  local ptr, err = M.open(s, o)
  if ptr == nil then
    return nil, "qjson: " .. err
  end
  return setmetatable({ ptr = ptr, node = 0, src = s, lazy = lazy_mode(opts), lenient = lenient_numbers(opts) },
    mt or DocMT)
end

-- `max_size` (parse_file only) and the parse options without it, or nil
-- and a message. Without it, the native side's own limit applies (-1
-- reads as the largest uint64_t, which stands for that limit).
local function file_options(opts)
  if type(opts) ~= "table" or opts.max_size == nil then
    return -1, opts
  end
  local m = opts.max_size
  if type(m) ~= "number" or m < 0 or m ~= m or m % 1 ~= 0 then
    return nil, "bad option 'max_size' (non-negative integer expected, got " .. tostring(m) .. ")"
  end
  -- (Past 2^53 a double is no exact size; any such limit is the native one.)
  m = m < 2 ^ 53 and m or -1
  local rest = {}
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local k, v = next(opts)
  while k ~= nil do
    if k ~= "max_size" then
      rest[k] = v
    end
    k, v = next(opts, k)
  end
  return m, rest
end

function M.file(path, opts, mt)
  if type(path) ~= "string" then
    return nil, arg_message(1, "parse_file", "string expected, got " .. type(path)), true
  elseif path:find("\0", 1, true) then
    -- (The file system would stop at it, and so would the message.)
    return nil, arg_message(1, "parse_file", "path contains a NUL byte"), true
  end
  local max_size, rest = file_options(opts)
  if not max_size then
    return nil, arg_message(2, "parse_file", rest), true
  end
  local o, oerr = options.pack(rest)
  if oerr then
    return nil, arg_message(2, "parse_file", oerr), true
  end
  local ptr, err = M.open_file(path, max_size, o)
  if ptr == nil then
    return nil, "qjson: " .. err
  end
  return setmetatable({ ptr = ptr, node = 0, lazy = lazy_mode(opts), lenient = lenient_numbers(opts) },
    mt or DocMT)
end

-- qjson.path: a compiled path (the ref that holds it, qjson.base), or
-- nil, a message and true.
local path_ref = ffi.typeof("qjson_path *[1]")
function M.path(s)
  if type(s) ~= "string" then
    return nil, arg_message(1, "path", "string expected, got " .. type(s)), true
  end
  local p = base.new_ref(path_ref, C.qjson_path_release)
  local r, msg = base.path_compile(s, p)
  if r == 0 then
    if msg == nil then
      -- (A finalizer may have compiled a path since: the message again,
      -- into a box of its own.)
      local err = ffi.new("qjson_error")
      C.qjson_path_compile_in(s, #s, p, err)
      msg = ffi_string(err.message)
    end
    return nil, arg_message(1, "path", msg), true
  end
  doc.path_text[p] = s
  return p
end

return M
