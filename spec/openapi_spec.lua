-- qjson.openapi: a spec compiled once, requests validated with their
-- errors located (docs/api.md's contract, the same for every binding),
-- problem details, options, qjson.safe's variants and bad arguments.
local qjson = require("qjson")
local safe = require("qjson.safe")

-- A fresh copy of the founding scenario's spec, for tests that change it.
local function users()
  return {
  openapi = "3.0.3",
  info = { title = "users", version = "1" },
  paths = { ["/users/{userId}"] = { post = {
    operationId = "updateUser",
    parameters = {
      { name = "userId", ["in"] = "path", required = true, schema = { type = "integer", minimum = 1 } },
      { name = "limit", ["in"] = "query", schema = { type = "integer", minimum = 1, maximum = 100 } },
      { name = "X-Request-Id", ["in"] = "header", required = true, schema = { type = "string" } },
    },
    requestBody = { required = true, content = { ["application/json"] = {
      schema = { ["$ref"] = "#/components/schemas/User" } } } },
  } } },
  components = { schemas = { User = {
    type = "object",
    required = { "name", "age" },
    properties = {
      name = { type = "string", minLength = 1 },
      age = { type = "integer", minimum = 0 },
      score = { type = "number" },
      active = { type = "boolean" },
      tags = { type = "array", items = { type = "string" } },
      address = { type = "object", properties = { city = { type = "string" }, zip = { type = "string" } },
        required = { "city" } },
      meta = { type = "object", additionalProperties = { type = "string" } },
      role = { type = "string", enum = { "admin", "user", "guest" } },
      email = { type = "string", pattern = "^[^@]+@[^@]+$" },
      nickname = { type = "string", nullable = true },
    },
  } } },
  }
end
local USERS = users()
local SPEC = qjson.encode(USERS)
local function op(spec)
  return spec.paths["/users/{userId}"].post
end

local BODY = '{"name":"Alice Example-Longname","age":30,"score":97.5,"active":true,'
  .. '"tags":["alpha","beta","gamma","delta"],"address":{"city":"Paris","zip":"75001","street":"10 rue de Rivoli"},'
  .. '"meta":{"source":"web","campaign":"spring-sale"},"role":"admin","email":"alice@example.com","nickname":null}'

local function request(over)
  local req = {
    method = "POST", path = "/users/42", query = "limit=10", headers = { ["x-request-id"] = "req-1" },
    body = BODY, content_type = "application/json",
  }
  for k, v in pairs(over or {}) do
    if v == "nil" then
      req[k] = nil
    else
      req[k] = v
    end
  end
  return req
end

local function one_error(api, over)
  local ok, errors = api:validate_request(request(over))
  assert.is_false(ok)
  assert.equal(1, #errors, errors[2] and errors[2].message)
  return errors[1], errors
end

describe("qjson.openapi", function()
  local api = qjson.openapi(SPEC)

  it("accepts the founding scenario's valid request", function()
    local ok, m = api:validate_request(request())
    assert.is_true(ok)
    assert.equal("updateUser", m.operation_id)
    assert.equal("/users/{userId}", m.template)
    assert.equal(42, m.path.userId)
    assert.equal("number", type(m.path.userId))
    -- Again: the operation's header names are cached, the answer is the same.
    ok, m = api:validate_request(request())
    assert.is_true(ok)
    assert.equal(42, m.path.userId)
  end)

  it("reports each invalid kind with its place", function()
    local e, errors = one_error(api, { path = "/users/0" })
    assert.same({ "path", "userId", "", 400 }, { e.where, e.name, e.instance_location, e.status })
    assert.equal(400, errors.status)
    assert.matches("/schema/minimum$", e.keyword_location)
    assert.is_nil(e.line)
    e = one_error(api, { path = "/users/abc" })
    assert.same({ "path", "userId" }, { e.where, e.name })
    e = one_error(api, { query = "limit=101" })
    assert.same({ "query", "limit" }, { e.where, e.name })
    assert.matches("/schema/maximum$", e.keyword_location)
    e = one_error(api, { headers = {} })
    assert.same({ "header", "X-Request-Id", "is required" }, { e.where, e.name, e.message })
    e, errors = one_error(api, { body = "nil" })
    assert.same({ "body", "", 400 }, { e.where, e.name, errors.status })
    e, errors = one_error(api, { content_type = "application/xml" })
    assert.same({ "body", 415, 415 }, { e.where, e.status, errors.status })
    e, errors = one_error(api, { content_type = "nil" })
    assert.same({ "body", 415 }, { e.where, errors.status })
    -- A body that is not JSON: located in the body.
    e = one_error(api, { body = '{"name": "a",\n "age": }' })
    assert.same({ "body", 2, 9, 22 }, { e.where, e.line, e.column, e.byte })
    -- Each field kind: its member in BODY, replaced by a bad one.
    local kinds = {
      { "name", '"name":"Alice Example-Longname"', '"name":""', "minLength" },
      { "age", '"age":30', '"age":30.5', "type" },
      { "score", '"score":97.5', '"score":"high"', "type" },
      { "active", '"active":true', '"active":"true"', "type" },
      { "tags", '"tags":["alpha","beta","gamma","delta"]', '"tags":["a",1,"c"]', "type", "/tags/1" },
      { "address", '"address":{"city":"Paris","zip":"75001","street":"10 rue de Rivoli"}',
        '"address":{"zip":"75001"}', "required" },
      { "meta", '"meta":{"source":"web","campaign":"spring-sale"}', '"meta":{"source":1}', "type", "/meta/source" },
      { "role", '"role":"admin"', '"role":"root"', "enum" },
      { "email", '"email":"alice@example.com"', '"email":"nobody"', "pattern" },
      { "nickname", '"nickname":null', '"nickname":7', "type" },
    }
    for _, k in ipairs(kinds) do
      local field, good, bad, keyword, at = k[1], k[2], k[3], k[4], k[5]
      local s = BODY:find(good, 1, true)
      assert.is_truthy(s, field)
      local body = BODY:sub(1, s - 1) .. bad .. BODY:sub(s + #good)
      e = one_error(api, { body = body })
      assert.same({ "body", "", 400 }, { e.where, e.name, e.status }, field)
      assert.matches("/components/schemas/User/properties/" .. field .. "/", e.keyword_location, 1, true)
      assert.matches(keyword .. "$", e.keyword_location)
      assert.equal(at or ("/" .. field), e.instance_location, field)
      -- Located in the body, on its one line, inside the bad member.
      assert.equal(1, e.line)
      assert.equal(e.byte + 1, e.column)
      assert.is_true(e.byte >= s - 1 and e.byte < s - 1 + #bad, field .. " at " .. e.byte)
    end
  end)

  it("reads headers from a table, repeated ones joined", function()
    local spec = users()
    op(spec).parameters[3].schema = { type = "array", items = { type = "string" }, maxItems = 2 }
    local arr = qjson.openapi(spec)
    assert.is_true((arr:validate_request(request({ headers = { ["x-request-id"] = { "a", "b" } } }))))
    local e = one_error(arr, { headers = { ["x-request-id"] = { "a", "b", "c" } } })
    assert.same({ "header", "X-Request-Id" }, { e.where, e.name })
    assert.matches("maxItems$", e.keyword_location)
    -- Joined with ", " and split again: each item keeps its text.
    op(spec).parameters[3].schema = { type = "string", enum = { "a, b" } }
    local joined = qjson.openapi(spec)
    assert.is_true((joined:validate_request(request({ headers = { ["x-request-id"] = { "a", "b" } } }))))
    e = one_error(joined, { headers = { ["x-request-id"] = { "a", "c" } } })
    assert.matches("enum$", e.keyword_location)
  end)

  it("asks a header function for the declared names only", function()
    local asked = {}
    local ok = api:validate_request(request({ headers = function(name)
      asked[#asked + 1] = name
      return name == "x-request-id" and "r" or nil
    end }))
    assert.is_true(ok)
    assert.same({ "x-request-id" }, asked)
    asked = {}
    local e = one_error(api, { headers = function(name)
      asked[#asked + 1] = name
    end })
    assert.same({ "header", "is required" }, { e.where, e.message })
    assert.same({ "x-request-id" }, asked)
    -- No route: no header is asked for.
    asked = {}
    api:validate_request(request({ path = "/nowhere", headers = function(name) asked[#asked + 1] = name end }))
    assert.same({}, asked)
  end)

  it("answers 404, 405 and 415", function()
    local e, errors = one_error(api, { path = "/nowhere" })
    assert.same({ "route", "", 404, 404 }, { e.where, e.name, e.status, errors.status })
    e, errors = one_error(api, { method = "DELETE" })
    assert.same({ "route", 405, 405 }, { e.where, e.status, errors.status })
    e, errors = one_error(api, { content_type = "text/plain" })
    assert.same({ 415, 415 }, { e.status, errors.status })
    -- 415 wins over 400s.
    local ok
    ok, errors = api:validate_request(request({ query = "limit=0", content_type = "text/plain" }))
    assert.is_false(ok)
    assert.equal(2, #errors)
    assert.equal(415, errors.status)
  end)

  it("answers a request whose texts are not UTF-8 with an error, not a raise", function()
    local e, errors = one_error(api, { path = "/users/\255" })
    assert.same({ "route", 400, "the path is not UTF-8" }, { e.where, errors.status, e.message })
    e, errors = one_error(api, { method = "P\255" })
    assert.same({ "route", 400, "the method is not UTF-8" }, { e.where, errors.status, e.message })
    e, errors = one_error(api, { query = "limit=\255" })
    assert.same({ "query", 400, "the query string is not UTF-8" }, { e.where, errors.status, e.message })
    e, errors = one_error(api, { content_type = "application/\255" })
    assert.same({ "body", 400, "the content type is not UTF-8" }, { e.where, errors.status, e.message })
  end)

  it("gives every error, or the first with max_errors = 1", function()
    local bad = { path = "/users/0", query = "limit=0", headers = "nil", body = '{"name":"","age":-1}' }
    local ok, errors = api:validate_request(request(bad))
    assert.is_false(ok)
    local places = {}
    for i, e in ipairs(errors) do
      places[i] = e.where
    end
    assert.same({ "path", "query", "header", "body", "body" }, places)
    local first = qjson.openapi(SPEC, { max_errors = 1 })
    ok, errors = first:validate_request(request(bad))
    assert.is_false(ok)
    assert.equal(1, #errors)
    assert.equal("path", errors[1].where)
  end)

  it("coerces integers strictly", function()
    for _, q in ipairs({ "0x10", "%2010", "1e1", "+1", "%2B1", "1.0", "010" }) do
      local e = one_error(api, { query = "limit=" .. q })
      assert.same({ "query", "limit" }, { e.where, e.name }, q)
    end
    assert.is_true((api:validate_request(request({ query = "limit=100" }))))
  end)

  it("takes a spec as a table or a view", function()
    local from_table = qjson.openapi(USERS)
    assert.is_true((from_table:validate_request(request())))
    local from_view = qjson.openapi(qjson.decode(SPEC))
    assert.is_true((from_view:validate_request(request())))
  end)

  it("locates spec errors, and refuses what it cannot compile", function()
    local function refused(spec, where, why)
      local ok, err = pcall(qjson.openapi, spec)
      assert.is_false(ok)
      assert.matches("qjson: invalid OpenAPI spec at " .. where, err, 1, true)
      if why then
        assert.matches(why, err)
      end
    end
    refused('{"openapi":"2.0","paths":{}}', "/openapi")
    refused("{", "/")
    local spec = users()
    op(spec).parameters[1].schema.minimum = "one"
    refused(qjson.encode(spec), "/paths/~1users~1{userId}/post/parameters/0/schema/minimum", "does not compile")
    spec = users()
    spec.components.schemas.User.properties.email.pattern = "("
    refused(qjson.encode(spec), "/components/schemas/User/properties/email/pattern", "does not compile")
  end)

  it("renders problem details", function()
    local ok, errors = api:validate_request(request({ query = "limit=0", body = '{"name":"x",\n"age":-1}' }))
    assert.is_false(ok)
    local text, status = api:problem(errors)
    assert.equal(400, status)
    local p = qjson.decode(text)
    assert.same({ "about:blank", "Bad Request", 400, "the request does not conform to the API: 2 errors" },
      { p.type, p.title, p.status, p.detail })
    assert.equal(2, qjson.len(p.errors))
    local q, b = p.errors[1], p.errors[2]
    assert.same({ "query", "limit", "", errors[1].keyword_location, errors[1].message },
      { q["in"], q.name, q.pointer, q.keyword_location, q.detail })
    assert.is_nil(q.line)
    assert.same({ "body", "", "/age", 2, 7, 19 }, { b["in"], b.name, b.pointer, b.line, b.column, b.byte })
    ok, errors = api:validate_request(request({ method = "GET" }))
    assert.is_false(ok)
    text, status = api:problem(errors)
    assert.equal(405, status)
    p = qjson.decode(text)
    assert.same({ "Method Not Allowed", 405, "the request does not conform to the API: 1 error" },
      { p.title, p.status, p.detail })
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

  it("has qjson.safe variants", function()
    local a, err = safe.openapi('{"openapi":"2.0"}')
    assert.is_nil(a)
    assert.matches("invalid OpenAPI spec at /openapi", err, 1, true)
    a, err = safe.openapi(SPEC, { nope = 1 })
    assert.is_nil(a)
    assert.matches("unknown option 'nope'", err, 1, true)
    a = safe.openapi(SPEC)
    assert.is_true((a:validate_request(request())))
    local ok, errors = a:validate_request(request({ path = "/users/0" }))
    assert.is_false(ok)
    assert.equal("userId", errors[1].name)
    ok, err = a:validate_request("GET /")
    assert.is_nil(ok)
    assert.matches("bad argument #1 to 'validate_request' (request table expected, got string)", err, 1, true)
    ok, err = a:validate_request(request({ headers = function() return 1 end }))
    assert.is_nil(ok)
    assert.matches("headers: the function returned number for 'x-request-id', string or nil expected", err, 1, true)
    ok, err = a:problem({})
    assert.is_nil(ok)
    assert.matches("errors.status", err, 1, true)
    assert.equal(404, select(2, a:problem(select(2, a:validate_request(request({ path = "/x" }))))))
  end)

  it("raises on bad arguments", function()
    local function raises(f, msg)
      local ok, err = pcall(f)
      assert.is_false(ok)
      assert.matches(msg, err, 1, true)
    end
    raises(function() qjson.openapi(42) end, "bad argument #1 to 'openapi'")
    raises(function() qjson.openapi(SPEC, { max_errors = 0 }) end, "max_errors: positive integer expected")
    raises(function() qjson.openapi(SPEC, { max_errors = 1.5 }) end, "max_errors: positive integer expected")
    raises(function() qjson.openapi(SPEC, { format = "yes" }) end, "format: boolean expected")
    raises(function() qjson.openapi(SPEC, { draft = 4 }) end, "unknown option 'draft'")
    raises(function() qjson.openapi(SPEC, "x") end, "options table expected")
    raises(function() api:validate_request() end, "request table expected, got nil")
    raises(function() api:validate_request({ path = "/" }) end, "method: string expected")
    raises(function() api:validate_request({ method = "GET" }) end, "path: string expected")
    raises(function() api:validate_request(request({ query = 1 })) end, "query: string or nil expected")
    raises(function() api:validate_request(request({ body = {} })) end, "body: string or nil expected")
    raises(function() api:validate_request(request({ content_type = 1 })) end, "content_type: string or nil")
    raises(function() api:validate_request(request({ headers = "x" })) end, "headers: table or function expected")
    raises(function() api:validate_request(request({ headers = { ["x-request-id"] = 5 } })) end,
      "headers: the value of 'x-request-id' is a number, string or table of strings expected")
    raises(function() api:validate_request(request({ headers = { ["x-request-id"] = { "a", 5 } } })) end,
      "headers: value 2 of 'x-request-id' is a number, string expected")
    raises(function() api:validate_request(request({ headers = function() return {} end })) end,
      "headers: the function returned table for 'x-request-id', string or nil expected")
    raises(function() api.validate_request({}, request()) end, "qjson.openapi expected")
    raises(function() api:problem(nil) end, "errors of a failed validation expected, got nil")
    raises(function() api:problem({ status = 500 }) end, "400, 404, 405 or 415 expected")
    -- A header function that raises: its error, and the api still works.
    raises(function() api:validate_request(request({ headers = function() error("boom") end })) end, "boom")
    assert.is_true((api:validate_request(request())))
  end)

  it("format asserts only when asked", function()
    local spec = users()
    spec.components.schemas.User.properties.email = { type = "string", format = "email" }
    local body = BODY:gsub("alice@example.com", "nobody")
    assert.is_true((qjson.openapi(spec):validate_request(request({ body = body }))))
    local e = one_error(qjson.openapi(spec, { format = true }), { body = body })
    assert.matches("format$", e.keyword_location)
  end)
end)
