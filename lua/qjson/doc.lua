-- Documents and cursors: explicit reads by path, nothing materialized.
-- A cursor is a document positioned at one of its values; a document is
-- the cursor at the root. Both are plain tables { ptr, node, src } that
-- share one native handle; `src` keeps the parsed Lua string alive for as
-- long as anything reads from it (the native side borrows its bytes).
-- Every read goes through qjson.base's readers (the finalizer-safe rules).
local ffi = require("ffi")
local base = require("qjson.base")
local view = require("qjson.view")
local arg_error = require("qjson.base").arg_error

local type, error, tonumber, setmetatable, getmetatable, tostring =
  type, error, tonumber, setmetatable, getmetatable, tostring
local ffi_istype = ffi.istype

local C = base.C

local MISSING, ERROR, PANIC = C.QJSON_STATUS_MISSING, C.QJSON_STATUS_ERROR, C.QJSON_STATUS_PANIC
local NULL, BOOLEAN, NUMBER = C.QJSON_KIND_NULL, C.QJSON_KIND_BOOLEAN, C.QJSON_KIND_NUMBER
local STRING, ARRAY, OBJECT = C.QJSON_KIND_STRING, C.QJSON_KIND_ARRAY, C.QJSON_KIND_OBJECT
local KIND_NAMES = base.KIND_NAMES
local error_message, next_child = base.error_message, base.next_child
local find, get_len, get_num, get_bool, get_i64, get_u64, get_str, get_raw =
  base.find, base.get_len, base.get_num, base.get_bool, base.get_i64, base.get_u64, base.get_str, base.get_raw

-- A compiled path (qjson.path) is the ref that holds it (qjson.base).
local path_type = ffi.typeof("qjson_path *[1]")

local M = {}

M.null = require("qjson.markers").null -- what `get` returns for a JSON null

local Doc = {}
M.Doc = Doc
local DocMT = { __index = Doc }
M.DocMT = DocMT

local function last_error(ptr)
  local msg = error_message(ptr)
  -- Only a method called on something that is not a document says nothing.
  return msg ~= "" and msg or "not a qjson document or cursor"
end

-- The (string, length, compiled) triple the native readers take.
local function path_args(path, level)
  if path == nil then
    return nil, 0, nil
  end
  local t = type(path)
  if t == "string" then
    return path, #path, nil
  end
  if t == "cdata" and ffi_istype(path_type, path) then
    return nil, 0, path
  end
  arg_error(1, nil, "path string or qjson.path expected, got " .. t, level or 3)
end

-- The source text of each compiled path (set by qjson.path), so that
-- messages name the path rather than a cdata address.
M.path_text = setmetatable({}, { __mode = "k" })

local function describe(path)
  path = M.path_text[path] or path
  if path == nil or path == "" then
    return "the root"
  end
  return "'" .. tostring(path) .. "'"
end

-- Raises for a read that did not return the kind wanted. Data problems
-- (invalid values in lazy mode, type mismatches) raise without a position
-- prefix, as lua-cjson's errors do; a malformed path is the caller's
-- mistake and points at the caller (level 3: past the reader; 4 when the
-- reader is a helper of the method called).
local function fail(self, k, path, want, level)
  if k == ERROR then
    local msg = last_error(self.ptr)
    if msg:find("^invalid path") then
      error("qjson: " .. msg, level or 3)
    end
    error("qjson: " .. msg, 0)
  elseif k == PANIC then
    error("qjson: " .. last_error(self.ptr), 0)
  end
  error("qjson: type mismatch at " .. describe(path) .. ": expected " .. want
    .. ", got " .. (KIND_NAMES[k] or "?"), 0)
end
M.fail = fail

-- A cursor shares its document's `root` (the Doc its views are recorded
-- in, see qjson.view.open) and `lazy` flag.
local function new_cursor(self, node)
  return setmetatable({ ptr = self.ptr, node = node, src = self.src, root = self.root or self, lazy = self.lazy },
    getmetatable(self))
end

-- The Lua value of node `node` of kind `k` (containers become cursors).
local function value_at(self, node, k)
  local r, v
  if k == STRING then
    r, v = get_str(self.ptr, node, nil, 0, nil)
    if r == STRING then
      return v or fail(self, ERROR)
    end
  elseif k == NUMBER then
    r, v = get_num(self.ptr, node, nil, 0, nil)
  elseif k == BOOLEAN then
    r, v = get_bool(self.ptr, node, nil, 0, nil)
  elseif k == NULL then
    return M.null
  else
    return new_cursor(self, node)
  end
  if r == k then
    return v
  end
  fail(self, r, nil, KIND_NAMES[k])
end

function Doc:typeof(path)
  local p, n, c = path_args(path)
  local k = find(self.ptr, self.node, p, n, c)
  if k > MISSING then
    return KIND_NAMES[k]
  elseif k ~= MISSING then
    fail(self, k, path)
  end
  return nil
end

function Doc:len(path)
  local p, n, c = path_args(path)
  local k, len = get_len(self.ptr, self.node, p, n, c)
  if k == ARRAY or k == OBJECT then
    return len
  elseif k ~= MISSING then
    fail(self, k, path, "array or object")
  end
  return nil
end

function Doc:get_str(path)
  local p, n, c = path_args(path)
  local k, s = get_str(self.ptr, self.node, p, n, c)
  if k == STRING then
    return s or fail(self, ERROR)
  elseif k ~= MISSING then
    fail(self, k, path, "string")
  end
  return nil
end

function Doc:get_num(path)
  local p, n, c = path_args(path)
  local k, v = get_num(self.ptr, self.node, p, n, c)
  if k == NUMBER then
    return v
  elseif k ~= MISSING then
    fail(self, k, path, "number")
  end
  return nil
end

function Doc:get_i64(path)
  local p, n, c = path_args(path)
  local k, v = get_i64(self.ptr, self.node, p, n, c)
  if k == NUMBER then
    return v
  elseif k ~= MISSING then
    fail(self, k, path, "number")
  end
  return nil
end

function Doc:get_u64(path)
  local p, n, c = path_args(path)
  local k, v = get_u64(self.ptr, self.node, p, n, c)
  if k == NUMBER then
    return v
  elseif k ~= MISSING then
    fail(self, k, path, "number")
  end
  return nil
end

function Doc:get_bool(path)
  local p, n, c = path_args(path)
  local k, v = get_bool(self.ptr, self.node, p, n, c)
  if k == BOOLEAN then
    return v
  elseif k ~= MISSING then
    fail(self, k, path, "boolean")
  end
  return nil
end

-- true for null, false for any other value, nil when the path is missing.
function Doc:is_null(path)
  local p, n, c = path_args(path)
  local k = find(self.ptr, self.node, p, n, c)
  if k > MISSING then
    return k == NULL
  elseif k ~= MISSING then
    fail(self, k, path)
  end
  return nil
end

function Doc:raw(path)
  local p, n, c = path_args(path)
  local k, s = get_raw(self.ptr, self.node, p, n, c)
  if k > MISSING then
    return s or fail(self, ERROR)
  elseif k ~= MISSING then
    fail(self, k, path)
  end
  return nil
end

-- A Lua value: scalars as lua-cjson reads them (null as qjson.null),
-- objects and arrays as lazy views (qjson.view), the same view each time.
function Doc:get(path)
  local p, n, c = path_args(path)
  local k, node = find(self.ptr, self.node, p, n, c)
  if k == ARRAY or k == OBJECT then
    return view.open(self, node, k)
  elseif k > MISSING then
    return value_at(self, node, k)
  elseif k ~= MISSING then
    fail(self, k, path)
  end
  return nil
end

-- A cursor at `path`: the same methods, with paths relative to it.
function Doc:open(path)
  local p, n, c = path_args(path)
  local k, node = find(self.ptr, self.node, p, n, c)
  if k > MISSING then
    return new_cursor(self, node)
  elseif k ~= MISSING then
    fail(self, k, path)
  end
  return nil
end

-- The container at `path`, raising unless it is one of `want` kinds.
local function container(self, path, want1, want2, wanted)
  local p, n, c = path_args(path, 4)
  local k, node = find(self.ptr, self.node, p, n, c)
  if k == want1 or k == want2 then
    return node, k
  end
  if k == MISSING then
    error("qjson: nothing at " .. describe(path) .. " to iterate", 0)
  end
  fail(self, k, path, wanted, 4)
end

-- Iteration state lives in a small table and the iterator functions are
-- made once, so that LuaJIT compiles loops over them (a closure per call
-- would stop the trace).
local function iteration(self, parent)
  return { doc = self, ptr = self.ptr, parent = parent, prev = 0 }
end

-- Steps to the next child: its node and the kind of its value, or nil at
-- the end.
local function advance(st)
  local k, node = next_child(st.ptr, st.parent, st.prev)
  if k <= MISSING then
    if k ~= MISSING then
      fail(st.doc, k)
    end
    return nil
  end
  st.prev = node
  return node, k
end

local function next_element(st, i)
  local node, k = advance(st)
  if node then
    return i + 1, value_at(st.doc, node, k)
  end
end

local function next_member(st)
  local node, k = advance(st)
  if node then
    return value_at(st.doc, node, STRING), value_at(st.doc, node + 1, k)
  end
end

-- Iterates an array: 1-based index (as Lua's ipairs) and value; objects
-- and arrays come as cursors.
function Doc:ipairs(path)
  return next_element, iteration(self, (container(self, path, ARRAY, ARRAY, "array"))), 0
end

-- Iterates an object: each key once, in source order, with its last
-- value (duplicate keys read as lua-cjson reads them). Arrays iterate as
-- with ipairs.
function Doc:pairs(path)
  local node, k = container(self, path, OBJECT, ARRAY, "object or array")
  if k == ARRAY then
    return next_element, iteration(self, node), 0
  end
  local ptr = self.ptr
  local count = tonumber(C.qjson_unique_members(ptr, node, nil, 0))
  if count > 0 then
    -- Keys repeat: iterate the deduplicated (key, last value) list (in a
    -- buffer of this call's own; the document may be closed meanwhile).
    local pairs_buf = ffi.new("uint32_t[?]", 2 * count)
    if C.qjson_unique_members(ptr, node, pairs_buf, count) < 0 then
      fail(self, ERROR)
    end
    local i = 0
    return function()
      if i >= count then
        return nil
      end
      local key, value = pairs_buf[2 * i], pairs_buf[2 * i + 1]
      i = i + 1
      local vk = find(ptr, value, nil, 0, nil)
      if vk <= MISSING then
        fail(self, vk)
      end
      return value_at(self, key, STRING), value_at(self, value, vk)
    end
  elseif count < 0 then
    fail(self, PANIC)
  end
  return next_member, iteration(self, node), nil
end

-- Releases the document's native memory now instead of at garbage
-- collection; any later read on it or its cursors raises
-- "qjson: document is closed". Closing twice is harmless.
-- A close while something reads the document (a finalizer that closes
-- it during a read, an encode or a materialize) is safe: a read that was
-- between its native call and its string retries and finds the document
-- closed; a build from its events has it pinned, and the memory goes
-- when the build is done.
function Doc:close()
  base.close(self.ptr)
end

function DocMT:__tostring()
  if self.node == 0 then
    return "qjson.document"
  end
  return "qjson.cursor (" .. (self:typeof() or "?") .. ")"
end

return M
