-- Writing views: the encoder's hooks for lazy views (qjson.encode calls
-- them from its walk; see encoder.views). An untouched view is written as
-- its original bytes; a changed one copies its untouched members as runs
-- of the input and encodes only what changed. Installed by qjson.init.
--
-- No pointer into a document is held here: bytes are copied from the
-- input by qjson_copy_input, which checks that the document is still
-- open (encoding a member may run a finalizer that closes it), and span
-- offsets come from qjson.base's readers.
local base = require("qjson.base")
local encoder = require("qjson.encode")
local F = require("qjson.view.fields")
local unique_pairs = require("qjson.view.iter").unique_pairs

local getmetatable, setmetatable, rawget = getmetatable, setmetatable, rawget

local DELETED, ObjectMT, ArrayMT = F.DELETED, F.ObjectMT, F.ArrayMT
local fail, check_raw = F.fail, F.check_raw
-- A view's fields (see qjson.view.fields): a view is its own state, `st` here.
local DOC, NODE, LEN, PTR, SRC, DIRTY_VIEWS = F.DOC, F.NODE, F.LEN, F.PTR, F.SRC, F.DIRTY_VIEWS
local DIRTY, DCHILD, EDITS, ENODE, ADDED = F.DIRTY, F.DCHILD, F.EDITS, F.ENODE, F.ADDED
local NENODE, REPLACED, ORIG, VALS = F.NENODE, F.REPLACED, F.ORIG, F.VALS
local LAZY, LENIENT = F.LAZY, F.LENIENT

local C = base.C
local MISSING = C.QJSON_STATUS_MISSING

local next_child, raw_span = base.next_child, base.raw_span

-- Appends the input's bytes [a, b) of the document of view `st`.
local function copy(buf, st, a, b)
  local n = b - a
  local p = buf:reserve(n)
  if C.qjson_copy_input(st[DOC][PTR], a, n, p) <= 0 then
    fail(st)
  end
  buf:commit(n)
end

-- Appends the original bytes of `node`.
local function put_raw(buf, st, node)
  local k, a, b = raw_span(st[DOC][PTR], node)
  if k <= MISSING then
    fail(st)
  end
  copy(buf, st, a, b)
end

-- A view that changed, or holds one: its own bytes where untouched,
-- encoded values where not.
local function is_dirty(st, node)
  local dirty = rawget(st[DOC], DIRTY_VIEWS)
  return dirty ~= nil and dirty[node]
end

-- Writes edited member `k` = `e` of an object unless it was deleted;
-- returns whether nothing has been written yet (the new `first`).
local function put_edit(buf, first, k, e, depth, put_value, put_key)
  if e == DELETED then
    return first
  end
  if not first then
    buf:put(",")
  end
  put_key(k)
  put_value(e, depth)
  return false
end

-- The members added to an object (keys its document lacks), in order.
local function put_added(buf, st, first, depth, put_value, put_key)
  local added, edits = rawget(st, ADDED), rawget(st, EDITS)
  if added ~= nil then
    for i = 1, #added do
      local k = added[i]
      first = put_edit(buf, first, k, edits[k], depth, put_value, put_key)
    end
  end
  return first
end

-- A changed object whose keys repeat: each key once, with its last value
-- (`u`: its unique_pairs), member by member (put_members copies runs of
-- the input, which would keep the repeats).
local function put_object(buf, st, u, depth, put_value, put_key)
  buf:put("{")
  local first = true
  local edits, enode = rawget(st, EDITS), rawget(st, ENODE)
  for i = 1, u.n do
    local kn, vn = u[2 * i - 1], u[2 * i]
    local k = enode and enode[vn]
    if k ~= nil then
      first = put_edit(buf, first, k, edits[k], depth, put_value, put_key)
    else
      if not first then
        buf:put(",")
      end
      first = false
      put_raw(buf, st, kn)
      buf:put(":")
      local child = is_dirty(st, vn)
      if child then
        put_value(child, depth)
      else
        put_raw(buf, st, vn)
      end
    end
  end
  put_added(buf, st, first, depth, put_value, put_key)
  buf:put("}")
end

-- Untouched members are copied from the input without looking for where
-- each value ends: qjson_member_span gives a member's key and value from
-- where the next one starts (or the container ends). Copies contiguous in
-- the input (the members of a compact document, their commas and colons)
-- are written as one run: `a`..`b`, byte offsets (a == b: none pending).
-- Where a dirty view about to be put ends (just past its closing
-- bracket), set by its parent, which knows it; see put. Keyed by the view,
-- so that a finalizer encoding other views meanwhile leaves it alone;
-- weak, so that an encode that fails before the put keeps no view alive.
local pending_end = setmetatable({}, { __mode = "k" })

-- Writes the pending run; returns an empty one.
local function flush(buf, st, a, b)
  if a ~= b then
    copy(buf, st, a, b)
  end
  return 0, 0
end

-- Adds bytes `x`..`y` to the run `a`..`b`: appended when contiguous, else
-- the run is written and a new one starts. Returns the run.
local function extend(buf, st, a, b, x, y)
  if a ~= b then
    if b == x then
      return a, y
    end
    copy(buf, st, a, b)
  end
  return x, y
end

-- The member or element after the last one written: a comma, copied with
-- the run when it is the only byte between (`start`: where the next one
-- starts in the input).
local function comma(buf, st, a, b, start)
  if a ~= b and b + 1 == start then
    return a, start
  end
  a, b = flush(buf, st, a, b)
  buf:put(",")
  return a, b
end

-- The original value `vn` at bytes [vs, ve): the view read from it when
-- that changed (told where its text ends, see pending), else its bytes,
-- added to the run being copied. Returns the run.
local function put_original(buf, st, a, b, vn, vs, ve, depth, put_value)
  local child = is_dirty(st, vn)
  if child then
    a, b = flush(buf, st, a, b)
    pending_end[child] = ve
    put_value(child, depth)
    return a, b
  end
  return extend(buf, st, a, b, vs, ve)
end

-- An object or array that is not an edited array (and, for an object,
-- whose keys do not repeat). `lim`: the offset just past its closing
-- bracket, or 0 when not known.
-- The span of child `c` of `node` (see qjson_member_span): the next
-- child, key start and end, value start and end, and the parent's end
-- after the last child.
local function member_span(st, node, c, lim)
  local k, nc, ks, ke, vs, ve, close_end = base.member_span(st[DOC][PTR], node, c, lim)
  if k <= MISSING then
    fail(st)
  end
  return nc, ks, ke, vs, ve, close_end
end

local function first_child(st, node)
  local k, c = next_child(st[DOC][PTR], node, 0)
  if k > MISSING then
    return c
  elseif k ~= MISSING then
    fail(st)
  end
  return 0
end

local function put_members(buf, st, depth, put_value, put_key, lim, object)
  local node = st[NODE]
  local edits, enode = rawget(st, EDITS), rawget(st, ENODE)
  buf:put(object and "{" or "[")
  local a, b, first, close_end = 0, 0, true, 0
  local c = first_child(st, node)
  while c ~= 0 do
    local nc, ks, ke, vs, ve, ce = member_span(st, node, c, lim)
    local vn = object and c + 1 or c
    c = nc
    if c == 0 then
      close_end = ce
    end
    local key = enode and enode[vn]
    if key ~= nil then
      a, b = flush(buf, st, a, b)
      first = put_edit(buf, first, key, edits[key], depth, put_value, put_key)
    else
      if not first then
        a, b = comma(buf, st, a, b, ks)
      end
      first = false
      if object then
        a, b = extend(buf, st, a, b, ks, ke)
        if vs == ke + 1 then
          b = vs -- the colon
        else
          a, b = flush(buf, st, a, b)
          buf:put(":")
        end
      end
      a, b = put_original(buf, st, a, b, vn, vs, ve, depth, put_value)
    end
  end
  local added = rawget(st, ADDED)
  if added == nil and a ~= b and b + 1 == close_end then
    flush(buf, st, a, close_end) -- with the closing bracket
    return
  end
  flush(buf, st, a, b)
  put_added(buf, st, first, depth, put_value, put_key)
  buf:put(object and "}" or "]")
end

-- An object of which one member's value was replaced, and nothing else
-- changed (the common edit of a gateway): its text up to that value, the
-- new value, and its text after it, whitespace included. One native call
-- and no loop, unlike put_members: a request handler that nginx calls for
-- each request has no loop of its own around the encode, and LuaJIT gives
-- up compiling a function whose trace would reach an already compiled
-- loop (put_members' member loop aborted the traces of the handler and of
-- every function between it and the loop, which then ran interpreted).
-- Returns false, having written nothing, when the object's end is not
-- known without a search of its text (a view that is neither the root
-- nor reached through its parent's writer): put_members then writes it.
local function put_replaced(buf, st, vn, x, depth, put_value, lim)
  -- The object's text is [cs, ce) of the input, the value [vs, ve).
  local k, _, _, _, vs, ve, _, cs, ce = base.member_span(st[DOC][PTR], st[NODE], vn - 1, lim)
  if k <= MISSING then
    fail(st)
  end
  if ce == 0 then
    return false
  end
  copy(buf, st, cs, vs)
  put_value(x, depth)
  copy(buf, st, ve, ce)
  return true
end

-- An edited array: original elements (runs of them when they are still
-- adjacent) and new values.
local function put_array(buf, st, depth, put_value, lim)
  local node = st[NODE]
  local orig, vals = rawget(st, ORIG), rawget(st, VALS)
  buf:put("[")
  local a, b = 0, 0
  for i = 1, st[LEN] do
    local o = orig[i]
    if o then
      local _, _, _, vs, ve = member_span(st, node, o, lim)
      if i > 1 then
        a, b = comma(buf, st, a, b, vs)
      end
      a, b = put_original(buf, st, a, b, o, vs, ve, depth, put_value)
    else
      a, b = flush(buf, st, a, b)
      if i > 1 then
        buf:put(",")
      end
      local x = vals[i]
      if x == DELETED then
        buf:put("null")
      else
        put_value(x, depth)
      end
    end
  end
  flush(buf, st, a, b)
  buf:put("]")
end

-- The encoder's hook for views in its default (compact) output: an
-- untouched view is its original bytes.
local function put(buf, st, depth, put_value, put_key)
  check_raw(st)
  local lim = pending_end[st]
  if lim then
    pending_end[st] = nil
  else
    lim = 0
  end
  if not rawget(st, DIRTY) then
    local src = st[NODE] == 0 and st[DOC][SRC]
    if src then
      -- The whole text, with the whitespace around the root.
      buf:put(src)
      return
    end
    put_raw(buf, st, st[NODE])
    return
  end
  if getmetatable(st) == ObjectMT then
    local u = unique_pairs(st)
    if u then
      return put_object(buf, st, u, depth, put_value, put_key)
    end
    if rawget(st, NENODE) == 1 and rawget(st, ADDED) == nil and not rawget(st, DCHILD) then
      local vn = rawget(st, REPLACED)
      local x = rawget(st, EDITS)[rawget(st, ENODE)[vn]]
      if x ~= DELETED and put_replaced(buf, st, vn, x, depth, put_value, lim) then
        return
      end
    end
    return put_members(buf, st, depth, put_value, put_key, lim, true)
  end
  if rawget(st, ORIG) ~= nil then
    return put_array(buf, st, depth, put_value, lim)
  end
  return put_members(buf, st, depth, put_value, put_key, lim, false)
end

-- Whether `st`'s document was parsed in lazy mode.
local function lazy(st)
  return rawget(st[DOC], LAZY) ~= nil
end

-- Whether the text of document record `d`, parsed with invalid_numbers,
-- holds a number outside JSON: whether it fails a strict parse (made
-- once; the document's own parse left no trace of the numbers it let
-- through). A lazy-mode or parse_file document is not parsed again: it is
-- taken to hold one.
local function holds_lenient_numbers(d)
  local src = rawget(d, LAZY) == nil and d[SRC]
  if not src then
    return true
  end
  local o = base.new_options() -- (strict, and any depth: its parse checked that)
  o.max_depth = 2147483647
  return C.qjson_parse_size(src, #src, o, nil) == 0
end

-- How the encoder may copy the bytes of view `st`: nil, as they are;
-- "check", then check its output as strict JSON (lazy mode: the bytes
-- were never checked); "members", not at all: the view is written member
-- by member (qjson.view.members), because its document holds numbers
-- outside JSON (NaN, 0x10, 1.), read with invalid_numbers: encode writes
-- JSON, and each such number as lua-cjson writes the value its decode
-- gives (or raises, per encode_invalid_numbers).
local function copying(st)
  local d = st[DOC]
  local lenient = rawget(d, LENIENT)
  if lenient then
    if lenient == true then
      lenient = holds_lenient_numbers(d)
      rawset(d, LENIENT, lenient)
    end
    if lenient then
      return "members"
    end
  end
  if rawget(d, LAZY) ~= nil then
    return "check"
  end
  return nil
end

-- The text encode returns for `v` without writing anything: the parsed
-- string itself for an untouched document root whose bytes are copied as
-- they are (see copying).
local function source(v)
  local src = not rawget(v, DIRTY) and v[NODE] == 0 and copying(v) == nil and v[DOC][SRC]
  if src then
    -- (Else the encoder's walk checks it.)
    F.check_near(v)
    return src
  end
  return nil
end

encoder.views[ObjectMT] = {
  put = put, members = require("qjson.view.members"), source = source, lazy = lazy, copying = copying,
  check = F.check_near,
}
encoder.views[ArrayMT] = encoder.views[ObjectMT]
encoder.view_field = DOC
