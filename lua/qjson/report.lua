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

-- The strings of record `h` (from M.record), in order: at most 5, read
-- one after the other (a loop or a recursion here would keep the callers
-- off compiled traces).
function M.strings(h, nnums, nstrs)
  local p = ffi_cast(u8p, h + nnums + nstrs)
  local l1 = h[nnums]
  local s1 = ffi_string(p, l1)
  if nstrs == 1 then
    return s1
  end
  p = p + l1
  local l2 = h[nnums + 1]
  local s2 = ffi_string(p, l2)
  if nstrs == 2 then
    return s1, s2
  end
  p = p + l2
  local l3 = h[nnums + 2]
  local s3 = ffi_string(p, l3)
  if nstrs == 3 then
    return s1, s2, s3
  end
  p = p + l3
  local l4 = h[nnums + 3]
  local s4 = ffi_string(p, l4)
  if nstrs == 4 then
    return s1, s2, s3, s4
  end
  assert(nstrs == 5, "a record of at most 5 strings")
  return s1, s2, s3, s4, ffi_string(p + l4, h[nnums + 4])
end

return M
