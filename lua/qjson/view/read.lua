-- qjson.view.read: reading a lazy view (__index), and the views
-- qjson.decode and doc:get make. Every native read goes through
-- qjson.base's readers (the finalizer-safe rules). The fields:
-- qjson.view.fields.
local base = require("qjson.base")
local F = require("qjson.view.fields")

local type, rawget, rawset, setmetatable, getmetatable, floor =
  type, rawget, rawset, setmetatable, getmetatable, math.floor

local DOC, NODE, LEN, PTR, SRC, BIG_INT, VIEWS, LAZY = F.DOC, F.NODE, F.LEN, F.PTR, F.SRC, F.BIG_INT, F.VIEWS, F.LAZY
local LENIENT = F.LENIENT
local NO, NONE = base.NO, nil -- (see qjson.base)
local EDITS, ORIG, VALS = F.EDITS, F.ORIG, F.VALS
local DELETED, ObjectMT, ArrayMT = F.DELETED, F.ObjectMT, F.ArrayMT
local fail, is_view, new_view, cached, child_view = F.fail, F.is_view, F.new_view, F.cached, F.child_view

local C = base.C
local MISSING = C.QJSON_STATUS_MISSING
local NULL, BOOLEAN, NUMBER = C.QJSON_KIND_NULL, C.QJSON_KIND_BOOLEAN, C.QJSON_KIND_NUMBER
local STRING, ARRAY, OBJECT = C.QJSON_KIND_STRING, C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT
local read, read_kind, read_child, get_len, get_i64, get_u64, get_raw =
  base.read, base.read_kind, base.child, base.get_len, base.get_i64, base.get_u64, base.get_raw

-- Above any array's length (nodes are 32-bit).
local MAX_INDEX = 2 ^ 32

local M = {}

-- An integer beyond ±(2^53 - 1), exactly, per the decode's big_int option.
local function big_integer(st, node, approx)
  local mode = rawget(st[DOC], BIG_INT)
  local ptr = st[DOC][PTR]
  if mode == "cdata" then
    local k, v = get_i64(ptr, node, nil, 0, nil)
    if k == NUMBER then
      return v
    end
    k, v = get_u64(ptr, node, nil, 0, nil)
    if k == NUMBER then
      return v
    end
  elseif mode == "string" then
    local k, v = get_raw(ptr, node, nil, 0, nil)
    if k <= MISSING then
      fail(st)
    end
    return v or fail(st)
  end
  return approx
end

-- The Lua value of kind `k` that a reader of qjson.base returned with its
-- (node, a, b), the child at `key` of view `st`.
local function value_of(st, k, node, a, b, key)
  if k == STRING then
    return a or fail(st)
  elseif k == NUMBER then
    if b and rawget(st[DOC], BIG_INT) ~= nil then
      return big_integer(st, node, a)
    end
    return a
  elseif k == OBJECT or k == ARRAY then
    -- (No tail call: LuaJIT cannot trace a return from a builtin into a
    -- frame below the trace.)
    local v = child_view(st, node, k, key, a, b)
    return v
  elseif k == BOOLEAN then
    return a
  elseif k == NULL then
    return F.null
  elseif k == MISSING then
    return nil
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
  local kind, node, a, b = read_child(st[DOC][PTR], st[NODE], k, #k, 0)
  local v = value_of(st, kind, node, a, b, k)
  return v
end

-- The length of an array view.
local function array_len(st)
  local n = st[LEN]
  if not n then
    -- (A failed read, of a closed document say, leaves a length that is
    -- not this array's.)
    local k
    k, n = get_len(st[DOC][PTR], st[NODE], nil, 0, nil)
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
      local kind, node, a, b = read(st[DOC][PTR], o)
      v = value_of(st, kind, node, a, b, nil)
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
  local kind, node, a, b = read_child(st[DOC][PTR], st[NODE], nil, 0, i - 1)
  local v = value_of(st, kind, node, a, b, i)
  return v
end

ObjectMT.__index = object_get
ArrayMT.__index = array_get

-- The child of container `parent` holding node `target` (its key node in
-- an object) and its 1-based index; nil and the status when there is
-- none.
local function child_holding(ptr, parent, target)
  local k, node, index = base.child_holding(ptr, parent, target)
  if k ~= 1 then
    return nil, k
  end
  return node, index + 1
end

-- Reads the path from the document's root view down to view `st`, a
-- view doc:get opened below the root: the last read adopts it
-- (child_view), so that an edit of it (which marks its ancestors) is
-- seen by an encode of the root. (Done when it is opened, not when it
-- is first edited: a branch in touch costs every edit's compiled loop;
-- docs/performance-log.md.) The child whose subtree holds `st`
-- comes from qjson_child_holding, which reads no value on the way (in
-- lazy mode, a sibling's invalid number is not this read's error).
-- Stops where the path was edited away (the root then does not hold
-- `st`).
local function attach(st)
  local d, target = st[DOC], st[NODE]
  local ptr = d[PTR]
  local x = d[VIEWS][0]
  if x == nil then
    local kind = read_kind(ptr, 0)
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
      local kk, _, key = read(ptr, last)
      if kk ~= STRING then
        fail(x)
      end
      child = object_get(x, key or fail(x))
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
    kind = read_kind(ptr, 0)
  end
  if kind == OBJECT or kind == ARRAY then
    -- The fields of new_view's but PARENT, and the record's PTR and SRC;
    -- then, as nil, the keys an edit of the root adds (rawset): a nil
    -- field in a constructor still gets its slot, so those later writes
    -- need no resize, which costs more than the larger table (a gateway
    -- edits the root of what it decodes; docs/design.md). NO and NONE
    -- for the fields that later hold another type (qjson.base).
    local v
    if kind == OBJECT then
      v = setmetatable({
        ["\255doc"] = false, ["\255node"] = 0,
        ["\255ckey"] = NO, ["\255cview"] = false, ["\255ckey2"] = NO, ["\255cview2"] = false,
        ["\255ptr"] = ptr, ["\255src"] = src,
        ["\255edits"] = nil, ["\255enode"] = nil, ["\255nenode"] = NONE, ["\255replaced"] = NONE,
        ["\255added"] = nil, ["\255dirty"] = NONE, ["\255dirty_views"] = nil, ["\255uniq"] = nil,
      }, ObjectMT)
    else
      v = setmetatable({
        ["\255doc"] = false, ["\255node"] = 0, ["\255len"] = NO,
        ["\255ckey"] = NO, ["\255cview"] = false, ["\255ckey2"] = NO, ["\255cview2"] = false,
        ["\255ptr"] = ptr, ["\255src"] = src,
        ["\255orig"] = nil, ["\255vals"] = nil, ["\255dirty"] = NONE, ["\255dchild"] = NONE,
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
  local k, node, a, b = read(ptr, 0)
  local v = value_of(st, k, node, a, b, nil)
  base.close(ptr)
  return v
end


M.value_of, M.object_get, M.array_len, M.array_get = value_of, object_get, array_len, array_get

return M
