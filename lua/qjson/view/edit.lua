-- qjson.view.edit: changing lazy views (__newindex, and insert / remove
-- for qjson.insert / qjson.remove). An edit is recorded in the view's
-- fields (qjson.view.fields: EDITS, ORIG, VALS...) and marks the view and
-- its ancestors dirty, so that the encoder writes what changed.
local base = require("qjson.base")
local F = require("qjson.view.fields")
local read = require("qjson.view.read")

local type, error, rawget, rawset, tostring, floor, select =
  type, error, rawget, rawset, tostring, math.floor, select
local tnew = require("table.new")

local DOC, NODE, LEN, PTR = F.DOC, F.NODE, F.LEN, F.PTR
local CKEY, CVIEW, CKEY2, CVIEW2 = F.CKEY, F.CVIEW, F.CKEY2, F.CVIEW2
local EDITS, ENODE, ADDED, NENODE, REPLACED, ORIG, VALS, CACHE =
  F.EDITS, F.ENODE, F.ADDED, F.NENODE, F.REPLACED, F.ORIG, F.VALS, F.CACHE
local DELETED, ObjectMT, ArrayMT = F.DELETED, F.ObjectMT, F.ArrayMT
local fail, touch, cached, uncache = F.fail, F.touch, F.cached, F.uncache
local array_get = read.array_get
local arg_error = base.arg_error

local C, read_child, next_child = base.C, base.child, base.next_child
local MISSING = C.QJSON_STATUS_MISSING

local M = {}

local function object_set(st, k, x)
  local tk = type(k)
  if tk ~= "string" and tk ~= "number" or k ~= k then
    if k == nil then
      error("table index is nil", 2)
    elseif k ~= k then
      error("table index is NaN", 2)
    end
    error("qjson: a view's keys must be strings or numbers, got " .. tk, 2)
  end
  local edits = rawget(st, EDITS)
  if edits == nil then
    -- (These tables are sized for their first entry: an empty table's
    -- first key costs a resize.)
    edits = tnew(0, 1)
    rawset(st, EDITS, edits)
  end
  if edits[k] == nil then
    -- First edit of `k`: does the document have it?
    local kind, vn = MISSING, nil
    if tk == "string" then
      kind, vn = read_child(st[DOC][PTR], st[NODE], k, #k, 0)
    end
    if kind > MISSING then
      local enode = rawget(st, ENODE)
      if enode == nil then
        enode = tnew(0, 1)
        rawset(st, ENODE, enode)
      end
      enode[vn] = k
      -- For put_replaced: how many keys of the document were edited, and
      -- the value node of the last.
      rawset(st, NENODE, (rawget(st, NENODE) or 0) + 1)
      rawset(st, REPLACED, vn)
    elseif kind == MISSING then
      local added = rawget(st, ADDED)
      if added == nil then
        added = tnew(1, 0)
        rawset(st, ADDED, added)
      end
      added[#added + 1] = k
    else
      fail(st)
    end
  end
  if x == nil then
    x = DELETED
  end
  edits[k] = x
  uncache(st, k)
  touch(st)
end

-- Turns an array view into the edited form (orig/vals), once.
local function edit_array(st)
  if rawget(st, ORIG) ~= nil then
    return
  end
  local orig, vals, n = {}, {}, 0
  local prev = 0
  while true do
    local k, node = next_child(st[DOC][PTR], st[NODE], prev)
    if k <= MISSING then
      if k ~= MISSING then
        fail(st)
      end
      break
    end
    n = n + 1
    prev = node
    orig[n] = prev
    vals[n] = cached(st, n)
  end
  rawset(st, ORIG, orig)
  rawset(st, VALS, vals)
  rawset(st, CACHE, nil)
  st[LEN] = n
  if rawget(st, CKEY) ~= nil then
    st[CKEY], st[CVIEW], st[CKEY2], st[CVIEW2] = false, false, false, false
  end
end

local function array_set(st, i, x)
  if type(i) ~= "number" or i < 1 or i ~= floor(i) then
    error("qjson: an array view's indexes are integers from 1, got " .. tostring(i), 2)
  end
  edit_array(st)
  local n, orig, vals = st[LEN], rawget(st, ORIG), rawget(st, VALS)
  if i > n + 1 then
    error("qjson: index " .. i .. " is past the end of an array view of length " .. n
      .. " (append at " .. (n + 1) .. ")", 2)
  end
  if x == nil then
    if i > n then
      return
    end
    if i < n then
      orig[i], vals[i] = false, DELETED
    else
      -- Removing the last element drops any holes before it too, as the
      -- length of a Lua table with holes at its end would.
      orig[n], vals[n] = nil, nil
      n = n - 1
      while n > 0 and orig[n] == false and vals[n] == DELETED do
        orig[n], vals[n] = nil, nil
        n = n - 1
      end
      st[LEN] = n
    end
  else
    if i == n + 1 then
      st[LEN] = i
    end
    orig[i], vals[i] = false, x
  end
  touch(st)
end

ObjectMT.__newindex = object_set
ArrayMT.__newindex = array_set

-- table.insert / table.remove for array views (Lua's own work on the raw
-- table only): `pos` as in those functions.
function M.insert(st, ...)
  edit_array(st)
  local n, orig, vals = st[LEN], rawget(st, ORIG), rawget(st, VALS)
  local pos, x = ...
  if select("#", ...) == 1 then
    if pos == nil then
      return -- as table.insert(t, nil): nothing to append
    end
    pos, x = n + 1, pos
  elseif type(pos) ~= "number" or pos < 1 or pos > n + 1 or pos ~= floor(pos) then
    arg_error(2, "insert", "position out of bounds", 3)
  end
  for j = n, pos, -1 do
    orig[j + 1], vals[j + 1] = orig[j], vals[j]
  end
  if x == nil then
    x = DELETED
  end
  orig[pos], vals[pos] = false, x
  st[LEN] = n + 1
  touch(st)
end

function M.remove(st, pos)
  edit_array(st)
  local n, orig, vals = st[LEN], rawget(st, ORIG), rawget(st, VALS)
  if n == 0 and pos == nil then
    return nil
  end
  pos = pos or n
  if type(pos) ~= "number" or pos < 1 or pos > n or pos ~= floor(pos) then
    arg_error(2, "remove", "position out of bounds", 3)
  end
  local removed = array_get(st, pos)
  for j = pos, n - 1 do
    orig[j], vals[j] = orig[j + 1], vals[j + 1]
  end
  orig[n], vals[n] = nil, nil
  st[LEN] = n - 1
  touch(st)
  return removed
end


return M
