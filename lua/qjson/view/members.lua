-- A view's members for the encoder's general output (indentation, sorted
-- keys, skipped values) and for views whose bytes it does not copy: see
-- encoder.views in qjson.encode.
local base = require("qjson.base")
local F = require("qjson.view.fields")
local read = require("qjson.view.read")
local iter = require("qjson.view.iter")

local getmetatable, rawget, match = getmetatable, rawget, string.match

local DELETED, ObjectMT = F.DELETED, F.ObjectMT
local fail, cached, check_raw = F.fail, F.cached, F.check_raw
local array_len, array_get = read.array_len, read.array_get
local step_member, member_value = iter.step_member, iter.member_value
local DOC, NODE, PTR, EDITS, ADDED, ORIG = F.DOC, F.NODE, F.PTR, F.EDITS, F.ADDED, F.ORIG
local LAZY, LENIENT = F.LAZY, F.LENIENT

local C, copy_string, next_child, read_kind = base.C, base.copy_string, base.next_child, base.read_kind
local MISSING, NUMBER = C.QJSON_STATUS_MISSING, C.QJSON_KIND_NUMBER

-- The original bytes of `node`, as a string (copied natively: no pointer
-- into the document is held while the string is made).
local function raw_text(st, node)
  return copy_string(st[DOC][PTR], node, true) or fail(st)
end

-- Whether `s` is a number as JSON writes one (RFC 8259):
-- -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
local function json_number(s)
  local e = match(s, "^%-?0()") or match(s, "^%-?[1-9]%d*()")
  if e == nil then
    return false
  end
  e = match(s, "^%.%d+()", e) or e
  e = match(s, "^[eE][-+]?%d+()", e) or e
  return e == #s + 1
end

-- For the encoder: the view's members in source order (edits where they
-- are, added keys last), as `keys` (nil for an array), `vals` and `raws`
-- (a number of the document as its text, so that no number passes
-- through a Lua number), and their count. The encoder writes them like a
-- table's members. A document read with invalid_numbers, or in lazy mode,
-- may hold numbers outside JSON (0x10, NaN): such a number is given as
-- its value (read as any read gives it, or raising its error in lazy
-- mode), which the encoder writes as it writes a Lua number.
return function(st)
  check_raw(st)
  local checked = rawget(st[DOC], LENIENT) or rawget(st[DOC], LAZY) ~= nil
  local vals, raws, n = {}, {}, 0
  if getmetatable(st) == ObjectMT then
    local keys = {}
    local edits = rawget(st, EDITS)
    local pos = 0
    while true do
      local np, k, kind, vn, a, b = step_member(st, pos)
      if np == nil then
        break
      end
      pos = np
      local e = edits and edits[k]
      if e == nil then
        n = n + 1
        keys[n] = k
        local raw = kind == NUMBER and raw_text(st, vn)
        if raw and not (checked and not json_number(raw)) then
          raws[n] = raw
        elseif raw then
          vals[n] = member_value(st, kind, k, vn, a, b)
        else
          local c = cached(st, k)
          if c == nil then
            c = member_value(st, kind, k, vn, a, b)
          end
          vals[n] = c
        end
      elseif e ~= DELETED then
        n = n + 1
        keys[n], vals[n] = k, e
      end
    end
    local added = rawget(st, ADDED)
    if added ~= nil then
      for i = 1, #added do
        local k = added[i]
        local e = edits[k]
        if e ~= DELETED then
          n = n + 1
          keys[n], vals[n] = k, e
        end
      end
    end
    return keys, vals, raws, n
  end
  n = array_len(st)
  local orig = rawget(st, ORIG)
  local ptr, node, prev = st[DOC][PTR], st[NODE], 0
  for i = 1, n do
    local o
    if orig ~= nil then
      o = orig[i]
    else
      local k
      k, o = next_child(ptr, node, prev)
      if k <= MISSING then
        fail(st)
      end
      prev = o
    end
    local raw = o and read_kind(ptr, o) == NUMBER and raw_text(st, o)
    if raw and not (checked and not json_number(raw)) then
      raws[i] = raw
    else
      -- (nil for a hole: written as null.)
      vals[i] = array_get(st, i)
    end
  end
  return nil, vals, raws, n
end
