-- The job the failing-allocator host (oom_host.c) runs at every N: a
-- decode, an encode, the drop-in's decode (strict and its port) and
-- encode, document reads, patches (of a text, a cursor and through a
-- patcher with values), a stream feeder, a schema validation (of a
-- document) and selects (of a text and a document). Each result is
-- checked; a wrong one raises something other than "not enough memory",
-- which fails the host.
local qjson = require("qjson")
local cjson = require("qjson.cjson")

local text = '{"model":"gpt-4o","temperature":0.7,"messages":[{"role":"user","content":"h\\u00e9llo"},'
  .. '{"role":"assistant","content":"hi","n":[1,2,3,{"k":null}]}],"stream":false,"e":[]}'

local function check(ok, what)
  if not ok then
    error("wrong answer: " .. what, 0)
  end
end

-- Objects that own memory are kept until lua_close rather than left as
-- garbage: Lua drops a finalizer it cannot call for lack of memory (5.1 to
-- 5.4), and the object's memory with it, which is Lua's limit, not the
-- module's (docs/security.md). The calls themselves leave no garbage
-- that owns memory.
local kept = {}
local function keep(x)
  kept[#kept + 1] = x
  return x
end

function job()
  local t = qjson.decode(text)
  check(t.model == "gpt-4o" and t.messages[1].content == "h\195\169llo", "decode")
  check(t.messages[2].n[4].k == qjson.null, "decode null")
  t.temperature = 0.2
  local out = qjson.encode(t, { sort_keys = true, indent = 1 })
  check(qjson.decode(out).temperature == 0.2, "encode")
  check(cjson.encode({ 1, "a/b", { x = true } }) == '[1,"a\\/b",{"x":true}]', "cjson.encode")
  local c = cjson.decode(text)
  check(c.messages[2].n[3] == 3, "cjson.decode")
  local p = cjson.decode('[NaN, 0x10, "\1", {"a": [1, 2]}]')
  check(p[2] == 16 and p[4].a[2] == 2, "cjson.decode's port")
  local d = qjson.parse(text)
  check(d:get_str("messages[0].content") == "h\195\169llo", "get_str")
  check(d:len("messages") == 2 and d:get_num("temperature") == 0.7, "len, get_num")
  local keys = 0
  for _, v in d:pairs("messages[1]") do
    keys = keys + 1
    check(v ~= nil, "pairs")
  end
  check(keys == 3, "pairs count")
  check(d:get("messages[1].n")[4].k == qjson.null, "get")
  check(d:raw("e") == "[]", "raw")
  local ok, err = pcall(qjson.decode, "[1,")
  check(not ok and (err:find("unexpected end") or err:find("not enough memory")), "error path")
  local patched = qjson.patch(text, { { op = "replace", path = "/temperature", value = 0.2 } })
  check(patched:find('"temperature":0.2,', 1, true), "patch")
  check(qjson.merge_patch(d:open("messages[0]"), { role = qjson.null }) == '{"content":"h\\u00e9llo"}', "merge_patch")
  local pr = keep(qjson.patcher({ { op = "add", path = "/e/-" }, { op = "remove", path = "/stream" } }))
  check(pr:apply(text, 5):find('"e":[5]}', 1, true), "patcher")
  local v = keep(qjson.schema({ properties = { temperature = { maximum = 0.5 } } }))
  local valid, errors = v:validate(d)
  check(not valid and errors[1].instance_location == "/temperature", "schema")
  local sel = keep(qjson.select({ "model", "messages[*].role", "messages[1].n", m = "messages[0].content:string" }))
  local s = sel(text)
  check(s[1] == "gpt-4o" and s[2][2] == "assistant" and s[3][4].k == qjson.null, "select")
  check(s.m == "h\195\169llo", "select by name")
  check(keep(qjson.select({ "messages[0].content" }))(d) == "h\195\169llo", "select of a document")
  d:close()
  local f, vals = keep(qjson.stream.feeder("sse")), {}
  for _, chunk in ipairs({ 'data: {"n":1}\n\ndata: [2,', '\ndata: 3]\n', "\n" }) do
    for _, value in f:feed(chunk) do
      vals[#vals + 1] = value:raw()
      value:close()
    end
  end
  check(table.concat(vals, "|") == '{"n":1}|[2,\n3]', "stream feeder")
  -- A selector as a stream's how: each() and a feeder.
  local ssel, n = keep(qjson.select({ "n", "m[*]" })), 0
  for i, a, b in qjson.stream.each('{"n":1,"m":[1,2]}\n{"n":"x\\u00e9","m":[]}\n', "ndjson", ssel) do
    n = n + 1
    check(i == 1 and a == 1 and b[2] == 2 or i == 2 and a == "x\195\169" and #b == 0, "stream.each selector")
  end
  check(n == 2, "stream.each selector count")
  local sf = keep(qjson.stream.feeder("json", keep(qjson.select({ k = "k" }))))
  for _ in sf:feed('{"k":') do
    error("wrong answer: no value expected", 0)
  end
  for _, got in sf:feed('[3]}', true) do
    check(got.k[1] == 3, "stream feeder selector")
  end
  -- OpenAPI: a request validated (a header read through a function, a
  -- path parameter decoded), a failed one and its problem document.
  local api = keep(qjson.openapi('{"openapi":"3.1.0","paths":{"/u/{id}":{"post":{"parameters":['
    .. '{"name":"id","in":"path","required":true,"schema":{"type":"integer"}},'
    .. '{"name":"X-R","in":"header","required":true,"schema":{"type":"string"}}],"requestBody":{"content":'
    .. '{"application/json":{"schema":{"properties":{"temperature":{"maximum":1}}}}}}}}}}'))
  local req = { method = "POST", path = "/u/7", headers = function() return "r" end, body = text,
    content_type = "application/json" }
  local passed, m = api:validate_request(req)
  check(passed and m.path.id == 7, "openapi valid")
  req.path, req.headers = "/u/x", { ["x-r"] = { "a", "b" } }
  local failed, errs = api:validate_request(req)
  check(not failed and errs[1].name == "id" and errs.status == 400, "openapi invalid")
  local problem, status = api:problem(errs)
  check(status == 400 and problem:find('"in":"path","name":"id"', 1, true), "openapi problem")
  -- Iterators over a document's arrays, their values cursors.
  local it = qjson.parse(text)
  local sum = 0
  for i, message in it:ipairs("messages") do
    for _, field in message:pairs() do
      sum = sum + (type(field) == "table" and 10 or 0)
    end
    sum = sum + i
  end
  check(sum == 13, "ipairs, pairs")
  it:close()
end

-- The job with the collector stopped, then its garbage collected with the
-- module's finalizers taken away, as Lua does when it cannot call one for
-- lack of memory: the host runs this last and closes the state under
-- valgrind, so anything a call leaves behind owning native memory shows
-- as a leak in every run, not only when a failing allocation happens to
-- hit the call of its finalizer.
function job_without_finalizers()
  collectgarbage("collect")
  collectgarbage("stop")
  job()
  local saved = {}
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:find("^qjson%.") and type(mt) == "table" and mt.__gc then
      saved[mt], mt.__gc = mt.__gc, nil
    end
  end
  check(next(saved) ~= nil, "the module's metatables in the registry")
  collectgarbage("collect")
  collectgarbage("collect")
  for mt, gc in pairs(saved) do
    mt.__gc = gc
  end
  collectgarbage("restart")
end
