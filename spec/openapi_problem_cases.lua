-- api:problem(errors) cases that both bindings must answer with the same
-- text (spec/openapi_spec.lua on LuaJIT, spec/openapi_puc_spec.lua on PUC
-- Lua): fixed errors tables and their exact problem documents, and bad
-- errors tables with the message they raise.
local M = {}

local BIG = string.rep("x", 40000) -- (more than the LuaJIT binding's 16 KB scratch report)

M.rendered = {
  {
    errors = { status = 415,
      { where = "body", name = "", instance_location = "/a~1b", keyword_location = "/paths/~1x/post/requestBody",
        message = 'say "hi"\\\n\1\127', status = 415, line = 1, column = 2, byte = 1 },
      { where = "query", name = "q", instance_location = "", keyword_location = "", message = "\195\169 \255",
        status = 400 },
    },
    text = '{"type":"about:blank","title":"Unsupported Media Type","status":415,'
      .. '"detail":"the request does not conform to the API: 2 errors","errors":['
      .. '{"in":"body","name":"","pointer":"/a~1b","keyword_location":"/paths/~1x/post/requestBody",'
      .. '"detail":"say \\"hi\\"\\\\\\n\\u0001\127","line":1,"column":2,"byte":1},'
      .. '{"in":"query","name":"q","pointer":"","keyword_location":"","detail":"\195\169 \239\191\189"}]}',
  },
  {
    errors = { status = 404, { where = "route", name = "", instance_location = "", keyword_location = "",
      message = "no route", line = 0 } },
    text = '{"type":"about:blank","title":"Not Found","status":404,'
      .. '"detail":"the request does not conform to the API: 1 error","errors":['
      .. '{"in":"route","name":"","pointer":"","keyword_location":"","detail":"no route","line":0}]}',
  },
  {
    errors = { status = 405 },
    text = '{"type":"about:blank","title":"Method Not Allowed","status":405,'
      .. '"detail":"the request does not conform to the API: 0 errors","errors":[]}',
  },
  {
    errors = { status = 400, { where = "body", name = "", instance_location = "", keyword_location = "",
      message = BIG } },
    text = '{"type":"about:blank","title":"Bad Request","status":400,'
      .. '"detail":"the request does not conform to the API: 1 error","errors":['
      .. '{"in":"body","name":"","pointer":"","keyword_location":"","detail":"' .. BIG .. '"}]}',
  },
}

local function err(over)
  local e = { where = "query", name = "q", instance_location = "", keyword_location = "", message = "m" }
  for k, v in pairs(over) do
    e[k] = v
  end
  return e
end

M.refused = {
  { { status = 200 }, "errors.status: 400, 404, 405 or 415 expected, got 200" },
  { { status = 400.5 }, "errors.status: 400, 404, 405 or 415 expected, got 400.5" },
  { { status = "400" }, "errors.status: 400, 404, 405 or 415 expected, got 400" },
  { { status = 400, "x" }, "errors[1]: table expected, got string" },
  { { status = 400, {} }, "errors[1].where: string expected, got nil" },
  { { status = 400, err({}), err({ message = 1 }) }, "errors[2].message: string expected, got number" },
  { { status = 400, err({ line = -1 }) }, "errors[1].line: non-negative integer expected, got -1" },
  { { status = 400, err({ column = 1.5 }) }, "errors[1].column: non-negative integer expected, got 1.5" },
  { { status = 400, err({ byte = "0" }) }, "errors[1].byte: non-negative integer expected, got 0" },
}

return M
