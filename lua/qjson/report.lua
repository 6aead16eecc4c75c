-- Reports that native checks write into Lua memory (layout:
-- crates/luajit/src/records.rs): a head of u32 words, then records, each
-- its numbers, its strings' byte lengths and the strings, padded to 4
-- bytes. Nothing stays in Rust between calls, so a report is read at
-- leisure, whatever a finalizer run meanwhile does.
local ffi = require("ffi")

local ffi_string, ffi_new, ffi_cast = ffi.string, ffi.new, ffi.cast
local u32p = ffi.typeof("const uint32_t *")
local u8p = ffi.typeof("const uint8_t *")

local M = {}

-- Reports are written into this buffer, taken by the call that uses it
-- (a nested call, from a finalizer, makes its own) and given back after;
-- a larger report gets a buffer of its own.
M.SIZE = 16384
local scratch = ffi_new("uint8_t[?]", M.SIZE)

function M.take()
  local own = scratch or ffi_new("uint8_t[?]", M.SIZE)
  scratch = nil
  return own
end

function M.give(own)
  scratch = own
end

-- A buffer of `n` bytes, for a report larger than SIZE.
function M.buffer(n)
  return ffi_new("uint8_t[?]", n)
end

-- Word `i` (0-based) of the head.
function M.word(buf, i)
  return ffi_cast(u32p, buf)[i]
end

-- The record at byte `off` with `nnums` numbers and `nstrs` strings: its
-- words (numbers first, read as h[0], h[1], ...) and the offset of the
-- next record.
function M.record(buf, off, nnums, nstrs)
  local h = ffi_cast(u32p, buf + off)
  local len = 4 * (nnums + nstrs)
  for k = nnums, nnums + nstrs - 1 do
    len = len + h[k]
  end
  return h, off + len + (4 - len % 4) % 4
end

local function strings(h, p, k, last)
  local len = h[k]
  if k == last then
    return ffi_string(p, len)
  end
  return ffi_string(p, len), strings(h, p + len, k + 1, last)
end

-- The strings of record `h` (from M.record), in order.
function M.strings(h, nnums, nstrs)
  return strings(h, ffi_cast(u8p, h + nnums + nstrs), nnums, nnums + nstrs - 1)
end

return M
