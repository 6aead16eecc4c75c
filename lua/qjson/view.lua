-- Lazy views: what qjson.decode and doc:get return for objects and arrays.
--
-- A view reads like the table lua-cjson's decode would build, but reads
-- through the parsed document on demand. A view is one table, the view
-- itself: its fields sit under private keys, strings that are not UTF-8,
-- so that no JSON text gives a member such a key (qjson rejects what is
-- not UTF-8) and every JSON key misses the raw table and reaches the
-- metamethods. (Lazy mode, which checks a string's UTF-8 when it is
-- read, still refuses at parse a key that starts with byte 0xFF, the
-- first byte of every private key: src/validate.rs.) Every string qjson
-- reads from a body is UTF-8, so none names a field; a key built by the
-- caller from unchecked bytes can (docs/api.md). One table per view
-- matters: a decode makes a view for every container it reads, and a
-- proxy with a separate state table cost about twice as much to make (101 ns against 58 ns in a loop that only
-- makes views, 2026-11-24).
--
-- The fields a view always has are written in one constructor per kind
-- (new_view, decoded), so that creating a view copies a template instead
-- of inserting keys. They are never nil (false instead): assigning to a
-- raw key whose value is nil would reach __newindex. Each kind carries
-- only what it uses, because the count sets the table's size: eight keys
-- take a hash part of 8 slots, nine or ten one of 16, three or four one
-- of 4 (2026-11-24: a decode's root object went from 448 to 256 bytes;
-- a leaf, below, from 256 to 160).
--   DOC      the document record, a table with private keys too: PTR,
--            the document's handle; SRC, the parsed string (nil for a
--            file); BIG_INT, the decode's big_int option; DIRTY_VIEWS,
--            node -> view for every view that changed or holds one that
--            changed (what encode must not copy as bytes); VIEWS, below.
--            A decode's root view is its own record (a table fewer per
--            decode); doc:get's views share one made for their Doc.
--   NODE     the container's node; PARENT: the parent view, or false
--            (absent on a decode's root, which has none: read it with
--            rawget); LEN: an array's length once known, else false
--            (arrays only)
--   CKEY, CVIEW, CKEY2, CVIEW2, and CACHE
--            child views read so far, by key or index (absent on a leaf,
--            a view of a container with no container in it, which can
--            have no child view: read them with rawget): a container read
--            twice is the same view, and a view edited through a
--            temporary reference (`v.a.b = 1`) keeps its edit. The first
--            two are held in the slots (key, view; false until then), the
--            others in the CACHE table, made only for a third one (a
--            table costs as much as a read). Scalars are not cached (a
--            read is one native call).
-- The fields only some views get are added with rawset and read with
-- rawget (a plain read of a missing key would call __index):
--   DIRTY    this view or a descendant was edited; DCHILD: a descendant
--   objects: EDITS[k] = new value or DELETED; ENODE[value node] = k for
--            edited keys the document has; ADDED = keys it has not,
--            in the order they were added; NENODE and REPLACED: how
--            many keys of the document were edited, and the value node
--            of the last (for the encoder's one-member fast path)
--   arrays, once edited: ORIG[i] = node of an original element or
--            false; VALS[i] = the element's value (an edit, or a cached
--            read of ORIG[i]); DELETED marks a hole (reads nil, encodes
--            as null)
--   UNIQ     an object's unique_pairs, once computed
-- Views opened by doc:get are also kept in the record's VIEWS (node ->
-- view), so that the same path gives the same view.
--
-- This module reads, iterates and edits views; qjson.view.write writes
-- them for the encoder and qjson.view.materialize turns them into plain
-- tables, both through the internals exported at the end.
local ffi = require("ffi")
local base = require("qjson.base")

local type, error, rawget, rawset, setmetatable, getmetatable, tostring, tonumber, floor, next, ipairs =
  type, error, rawget, rawset, setmetatable, getmetatable, tostring, tonumber, math.floor, next, ipairs
local select, pairs = select, pairs
local getinfo = debug.getinfo
local ffi_string = ffi.string
local tnew = require("table.new")

local MISSING = 0
local NULL, BOOLEAN, NUMBER, STRING, ARRAY, OBJECT = 1, 2, 3, 4, 5, 6

local M = {}

-- Set by qjson.init: the value a JSON null reads as.
M.null = nil

-- A view's private keys (see the top of this file). new_view and decoded
-- spell the first eight again, as constants of their constructors.
local DOC, NODE, PARENT, LEN, CKEY, CVIEW, CKEY2, CVIEW2 =
  "\255doc", "\255node", "\255parent", "\255len", "\255ckey", "\255cview", "\255ckey2", "\255cview2"
local DIRTY, DCHILD, EDITS, ENODE, ADDED, NENODE, REPLACED, ORIG, VALS, CACHE, UNIQ =
  "\255dirty", "\255dchild", "\255edits", "\255enode", "\255added", "\255nenode", "\255replaced",
  "\255orig", "\255vals", "\255cache", "\255uniq"
-- The document record's (decoded's constructor spells the first two).
local PTR, SRC, BIG_INT, DIRTY_VIEWS, VIEWS = "\255ptr", "\255src", "\255big_int", "\255dirty_views", "\255views"
-- Set (true) on the record of a document parsed in lazy mode.
local LAZY = "\255lazy"

-- Above any array's length (nodes are 32-bit).
local MAX_INDEX = 2 ^ 32

local DELETED = setmetatable({}, { __tostring = function() return "qjson.view.deleted" end })

-- The boxes are qjson.base's, and so are the rules for reading them: a
-- ticket (S.seq) before each native call, the values out of the box,
-- then the check. value_of returns RETRY when the check fails: the
-- caller reads again.
local C, S = base.C, base.S
local key_box, val_box, node_box, ptr_box, size_box, i64_box, u64_box =
  base.key_box, base.val_box, base.node_box, base.ptr_box, base.size_box, base.i64_box, base.u64_box
-- val_box.num, read through C.qjson_load_f64 (see src/ffi/load.rs: a load
-- from a box can be moved past the next call that rewrites it).
local val_num = base.val_num
local error_message, copy_string = base.error_message, base.copy_string
local RETRY = setmetatable({}, { __tostring = function() return "qjson.view.retry" end })

local ObjectMT, ArrayMT = {}, {}
M.ObjectMT, M.ArrayMT = ObjectMT, ArrayMT

-- Raises the message of the native read that just failed (lazy mode's
-- deferred value errors, a closed document).
local function fail(st)
  error("qjson: " .. error_message(st[DOC][PTR]), 0)
end

-- Raises when array view `st` has a raw element: table.insert (which
-- appends at the raw length, 0 for a view) wrote past the metamethods,
-- so reads would see the element and the view's own state would not.
-- Checked where it would be lost or disagree: iteration, length, encode,
-- materialize. (Other raw writes, rawset(v, k, x), are not found: reads
-- of `k` see `x`, nothing else does; see docs/api.md.)
local function raw_error(k)
  error("qjson: a view was changed past its metamethods (table.insert, rawset...), at key " .. tostring(k)
    .. ": use assignment, qjson.insert and qjson.remove on views", 0)
end

local function check_raw(st)
  if rawget(st, 1) ~= nil then
    raw_error(1)
  end
end
M.check_raw = check_raw

-- check_raw on view `v` and on every view read from it so far (its
-- cached children, recursively): an encode or materialize that copies
-- `v`'s bytes would lose what was inserted into one of them. Linear in
-- the views read; nothing is done at read time.
local function check_tree(v)
  if rawget(v, 1) ~= nil then
    raw_error(1)
  end
  local c = rawget(v, CVIEW)
  if c then
    check_tree(c)
  end
  c = rawget(v, CVIEW2)
  if c then
    check_tree(c)
  end
  local cache = rawget(v, CACHE)
  if cache ~= nil then
    for _, x in pairs(cache) do
      check_tree(x)
    end
  end
  local orig = rawget(v, ORIG)
  if orig ~= nil then
    -- (Elements read from the document only: an assigned view is not a
    -- child, and may even be `v`.)
    local vals = rawget(v, VALS)
    for i = 1, v[LEN] do
      local x = vals[i]
      if orig[i] and type(x) == "table" and (getmetatable(x) == ArrayMT or getmetatable(x) == ObjectMT) then
        check_tree(x)
      end
    end
  end
end
-- For materialize: check_tree, and for a Doc's views, on every view
-- doc:get opened (not all are read from another).
M.check_tree = function(v)
  check_tree(v)
  local registry = rawget(v[DOC], VIEWS)
  if registry ~= nil then
    for _, x in pairs(registry) do
      check_tree(x)
    end
  end
end

-- For encode, which runs inside request handlers that LuaJIT should
-- compile whole: the same check, but with neither a loop nor recursion
-- (a compiled loop, or a return to a lower frame, stops the caller's
-- trace): `v`, and the views read from it through its first two cached
-- children, three levels down. Views read deeper, or as a view's third
-- child or later, are not checked here (docs/api.md).
local function check2(v)
  if v then
    if rawget(v, 1) ~= nil then
      raw_error(1)
    end
    local c = rawget(v, CVIEW)
    if c and rawget(c, 1) ~= nil then
      raw_error(1)
    end
    c = rawget(v, CVIEW2)
    if c and rawget(c, 1) ~= nil then
      raw_error(1)
    end
  end
end
local function check1(v)
  if v then
    check2(v)
    check2(rawget(v, CVIEW))
    check2(rawget(v, CVIEW2))
  end
end
M.check_near = function(v)
  check1(v)
  check1(rawget(v, CVIEW))
  check1(rawget(v, CVIEW2))
end

local function is_view(v)
  local mt = getmetatable(v)
  return (mt == ObjectMT or mt == ArrayMT) and type(v) == "table"
end
M.is_view = is_view

-- A new view of container `node` of document record `d`: `parent` is the
-- parent view or false, `n` an array's length or false; `leaf` when no
-- member of the container is a container.
local function new_view(d, node, kind, parent, n, leaf)
  local v
  if leaf then
    if kind == OBJECT then
      v = setmetatable({ ["\255doc"] = d, ["\255node"] = node, ["\255parent"] = parent }, ObjectMT)
    else
      v = setmetatable({ ["\255doc"] = d, ["\255node"] = node, ["\255parent"] = parent, ["\255len"] = n },
        ArrayMT)
    end
  elseif kind == OBJECT then
    v = setmetatable({
      ["\255doc"] = d, ["\255node"] = node, ["\255parent"] = parent,
      ["\255ckey"] = false, ["\255cview"] = false, ["\255ckey2"] = false, ["\255cview2"] = false,
    }, ObjectMT)
  else
    v = setmetatable({
      ["\255doc"] = d, ["\255node"] = node, ["\255parent"] = parent, ["\255len"] = n,
      ["\255ckey"] = false, ["\255cview"] = false, ["\255ckey2"] = false, ["\255cview2"] = false,
    }, ArrayMT)
  end
  local registry = rawget(d, VIEWS)
  if registry ~= nil then
    registry[node] = v
  end
  return v
end

-- Marks view `st` and its ancestors dirty, and its ancestors as holding
-- a dirty child (DCHILD).
local function touch(st)
  local from_child = false
  while st and not rawget(st, DIRTY) do
    rawset(st, DIRTY, true)
    if from_child then
      rawset(st, DCHILD, true)
    end
    local dirty = rawget(st[DOC], DIRTY_VIEWS)
    if dirty == nil then
      dirty = {}
      rawset(st[DOC], DIRTY_VIEWS, dirty)
    end
    dirty[st[NODE]] = st
    st = rawget(st, PARENT)
    from_child = true
  end
  if st and from_child then
    rawset(st, DCHILD, true)
  end
end

-- The child view cached at `k` (non-nil) in view `st`, or nil.
local function cached(st, k)
  if rawget(st, CKEY) == k then
    return st[CVIEW]
  elseif rawget(st, CKEY2) == k then
    return st[CVIEW2]
  end
  local cache = rawget(st, CACHE)
  if cache ~= nil then
    return cache[k]
  end
  return nil
end

-- Forgets the child view cached at `k`.
local function uncache(st, k)
  if rawget(st, CKEY) == k then
    st[CKEY], st[CVIEW] = false, false
  elseif rawget(st, CKEY2) == k then
    st[CKEY2], st[CVIEW2] = false, false
  end
  local cache = rawget(st, CACHE)
  if cache ~= nil then
    cache[k] = nil
  end
end

-- The view of child container `node` of view `pst`, at `key` of its cache
-- (which the caller found empty); `key` nil for an edited array, whose
-- VALS hold what was read (indexes move there, so they cannot key a cache).
-- `len` and `leaf`: the element count and leaf flag the read gave.
local function child_view(pst, node, kind, key, len, leaf)
  local registry = rawget(pst[DOC], VIEWS)
  local v = registry and registry[node]
  if v == nil then
    v = new_view(pst[DOC], node, kind, pst, kind == ARRAY and tonumber(len), leaf)
  else
    -- Opened by doc:get before: adopted by its parent.
    if not rawget(v, PARENT) and v ~= pst then
      rawset(v, PARENT, pst)
      if rawget(v, DIRTY) then
        rawset(v, DIRTY, false)
        touch(v)
      end
    end
  end
  -- (`pst` holds a container, so it is no leaf: it has the slots.)
  if key ~= nil then
    if not pst[CKEY] then
      pst[CKEY], pst[CVIEW] = key, v
    elseif not pst[CKEY2] then
      pst[CKEY2], pst[CVIEW2] = key, v
    else
      local cache = rawget(pst, CACHE)
      if cache == nil then
        -- Sized for the children an array has, or a few members.
        local n = rawget(pst, LEN)
        cache = n and tnew(n, 0) or tnew(0, 4)
        rawset(pst, CACHE, cache)
      end
      cache[key] = v
    end
  end
  return v
end

-- An integer beyond ±(2^53 - 1), exactly, per the decode's big_int option.
local function big_integer(st, node, approx)
  local mode = rawget(st[DOC], BIG_INT)
  local t = S.seq + 1
  S.seq = t
  if mode == "cdata" then
    -- (The 64-bit loads allocate: after the checks.)
    local k = C.qjson_get_i64(st[DOC][PTR], node, nil, 0, nil, i64_box)
    if S.seq ~= t then
      return big_integer(st, node, approx)
    end
    if k == NUMBER then
      return C.qjson_load_i64(i64_box)
    end
    t = S.seq + 1
    S.seq = t
    k = C.qjson_get_u64(st[DOC][PTR], node, nil, 0, nil, u64_box)
    if S.seq ~= t then
      return big_integer(st, node, approx)
    end
    if k == NUMBER then
      return C.qjson_load_u64(u64_box)
    end
  elseif mode == "string" then
    local k = C.qjson_get_raw(st[DOC][PTR], node, nil, 0, nil, ptr_box, size_box)
    if S.seq ~= t then
      return big_integer(st, node, approx)
    end
    if k <= 0 then
      fail(st)
    end
    local p, n = ptr_box[0], size_box[0]
    if S.seq ~= t then
      return copy_string(st[DOC][PTR], node, true) or fail(st)
    end
    local str = ffi_string(p, n)
    return str
  end
  return approx
end

-- The Lua value of kind `k` just read into val_box, the child at `key` of
-- view `st`; RETRY when the box may have been rewritten since ticket `t`.
local function value_of(st, k, key, t)
  -- (No tail calls here: LuaJIT cannot trace a return from a builtin into
  -- a frame below the trace.)
  local box = val_box
  if k == STRING then
    local node = box.node
    if S.seq ~= t then
      return RETRY
    end
    local p, n = box.ptr, box.len
    if S.seq ~= t then
      return copy_string(st[DOC][PTR], node) or fail(st)
    end
    local str = ffi_string(p, n)
    return str
  elseif k == NUMBER then
    local flag, node, num = box.flag, box.node, C.qjson_load_f64(val_num)
    if S.seq ~= t then
      return RETRY
    end
    if flag ~= 0 and rawget(st[DOC], BIG_INT) ~= nil then
      return big_integer(st, node, num)
    end
    return num
  elseif k == OBJECT or k == ARRAY then
    local node, leaf = box.node, box.flag ~= 0
    if S.seq ~= t then
      return RETRY
    end
    local v = child_view(st, node, k, key, box.len, leaf)
    return v
  elseif k == BOOLEAN then
    local b = box.flag ~= 0
    if S.seq ~= t then
      return RETRY
    end
    return b
  elseif k == NULL then
    return M.null
  elseif k == MISSING then
    return nil
  end
  if S.seq ~= t then
    return RETRY
  end
  fail(st)
end

------------------------------------------------------------------------
-- Reading

local function object_get(st, k)
  local edits = rawget(st, EDITS)
  if edits ~= nil then
    local e = edits[k]
    if e ~= nil then
      if e == DELETED then
        return nil
      end
      return e
    end
  end
  if type(k) ~= "string" then
    return nil
  end
  local c = cached(st, k)
  if c ~= nil then
    return c
  end
  local t = S.seq + 1
  S.seq = t
  local v = value_of(st, C.qjson_child(st[DOC][PTR], st[NODE], k, #k, 0, val_box), k, t)
  if v == RETRY then
    return object_get(st, k)
  end
  return v
end

-- The length of an array view.
local function array_len(st)
  local n = st[LEN]
  if not n then
    -- (A failed read, of a closed document say, leaves size_box as the
    -- last read of any document left it.)
    local t = S.seq + 1
    S.seq = t
    local k = C.qjson_get_len(st[DOC][PTR], st[NODE], nil, 0, nil, size_box)
    if S.seq ~= t then
      return array_len(st)
    end
    if k ~= ARRAY then
      fail(st)
    end
    n = tonumber(size_box[0])
    st[LEN] = n
  end
  return n
end

local function array_get(st, i)
  if type(i) ~= "number" then
    return nil
  end
  local orig = rawget(st, ORIG)
  if orig ~= nil then
    local o = orig[i]
    if o == nil then
      return nil
    end
    local vals = rawget(st, VALS)
    local v = vals[i]
    if v == nil then
      local t = S.seq + 1
      S.seq = t
      v = value_of(st, C.qjson_read(st[DOC][PTR], o, val_box), nil, t)
      if v == RETRY then
        return array_get(st, i)
      end
      vals[i] = v
    elseif v == DELETED then
      return nil
    end
    return v
  end
  local c = cached(st, i)
  if c ~= nil then
    return c
  end
  -- (The native side reports indexes past the end as missing; past
  -- MAX_INDEX, which no array reaches, the index would not convert.)
  if i < 1 or i ~= floor(i) or i > MAX_INDEX then
    return nil
  end
  local t = S.seq + 1
  S.seq = t
  local v = value_of(st, C.qjson_child(st[DOC][PTR], st[NODE], nil, 0, i - 1, val_box), i, t)
  if v == RETRY then
    return array_get(st, i)
  end
  return v
end

ObjectMT.__index = object_get
ArrayMT.__index = array_get

-- Reads the path from the document's root view down to view `st`, a
-- view doc:get opened below the root: the last read adopts it
-- (child_view), so that an edit of it (which marks its ancestors) is
-- seen by an encode of the root. (Done when it is opened, not when it
-- is first edited: a branch in touch cost its compiled loop 5% more
-- instructions on a nested edit.) Nodes
-- are numbered in document order, so the child whose subtree holds
-- `st` is the last one whose node is not past st's. Stops where the
-- path was edited away (the root then does not hold `st`).
local function attach(st)
  local d, target = st[DOC], st[NODE]
  local ptr = d[PTR]
  local x = d[VIEWS][0]
  if x == nil then
    local kind = C.qjson_read(ptr, 0, val_box)
    if kind ~= OBJECT and kind ~= ARRAY then
      fail(st)
    end
    x = new_view(d, 0, kind, false, false)
  end
  while x ~= st do
    local object = getmetatable(x) == ObjectMT
    local prev, i, last = 0, 0, nil
    while true do
      local k = C.qjson_next(ptr, x[NODE], prev, node_box)
      if k <= 0 then
        if k ~= MISSING then
          fail(x)
        end
        break
      end
      local c = node_box[0]
      if c > target then
        break
      end
      prev, last, i = c, c, i + 1
    end
    if last == nil then
      return
    end
    local child
    if object then
      if C.qjson_read(ptr, last, key_box) ~= STRING then
        fail(x)
      end
      child = object_get(x, ffi_string(key_box.ptr, key_box.len))
      last = last + 1
    else
      local orig = rawget(x, ORIG)
      if orig ~= nil then
        i = nil
        for j = 1, x[LEN] do
          if orig[j] == last then
            i = j
            break
          end
        end
      end
      child = i and array_get(x, i)
    end
    if not is_view(child) or child[NODE] ~= last then
      return
    end
    x = child
  end
end

------------------------------------------------------------------------
-- Iteration

-- For an object whose keys repeat: the (key node, last value node) pairs,
-- each key once; false when no key repeats (computed once per view).
local function unique_pairs(st)
  local u = rawget(st, UNIQ)
  if u == nil then
    local count = tonumber(C.qjson_unique_members(st[DOC][PTR], st[NODE], nil, 0))
    if count < 0 then
      fail(st)
    end
    u = false
    if count > 0 then
      -- (A buffer of this call's own: the document may be closed while
      -- it is allocated.)
      local buf = ffi.new("uint32_t[?]", 2 * count)
      if C.qjson_unique_members(st[DOC][PTR], st[NODE], buf, count) < 0 then
        fail(st)
      end
      u = { n = count }
      for i = 0, 2 * count - 1 do
        u[i + 1] = buf[i]
      end
    end
    rawset(st, UNIQ, u)
  end
  return u
end

-- The key just read into key_box under ticket `t` (node `kn`).
local function key_string(st, kn, t)
  local p, n = key_box.ptr, key_box.len
  if S.seq ~= t then
    return copy_string(st[DOC][PTR], kn) or fail(st)
  end
  local key = ffi_string(p, n)
  return key
end

-- Steps through an object's original members, each key once with its last
-- value. `pos` is 0 to start; returns the next pos, the key, the value's
-- kind and node, and the ticket under which the value was read into
-- val_box (making the key's string may have run a finalizer since: see
-- member_value); nil at the end.
local function step_member(st, pos)
  local u = unique_pairs(st)
  local t = S.seq + 1
  S.seq = t
  if u then
    local i = pos + 1
    if i > u.n then
      return nil
    end
    local kn, vn = u[2 * i - 1], u[2 * i]
    local kk = C.qjson_read(st[DOC][PTR], kn, key_box)
    if S.seq ~= t then
      return step_member(st, pos)
    end
    if kk ~= STRING then
      fail(st)
    end
    local key = key_string(st, kn, t)
    t = S.seq + 1
    S.seq = t
    local kind = C.qjson_read(st[DOC][PTR], vn, val_box)
    if kind <= 0 and S.seq == t then
      fail(st)
    end
    return i, key, kind, vn, t
  end
  local kind = C.qjson_entry(st[DOC][PTR], st[NODE], pos, key_box, val_box)
  local kn = key_box.node
  if S.seq ~= t then
    return step_member(st, pos)
  end
  if kind <= 0 then
    if kind == MISSING then
      return nil
    end
    fail(st)
  end
  return kn, key_string(st, kn, t), kind, kn + 1, t
end

-- The value of member `key` (value node `vn`, of kind `kind`) that
-- step_member read into val_box under ticket `t`, read again if needed.
local function member_value(st, kind, key, vn, t)
  local v = value_of(st, kind, key, t)
  while v == RETRY do
    t = S.seq + 1
    S.seq = t
    v = value_of(st, C.qjson_read(st[DOC][PTR], vn, val_box), key, t)
  end
  return v
end

-- Iterator state: { st, pos (original members), added (index into
-- rawget(st, ADDED), once the original members are done) }.
local function object_next(it)
  local st = it.st
  local pos = it.pos
  while pos ~= nil do
    local np, k, kind, vn, t = step_member(st, pos)
    it.pos = np
    pos = np
    if np ~= nil then
      local edits = rawget(st, EDITS)
      local e = edits and edits[k]
      if e == nil then
        local v = cached(st, k)
        if v == nil then
          v = member_value(st, kind, k, vn, t)
        end
        return k, v
      elseif e ~= DELETED then
        return k, e
      end
    end
  end
  local added = rawget(st, ADDED)
  if added ~= nil then
    local i = it.added
    while true do
      i = i + 1
      local k = added[i]
      if k == nil then
        break
      end
      local e = rawget(st, EDITS)[k]
      if e ~= DELETED then
        it.added = i
        return k, e
      end
    end
    it.added = i
  end
  return nil
end

local function object_pairs(v)
  check_raw(v)
  return object_next, { st = v, pos = 0, added = 0 }, nil
end

-- ipairs: 1..n, stopping at the first hole, as Lua's ipairs does.
local function array_inext(v, i)
  i = i + 1
  local x = array_get(v, i)
  if x ~= nil then
    return i, x
  end
end

-- pairs: every index 1..n that holds a value.
local function array_next(v, i)
  local n = array_len(v)
  i = i + 1
  while i <= n do
    local x = array_get(v, i)
    if x ~= nil then
      return i, x
    end
    i = i + 1
  end
end

local function array_pairs(v)
  check_raw(v)
  return array_next, v, 0
end

local function array_ipairs(v)
  check_raw(v)
  return array_inext, v, 0
end

-- As `#` on the table lua-cjson builds: the element count for an array,
-- 0 for an object (its keys are strings).
local function view_len(v)
  check_raw(v)
  local mt = getmetatable(v)
  if mt == ArrayMT then
    return array_len(v)
  end
  return 0
end

ObjectMT.__pairs = object_pairs
ArrayMT.__pairs = array_pairs
ArrayMT.__ipairs = array_ipairs
-- ipairs over an object view reads v[1], v[2], ... like any table.
local function generic_inext(v, i)
  i = i + 1
  local x = v[i]
  if x ~= nil then
    return i, x
  end
end
ObjectMT.__ipairs = function(v)
  return generic_inext, v, 0
end
-- `#` of an object view, 0 as for lua-cjson's table; but OpenResty's
-- lua-cjson (C) calls __len to tell arrays from objects, and would write
-- an object view as `[]`: called from C, it raises instead.
local function object_len(v)
  local caller = getinfo(2, "S")
  if caller ~= nil and caller.what == "C" then
    error("qjson: lua-cjson cannot encode a qjson view (an object): use qjson.encode, or qjson.materialize first", 0)
  end
  return view_len(v)
end
ObjectMT.__len = object_len
ArrayMT.__len = view_len

M.object_pairs, M.array_pairs, M.array_ipairs, M.len = object_pairs, array_pairs, array_ipairs, view_len

------------------------------------------------------------------------
-- Editing

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
    edits = {}
    rawset(st, EDITS, edits)
  end
  if edits[k] == nil then
    -- First edit of `k`: does the document have it?
    local t = S.seq + 1
    S.seq = t
    local kind = tk == "string" and C.qjson_child(st[DOC][PTR], st[NODE], k, #k, 0, val_box) or MISSING
    local vn = val_box.node
    if S.seq ~= t then
      return object_set(st, k, x)
    end
    if kind > 0 then
      local enode = rawget(st, ENODE)
      if enode == nil then
        enode = {}
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
        added = {}
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
    local t = S.seq + 1
    S.seq = t
    local k = C.qjson_next(st[DOC][PTR], st[NODE], prev, node_box)
    local node = node_box[0]
    if S.seq == t then
      if k <= 0 then
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
    error("bad argument #2 to 'insert' (position out of bounds)", 3)
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
    error("bad argument #2 to 'remove' (position out of bounds)", 3)
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

------------------------------------------------------------------------
-- Making views

-- The view of container `node` of Doc `doc` (a document or cursor of
-- qjson.parse), for doc:get: one record per Doc, made on first use.
function M.open(doc, node, kind)
  doc = doc.root or doc
  local d = doc.record
  if d == nil then
    d = { [PTR] = doc.ptr, [SRC] = doc.src, [VIEWS] = {}, [LAZY] = doc.lazy }
    doc.record = d
  end
  local v = d[VIEWS][node]
  if v ~= nil then
    return v
  end
  v = new_view(d, node, kind, false, false)
  if node ~= 0 then
    attach(v)
  end
  return v
end

-- What qjson.decode returns for document `ptr` parsed from `src`: a view
-- of an object or array root, else the scalar (and the document is
-- closed). `first`, when given, is the text's first byte: a brace or
-- bracket there names the root's kind without a native call. `big_int`:
-- the decode's option of that name; `lazy`: true for a lazy-mode parse.
function M.decoded(ptr, src, first, big_int, lazy)
  local kind
  if first == 123 then
    kind = OBJECT
  elseif first == 91 then
    kind = ARRAY
  else
    kind = C.qjson_read(ptr, 0, val_box)
  end
  if kind == OBJECT or kind == ARRAY then
    -- The fields of new_view's but PARENT, and the record's PTR and SRC.
    local v
    if kind == OBJECT then
      v = setmetatable({
        ["\255doc"] = false, ["\255node"] = 0,
        ["\255ckey"] = false, ["\255cview"] = false, ["\255ckey2"] = false, ["\255cview2"] = false,
        ["\255ptr"] = ptr, ["\255src"] = src,
      }, ObjectMT)
    else
      v = setmetatable({
        ["\255doc"] = false, ["\255node"] = 0, ["\255len"] = false,
        ["\255ckey"] = false, ["\255cview"] = false, ["\255ckey2"] = false, ["\255cview2"] = false,
        ["\255ptr"] = ptr, ["\255src"] = src,
      }, ArrayMT)
    end
    v[DOC] = v
    if big_int ~= nil then
      rawset(v, BIG_INT, big_int)
    end
    if lazy then
      rawset(v, LAZY, true)
    end
    return v
  end
  local st = { [DOC] = { [PTR] = ptr, [BIG_INT] = big_int } }
  local t = S.seq + 1
  S.seq = t
  local v = value_of(st, C.qjson_read(ptr, 0, val_box), nil, t)
  if v == RETRY then
    return M.decoded(ptr, src, first, big_int)
  end
  C.qjson_close(ptr)
  return v
end

-- qjson.pairs / ipairs / len: on views and plain tables alike, on every
-- LuaJIT build (Lua 5.1 semantics ignore __pairs and __len).
function M.pairs(t)
  local mt = getmetatable(t)
  if mt == ObjectMT then
    return object_pairs(t)
  elseif mt == ArrayMT then
    return array_pairs(t)
  end
  return next, t, nil
end

function M.ipairs(t)
  local mt = getmetatable(t)
  if mt == ArrayMT then
    return array_ipairs(t)
  elseif mt == ObjectMT then
    return generic_inext, t, 0
  end
  return ipairs(t)
end

function M.length(t)
  local mt = getmetatable(t)
  if mt == ObjectMT or mt == ArrayMT then
    return view_len(t)
  end
  return #t
end

-- For qjson.view.write and qjson.view.materialize.
M.DELETED = DELETED
M.DOC, M.NODE, M.LEN, M.PTR, M.SRC, M.BIG_INT, M.DIRTY_VIEWS = DOC, NODE, LEN, PTR, SRC, BIG_INT, DIRTY_VIEWS
-- For spec/view_spec.lua: the keys new_view's array constructor spells
-- out, which must be these (objects leave out LEN, roots PARENT, leaves
-- the cache slots).
M.FIELDS = { DOC, NODE, PARENT, LEN, CKEY, CVIEW, CKEY2, CVIEW2 }
M.PARENT, M.CKEY, M.CVIEW, M.CKEY2, M.CVIEW2 = PARENT, CKEY, CVIEW, CKEY2, CVIEW2
M.DIRTY, M.DCHILD, M.EDITS, M.ENODE, M.ADDED = DIRTY, DCHILD, EDITS, ENODE, ADDED
M.NENODE, M.REPLACED, M.ORIG, M.VALS = NENODE, REPLACED, ORIG, VALS
M.fail, M.unique_pairs, M.array_len, M.array_get = fail, unique_pairs, array_len, array_get
M.step_member, M.member_value, M.cached, M.LAZY = step_member, member_value, cached, LAZY

return M
