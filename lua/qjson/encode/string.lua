-- Strings for the encoder: escaped by the native library straight into
-- the reserved space of the output buffer (one FFI call per string, no
-- Lua string made). Escaping rules and flags: src/encode/escape.rs.
local ffi = require("ffi")
local base = require("qjson.base")
local C, S = base.C, base.S

local error, tonumber = error, tonumber
local qjson_escape = C.qjson_escape
local ffi_cast = ffi.cast

local M = {}

-- Flag bits, as in src/encode/escape.rs.
M.ESCAPE_SLASH = 1
M.ASCII = 2
M.HTML_SAFE = 4
M.VALIDATE_UTF8 = 8

local QUOTE = 34
-- Longer strings go in parts, so a reservation stays at 6 x CHUNK bytes
-- rather than 6 x the string (a 10 MB string would want 60 MB).
local CHUNK = 256 * 1024

-- (Read under a ticket, as qjson.base says.)
local consumed = base.consumed_box

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
    p = buf:reserve(len * 6 + 16)
    local t = S.seq + 1
    S.seq = t
    local w = qjson_escape(from + off, len, p, flags, last, consumed)
    if S.seq == t then
      local used = tonumber(consumed[0])
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
  local p = buf:reserve(n * 6 + 18) -- quotes, and 16 the scan may store
  p[0] = QUOTE
  local w = qjson_escape(s, n, p + 1, flags, true, consumed)
  if w < 0 then
    local t = S.seq + 1
    S.seq = t
    w = qjson_escape(s, n, p + 1, flags, true, consumed)
    if S.seq ~= t then
      return M.put(buf, s, flags)
    end
    fail(w, tonumber(consumed[0]))
  end
  p[w + 1] = QUOTE
  buf:commit(w + 2)
end

return M
