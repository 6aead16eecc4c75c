-- Strings for the encoder: escaped by the native library straight into
-- the reserved space of the output buffer (one FFI call per string, no
-- Lua string made). Escaping rules and flags: crates/core/src/encode/escape.rs.
local ffi = require("ffi")
local base = require("qjson.base")
local C, ticket, stale = base.C, base.ticket, base.stale

local error = error
local qjson_escape = C.qjson_escape
local ffi_cast = ffi.cast

local M = {}

-- Flag bits (qjson_escape_flag).
M.ESCAPE_SLASH = C.QJSON_ESCAPE_FLAG_ESCAPE_SLASH
M.ASCII = C.QJSON_ESCAPE_FLAG_ASCII
M.HTML_SAFE = C.QJSON_ESCAPE_FLAG_HTML_SAFE
M.VALIDATE_UTF8 = C.QJSON_ESCAPE_FLAG_VALIDATE_UTF8

-- qjson_escape writes at most EXPANSION x len + SLACK bytes.
local EXPANSION, SLACK = C.QJSON_LIMIT_ESCAPE_EXPANSION, C.QJSON_LIMIT_ESCAPE_SLACK
M.EXPANSION, M.SLACK = EXPANSION, SLACK

local QUOTE = string.byte('"')
-- Longer strings go in parts, so a reservation stays at EXPANSION x CHUNK
-- bytes rather than EXPANSION x the string. A choice of this module's
-- (smaller than QJSON_LIMIT_ESCAPE_MAX_CHUNK, the most one call takes).
local CHUNK = 256 * 1024
assert(CHUNK <= C.QJSON_LIMIT_ESCAPE_MAX_CHUNK)
M.CHUNK = CHUNK

-- (Read under a ticket, as qjson.base says.)
local consumed, consumed_value = base.consumed_box, base.consumed_value

-- A negative result from qjson_escape: -1 is invalid UTF-8 at offset
-- `at`, anything else a bug caught at the boundary.
local function fail(w, at)
  if w == -1 then
    error("Cannot serialise string: invalid UTF-8 at byte " .. at, 0)
  end
  error("qjson: internal error while escaping a string", 0)
end

local function put_long(buf, s, n, flags)
  local from = ffi_cast("const char *", s)
  local p = buf:reserve(1)
  p[0] = QUOTE
  buf:commit(1)
  local off = 0
  while off < n do
    local len = n - off
    local last = len <= CHUNK
    if not last then
      len = CHUNK
    end
    p = buf:reserve(len * EXPANSION + SLACK)
    local t = ticket()
    local w = qjson_escape(from + off, len, p, flags, last, consumed)
    local used = consumed_value()
    if not stale(t) then
      if w < 0 then
        fail(w, off + used)
      end
      buf:commit(w)
      off = off + used
    end
  end
  p = buf:reserve(1)
  p[0] = QUOTE
  buf:commit(1)
end

-- Appends `s` as a JSON string (quotes included).
function M.put(buf, s, flags)
  local n = #s
  if n > CHUNK then
    return put_long(buf, s, n, flags)
  end
  local p = buf:reserve(n * EXPANSION + SLACK + 2) -- and the quotes
  p[0] = QUOTE
  -- The call writes the shared count box: it takes a ticket, so that a
  -- read it interrupts (from a finalizer) sees its box was rewritten.
  ticket()
  local w = qjson_escape(s, n, p + 1, flags, true, consumed)
  if w < 0 then
    local t = ticket()
    w = qjson_escape(s, n, p + 1, flags, true, consumed)
    local used = consumed_value()
    if stale(t) then
      return M.put(buf, s, flags)
    end
    fail(w, used)
  end
  p[w + 1] = QUOTE
  buf:commit(w + 2)
end

return M
