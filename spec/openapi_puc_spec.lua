-- qjson.openapi on PUC Lua (crates/puc/src/openapi.rs): compile a spec,
-- validate requests (route, path, query, headers as a table or a
-- function, body), render problem details; qjson.safe's variants; bad
-- arguments; header functions that raise or collect. The contract is the
-- LuaJIT binding's too (spec/openapi_spec.lua tests it there).
local qjson = require("qjson")
local safe = require("qjson.safe")

-- Plain tables from JSON text (on a LUA52COMPAT LuaJIT, where this spec
-- runs too, qjson.decode returns views).
local function decode(text)
  local v = qjson.decode(text)
  return qjson.materialize and qjson.materialize(v) or v
end

local USERS = [[{
  "openapi": "3.0.3",
  "info": {"title": "users", "version": "1"},
  "paths": {"/users/{userId}": {"post": {
    "operationId": "updateUser",
    "parameters": [
      {"name": "userId", "in": "path", "required": true,
       "schema": {"type": "integer", "minimum": 1}},
      {"name": "limit", "in": "query",
       "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
      {"name": "X-Request-Id", "in": "header", "required": true, "schema": {"type": "string"}}
    ],
    "requestBody": {"required": true,
      "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}}
  }}},
  "components": {"schemas": {"User": {
    "type": "object",
    "required": ["name", "age"],
    "properties": {
      "name": {"type": "string", "minLength": 1},
      "age": {"type": "integer", "minimum": 0},
      "score": {"type": "number"},
      "active": {"type": "boolean"},
      "tags": {"type": "array", "items": {"type": "string"}},
      "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                  "required": ["city"]},
      "meta": {"type": "object", "additionalProperties": {"type": "string"}},
      "role": {"type": "string", "enum": ["admin", "user", "guest"]},
      "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
      "nickname": {"type": "string", "nullable": true}
    }
  }}}
}]]

local BODY = '{"name":"Alice Example-Longname","age":30,"score":97.5,"active":true,'
  .. '"tags":["alpha","beta","gamma","delta"],"address":{"city":"Paris","zip":"75001","street":"10 rue de Rivoli"},'
  .. '"meta":{"source":"web","campaign":"spring-sale"},"role":"admin","email":"alice@example.com","nickname":null}'

local USER = "/components/schemas/User/properties/"
local PARAMS = "/paths/~1users~1{userId}/post/parameters/"

-- The founding request, with `changes` applied (false removes a field).
local function request(changes)
  local req = { method = "POST", path = "/users/42", query = "limit=10", headers = { ["x-request-id"] = "req-1" },
    body = BODY, content_type = "application/json" }
  for k, v in pairs(changes or {}) do
    req[k] = v or nil
  end
  return req
end

local function one_error(api, changes)
  local ok, errors = api:validate_request(request(changes))
  assert.is_false(ok)
  assert.equal(1, #errors, errors[2] and errors[2].message)
  return errors[1], errors.status
end

describe("qjson.openapi on PUC Lua", function()
  local api = qjson.openapi(USERS)

  it("accepts the founding request: operation, template, path parameters decoded", function()
    local ok, m = api:validate_request(request())
    assert.is_true(ok)
    assert.same({ operation_id = "updateUser", template = "/users/{userId}", path = { userId = 42 } }, m)
    if math.type then
      assert.equal("integer", math.type(m.path.userId))
    end
    assert.equal("qjson.openapi", tostring(api))
  end)

  it("reports each invalid kind with where, name, locations and status", function()
    local e, status = one_error(api, { path = "/users/0" })
    assert.same({ where = "path", name = "userId", instance_location = "", status = 400,
      keyword_location = PARAMS .. "0/schema/minimum", message = e.message }, e)
    assert.equal(400, status)
    e = one_error(api, { path = "/users/abc" })
    assert.same({ "path", "userId", 400 }, { e.where, e.name, e.status })
    assert.matches("not an integer", e.message)
    e = one_error(api, { query = "limit=101" })
    assert.same({ "query", "limit", PARAMS .. "1/schema/maximum" }, { e.where, e.name, e.keyword_location })
    e = one_error(api, { headers = {} })
    assert.same({ where = "header", name = "X-Request-Id", instance_location = "", status = 400,
      keyword_location = PARAMS .. "2", message = "is required" }, e)
    e, status = one_error(api, { body = false })
    assert.same({ "body", "", 400 }, { e.where, e.name, status })
    e, status = one_error(api, { content_type = "application/xml" })
    assert.same({ "body", 415, 415 }, { e.where, e.status, status })
    e = one_error(api, { query = "", body = '{"name": "a",\n "age": }' })
    assert.same({ "body", 2, 9, 22 }, { e.where, e.line, e.column, e.byte })
    -- A body field of each kind, located in the body and in the component.
    -- (original, replacement, instance location, keyword, where the error is)
    for _, case in ipairs({
      { '"age":30', '"age":30.5', "/age", "age/type", "30.5" },
      { '"name":"Alice Example-Longname"', '"name":""', "/name", "name/minLength", '""' },
      { '"active":true', '"active":"true"', "/active", "active/type", '"true"' },
      { '"tags":["alpha"', '"tags":["alpha",1', "/tags/1", "tags/items/type", "1," },
      { '"city":"Paris",', "", "/address", "address/required", '{"zip"' },
      { '"role":"admin"', '"role":"root"', "/role", "role/enum", '"root"' },
      { '"email":"alice@example.com"', '"email":"nobody"', "/email", "email/pattern", '"nobody"' },
    }) do
      local from = assert(BODY:find(case[1], 1, true))
      local body = BODY:sub(1, from - 1) .. case[2] .. BODY:sub(from + #case[1])
      e = one_error(api, { body = body })
      assert.same({ "body", "", case[3], USER .. case[4], 400 },
        { e.where, e.name, e.instance_location, e.keyword_location, e.status })
      local at = assert(body:find(case[5], 1, true))
      assert.same({ 1, at, at - 1 }, { e.line, e.column, e.byte }, case[3])
    end
  end)

  it("returns every error, or the first with max_errors = 1", function()
    local bad = { path = "/users/0", query = "limit=0", headers = false, body = '{"name":"","age":-1}' }
    local ok, errors = api:validate_request(request(bad))
    assert.is_false(ok)
    local places = {}
    for i, e in ipairs(errors) do
      places[i] = e.where
    end
    assert.same({ "path", "query", "header", "body", "body" }, places)
    local first = qjson.openapi(USERS, { max_errors = 1 })
    ok, errors = first:validate_request(request(bad))
    assert.is_false(ok)
    assert.equal(1, #errors)
    assert.equal("path", errors[1].where)
  end)

  it("coerces integers strictly", function()
    for _, q in ipairs({ "0x10", "%2010%20", "1e1", "%2B1", "+1", "1.0", "010", "" }) do
      local e = one_error(api, { query = "limit=" .. q })
      assert.same({ "query", "limit" }, { e.where, e.name }, q)
      assert.matches("not an integer", e.message, 1, true)
    end
    assert.matches("2 times", one_error(api, { query = "limit=10&limit=20" }).message)
  end)

  it("routes: 404 for an unknown path, 405 for a method the path lacks", function()
    local e, status = one_error(api, { path = "/nope" })
    assert.same({ "route", "", 404, 404 }, { e.where, e.name, e.status, status })
    e, status = one_error(api, { method = "GET" })
    assert.same({ "route", 405, 405 }, { e.where, e.status, status })
    assert.matches("GET", e.message)
  end)

  describe("headers", function()
    local spec = [[{"openapi":"3.1.0","paths":{"/h":{"get":{"parameters":[
      {"name":"X-Multi","in":"header","schema":{"type":"string","const":"a, b"}},
      {"name":"X-N","in":"header","required":true,"schema":{"type":"integer"}},
      {"name":"X-Tags","in":"header","schema":{"type":"array","items":{"type":"string"},"const":["p","q","r"]}}]}}}}]]
    local h = qjson.openapi(spec)

    it("reads a table: a repeated header (a table of strings) joined with ', '", function()
      assert.is_true(h:validate_request({ method = "GET", path = "/h",
        headers = { ["x-multi"] = { "a", "b" }, ["x-n"] = "7", ["x-tags"] = "p,q,r" } }))
      local ok, errors = h:validate_request({ method = "GET", path = "/h",
        headers = { ["x-multi"] = { "a", "c" }, ["x-n"] = { "7" } } })
      assert.is_false(ok)
      assert.equal(1, #errors)
      assert.same({ "header", "X-Multi", "/paths/~1h/get/parameters/0/schema/const" },
        { errors[1].where, errors[1].name, errors[1].keyword_location })
      -- An empty table is an absent header.
      ok, errors = h:validate_request({ method = "GET", path = "/h", headers = { ["x-n"] = {} } })
      assert.same({ false, "X-N", "is required" }, { ok, errors[1].name, errors[1].message })
    end)

    it("calls a function with each declared lower-case name only", function()
      local asked = {}
      local ok = h:validate_request({ method = "GET", path = "/h", headers = function(name)
        asked[#asked + 1] = name
        if name == "x-n" then
          return "12"
        end
      end })
      assert.is_true(ok)
      table.sort(asked)
      assert.same({ "x-multi", "x-n", "x-tags" }, asked)
      -- No route: nothing asked.
      asked = {}
      assert.is_false(h:validate_request({ method = "GET", path = "/x", headers = function(name)
        asked[#asked + 1] = name
      end }))
      assert.same({}, asked)
      local e = one_error(api, { headers = function(name)
        assert.equal("x-request-id", name)
        return nil
      end })
      assert.same({ "header", "is required" }, { e.where, e.message })
    end)

    it("gives a header function's error as it is", function()
      local ok, err = pcall(h.validate_request, h, { method = "GET", path = "/h", headers = function(name)
        error("no header " .. name, 0)
      end })
      assert.is_false(ok)
      assert.matches("^no header x%-", err)
      -- Not an error value qjson wraps: a table comes back as it was.
      local boom = {}
      ok, err = pcall(h.validate_request, h, { method = "GET", path = "/h", headers = function() error(boom) end })
      assert.is_false(ok)
      assert.equal(boom, err)
      -- The api still works.
      assert.is_true(h:validate_request({ method = "GET", path = "/h", headers = { ["x-n"] = "1" } }))
    end)

    it("survives a collection run by a header function", function()
      local finalized = 0
      for _ = 1, 2 do
        local ok, m = qjson.openapi(USERS):validate_request(request({ headers = function()
          for _ = 1, 50 do
            qjson.openapi(USERS) -- garbage
          end
          collectgarbage()
          collectgarbage()
          finalized = finalized + 1
          return "r"
        end }))
        assert.is_true(ok)
        assert.same({ userId = 42 }, m.path)
      end
      assert.equal(2, finalized)
    end)
  end)

  it("takes a spec as a table, and options", function()
    local t = decode(USERS)
    local from_table = qjson.openapi(t)
    assert.is_true(from_table:validate_request(request()))
    -- format = true makes `format` an assertion.
    local spec = { openapi = "3.1.0", paths = { ["/f"] = { get = { parameters = {
      { name = "d", ["in"] = "query", schema = { type = "string", format = "date" } } } } } } }
    assert.is_true(qjson.openapi(spec):validate_request({ method = "GET", path = "/f", query = "d=nope" }))
    local strict = qjson.openapi(spec, { format = true })
    local ok, errors = strict:validate_request({ method = "GET", path = "/f", query = "d=nope" })
    assert.same({ false, "query", "d" }, { ok, errors[1].where, errors[1].name })
  end)

  it("refuses a spec with the JSON Pointer of the problem", function()
    local t = decode(USERS)
    t.paths["/users/{userId}"].post.parameters[1].required = false
    local ok, err = pcall(qjson.openapi, t)
    assert.is_false(ok)
    assert.matches("qjson: invalid OpenAPI spec at " .. PARAMS:gsub("%p", "%%%0") .. "0", err)
    ok, err = pcall(qjson.openapi, '{"openapi":"2.0"}')
    assert.is_false(ok)
    assert.matches("invalid OpenAPI spec at /openapi:", err, 1, true)
    ok, err = pcall(qjson.openapi, '{"openapi":')
    assert.is_false(ok)
    assert.matches("qjson: invalid OpenAPI spec at /", err, 1, true)
  end)

  it("refuses a schema it cannot compile, with its location", function()
    local t = decode(USERS)
    t.components.schemas.User.properties.email.pattern = "(unclosed"
    local ok, err = pcall(qjson.openapi, t)
    assert.is_false(ok)
    assert.matches("invalid OpenAPI spec at " .. USER .. "email/pattern:", err, 1, true)
    t = decode(USERS)
    t.paths["/users/{userId}"].post.parameters[2].schema.minimum = "one"
    ok, err = pcall(qjson.openapi, t)
    assert.is_false(ok)
    assert.matches("invalid OpenAPI spec at " .. PARAMS .. "1/schema", err, 1, true)
  end)

  it("renders problem details (RFC 9457) with the status", function()
    local ok, errors = api:validate_request(request({ query = "limit=0", body = '{"name":"x",\n"age":-1}' }))
    assert.is_false(ok)
    local body, status = api:problem(errors)
    assert.equal(400, status)
    local p = decode(body)
    assert.same({ "about:blank", "Bad Request", 400, "the request does not conform to the API: 2 errors" },
      { p.type, p.title, p.status, p.detail })
    assert.same({ ["in"] = "query", name = "limit", pointer = "", keyword_location = PARAMS .. "1/schema/minimum",
      detail = errors[1].message }, p.errors[1])
    assert.same({ ["in"] = "body", name = "", pointer = "/age", keyword_location = USER .. "age/minimum",
      detail = errors[2].message, line = 2, column = 7, byte = 19 }, p.errors[2])
    for _, case in ipairs({ { { path = "/x" }, 404, "Not Found" }, { { method = "PUT" }, 405, "Method Not Allowed" },
      { { content_type = "text/plain" }, 415, "Unsupported Media Type" } }) do
      local _, errs = api:validate_request(request(case[1]))
      body, status = api:problem(errs)
      p = decode(body)
      assert.same({ case[2], case[2], case[3], "the request does not conform to the API: 1 error" },
        { status, p.status, p.title, p.detail })
    end
    -- Strings are escaped.
    body = api:problem({ status = 400, { where = "query", name = 'a"\n', instance_location = "",
      keyword_location = "", message = "\1" } })
    assert.same({ 'a"\n', "\1" }, { decode(body).errors[1].name, decode(body).errors[1].detail })
  end)

  it("renders the same problem text as the other binding (spec/openapi_problem_cases.lua)", function()
    local cases = require("openapi_problem_cases")
    for i, case in ipairs(cases.rendered) do
      local text, status = api:problem(case.errors)
      assert.equal(case.errors.status, status)
      assert.equal(case.text, text, "case " .. i)
    end
    for _, case in ipairs(cases.refused) do
      local ok, err = pcall(api.problem, api, case[1])
      assert.is_false(ok)
      assert.matches("bad argument #1 to 'problem' (" .. case[2] .. ")", err, 1, true)
    end
  end)

  it("compiles a spec written in YAML, its errors located by line and column", function()
    local yaml = qjson.openapi([[
openapi: 3.0.3
info: {title: users, version: "1"}
paths:
  /users/{userId}:
    post:
      operationId: updateUser
      parameters:
        - {name: userId, in: path, required: true, schema: {type: integer, minimum: 1}}
]])
    local ok, m = yaml:validate_request({ method = "POST", path = "/users/7" })
    assert.is_true(ok)
    assert.same({ operation_id = "updateUser", template = "/users/{userId}", path = { userId = 7 } }, m)
    local bad, err = pcall(qjson.openapi, "openapi: 3.0.3\npaths:\n  /a: {get: .inf}\n")
    assert.is_false(bad)
    assert.matches("invalid OpenAPI spec at /paths/~1a/get: .inf is not a JSON number at line 3 column 13", err, 1,
      true)
    assert.same({ nil, "qjson: invalid OpenAPI spec at /a: the spec is not YAML: while parsing a node, did not find"
      .. " expected node content at line 1 column 4" }, { safe.openapi("a: ]") })
  end)

  it("raises on bad arguments", function()
    local function fails(pattern, f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      assert.matches(pattern, err, 1, true)
    end
    -- (LuaJIT takes views too.)
    fails(rawget(_G, "jit") and "spec as JSON or YAML string, table or view expected, got nil"
      or "spec as JSON or YAML string or table expected, got nil", qjson.openapi)
    fails("options table expected, got number", qjson.openapi, USERS, 1)
    fails("unknown option 'max_error'", qjson.openapi, USERS, { max_error = 1 })
    fails("max_errors: positive integer expected, got 0", qjson.openapi, USERS, { max_errors = 0 })
    fails("max_errors: positive integer expected, got 1.5", qjson.openapi, USERS, { max_errors = 1.5 })
    fails("format: boolean expected, got string", qjson.openapi, USERS, { format = "yes" })
    local v = api.validate_request
    fails("bad argument #1 to 'validate_request' (request table expected, got nil)", v, api)
    fails("(qjson.openapi expected)", v, {}, request())
    fails("(method: string expected, got nil)", v, api, request({ method = false }))
    fails("(path: string expected, got number)", v, api, request({ path = 1 }))
    fails("(query: string or nil expected, got table)", v, api, request({ query = {} }))
    fails("(body: string or nil expected, got boolean)", v, api, request({ body = true }))
    fails("(headers: table or function expected, got string)", v, api, request({ headers = "x" }))
    fails("headers: the function returned number for 'x-request-id', string or nil expected", v, api,
      request({ headers = function() return 1 end }))
    fails("headers: the value of 'x-request-id' is a number, string or table of strings expected", v, api,
      request({ headers = { ["x-request-id"] = 1 } }))
    fails("headers: value 2 of 'x-request-id' is a boolean, string expected", v, api,
      request({ headers = { ["x-request-id"] = { "a", true } } }))
    fails("(errors of a failed validation expected, got nil)", api.problem, api)
    fails("errors.status: 400, 404, 405 or 415 expected, got 200", api.problem, api, { status = 200 })
    fails("errors[1].where: string expected, got nil", api.problem, api, { status = 400, {} })
  end)

  it("reports text that is not UTF-8 as a request error", function()
    local e = one_error(api, { path = "/users/\255" })
    assert.same({ "route", 400 }, { e.where, e.status })
    e = one_error(api, { query = "limit=\255" })
    assert.same({ "query", "the query string is not UTF-8" }, { e.where, e.message })
  end)

  it("qjson.safe: nil and the message instead of an error", function()
    local r, err = safe.openapi('{"openapi":"9"}')
    assert.is_nil(r)
    assert.matches("invalid OpenAPI spec at /openapi", err, 1, true)
    r, err = safe.openapi(USERS, { nope = 1 })
    assert.is_nil(r)
    assert.matches("unknown option 'nope'", err, 1, true)
    local sapi = safe.openapi(USERS)
    assert.is_true((sapi:validate_request(request())))
    local ok, errors = sapi:validate_request(request({ path = "/users/0" }))
    assert.same({ false, 400, "userId" }, { ok, errors.status, errors[1].name })
    r, err = sapi:validate_request(nil)
    assert.is_nil(r)
    assert.matches("request table expected, got nil", err, 1, true)
    r, err = sapi:validate_request(request({ headers = function() error("hook failed", 0) end }))
    assert.same({ nil, "hook failed" }, { r, err })
    local body, status = sapi:problem(errors)
    assert.same({ 400, "userId" }, { status, decode(body).errors[1].name })
    r, err = sapi:problem(1)
    assert.is_nil(r)
    assert.matches("errors of a failed validation expected, got number", err, 1, true)
  end)
end)
