-- Finalizers that call qjson in the middle of qjson calls (issue 18,
-- items 1 to 5), each scenario in a process of its own, started by
-- spec/finalizer_spec.lua: a use after free may crash the process, and
-- the spec then reports the scenario instead of dying with it.
--
--   luajit spec/finalizer/scenarios.lua <scenario> [jit|nojit]
--
-- Prints "ok" and exits 0 when every outcome was right; otherwise prints
-- what went wrong. The collector runs a full cycle at every allocation
-- (setpause 0, a huge stepmul), and `arm` keeps one finalizer pending at
-- every cycle, so that the finalizer's action runs at each allocation
-- point of the call under test, or from its `from`-th allocation on.
local name, mode = arg[1], arg[2] or "jit"
if mode == "nojit" then
  jit.off()
end

-- Scenario lua_close_unloaded: a userdata made before qjson was loaded,
-- whose __gc encodes at lua_close (which LuaJIT may run after it has
-- closed the libraries ffi.load opened).
if name == "lua_close_unloaded" then
  local p = newproxy(true)
  getmetatable(p).__gc = function()
    local ok, r = pcall(function() return require("qjson").encode({ 1.5 }) end)
    io.stdout:write("at close: ", ok and r or tostring(r), "\n")
    io.stdout:flush()
  end
  _G.early = p
end

local qjson = require("qjson")
local cjson = require("qjson.cjson")
-- Views on every build (without LUA52COMPAT decode returns plain tables by
-- default): these scenarios are about views' reads.
qjson.decode_views(true)

local failures = {}
local function check(ok, what)
  if not ok then
    failures[#failures + 1] = what:sub(1, 200)
  end
end

-- The finalizer: calls `action` from the `from`-th cycle on, at most
-- `times` times (nil: no limit), then keeps re-arming itself silently.
local armed
local function arm(action, from, times)
  armed = { action = action, from = from or 1, times = times, n = 0 }
  local state = armed
  local function gc()
    if armed ~= state then
      return -- disarmed
    end
    local p = newproxy(true)
    getmetatable(p).__gc = gc
    if not state.live then
      return
    end
    state.n = state.n + 1
    if state.n >= state.from and (state.times == nil or state.n < state.from + state.times) then
      state.action()
    end
  end
  local p = newproxy(true)
  getmetatable(p).__gc = gc
end
local function disarm()
  armed = nil
end

-- (The step makes the new pause apply now; the count starts after it.)
local function stress()
  collectgarbage("setpause", 0)
  collectgarbage("setstepmul", 1000000)
  collectgarbage("step", 0)
  if armed then
    armed.live = true
  end
end
local function calm()
  disarm()
  collectgarbage("setpause", 200)
  collectgarbage("setstepmul", 200)
  collectgarbage()
end

local function tmpfile(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- A JSON object of about `bytes` bytes: members "m1".. with strings of
-- `fill` ("x" by default).
local function big_object(bytes, fill)
  local parts, n = {}, 0
  local filler = string.rep(fill or "x", 90)
  while n * 100 < bytes do
    n = n + 1
    parts[n] = ('"m%d":"%s"'):format(n, filler)
  end
  return "{" .. table.concat(parts, ",") .. "}", n
end

local S = {}

-- Item 1: a finalizer closes a parse_file document while an edited view
-- of it is encoded, then parses another of the same size (which takes
-- the memory just freed): the encode returns the right text or raises
-- "document is closed", whichever allocation the close comes at.
function S.encode_close()
  local text = big_object(1024 * 1024)
  local path = tmpfile(text)
  local path2 = tmpfile(big_object(1024 * 1024, "y"))
  local other
  local floats = {}
  for i = 1, 20 do
    floats[i + 0.5] = i
  end
  local want
  do
    local d = qjson.parse_file(path)
    local v = d:get()
    v.m2 = floats
    want = qjson.encode(v)
  end
  for from = 1, 40 do
    local d = qjson.parse_file(path)
    local v = d:get()
    v.m2 = floats
    arm(function()
      d:close()
      other = qjson.parse_file(path2)
    end, from, 1)
    stress()
    local ok, out = pcall(qjson.encode, v)
    calm()
    check((ok and out == want) or (not ok and tostring(out):find("document is closed", 1, true)),
      "encode, close at allocation " .. from .. ": " .. (ok and ("wrong text of " .. #out .. " bytes")
        or tostring(out)))
  end
  os.remove(path)
  os.remove(path2)
  return other
end

-- Item 1: the same for materialize of an untouched view.
function S.materialize_close()
  local text, n = big_object(8 * 1024)
  local path = tmpfile(text)
  for from = 1, 40, 3 do
    local d = qjson.parse_file(path)
    local v = d:get()
    arm(function() d:close() end, from, 1)
    stress()
    local ok, t = pcall(qjson.materialize, v)
    calm()
    local right = ok and type(t) == "table" and t.m1 == string.rep("x", 90) and t["m" .. n] == t.m1
    if right then
      for i = 1, n do
        if t["m" .. i] ~= t.m1 then
          right = false
          break
        end
      end
    end
    check(right or (not ok and tostring(t):find("document is closed", 1, true)),
      "materialize, close at allocation " .. from .. ": " .. tostring(ok and "wrong table" or t))
  end
  os.remove(path)
end

-- Item 2: a finalizer reads a long string of another document between a
-- read's native call and the string it makes: every read still returns
-- this document's value.
function S.shared_boxes()
  local long = string.rep("L", 100000)
  local other = qjson.parse('{"s":"' .. long .. '","n":1e300,"a":[1,2,3,4,5,6,7,8,9]}')
  local ov = qjson.decode('{"s":"' .. long .. '","n":1e300,"a":[1,2,3,4,5,6,7,8,9]}')
  local d = qjson.parse('{"k":"short","n":2,"b":true,"a":[1,2],"o":{"x":"y"}}')
  local v = qjson.decode('{"k":"short","n":2,"b":true,"a":[1,2],"o":{"x":"y"}}')
  arm(function()
    local reads = { other:get_str("s"), other:get_num("n"), other:len("a"), ov.s, ov.n, #ov.s, qjson.len(ov.a) }
    assert(#reads == 7)
  end)
  stress()
  for _ = 1, 20 do
    check(d:get_str("k") == "short", "doc:get_str")
    check(d:raw("k") == '"short"', "doc:raw")
    check(d:get_num("n") == 2, "doc:get_num")
    check(d:len("a") == 2, "doc:len")
    check(d:open("o"):get_str("x") == "y", "doc:open")
    check(v.k == "short", "view string")
    check(v.n == 2, "view number")
    check(v.b == true, "view boolean")
    check(qjson.len(v.a) == 2, "view length")
    local keys = {}
    for k, x in qjson.pairs(v) do
      keys[#keys + 1] = k .. "=" .. tostring(type(x) == "table" and "t" or x)
    end
    check(table.concat(keys, ",") == "k=short,n=2,b=true,a=t,o=t", "view pairs: " .. table.concat(keys, ","))
    local dk = {}
    for k, x in d:pairs() do
      dk[#dk + 1] = k .. "=" .. tostring(type(x) == "table" and "t" or x)
    end
    check(table.concat(dk, ",") == "k=short,n=2,b=true,a=t,o=t", "doc:pairs: " .. table.concat(dk, ","))
    check(cjson.decode('{"k":"short"}').k == "short", "cjson.decode")
  end
  calm()
end

-- Issue 40: each of qjson.base's readers (find, get_len/num/bool/i64/u64,
-- get_str/raw, read, child, entry, next_child, child_holding, raw_span,
-- member_span, the parse and path-compile failures) with a finalizer at
-- each of its allocations that runs every reader on other documents
-- through the same shared boxes: every read gives its own value.
function S.reads()
  local long = string.rep("L", 5000)
  local otext = '{"s":"' .. long .. '","n":1e300,"b":false,"i":-9007199254740993,"u":18446744073709551615,'
    .. '"a":[1,"x",null],"d":{"k":1,"k":"' .. long .. '"},"big":12345678901234567890}'
  local other = qjson.parse(otext)
  -- Escaped strings are unescaped into their document's scratch, which a
  -- read of another escaped string of the same document reuses: the
  -- finalizer reads those of the documents the loop reads too.
  local text = '{"k":"short","n":2,"b":true,"f":false,"z":null,"i":-5,"u":7,"a":[1,"two",[3]],'
    .. '"d":{"x":1,"x":"last"},"big":-9007199254740993,"o":{"p":{"q":"r"}},'
    .. '"e":"\\u00e9t\\u00e9","e2":"\\u00fcber \\u00fcber \\u00fcber"}'
  local d = qjson.parse(text)
  local dv = d:get()
  arm(function()
    local ov = qjson.decode(otext, { big_int = "string" })
    local r = { other:get_str("s"), other:raw("n"), other:get_num("n"), other:get_bool("b"), other:len("a"),
      other:get_i64("i"), other:get_u64("u"), other:typeof("d"), other:is_null("a[2]"), ov.s, ov.big,
      ov.a[2], qjson.len(ov.a), d:get_str("e2"), dv.e2 }
    for k, x in qjson.pairs(ov.d) do
      r[#r + 1] = k .. tostring(#x)
    end
    for k in other:pairs("d") do
      r[#r + 1] = k
    end
    ov.n = 2
    r[#r + 1] = qjson.encode(ov)
    r[#r + 1] = select(2, pcall(qjson.parse, '{"x":' .. long .. '}'))
    r[#r + 1] = select(2, pcall(qjson.path, "a[" .. long .. "]"))
    assert(#r == 20, "the finalizer's reads")
  end)
  local compiled = qjson.path("o.p.q")
  stress()
  for _ = 1, 5 do
    check(d:typeof("k") == "string", "doc:typeof")
    check(d:is_null("z") == true and d:is_null("k") == false, "doc:is_null")
    check(d:get_str("k") == "short", "doc:get_str")
    check(d:get_str("e") == "\195\169t\195\169" and dv.e == "\195\169t\195\169", "an escaped string")
    check(d:get_str(compiled) == "r", "doc:get_str, a compiled path")
    check(d:raw("a") == '[1,"two",[3]]', "doc:raw")
    check(d:get_num("n") == 2, "doc:get_num")
    check(d:get_bool("b") == true and d:get_bool("f") == false, "doc:get_bool")
    check(d:get_i64("i") == -5LL and d:get_u64("u") == 7ULL, "doc:get_i64, get_u64")
    check(d:len("a") == 3 and d:len("d") == 2, "doc:len")
    check(d:get("a[1]") == "two" and d:open("o.p"):get_str("q") == "r", "doc:get, doc:open")
    local dk = {}
    for k, x in d:pairs("d") do
      dk[#dk + 1] = k .. "=" .. tostring(x)
    end
    check(table.concat(dk, ",") == "x=last", "doc:pairs, a repeated key: " .. table.concat(dk, ","))
    local v = qjson.decode(text, { big_int = "string" })
    check(v.k == "short" and v.n == 2 and v.b == true and v.f == false and v.z == qjson.null, "view scalars")
    check(v.big == "-9007199254740993", "view big_int string: " .. tostring(v.big))
    check(v.a[2] == "two" and qjson.len(v.a[3]) == 1 and v.o.p.q == "r", "view children")
    local vk = {}
    for k, x in qjson.pairs(v.d) do
      vk[#vk + 1] = k .. "=" .. tostring(x)
    end
    check(table.concat(vk, ",") == "x=last", "view pairs, a repeated key: " .. table.concat(vk, ","))
    local cv = qjson.decode(text, { big_int = "cdata" })
    check(cv.big == -9007199254740993LL, "view big_int cdata")
    check(qjson.decode('"a string root"') == "a string root", "decode of a string root")
    local w = qjson.parse(text):get("o.p")
    w.q = "s"
    v.a[1] = 10
    v.k = "long"
    check(qjson.encode(v):find('"a":[10,"two",[3]]', 1, true) ~= nil, "encode of an edited view")
    local ok, err = pcall(qjson.parse, '{"k":tru}')
    check(not ok and err:find("invalid", 1, true) ~= nil, "a parse's message: " .. tostring(err))
    local pok, perr = pcall(qjson.path, "a[")
    check(not pok and perr:find("path", 1, true) ~= nil, "a path's message: " .. tostring(perr))
  end
  -- (About 900 run here: each read is stressed at many allocations.)
  check(armed.n > 500, "only " .. armed.n .. " finalizers ran")
  calm()
end

-- Issue 40: a finalizer encodes, indented (so member by member:
-- qjson.view.members), an edited array view whose string element was
-- read before (so its value is kept, and the encode reads only its kind,
-- into the shared value box) while a view's string read is between its
-- native call and its string.
function S.encode_kind_read()
  local long = string.rep("A", 3000)
  local ev = qjson.decode('["' .. long .. '", 1]')
  ev[2] = 2
  assert(ev[1] == long)
  arm(function()
    local out = qjson.encode(ev, { indent = "" })
    assert(out == '[\n"' .. long .. '",\n2\n]', "the finalizer's encode")
  end)
  local v = qjson.decode('{"k":"short"}')
  stress()
  for _ = 1, 20 do
    local got = v.k
    check(got == "short", "a view's string: " .. tostring(got):sub(1, 40) .. " (" .. #tostring(got) .. " bytes)")
  end
  calm()
end

-- Item 3: a finalizer parses with options of its own between the two
-- halves of a parse: duplicate_keys = "reject" and ijson still apply.
function S.options_box()
  arm(function()
    qjson.parse("[]", {})
    qjson.parse('{"a":1,"a":2}', { duplicate_keys = "last" })
  end)
  stress()
  for _ = 1, 20 do
    local ok = pcall(qjson.parse, '{"role":"user","role":"admin"}', { duplicate_keys = "reject" })
    check(not ok, "duplicate_keys = reject accepted a repeated key")
    ok = pcall(qjson.parse, "[9007199254740993]", { ijson = true })
    check(not ok, "ijson accepted an integer beyond 2^53")
    ok = pcall(qjson.decode, '{"role":"user","role":"admin"}', { duplicate_keys = "reject" })
    check(not ok, "decode with duplicate_keys = reject accepted a repeated key")
  end
  calm()
end

-- Item 4: finalizers raise in the middle of decodes and materializes;
-- afterwards decodes still work (no slot is lost for good).
function S.slot_leak()
  local text = '[{"a":1,"b":[1,2,{"c":"d"}]},{"e":"f"}]'
  local raised = 0
  for round = 1, 40 do
    arm(function() error("boom from a finalizer") end, 1 + round % 5, 1)
    stress()
    local ok, err = pcall(cjson.decode, text)
    if not ok and tostring(err):find("boom", 1, true) then
      raised = raised + 1
    end
    calm()
    local v = qjson.decode(text)
    arm(function() error("boom from a finalizer") end, 1 + round % 7, 1)
    stress()
    ok, err = pcall(qjson.materialize, v)
    if not ok and tostring(err):find("boom", 1, true) then
      raised = raised + 1
    end
    calm()
  end
  check(raised > 16, "only " .. raised .. " errors were raised inside a decode")
  local ok, t = pcall(cjson.decode, text)
  check(ok and t[2].e == "f", "cjson.decode after finalizer errors: " .. tostring(t))
  ok, t = pcall(qjson.materialize, qjson.decode(text))
  check(ok and t[1].b[3].c == "d", "materialize after finalizer errors: " .. tostring(t))
end

-- Item 2, the encoder's side: a finalizer encoding edited views of its
-- own at each allocation of an encode of nested edited views leaves this
-- encode's output byte for byte what it is without it (the writer's
-- per-encode state is not shared between encodes). A wrapper of the view
-- writer that allocates stands in for the allocations the encoder may
-- make between a parent view and the child view it writes.
function S.encode_nested()
  local hooks = require("qjson.encode").views[require("qjson.view").ObjectMT]
  local put = hooks.put
  hooks.put = function(...)
    local t = { ... }
    return put(unpack(t))
  end
  local text = '{"a": 1, "b": [1, {"c": 2, "d": [3, 4]}], "e": {"f": 5}, "g": "h"}'
  local function edited()
    local v = qjson.decode(text)
    v.a = 2
    v.b[2].c = 4
    v.e.f = 7
    return v
  end
  -- (Objects with one member replaced keep their whitespace: the writer's
  -- path that needs to know where the object ends.)
  local want = qjson.encode(edited())
  check(want == '{"a":2,"b":[1,{"c": 4, "d": [3, 4]}],"e":{"f": 7},"g":"h"}', "unstressed encode: " .. want)
  local other = qjson.decode('{"x": {"y": [1, {"z": 2}]}, "w": 3}')
  for from = 1, 60 do
    local v = edited()
    arm(function()
      other.x.y[2].z = from
      other.w = { from }
      assert(qjson.encode(other) == ('{"x":{"y":[1,{"z": %d}]},"w":[%d]}'):format(from, from))
    end, from, 1)
    stress()
    local ok, out = pcall(qjson.encode, v)
    calm()
    check(ok and out == want, "encode, another encode at allocation " .. from .. ": " .. tostring(out))
  end
  hooks.put = put
end

-- Issue 39, item 22: the walker stays busy until its output is taken
-- (qjson.encode.walk's walk). Taking the output allocates, and a
-- finalizer's encode there must take another walker: in this one it
-- would reset what the walk met (a view of a lazy-mode document, whose
-- copied bytes are then checked) before the walk reads it. An edited view
-- of a lazy-mode document holding invalid JSON, encoded while a finalizer
-- encodes a plain table at each allocation in turn: every encode raises,
-- none returns the invalid text.
function S.encode_output()
  local text = '{"a": 1, "b": tru}'
  local function edited()
    local v = qjson.decode(text, { mode = "lazy" })
    v.a = 2
    return v
  end
  local lazy_error = "invalid JSON copied from a document parsed in lazy mode"
  local ok, err = pcall(qjson.encode, edited())
  check(not ok and tostring(err):find(lazy_error, 1, true), "unstressed encode: " .. tostring(err))
  for from = 1, 40 do
    local v = edited()
    arm(function()
      assert(qjson.encode({ from }) == "[" .. from .. "]")
    end, from, 1)
    stress()
    local ok2, out = pcall(qjson.encode, v)
    calm()
    check(not ok2 and tostring(out):find(lazy_error, 1, true),
      "encode, another encode at allocation " .. from .. ": " .. tostring(out))
  end
end

-- Item 12 under finalizers: doc:get below the root adopts the view by
-- reading the keys on the path from the root (view.read's attach); a
-- finalizer that reads another document's long key meanwhile rewrites the
-- shared key box. The edit through the view must still reach the root's
-- encode.
function S.attach_key()
  local text = '{"alpha": {"beta": {"c": 1}}, "z": 0}'
  local other = qjson.decode('{"' .. ("k"):rep(300) .. '": 1}')
  local function edited()
    local d = qjson.parse(text)
    local v = d:get("alpha.beta")
    v.c = 5
    return qjson.encode(d:get())
  end
  local want = edited()
  check(want == '{"alpha":{"beta":{"c": 5}},"z":0}', "unstressed encode: " .. want)
  for from = 1, 60 do
    arm(function()
      for k in qjson.pairs(other) do
        assert(#k == 300)
      end
    end, from, 1)
    stress()
    local ok, out = pcall(edited)
    calm()
    check(ok and out == want, "doc:get, another key read at allocation " .. from .. ": " .. tostring(out))
  end
end

-- A finalizer's materialize with lua-cjson's decode_array_with_array_mt
-- at each allocation of a materialize without it: each keeps its own
-- arrays' metatable (the settings of the native build were one shared
-- table).
function S.materialize_mt()
  local with_mt = qjson.new()
  with_mt.decode_array_with_array_mt(true)
  local other = qjson.decode('{"x":[1,2]}')
  local text = '{"a":[1,2],"b":[[3],[4,5]]}'
  for from = 1, 30 do
    local v = qjson.decode(text)
    local theirs
    arm(function()
      theirs = with_mt.materialize(other)
    end, from, 1)
    stress()
    local t = qjson.materialize(v)
    calm()
    check(getmetatable(t.a) == nil and getmetatable(t.b) == nil and getmetatable(t.b[2]) == nil,
      "materialize, another with array_mt at allocation " .. from)
    check(theirs == nil or getmetatable(theirs.x) == with_mt.array_mt,
      "the finalizer's materialize at allocation " .. from)
  end
end

-- A finalizer's is_valid at each allocation of an is_valid that fails (a
-- closed document): the failure keeps its own message (the error box was
-- given back before the message was read).
function S.schema_message()
  local v = qjson.schema('{"type":"object"}')
  local closed = qjson.parse('{"a":1}')
  closed:close()
  for from = 1, 20 do
    arm(function()
      assert(v:is_valid("{bad") == false)
    end, from, 1)
    stress()
    local ok, err = pcall(v.is_valid, v, closed)
    calm()
    check(not ok and tostring(err):find("document is closed", 1, true) ~= nil,
      "is_valid of a closed document, another is_valid at allocation " .. from .. ": " .. tostring(err))
  end
end

-- A finalizer that validates requests with the same api (one valid with
-- other path values, one invalid with other errors) at each allocation
-- of a validate_request, valid and invalid, headers from a table and
-- from a function: each call returns its own result and its own errors.
-- (X-Tags, a repeated header, is joined after X-Request-Id is set: an
-- allocation between the header pairs' filling and the check.)
function S.openapi_nested()
  local api = qjson.openapi([[{"openapi":"3.0.3","info":{"title":"t","version":"1"},
    "paths":{"/users/{userId}":{"post":{"operationId":"updateUser","parameters":[
      {"name":"userId","in":"path","required":true,"schema":{"type":"integer","minimum":1}},
      {"name":"limit","in":"query","schema":{"type":"integer","maximum":100}},
      {"name":"X-Request-Id","in":"header","required":true,"schema":{"type":"string","maxLength":3}},
      {"name":"X-Tags","in":"header","schema":{"type":"array","items":{"type":"string"}}}],
      "requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["age"],
        "properties":{"age":{"type":"integer"}}}}}}}}}}]])
  local function req(id, limit, rid, headers_fn, body)
    return { method = "POST", path = "/users/" .. id, query = "limit=" .. limit, body = body or '{"age":1}',
      content_type = "application/json",
      headers = headers_fn and function(header)
        if header == "x-tags" then
          return table.concat({ "t", id }, ",")
        end
        return header == "x-request-id" and rid or nil
      end or { ["x-request-id"] = rid, ["x-tags"] = { "t", tostring(id) } } }
  end
  local theirs, ran = {}, 0
  local function other()
    ran = ran + 1
    local ok, m = api:validate_request(req(7, 1, "abc", true))
    theirs[#theirs + 1] = ok and m.path.userId == 7 and m.template == "/users/{userId}"
    local bad, errors = api:validate_request(req(0, 500, nil, false, '{"age":"x"}'))
    theirs[#theirs + 1] = bad == false and #errors == 4 and errors[1].name == "userId"
      and errors[4].instance_location == "/age"
  end
  for from = 1, 40 do
    for _, fn in ipairs({ false, true }) do
      theirs = {}
      arm(other, from, 1)
      stress()
      local ok, m = api:validate_request(req(42, 10, "r1", fn))
      local bad, errors = api:validate_request(req(5, 101, "long", fn, '{"age":1.5}'))
      calm()
      local at = " at allocation " .. from .. (fn and " (header function)" or "")
      check(ok == true and m.path.userId == 42 and m.operation_id == "updateUser", "the valid request" .. at)
      check(bad == false and #errors == 3 and errors.status == 400 and errors[1].name == "limit"
        and errors[2].name == "X-Request-Id" and errors[3].instance_location == "/age",
        "the invalid request's errors" .. at)
      for i = 1, #theirs do
        check(theirs[i], "the finalizer's validation " .. i .. at)
      end
    end
  end
  check(ran >= 40, "the finalizer validated " .. ran .. " times")
  -- problem(): a finalizer's own problem() and one that replaces the
  -- errors' messages (their strings then held only by the call's anchor)
  -- at each allocation of a problem() whose text outgrows the scratch
  -- report (a second native call after an allocation).
  local function big_errors()
    local errs = { status = 400 }
    for i = 1, 3 do
      errs[i] = { where = "body", name = "", instance_location = "/" .. i, keyword_location = "/k",
        message = string.rep("m" .. i, 3000), line = 1, column = i, byte = i - 1 }
    end
    return errs
  end
  local want = api:problem(big_errors())
  local _, theirs_errors = api:validate_request(req(0, 500, nil, false, '{"age":"x"}'))
  local want_theirs = api:problem(theirs_errors)
  for from = 1, 30 do
    local errs, nested = big_errors(), nil
    arm(function()
      nested = api:problem(theirs_errors)
      for i = 1, #errs do
        errs[i].message = "gone" .. i
      end
    end, from, 1)
    stress()
    local text, status = api:problem(errs)
    calm()
    local at = " at allocation " .. from
    check(status == 400 and (nested == nil or nested == want_theirs), "the finalizer's problem()" .. at)
    -- (Each message is the one read before or after the finalizer ran.)
    local p = qjson.decode(text)
    local same = true
    for i = 1, 3 do
      local d = p.errors[i].detail
      same = same and (d == string.rep("m" .. i, 3000) or d == "gone" .. i)
    end
    check(same and (text == want or nested ~= nil), "the problem text" .. at)
  end
end

-- A finalizer's patch (one that fails, and one that succeeds with other
-- values) at each allocation of a patch, a patcher's apply and a merge
-- patch of another document: each call returns its own result, and a
-- failing one its own message.
function S.patch_nested()
  local body = '{"model":"m", "t": 0.70 ,"user":"u","n":[1, 2]}'
  local p = qjson.patcher({ { op = "replace", path = "/t" }, { op = "add", path = "/x" } })
  local d = qjson.parse(body)
  -- (A replaced member is written anew, its key too; a removed one takes
  -- the space before its comma with it.)
  local want_apply = '{"model":"m","t":0.2,"user":"u","n":[1, 2],"x":{"k":[1]}}'
  local want_patch = '{"model":"m","user":"u","n":[1, 2]}'
  local want_merge = '{"model":"m", "t": 0.70,"n":[1, 2],"k":1}'
  for from = 1, 30 do
    arm(function()
      local ok = pcall(qjson.patch, "{}", { { op = "test", path = "/nope", value = 1 } })
      assert(not ok)
      assert(p:apply('{"t":1}', { 5, "y" }) == '{"t":5,"x":"y"}')
      assert(qjson.merge_patch('{"a":1}', '{"a":null}') == "{}")
    end, from, 1)
    stress()
    local r1 = p:apply(d, { 0.2, { k = { 1 } } })
    local r2 = qjson.patch(body, { { op = "remove", path = "/t" } })
    local r3 = qjson.merge_patch(d, { user = qjson.null, k = 1 })
    local ok, err = pcall(qjson.patch, d, '[{"op":"test","path":"/model","value":"z"}]')
    calm()
    check(r1 == want_apply, "apply, a patch at allocation " .. from .. ": " .. tostring(r1))
    check(r2 == want_patch, "patch, a patch at allocation " .. from .. ": " .. tostring(r2))
    check(r3 == want_merge, "merge_patch, a patch at allocation " .. from .. ": " .. tostring(r3))
    check(not ok and tostring(err) == 'qjson: operation 1: test at "/model" failed: the values differ',
      "a failing patch, a patch at allocation " .. from .. ": " .. tostring(err))
  end
end

-- Reads in compiled loops, with finalizers that write the same boxes.
-- A compiled trace that exits while the collector is in its finalize
-- phase runs a collector step there, and so a finalizer, at whichever
-- guard failed: between any two statements of the read. The loops vary
-- their paths and kinds so that guards fail often; every value is
-- checked. (Run with the JIT on; the other scenarios turn it off.)
function S.trace_exits()
  local other = qjson.parse('{"o":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7},'
    .. '"i":-9007199254740993,"u":18446744073709551615,"n":[[1,2,3,4,5,6,7,8,9],{"k":[1,2,3]}]}')
  local otext = '{"n":[[1,2,3,4,5,6,7,8,9],[1]],"big":[-9007199254740993,18446744073709551615]}'
  local sel = qjson.select({ "a", "b" })
  local closed = qjson.parse('{"a":1}')
  closed:close()
  local with_mt = qjson.new()
  with_mt.decode_array_with_array_mt(true)
  local mtv = qjson.decode('{"x":[1,2]}')
  arm(function()
    local a, b = sel('{"a":"fa","b":"fb"}')
    assert(a == "fa" and b == "fb", "the finalizer's selector call")
    assert(not pcall(closed.len, closed), "a read of a closed document")
    assert(getmetatable(with_mt.materialize(mtv).x) == with_mt.array_mt, "materialize with array_mt")
    local ov = qjson.decode(otext, { big_int = "cdata" })
    local ok = other:len("o") == 7 and other:get_i64("i") == -9007199254740993LL
      and other:get_u64("u") == 18446744073709551615ULL and qjson.len(ov.n[1]) == 9
      and ov.big[1] == -9007199254740993LL and ov.big[2] == 18446744073709551615ULL
      and qjson.encode(other:get("n"), { indent = " " }):find("9") ~= nil
    assert(ok, "the finalizer's own reads")
  end)
  local d = qjson.parse('{"arr":[1,2],"obj":{"k":1},"x":[[],{}],"i":[-5,9007199254740993,4],'
    .. '"u":[5,18446744073709551614]}')
  local text = '{"a":[[1,2],[3],{"k":[4,5,6]},[]],"b":[-9007199254740993,18446744073709551614],"c":[10,2.5,30]}'
  collectgarbage("setpause", 0)
  collectgarbage("setstepmul", 200)
  collectgarbage("step", 0)
  armed.live = true
  -- Each read in a loop of its own, so that most trace exits are in it.
  -- `want` lists (argument, value) pairs, false for nil. An allocation
  -- per turn that escapes (so is not sunk) keeps the collector going.
  local function loop(what, want, read)
    local pairs_ = #want / 2
    for i = 1, 60000 do
      local j = 2 * (i % pairs_) + 1
      local got = read(want[j])
      if got == nil then
        got = false
      end
      _G.keep = { i }
      if got ~= want[j + 1] then
        check(false, what .. " " .. tostring(want[j]) .. ": got " .. tostring(got))
        return
      end
    end
  end
  loop("doc:len", { "arr", 2, "obj", 1, "x", 2, "x[0]", 0, "x[1]", 0 }, function(p)
    return d:len(p)
  end)
  loop("doc:get_i64", { "i[0]", -5LL, "i[1]", 9007199254740993LL, "i[5]", false, "i[2]", 4LL }, function(p)
    return d:get_i64(p)
  end)
  loop("doc:get_u64", { "u[0]", 5ULL, "u[1]", 18446744073709551614ULL, "u[7]", false }, function(p)
    return d:get_u64(p)
  end)
  loop("view length", { 1, 2, 2, 1, 3, 3, 4, 0 }, function(j)
    local a = qjson.decode(text).a[j]
    return j ~= 3 and qjson.len(a) or qjson.len(a.k)
  end)
  loop("big_int cdata", { 1, -9007199254740993LL, 2, 18446744073709551614ULL }, function(j)
    return qjson.decode(text, { big_int = "cdata" }).b[j]
  end)
  local seltexts = { '{"a":"1","b":"x"}', '{"b":"y"}', '{"a":"3","b":4}' }
  loop("a selector's values (the finalizer calls it too)", { 1, "1x", 2, "nily", 3, "34" }, function(j)
    local a, b = sel(seltexts[j])
    return tostring(a) .. tostring(b)
  end)
  local lazy = qjson.parse('{"ok":[1,2],"bad":[1,2,3,-]}', { mode = "lazy" })
  loop("a lazy read's error message (the finalizer's read fails too)", { "bad[3]", true, "ok[1]", false },
    function(p)
      local ok, err = pcall(lazy.get_num, lazy, p)
      return not ok and err:find("invalid number", 1, true) ~= nil
    end)
  local arrays = qjson.decode('{"x":[1,2],"y":[[3]]}')
  loop("materialize without array_mt (the finalizer's has it)", { "x", true, "y", true }, function(k)
    return getmetatable(qjson.materialize(arrays)[k]) == nil
  end)
  loop("indented encode of doc:get's view", { "c", "[\n10,\n2.5,\n30\n]", "a[1]", "[\n3\n]" }, function(p)
    return qjson.encode(qjson.parse(text):get(p), { indent = "" })
  end)
  -- (About 23,000 run here: not so few that the loops went unstressed.)
  check(armed.n > 5000, "only " .. armed.n .. " finalizers ran")
  calm()
end

-- Issue 39, item 18: a storm of finalizers that parse, read, decode,
-- edit, encode (plain tables, views, with qjson.cjson too) and
-- materialize, while the main loop does the same, each result checked.
-- qjson.decode gives what it gives on this build (plain tables without
-- LUA52COMPAT). A compiled `pairs` loop that a finalizer enters can spin
-- for ever (see qjson.encode), so with the JIT on the main loop flushes
-- the compiled code every 50 ms: traces are young again and again, their
-- exits not yet extended, which is when such a loop spins. A hang is
-- what this scenario's caller watches for (spec/finalizer_spec.lua's
-- timeout; docs/security.md has how often it hung before the fix).
local STORM_SECONDS = 2 -- of CPU time
function S.storm()
  qjson.decode_views(require("qjson.decode.settings").LUA52COMPAT)
  local text = '{"id":7,"name":"n","tags":["a","b",{"k":[1,2.5,null]}],"o":{"p":true,"q":"x\\u00e9"}}'
  -- Plain tables of mixed shapes: keys and values of several types in one
  -- table, holes, nesting, an array part beside a hash part.
  local function value(i)
    local o = { id = i, name = "n" .. i, ok = i % 2 == 0, list = { 1, "two", { 3 } } }
    for j = 1, 12 do
      o["k" .. j] = j % 3 == 0 and { j, "s" } or j % 3 == 1 and j or ("v" .. j)
    end
    o[1], o[2.5] = "one", "two and a half"
    return { o, { n = i, list = { 1, 2, 3, nil, 5 } }, { [1] = 1, [2] = 2, x = "y" } }
  end
  local want_plain, want_cjson = {}, {}
  for i = 1, 4 do
    want_plain[i] = qjson.encode(value(i), { sort_keys = true })
    want_cjson[i] = #cjson.encode(value(i))
  end
  local want_text = qjson.encode(cjson.decode(text), { sort_keys = true })
  local function edited()
    local t = qjson.decode(text)
    t.id = 8
    return t
  end
  local want_edit, want_sorted = qjson.encode(edited()), qjson.encode(qjson.materialize(edited()), { sort_keys = true })
  local function work(i)
    local k = i % 4 + 1
    local d = qjson.parse(text)
    assert(d:get_str("name") == "n" and d:get_num("tags[2].k[1]") == 2.5 and d:len("tags") == 3, "parse and reads")
    d:close()
    assert(qjson.encode(value(k), { sort_keys = true }) == want_plain[k], "qjson.encode of plain tables")
    assert(#qjson.encode(value(k)) == #want_plain[k], "qjson.encode, compact")
    assert(#cjson.encode(value(k)) == want_cjson[k], "qjson.cjson.encode")
    local t = edited()
    assert(qjson.encode(qjson.materialize(t), { sort_keys = true }) == want_sorted, "decode, edit, materialize")
    assert(#qjson.encode(t) == #want_edit, "decode, edit, encode")
    assert(qjson.encode(cjson.decode(text), { sort_keys = true }) == want_text, "qjson.cjson.decode")
  end
  local ran = 0
  arm(function()
    ran = ran + 1
    local ok, err = pcall(work, ran)
    if not ok then
      check(false, "in a finalizer: " .. tostring(err))
    end
  end)
  collectgarbage("setpause", 0)
  collectgarbage("setstepmul", 200)
  collectgarbage("step", 0)
  armed.live = true
  local flush = mode ~= "nojit"
  local start = os.clock()
  local flushed = start
  local i = 0
  while os.clock() - start < STORM_SECONDS and #failures == 0 do
    i = i + 1
    local ok, err = pcall(work, i)
    if not ok then
      check(false, "in the main loop: " .. tostring(err))
    end
    if flush and os.clock() - flushed > 0.05 then
      jit.flush()
      flushed = os.clock()
    end
  end
  calm()
  check(ran > 1000, "only " .. ran .. " finalizers ran")
end

-- Item 5: at lua_close LuaJIT runs cdata finalizers (qjson's) before
-- userdata __gc: a __gc that reads a document then gets "document is
-- closed", not freed memory. Prints what the reads gave, at exit.
function S.lua_close()
  local text = big_object(256 * 1024)
  local path = tmpfile(text)
  local docs = { qjson.parse(text), qjson.parse_file(path), qjson.decode(text) }
  os.remove(path)
  local p = newproxy(true)
  getmetatable(p).__gc = function()
    local out = {}
    for i, d in ipairs(docs) do
      local ok, r
      if i == 3 then
        ok, r = pcall(function() return d.m7 end)
      else
        ok, r = pcall(d.get_str, d, "m7")
      end
      out[#out + 1] = ok and ("read " .. #tostring(r) .. " bytes") or tostring(r)
    end
    io.stdout:write("at close: ", table.concat(out, "; "), "\n")
    io.stdout:flush()
  end
  _G.keep = { p, docs }
  -- (no os.exit: the interpreter closes the state at the end of the script)
end

-- Issue 39, item 11: a finalizer that feeds the same feeder while the
-- caller iterates an earlier feed's values (or while it feeds: then its
-- feed raises "already feeding", which the finalizer catches): each
-- iteration hands out its own values, never fields of two events.
function S.feeder_values()
  local sel = qjson.select({ "a", "b" })
  local chunk = '{"a":"a1","b":"b1"}\n{"a":"a2","b":"b2"}\n{"a":"a3","b":"b3"}\n'
  local other = '{"a":"x1","b":"y1"}\n'
  for from = 1, 80 do
    local f = qjson.stream.feeder("ndjson", sel)
    local inner = {}
    arm(function()
      pcall(function()
        for _, a, b in f:feed(other) do
          inner[#inner + 1] = a .. b
        end
      end)
    end, from, 1)
    stress()
    local got = {}
    for _, a, b in f:feed(chunk) do
      got[#got + 1] = a .. b
    end
    calm()
    got = table.concat(got, ",")
    check(got == "a1b1,a2b2,a3b3", "feed at " .. from .. ": " .. got)
    for _, v in ipairs(inner) do
      check(v == "x1y1", "the finalizer's feed at " .. from .. ": " .. v)
    end
  end
end

-- Issue 39, item 12: a finalizer raises inside feed() (the same path as
-- running out of memory while the values are copied): that feed raises
-- the finalizer's error, the feeder is not left "already feeding", and
-- the values it had taken come with the next feed, once each, in order.
function S.feeder_error()
  local chunk = '{"a":1}\n{"a":2}\n{"a":3}\n{"a":4}\n'
  for from = 1, 60 do
    for _, how in ipairs({ "raw", "sel" }) do
      local f = qjson.stream.feeder("ndjson", how == "raw" and "raw" or qjson.select({ "a" }))
      local got, n, errs = { false, false, false, false, false, false }, 0, {}
      arm(function() error("finalizer error", 0) end, from, 1)
      stress()
      for _, c in ipairs({ chunk, "{\"a\":5}\n", "" }) do
        local ok, step, st, i = pcall(f.feed, f, c)
        if ok then
          -- (Each step in a pcall too, and retried: a step the finalizer
          -- cut short hands out its value again.)
          while true do
            local ok2, j, v = pcall(step, st, i)
            if ok2 then
              if j == nil then
                break
              end
              n = n + 1
              got[n] = v
              i = j
            elseif v ~= "finalizer error" and j ~= "finalizer error" then
              errs[#errs + 1] = tostring(j)
              break
            end
          end
        elseif step ~= "finalizer error" then
          errs[#errs + 1] = tostring(step)
        end
      end
      calm()
      local s = table.concat(got, ",", 1, n)
      local want = how == "raw" and '{"a":1},{"a":2},{"a":3},{"a":4},{"a":5}' or "1,2,3,4,5"
      check(s == want, how .. " at " .. from .. ": " .. s)
      check(#errs == 0, how .. " at " .. from .. ": " .. table.concat(errs, "; "))
    end
  end
end

-- Issue 39, item 17: at lua_close, a userdata __gc (run after every cdata
-- finalizer) uses a selector, a feeder, a validator and a compiled path,
-- and calls qjson.stream.each (whose pooled splitter those finalizers
-- freed): each use raises "<object> is freed", each() takes a new
-- splitter. Prints what each use gave, at exit.
function S.lua_close_objects()
  local sel = qjson.select({ "a" })
  local feeder = qjson.stream.feeder("ndjson", sel)
  for _ in feeder:feed('{"a":1}\n') do end
  local validator = qjson.schema('{"type":"object"}')
  local path = qjson.path("a")
  local d = qjson.parse('{"a":1}')
  for _ in qjson.stream.each('{"a":1}\n', "ndjson", "raw") do end
  local p = newproxy(true)
  getmetatable(p).__gc = function()
    local out = {}
    local function try(what, fn)
      local ok, r = pcall(fn)
      out[#out + 1] = what .. ": " .. (ok and "gave " .. tostring(r) or tostring(r))
    end
    try("selector", function() return sel('{"a":2}') end)
    try("feeder", function()
      local r
      for _, v in feeder:feed('{"a":3}\n') do
        r = v
      end
      return r
    end)
    try("validator", function() return validator:is_valid("{}") end)
    try("path", function() return d:get_num(path) end)
    try("each", function()
      local r
      for _, v in qjson.stream.each('{"a":4}\n', "ndjson", "raw") do
        r = v
      end
      return r
    end)
    io.stdout:write("at close:\n", table.concat(out, "\n"), "\n")
    io.stdout:flush()
  end
  _G.keep = { p, sel, feeder, validator, path, d }
end

-- (Set up before qjson was loaded, at the top.)
function S.lua_close_unloaded() end

local f = S[name]
if not f then
  io.stderr:write("unknown scenario ", tostring(name), "\n")
  os.exit(2)
end
f()
if #failures == 0 then
  print("ok")
else
  print(#failures .. " failures:")
  for i = 1, math.min(#failures, 10) do
    print("  " .. failures[i])
  end
end
io.stdout:flush()
