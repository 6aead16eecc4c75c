-- qjson.view.read: reading a lazy view (__index), and the views
-- qjson.decode and doc:get make. Every read follows qjson.base's rules: a
-- ticket (base.ticket) before each native call, the values out of the box, then
-- the check; value_of returns RETRY when the check fails, and the caller
-- reads again. The fields: qjson.view.fields.
local base = require("qjson.base")
local F = require("qjson.view.fields")

local type, rawget, rawset, setmetatable, getmetatable, floor =
  type, rawget, rawset, setmetatable, getmetatable, math.floor

local DOC, NODE, LEN, PTR, SRC, BIG_INT, VIEWS, LAZY = F.DOC, F.NODE, F.LEN, F.PTR, F.SRC, F.BIG_INT, F.VIEWS, F.LAZY
local LENIENT = F.LENIENT
local EDITS, ORIG, VALS = F.EDITS, F.ORIG, F.VALS
local DELETED, RETRY, ObjectMT, ArrayMT = F.DELETED, F.RETRY, F.ObjectMT, F.ArrayMT
local fail, is_view, new_view, cached, child_view = F.fail, F.is_view, F.new_view, F.cached, F.child_view

local C, ticket, stale = base.C, base.ticket, base.stale
local MISSING = C.QJSON_STATUS_MISSING
local NULL, BOOLEAN, NUMBER = C.QJSON_KIND_NULL, C.QJSON_KIND_BOOLEAN, C.QJSON_KIND_NUMBER
local STRING, ARRAY, OBJECT = C.QJSON_KIND_STRING, C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT
local key_box, val_box, ptr_box, size_box, i64_box, u64_box =
  base.key_box, base.val_box, base.ptr_box, base.size_box, base.i64_box, base.u64_box
-- val_box.num, read through C.qjson_load_f64 (see crates/luajit/src/load.rs: a load
-- from a box can be moved past the next call that rewrites it).
local val_num = base.val_num
local box_string = base.box_string
local val_len, size_value = base.val_len, base.size_value
local i64_halves, u64_halves = base.i64_halves, base.u64_halves
local int64_value, uint64_value = base.int64_value, base.uint64_value

-- Above any array's length (nodes are 32-bit).
local MAX_INDEX = 2 ^ 32

local M = {}

-- An integer beyond ±(2^53 - 1), exactly, per the decode's big_int option.
local function big_integer(st, node, approx)
  local mode = rawget(st[DOC], BIG_INT)
  local t = ticket()
  if mode == "cdata" then
    local k = C.qjson_get_i64(st[DOC][PTR], node, nil, 0, nil, i64_box)
    local lo, hi = i64_halves()
    if stale(t) then
      return big_integer(st, node, approx)
    end
    if k == NUMBER then
      return int64_value(lo, hi)
    end
    t = ticket()
    k = C.qjson_get_u64(st[DOC][PTR], node, nil, 0, nil, u64_box)
    lo, hi = u64_halves()
    if stale(t) then
      return big_integer(st, node, approx)
    end
    if k == NUMBER then
      return uint64_value(lo, hi)
    end
  elseif mode == "string" then
    local k = C.qjson_get_raw(st[DOC][PTR], node, nil, 0, nil, ptr_box, size_box)
    if stale(t) then
      return big_integer(st, node, approx)
    end
    if k <= MISSING then
      fail(st)
    end
    return box_string(t, ptr_box[0], size_box[0], st[DOC][PTR], node, true) or fail(st)
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
    if stale(t) then
      return RETRY
    end
    return box_string(t, box.ptr, box.len, st[DOC][PTR], node) or fail(st)
  elseif k == NUMBER then
    local flag, node, num = box.flag, box.node, C.qjson_load_f64(val_num)
    if stale(t) then
      return RETRY
    end
    if flag ~= 0 and rawget(st[DOC], BIG_INT) ~= nil then
      return big_integer(st, node, num)
    end
    return num
  elseif k == OBJECT or k == ARRAY then
    local node, leaf, len = box.node, box.flag ~= 0, val_len()
    if stale(t) then
      return RETRY
    end
    local v = child_view(st, node, k, key, len, leaf)
    return v
  elseif k == BOOLEAN then
    local b = box.flag ~= 0
    if stale(t) then
      return RETRY
    end
    return b
  elseif k == NULL then
    return F.null
  elseif k == MISSING then
    return nil
  end
  if stale(t) then
    return RETRY
  end
  fail(st)
end


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
  local t = ticket()
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
    local t = ticket()
    local k = C.qjson_get_len(st[DOC][PTR], st[NODE], nil, 0, nil, size_box)
    n = size_value()
    if stale(t) then
      return array_len(st)
    end
    if k ~= ARRAY then
      fail(st)
    end
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
      local t = ticket()
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
  local t = ticket()
  local v = value_of(st, C.qjson_child(st[DOC][PTR], st[NODE], nil, 0, i - 1, val_box), i, t)
  if v == RETRY then
    return array_get(st, i)
  end
  return v
end

ObjectMT.__index = object_get
ArrayMT.__index = array_get

-- The child of container `parent` holding node `target` (its key node in
-- an object) and its 1-based index, under a ticket; nil and the status
-- when there is none.
local node_box, index_box = base.node_box, base.index_box
local function child_holding(ptr, parent, target)
  local t = ticket()
  local k = C.qjson_child_holding(ptr, parent, target, node_box, index_box)
  local node, index = node_box[0], index_box[0]
  if stale(t) then
    return child_holding(ptr, parent, target)
  end
  if k ~= 1 then
    return nil, k
  end
  return node, index + 1
end

-- Reads the path from the document's root view down to view `st`, a
-- view doc:get opened below the root: the last read adopts it
-- (child_view), so that an edit of it (which marks its ancestors) is
-- seen by an encode of the root. (Done when it is opened, not when it
-- is first edited: a branch in touch cost its compiled loop 5% more
-- instructions on a nested edit.) The child whose subtree holds `st`
-- comes from qjson_child_holding, which reads no value on the way (in
-- lazy mode, a sibling's invalid number is not this read's error).
-- Stops where the path was edited away (the root then does not hold
-- `st`).
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
    local last, i = child_holding(ptr, x[NODE], target)
    if last == nil then
      if i ~= MISSING then
        fail(x)
      end
      return
    end
    local child
    if object then
      local t = ticket()
      if C.qjson_read(ptr, last, key_box) ~= STRING then
        fail(x)
      end
      child = object_get(x, box_string(t, key_box.ptr, key_box.len, ptr, last) or fail(x))
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


-- The view of container `node` of Doc `doc` (a document or cursor of
-- qjson.parse), for doc:get: one record per Doc, made on first use.
function M.open(doc, node, kind)
  doc = doc.root or doc
  local d = doc.record
  if d == nil then
    d = { [PTR] = doc.ptr, [SRC] = doc.src, [VIEWS] = {}, [LAZY] = doc.lazy, [LENIENT] = doc.lenient }
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
-- the decode's option of that name; `lazy`: true for a lazy-mode parse;
-- `lenient`: true for a parse with invalid_numbers.
function M.decoded(ptr, src, first, big_int, lazy, lenient)
  local kind
  if first == 123 then
    kind = OBJECT
  elseif first == 91 then
    kind = ARRAY
  else
    kind = C.qjson_read(ptr, 0, val_box)
  end
  if kind == OBJECT or kind == ARRAY then
    -- The fields of new_view's but PARENT, and the record's PTR and SRC;
    -- then, as nil, the keys an edit of the root adds (rawset): a nil
    -- field in a constructor still gets its slot, so those later writes
    -- need no resize, which costs more than the larger table (a gateway
    -- edits the root of what it decodes; docs/design.md).
    local v
    if kind == OBJECT then
      v = setmetatable({
        ["\255doc"] = false, ["\255node"] = 0,
        ["\255ckey"] = false, ["\255cview"] = false, ["\255ckey2"] = false, ["\255cview2"] = false,
        ["\255ptr"] = ptr, ["\255src"] = src,
        ["\255edits"] = nil, ["\255enode"] = nil, ["\255nenode"] = nil, ["\255replaced"] = nil,
        ["\255added"] = nil, ["\255dirty"] = nil, ["\255dirty_views"] = nil, ["\255uniq"] = nil,
      }, ObjectMT)
    else
      v = setmetatable({
        ["\255doc"] = false, ["\255node"] = 0, ["\255len"] = false,
        ["\255ckey"] = false, ["\255cview"] = false, ["\255ckey2"] = false, ["\255cview2"] = false,
        ["\255ptr"] = ptr, ["\255src"] = src,
        ["\255orig"] = nil, ["\255vals"] = nil, ["\255dirty"] = nil, ["\255dchild"] = nil,
        ["\255dirty_views"] = nil,
      }, ArrayMT)
    end
    v[DOC] = v
    if big_int ~= nil then
      rawset(v, BIG_INT, big_int)
    end
    if lazy then
      rawset(v, LAZY, true)
    end
    if lenient then
      rawset(v, LENIENT, true)
    end
    return v
  end
  local st = { [DOC] = { [PTR] = ptr, [BIG_INT] = big_int } }
  local t = ticket()
  local v = value_of(st, C.qjson_read(ptr, 0, val_box), nil, t)
  if v == RETRY then
    return M.decoded(ptr, src, first, big_int)
  end
  C.qjson_close(ptr)
  return v
end


M.value_of, M.object_get, M.array_len, M.array_get = value_of, object_get, array_len, array_get

return M
