-- qjson.encode.walk: the walk that encodes one Lua value, a walker at a
-- time (a walker is the encoding state and the functions that use it;
-- qjson.encode keeps one and makes another for an encode called in the
-- middle of a walk). `E` is qjson.encode's module table: what other
-- modules register there (views' hooks, refused metatables); the values
-- shared with lua-cjson (null, the array markers) are qjson.markers'.
--
-- M.new has no upvalues (it looks up everything it uses itself), so that
-- M.uncompiled can load a second copy of it, whose functions LuaJIT never
-- compiles: the walkers of the encodes that finalizers run (see
-- qjson.encode, and docs/security.md, guarantee 11).
local M = {}

-- The error of an encode in whose middle a coroutine yielded (from
-- qjson.cjson's __len or __index) to a coroutine the encoder runs its walk
-- in: the walk cannot be suspended there.
M.YIELDED = "Cannot serialise: a coroutine yielded in the middle of the encode (from __len or __index)"

-- Returns a walker: the encoding state and the functions that use it.
-- The walk calls user code only in qjson.cjson (a table's __len and
-- __index, as lua-cjson does), but a finalizer run by the garbage
-- collector in the middle of a walk may call encode too; such calls get
-- a walker of their own (see qjson.encode's install, and W.walking).
function M.new(E)
  local ffi = require("ffi")
  local buffer = require("string.buffer")
  local strings = require("qjson.encode.string")
  local numbers = require("qjson.encode.number")
  local copied_text = require("qjson.encode.copied_text")
  local clear = require("table.clear")
  local band = require("bit").band

  local type, next, rawget, getmetatable, setmetatable, error, pcall, tonumber =
    type, next, rawget, getmetatable, setmetatable, error, pcall, tonumber
  local floor, min, huge, sort, rep = math.floor, math.min, math.huge, table.sort, string.rep
  local co_create, co_resume, co_running, co_status =
    coroutine.create, coroutine.resume, coroutine.running, coroutine.status
  local YIELDED = require("qjson.encode.walk").YIELDED
  local getinfo = debug.getinfo
  -- A table's length ignoring __len, as lua-cjson's lua_objlen: LuaJIT built
  -- with LUAJIT_ENABLE_LUA52COMPAT (OpenResty's) calls __len for `#` and has
  -- rawlen; without that flag it has no rawlen and `#` is raw already.
  local rawlen = rawget(_G, "rawlen") or function(t)
    return #t
  end
  local ffi_cast, ffi_istype = ffi.cast, ffi.istype
  local put_string, put_number, put_cdata = strings.put, numbers.put, numbers.put_cdata
  local number_text, int_limit = numbers.text, numbers.int_limit
  local ESCAPE_SLASH = strings.ESCAPE_SLASH
  -- String flags that copied text (a view's bytes) must be passed through
  -- qjson.encode.copied_text for.
  local TEXT_FLAGS = strings.ASCII + strings.HTML_SAFE
  local int64_t, uint64_t = ffi.typeof("int64_t"), ffi.typeof("uint64_t")

  -- How deep the walk goes between searches of the path for a reference
  -- cycle: a cycle is reported as such, not as excessive nesting, even
  -- when encode_max_depth is set very high.
  local CYCLE_CHECK = 1000
  -- How many levels one Lua stack holds: a deeper walk goes on in a
  -- coroutine (a stack of its own) every SEGMENT levels, so that any
  -- nesting encode_max_depth allows is written, or refused with its
  -- message, rather than running out of LuaJIT's stack (LUAI_MAXSTACK
  -- slots): SEGMENT levels of the path that takes the most slots a level
  -- (an edited view's, docs/security.md) fill less than half of it.
  local SEGMENT = 500
  -- lua-cjson's other depth limit, which qjson.cjson keeps: its walk is C
  -- recursion whose Lua stack frame holds the value being written and,
  -- per level above, the element (an array) or key and value (an object),
  -- and it stops with "excessive nesting" where lua_checkstack(l, 3)
  -- fails, past LuaJIT's LUAI_MAXCSTACK (8000) slots: at depth d when
  -- d + (objects above) + 3 > 8000. Arrays stop at 7998, objects at 4000.
  local CJSON_STACK_SLOTS, CJSON_STACK_FIRST = 8000 - 3, 4000
  local KEY_CACHE_MAX = 1024 -- entries
  local KEY_CACHE_LEN = 64 -- longest key cached, in bytes
  local INT_MAX = 2147483647

  local function lost_view()
    error("Cannot serialise a qjson view whose metatable was changed (setmetatable): encode the view itself", 0)
  end

  local function unsupported_type(v)
    error("Cannot serialise " .. type(v) .. ": type not supported", 0)
  end

  local function bad_key(k)
    error("Cannot serialise " .. type(k) .. ": table key must be a number or string", 0)
  end

  local function nesting(depth)
    error("Cannot serialise, excessive nesting (" .. depth .. ")", 0)
  end

  local views, refused = E.views, E.refused
  local markers = require("qjson.markers")
  local array_mt, empty_array_mt, empty_array, sentinel_mt =
    markers.array_mt, markers.empty_array_mt, markers.empty_array, markers.sentinel_mt
  local null = markers.null
  local W = { busy = false }
  local buf = buffer.new()
  -- stack[d]: the table being written at depth d. Weak, so the encoder
  -- does not keep a caller's tables alive after encode returns.
  local stack = setmetatable({}, { __mode = "v" })
  local indents = {} -- indents[d]: the indent unit repeated d times
  -- Object keys repeat (every record of an array has the same ones), so
  -- the text of each short string key, quoted and escaped with its colon,
  -- is cached. The cache is emptied when it grows past KEY_CACHE_MAX and
  -- when the string flags change (rare: they come from options).
  local key_cache, key_count = {}, 0
  local scratch = buffer.new()

  -- Settings of the call in progress.
  local max_depth, sparse_convert, sparse_ratio, sparse_safe
  local empty_as_object, skip, precision, limit, invalid, flags, indent, sort_keys
  local general -- indent, sort_keys, skip or cjson_stack: take the general paths
  -- qjson.cjson: a cycle reported as lua-cjson does, int64 cdata refused
  -- as lua-cjson refuses every cdata, and __len and __index called.
  local cycle_as_nesting
  -- qjson.cjson with encode_max_depth at CJSON_STACK_FIRST or more:
  -- lua-cjson's stack limit applies (it catches cycles too).
  local cjson_stack
  local view_field -- M.view_field
  -- What the walk met: a view (whose bytes may be copied), one of a
  -- lazy document (whose bytes were not checked).
  local saw_view, saw_lazy
  -- Where the walk stands. A table deeper than check_at goes through
  -- `deeper`, for the checks not made at every level: cycle_at is the
  -- depth past which the path is next searched for a cycle, seg_end the
  -- deepest level the running Lua stack holds, objects the number of
  -- tables on the path written as objects (counted by the general
  -- writers, for cjson_stack).
  local check_at, cycle_at, seg_end, objects
  -- The coroutines running a segment of this walker's walk, and whether
  -- the walk is calling user code (qjson.cjson's __len): see W.walking.
  local segments = setmetatable({}, { __mode = "k" })
  local calling = false
  -- Set by load: the first depth checked, and past which every level is
  -- checked (CJSON_STACK_FIRST - 1 under cjson_stack).
  local check_at0, cycle_at0, stack_from

  local put_value

  -- True when `t` is already being written further up: a reference cycle.
  local function on_path(t, depth)
    for d = 1, depth - 1 do
      if stack[d] == t then
        return true
      end
    end
    return false
  end

  -- Nesting past encode_max_depth: a table met twice on the path is a
  -- cycle (reached through another member first, so not `t` itself),
  -- reported as such, except by qjson.cjson, which reports what lua-cjson
  -- does.
  local function too_deep(depth)
    local met = not cycle_as_nesting and {}
    for d = 1, met and depth - 1 or 0 do
      local x = stack[d]
      if x ~= nil then
        if met[x] then
          error("Cannot serialise table: reference cycle", 0)
        end
        met[x] = true
      end
    end
    nesting(depth)
  end

  -- Table `t` at `depth`, past check_at: the checks, then `again(t, depth
  -- - 1)` (put_table or put_in_view, which passes them now), on a Lua
  -- stack of its own when this one holds SEGMENT levels already.
  -- Afterwards every table at `depth` comes here again (check_at), so
  -- that each starts its own segment.
  local function deeper(t, depth, again)
    if depth > max_depth then
      too_deep(depth)
    end
    if depth > cycle_at then
      if on_path(t, depth) then
        if cycle_as_nesting then
          -- lua-cjson finds no cycle: it goes round until it is too deep.
          nesting(max_depth + 1)
        end
        error("Cannot serialise table: reference cycle", 0)
      end
      cycle_at = depth + CYCLE_CHECK
    end
    if depth + objects > CJSON_STACK_SLOTS and cjson_stack then
      nesting(depth)
    end
    local outer_end = seg_end
    local segment = depth > outer_end
    if segment then
      seg_end = depth - 1 + SEGMENT
    end
    local at = min(max_depth, cycle_at, seg_end, stack_from)
    check_at = at > depth and at or depth
    if not segment then
      again(t, depth - 1)
    else
      local co = co_create(again)
      segments[co] = true
      local ok, err = co_resume(co, t, depth - 1)
      segments[co] = nil
      seg_end = outer_end
      if not ok then
        error(err, 0)
      elseif co_status(co) ~= "dead" then
        error(YIELDED, 0)
      end
    end
    check_at = depth - 1
  end

  -- True for a value encode_skip_unsupported_value_types drops.
  local function unsupported(v)
    local tv = type(v)
    if tv == "string" or tv == "number" or tv == "boolean" or tv == "table" or tv == "nil"
      or v == nil and not cycle_as_nesting then
      return false
    end
    if tv == "userdata" then
      return not (v == null or v == empty_array or ffi_cast("void *", v) == nil)
    end
    if tv == "cdata" then
      return cycle_as_nesting or not (ffi_istype(int64_t, v) or ffi_istype(uint64_t, v))
    end
    return true
  end

  -- Everything that is not a string, number, table, boolean or nil.
  local function put_other(v, tv)
    if tv == "cdata" and cycle_as_nesting then
      if not skip then
        unsupported_type(v) -- (even a NULL pointer, which equals null)
      end
    elseif v == null then
      buf:put("null")
    elseif tv == "userdata" then
      if v == empty_array then
        buf:put("[]")
      elseif ffi_cast("void *", v) == nil then
        buf:put("null") -- a NULL lightuserdata, e.g. ngx.null
      elseif not skip then
        unsupported_type(v)
      end
    elseif not (tv == "cdata" and not cycle_as_nesting and put_cdata(buf, v)) and not skip then
      unsupported_type(v)
    end
  end

  local function indent_at(depth)
    local s = indents[depth]
    if s == nil then
      s = rep(indent, depth)
      indents[depth] = s
    end
    return s
  end

  local function put_key(k)
    local tk = type(k)
    if tk == "string" then
      put_string(buf, k, flags)
    elseif tk == "number" then
      buf:put('"', number_text(k, precision, invalid), '"')
    else
      bad_key(k)
    end
    buf:put(indent and ": " or ":")
  end

  -- Before an element or member: the comma, and with indent the new line.
  local function begin_item(count, depth)
    if count > 0 then
      buf:put(",")
    end
    if indent then
      buf:put("\n", indent_at(depth))
    end
  end

  -- Arrays and objects with indentation, sorted keys or skipped values.
  local function put_array_general(t, n, depth)
    buf:put("[")
    local count = 0
    for i = 1, n do
      local v = rawget(t, i)
      if not (skip and unsupported(v)) then
        begin_item(count, depth)
        count = count + 1
        put_value(v, depth)
      end
    end
    -- (after a member, even a skipped one, as lua-cjson)
    if indent and n > 0 then
      buf:put("\n", indent_at(depth - 1))
    end
    buf:put("]")
  end

  -- Numbers first, in numeric order, then strings in byte order.
  local function key_less(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then
      return ta == "number"
    end
    return a < b
  end

  local function put_object_general(t, depth)
    buf:put("{")
    objects = objects + 1
    local count, any = 0, false
    local function member(k, v)
      any = true
      if skip and unsupported(v) then
        local tk = type(k)
        if tk ~= "string" and tk ~= "number" then
          bad_key(k)
        end
        return
      end
      begin_item(count, depth)
      count = count + 1
      put_key(k)
      put_value(v, depth)
    end
    if sort_keys then
      local keys, n = {}, 0
      for k in next, t do
        local tk = type(k)
        if tk ~= "string" and tk ~= "number" then
          bad_key(k)
        end
        n = n + 1
        keys[n] = k
      end
      sort(keys, key_less)
      for i = 1, n do
        member(keys[i], rawget(t, keys[i]))
      end
    else
      for k, v in next, t do
        member(k, v)
      end
    end
    if indent and any then
      buf:put("\n", indent_at(depth - 1))
    end
    objects = objects - 1
    buf:put("}")
  end

  -- The cached text of string key `k` (see key_caches).
  local function key_text(k)
    if key_count >= KEY_CACHE_MAX then
      clear(key_cache)
      key_count = 0
    end
    scratch:reset()
    put_string(scratch, k, flags)
    scratch:put(":")
    local text = scratch:tostring()
    key_cache[k] = text
    key_count = key_count + 1
    return text
  end

  local function put_array(t, n, depth)
    if general then
      return put_array_general(t, n, depth)
    end
    buf:put("[")
    if n > 0 then
      put_value(rawget(t, 1), depth)
      for i = 2, n do
        buf:put(",")
        put_value(rawget(t, i), depth)
      end
    end
    buf:put("]")
  end

  local function put_object(t, depth)
    if view_field and rawget(t, view_field) ~= nil then
      lost_view()
    end
    if general then
      return put_object_general(t, depth)
    end
    buf:put("{")
    local first = true
    for k, v in next, t do
      if first then
        first = false
      else
        buf:put(",")
      end
      if type(k) == "string" then
        local text = key_cache[k]
        if text ~= nil then
          buf:put(text)
        elseif #k <= KEY_CACHE_LEN then
          buf:put(key_text(k))
        else
          put_string(buf, k, flags)
          buf:put(":")
        end
      elseif type(k) == "number" then
        buf:put('"', number_text(k, precision, invalid), '":')
      else
        bad_key(k)
      end
      put_value(v, depth)
    end
    buf:put("}")
  end

  -- lua-cjson's lua_array_length: the array length when every key is a
  -- positive integer, -1 for an object; excessively sparse arrays raise
  -- or become objects per encode_sparse_array.
  local function array_length(t)
    local max, items = 0, 0
    for k in next, t do
      if type(k) == "number" and k >= 1 and floor(k) == k then
        if k > max then
          max = k
        end
        items = items + 1
      else
        return -1
      end
    end
    -- lua-cjson keeps the length in a C int; past that its behaviour is
    -- undefined, here such a table is an object.
    if max > INT_MAX then
      return -1
    end
    if sparse_ratio > 0 and max > items * sparse_ratio and max > sparse_safe then
      if not sparse_convert then
        error("Cannot serialise table: excessively sparse array", 0)
      end
      return -1
    end
    return max
  end

  -- A view in output with indentation, sorted keys or skipped values, or
  -- whose bytes are not copied (see put_table): its members in source
  -- order (or sorted), numbers as their text (qjson.view.members).
  local function put_view_general(t, view, depth)
    if view.lazy(t) then
      saw_lazy = true
    end
    local keys, vals, raws, n = view.members(t)
    local object = keys ~= nil
    local order
    if object and sort_keys and n > 1 then
      order = {}
      for i = 1, n do
        order[i] = i
      end
      sort(order, function(a, b)
        return key_less(keys[a], keys[b])
      end)
    end
    buf:put(object and "{" or "[")
    if object then
      objects = objects + 1
    end
    local count = 0
    for j = 1, n do
      local i = order and order[j] or j
      local raw, v = raws[i], vals[i]
      if raw or not (skip and unsupported(v)) then
        begin_item(count, depth)
        count = count + 1
        if object then
          put_key(keys[i])
        end
        if raw then
          buf:put(raw)
        else
          put_value(v, depth)
        end
      end
    end
    if indent and count > 0 then
      buf:put("\n", indent_at(depth - 1))
    end
    if object then
      objects = objects - 1
    end
    buf:put(object and "}" or "]")
  end

  -- For qjson.cjson, the items of table `t` whose metatable has __len
  -- (`len`), as OpenResty's lua-cjson reads them: __len's result as
  -- lua_tonumber and a C int take it (truncated; anything not a number or
  -- a numeric string is 0, and past the int's range x86-64 gives INT_MIN:
  -- no element), and the elements as t[i] does, so through __index. The
  -- user code runs under a pcall with `calling` set (see W.walking); its
  -- errors go on as they are, as from lua-cjson's lua_call.
  local function get_items(t, n)
    local items = {}
    for i = 1, n do
      items[i] = t[i]
    end
    return items
  end

  local function indexed(t, len)
    calling = true
    local ok, v = pcall(len, t)
    local n = 0
    if ok then
      n = (type(v) == "number" or type(v) == "string") and tonumber(v) or 0
      n = (n >= 1 and n < INT_MAX + 1) and floor(n) or 0
      ok, v = pcall(get_items, t, n)
    end
    calling = false
    if not ok then
      error(v, 0)
    end
    return v, n
  end

  local function put_table(t, depth)
    depth = depth + 1
    if depth > check_at then
      return deeper(t, depth, put_table)
    end
    stack[depth] = t
    local mt = getmetatable(t)
    if mt ~= nil then
      local view = views[mt]
      if view ~= nil then
        saw_view = true
        if depth > 1 and not views[getmetatable(stack[depth - 1])] then
          -- (The root was checked by put_root, a view reached through a
          -- view with it.)
          view.check(t)
        end
        if not general then
          -- (See qjson.view.write's `copying`: a document read with
          -- invalid_numbers is written member by member, and so is a lazy
          -- one when the output check would admit NaN and Infinity.)
          local how = view.copying(t)
          if how == nil then
            return view.put(buf, t, depth, put_value, put_key)
          elseif how == "check" and invalid ~= true then
            saw_lazy = true
            return view.put(buf, t, depth, put_value, put_key)
          end
        end
        return put_view_general(t, view, depth)
      end
      local why = refused[mt]
      if why ~= nil then
        error(why, 0)
      end
      if view_field and rawget(t, view_field) ~= nil then
        lost_view()
      end
      if t == null then
        return buf:put("null")
      elseif mt == sentinel_mt then
        return buf:put("[]")
      elseif mt == array_mt or (type(mt) == "table" and rawget(mt, "__len") ~= nil) then
        -- As OpenResty's lua-cjson: array_mt, or any __len, makes an
        -- array (holes are nulls). qjson.cjson reads it as lua-cjson does;
        -- qjson.encode reads it raw: the raw length, no __index
        -- (docs/encoding.md).
        if cycle_as_nesting and mt ~= array_mt then
          local items, n = indexed(t, rawget(mt, "__len"))
          return put_array(items, n, depth)
        end
        return put_array(t, rawlen(t), depth)
      end
    end
    -- Keys 1, 2, ..., n in traversal order make an array without the
    -- general check (the common case); a first key that is not a number
    -- makes an object at once, as in lua-cjson.
    local n = 0
    local k = next(t)
    if k == 1 then
      for key in next, t do
        if key ~= n + 1 then
          n = array_length(t)
          break
        end
        n = n + 1
      end
    elseif k ~= nil then
      n = type(k) == "number" and array_length(t) or -1
    end
    if n > 0 or (n == 0 and not empty_as_object) then
      return put_array(t, n, depth)
    elseif mt ~= nil and mt == empty_array_mt then
      return buf:put("[]")
    elseif n == 0 then
      return buf:put("{}")
    end
    return put_object(t, depth)
  end

  put_value = function(v, depth)
    local tv = type(v)
    if tv == "string" then
      put_string(buf, v, flags)
    elseif tv == "number" then
      put_number(buf, v, precision, limit, invalid)
    elseif tv == "table" then
      put_table(v, depth)
    elseif tv == "boolean" then
      buf:put(v and "true" or "false")
    elseif v == nil and (tv == "nil" or not cycle_as_nesting) then -- (a NULL cdata == nil)
      buf:put("null")
    else
      put_other(v, tv)
    end
  end

  -- Which settings the upvalues above hold: a settings table at a
  -- version, with no per-call options (`plain`) or with some.
  local loaded, loaded_version, loaded_plain

  local function load(s, prec, fl, ind, srt, plain)
    loaded, loaded_version, loaded_plain = s, s.version, plain
    view_field = E.view_field
    max_depth = s.max_depth
    cycle_as_nesting = s.dropin
    cjson_stack = s.dropin and max_depth >= CJSON_STACK_FIRST
    stack_from = cjson_stack and CJSON_STACK_FIRST - 1 or huge
    cycle_at0 = cjson_stack and huge or CYCLE_CHECK
    check_at0 = min(max_depth, cycle_at0, SEGMENT, stack_from)
    sparse_convert, sparse_ratio, sparse_safe = s.sparse_convert, s.sparse_ratio, s.sparse_safe
    empty_as_object, skip, invalid = s.empty_table_as_object, s.skip_unsupported, s.invalid_numbers
    precision, limit, sort_keys = prec, int_limit(prec), srt
    if fl ~= flags then
      flags = fl
      clear(key_cache)
      key_count = 0
    end
    if ind ~= indent then
      clear(indents) -- (no allocation: see walk)
    end
    indent = ind
    general = ind ~= nil or srt or skip or cjson_stack
  end

  -- Views go to their own writer without passing through put_value: a
  -- compiled trace that starts in put_value and reaches a view writer's
  -- member loop is aborted (LuaJIT does not enter an inner loop from a
  -- root trace), and after a few aborts put_value would be blacklisted,
  -- and with it every loop that calls it, plain tables' too. So the top
  -- value goes through put_root, and a view writer writes its members
  -- with put_in_view (as put_table would, for a view), which hands plain
  -- values to put_value.
  local put_in_view
  put_in_view = function(v, depth)
    local view = type(v) == "table" and views[getmetatable(v)]
    if not view then
      return put_value(v, depth)
    end
    depth = depth + 1
    if depth > check_at then
      return deeper(v, depth, put_in_view)
    end
    stack[depth] = v
    saw_view = true
    local how = view.copying(v)
    if how == nil then
      return view.put(buf, v, depth, put_in_view, put_key)
    elseif how == "check" and invalid ~= true then
      saw_lazy = true
      return view.put(buf, v, depth, put_in_view, put_key)
    end
    return put_view_general(v, view, depth)
  end

  local function put_root(v)
    local view = type(v) == "table" and views[getmetatable(v)]
    if view then
      view.check(v)
    end
    if not general then
      return put_in_view(v, 0)
    end
    return put_value(v, 0)
  end

  -- No pcall around the walk: LuaJIT cannot trace a return into a pcall
  -- frame from below it, so a view's member loop (a trace of its own)
  -- would finish every encode in the interpreter (a 2 KB view with one
  -- edit: 1.4 us an encode with the pcall, 0.8 without). A walk that
  -- raises leaves `busy` set and part of an output in the buffer; see
  -- W.walking.
  local function walk(v, keep_buffer)
    check_at, cycle_at, seg_end, objects, calling = check_at0, cycle_at0, SEGMENT, 0, false
    saw_view, saw_lazy = false, false
    W.busy = true
    put_root(v)
    -- Still busy until the walk's upvalues are read: taking the output
    -- allocates, and a finalizer's encode must not load its settings
    -- into this walker meanwhile (it takes another while this one is
    -- busy and `walk` is on the stack).
    local out = buf:get()
    if not keep_buffer then
      buf:free()
    end
    -- Bytes copied from views were not escaped as `flags` ask, nor, from
    -- a lazy document, checked: the output is, whole (what was escaped
    -- already is left as it is).
    if saw_view and (saw_lazy or band(flags, TEXT_FLAGS) ~= 0) then
      out = copied_text.fix(out, flags, saw_lazy, invalid == true, max_depth)
    end
    W.busy = false
    return out
  end

  -- For a busy walker: whether its walk is still running further up this
  -- stack (encode was called by a finalizer the walk's allocations ran);
  -- if not, the walk raised, and the walker is made ready again.
  local run_plain, run
  function W.walking()
    -- (In user code the walk called, or a segment's coroutine: on this
    -- stack or not, the walk is running.)
    local co = co_running()
    if calling or (co ~= nil and segments[co]) then
      return true
    end
    for level = 2, huge do
      local info = getinfo(level, "f")
      if info == nil then
        break
      elseif info.func == walk or info.func == run_plain or info.func == run then
        return true
      end
    end
    buf:reset()
    W.busy = false
    return false
  end

  -- Encodes `v` with settings `s` and no options (the common call). The
  -- walker is busy from before its settings are loaded: a finalizer may
  -- run at any allocation or trace exit, and its encode must take another
  -- walker rather than load its own settings into this one.
  run_plain = function(v, s)
    W.busy = true
    if s ~= loaded or s.version ~= loaded_version or not loaded_plain then
      load(s, s.precision, s.escape_slash and ESCAPE_SLASH or 0, s.indent, false, true)
    end
    return walk(v, s.keep_buffer)
  end

  W.run_plain = run_plain

  -- Encodes `v` with settings `s` and resolved per-call options.
  run = function(v, s, prec, fl, ind, srt)
    W.busy = true
    load(s, prec, fl, ind, srt, false)
    return walk(v, s.keep_buffer)
  end
  W.run = run

  return W
end

assert(debug.getinfo(M.new, "u").nups == 0, "qjson.encode.walk: M.new must have no upvalues (see the top)")

-- A second M.new: the same code loaded again from its bytecode, so with
-- prototypes of its own (LuaJIT compiles per prototype), and the JIT
-- turned off for them: the walkers it makes never run compiled code of
-- their own.
function M.uncompiled()
  local new = assert(loadstring(string.dump(M.new)))
  setfenv(new, getfenv(M.new))
  jit.off(new, true)
  return new
end

return M
