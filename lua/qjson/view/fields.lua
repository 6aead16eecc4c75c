-- qjson.view.fields: a lazy view's fields, the view constructors, and the
-- checks every part of qjson.view shares. What a view is:
--
-- A view reads like the table lua-cjson's decode would build, but reads
-- through the parsed document on demand. A view is one table, the view
-- itself: its fields sit under private keys, strings that are not UTF-8,
-- so that no JSON text gives a member such a key (qjson rejects what is
-- not UTF-8) and every JSON key misses the raw table and reaches the
-- metamethods. (Lazy mode, which checks a string's UTF-8 when it is
-- read, still refuses at parse a key that starts with byte 0xFF, the
-- first byte of every private key: crates/core/src/stage2/mod.rs.) Every string qjson
-- reads from a body is UTF-8, so none names a field; a key built by the
-- caller from unchecked bytes can (docs/api.md). One table per view
-- matters: a decode makes a view for every container it reads, and a
-- proxy with a separate state table costs far more to make
-- (docs/performance-log.md has the measurement).
--
-- The fields a view always has are written in one constructor per kind
-- (new_view, decoded), so that creating a view copies a template instead
-- of inserting keys. They are never nil (false instead): assigning to a
-- raw key whose value is nil would reach __newindex. Each kind carries
-- only what it uses, because the count sets the table's size: eight keys
-- take a hash part of 8 slots, nine or ten one of 16, three or four one
-- of 4 (docs/performance-log.md: the sizes this saved).
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
-- rawget (a plain read of a missing key would call __index; a decode's
-- root spells those of an edit as nil in its constructor, which gives
-- them slots, and a plain write of a nil key would call __newindex):
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
--
-- The parts: qjson.view.fields (this: the layout, constructors, the
-- cache of child views, dirty marks), qjson.view.read (reads, and the
-- views qjson.decode and doc:get make), qjson.view.iter (pairs, ipairs,
-- length), qjson.view.edit (assignment, insert, remove),
-- qjson.view.write and qjson.view.members (the encoder's hooks),
-- qjson.view.materialize (plain tables); qjson.view is the API others use.
local base = require("qjson.base")

local type, error, rawget, rawset, setmetatable, getmetatable, tostring, tonumber, next =
  type, error, rawget, rawset, setmetatable, getmetatable, tostring, tonumber, next
local tnew = require("table.new")

local C = base.C
local ARRAY, OBJECT = C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT
local error_message = base.error_message
local NO = base.NO

local M = {}

M.null = require("qjson.markers").null -- what a JSON null reads as

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
-- Set on the record of a document parsed with invalid_numbers (lua-cjson's
-- numbers beyond JSON): true until the encoder looked whether its text
-- holds one, then whether it does (see qjson.view.write's `copying`).
local LENIENT = "\255lenient"

local DELETED = setmetatable({}, { __tostring = function() return "qjson.view.deleted" end })

local ObjectMT, ArrayMT = {}, {}

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
    -- (A `while` over next(), not a for loop: a finalizer's materialize
    -- may run it, see qjson.base, ITERN.)
    local key, x = next(cache)
    while key ~= nil do
      check_tree(x)
      key, x = next(cache, key)
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
local function check_tree_all(v)
  check_tree(v)
  local registry = rawget(v[DOC], VIEWS)
  if registry ~= nil then
    local node, x = next(registry)
    while node ~= nil do
      check_tree(x)
      node, x = next(registry, node)
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
local function check_near(v)
  check1(v)
  check1(rawget(v, CVIEW))
  check1(rawget(v, CVIEW2))
end

local function is_view(v)
  local mt = getmetatable(v)
  return (mt == ObjectMT or mt == ArrayMT) and type(v) == "table"
end

-- A new view of container `node` of document record `d`: `parent` is the
-- parent view or false, `n` an array's length or false; `leaf` when no
-- member of the container is a container. (CKEY and CKEY2 later hold
-- keys: NO, see qjson.base.)
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
      ["\255ckey"] = NO, ["\255cview"] = false, ["\255ckey2"] = NO, ["\255cview2"] = false,
    }, ObjectMT)
  else
    v = setmetatable({
      ["\255doc"] = d, ["\255node"] = node, ["\255parent"] = parent, ["\255len"] = n,
      ["\255ckey"] = NO, ["\255cview"] = false, ["\255ckey2"] = NO, ["\255cview2"] = false,
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
      -- (Sized for its first entry: an empty table's first key costs a
      -- resize.)
      dirty = tnew(0, 1)
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


-- Where the JSON value `v` lies as bytes that are its value: the handle
-- and node of a document or cursor ({ ptr = handle, node = n }) or of an
-- unedited view (raising, as a read would, when a raw table operation
-- changed it or a view read from it); nil for an edited view or another
-- table, which must be encoded. (Schema checks and patches read targets
-- so.)
local function json_at(v)
  if is_view(v) then
    if rawget(v, DIRTY) or rawget(v, DCHILD) then
      return nil
    end
    check_tree_all(v)
    return rawget(rawget(v, DOC), PTR), rawget(v, NODE)
  end
  local ptr, node = rawget(v, "ptr"), rawget(v, "node")
  if type(ptr) == "cdata" and type(node) == "number" then
    return ptr, node
  end
  return nil
end
M.json_at = json_at

M.DOC, M.NODE, M.PARENT, M.LEN, M.CKEY, M.CVIEW, M.CKEY2, M.CVIEW2 = DOC, NODE, PARENT, LEN, CKEY, CVIEW, CKEY2, CVIEW2
M.DIRTY, M.DCHILD, M.EDITS, M.ENODE, M.ADDED, M.NENODE, M.REPLACED, M.ORIG, M.VALS, M.CACHE, M.UNIQ =
  DIRTY, DCHILD, EDITS, ENODE, ADDED, NENODE, REPLACED, ORIG, VALS, CACHE, UNIQ
M.PTR, M.SRC, M.BIG_INT, M.DIRTY_VIEWS, M.VIEWS, M.LAZY = PTR, SRC, BIG_INT, DIRTY_VIEWS, VIEWS, LAZY
M.LENIENT = LENIENT
-- The keys new_view's array constructor spells out, which must be these
-- (objects leave out LEN, roots PARENT, leaves the cache slots):
-- spec/view_spec.lua checks them.
M.FIELDS = { DOC, NODE, PARENT, LEN, CKEY, CVIEW, CKEY2, CVIEW2 }
M.DELETED, M.ObjectMT, M.ArrayMT = DELETED, ObjectMT, ArrayMT
M.fail, M.check_raw, M.check_tree, M.check_near, M.is_view = fail, check_raw, check_tree_all, check_near, is_view
M.new_view, M.touch, M.cached, M.uncache, M.child_view = new_view, touch, cached, uncache, child_view

return M
