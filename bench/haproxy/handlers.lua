-- make bench-haproxy's handlers, loaded by haproxy (Lua 5.3) with
-- lua-load (bench/haproxy/run.sh writes the configuration). For each
-- library, the two jobs of tools/haproxy/smoke.lua:
--   action  lua.route_<lib>: the body's `model` read into txn.model, on
--           which the frontend routes;
--   service lua.edit_<lib>: the body decoded, `temperature` set to 0.5,
--           the table encoded and returned.
-- Libraries: qjson (target/lua/5.3/qjson.so: `parse` + `get_str` for the
-- action, `decode` + `encode` for the service), lua-cjson (OpenResty's
-- 2.1.0.17, .deps/lua-cjson-5.3/, first on the cpath), dkjson, and the
-- floor, which reads the body and does no JSON (routes on a constant,
-- returns the body unchanged).
-- luacheck: globals core
local qjson = require("qjson")
local cjson = require("cjson")
local dkjson = require("dkjson")

local CONSTANT_MODEL = "gpt-4o"

-- The model named by the body, per library ("" when it is not a string).
local models = {
  qjson = function(body)
    local doc = qjson.parse(body)
    return doc:typeof("model") == "string" and doc:get_str("model") or ""
  end,
  cjson = function(body)
    local model = cjson.decode(body).model
    return type(model) == "string" and model or ""
  end,
  dkjson = function(body)
    local model = assert(dkjson.decode(body)).model
    return type(model) == "string" and model or ""
  end,
  floor = function(body)
    return #body > 0 and CONSTANT_MODEL or ""
  end,
}

-- The body with `temperature` set, per library.
local edits = {
  qjson = function(body)
    local t = qjson.decode(body)
    t.temperature = 0.5
    return qjson.encode(t)
  end,
  cjson = function(body)
    local t = cjson.decode(body)
    t.temperature = 0.5
    return cjson.encode(t)
  end,
  dkjson = function(body)
    local t = assert(dkjson.decode(body))
    t.temperature = 0.5
    return dkjson.encode(t)
  end,
  floor = function(body)
    return body
  end,
}

for lib, model in pairs(models) do
  core.register_action("route_" .. lib, { "http-req" }, function(txn)
    txn:set_var("txn.model", model(txn.sf:req_body() or ""))
  end)
end

for lib, edit in pairs(edits) do
  core.register_service("edit_" .. lib, "http", function(applet)
    local out = edit(applet:receive())
    applet:set_status(200)
    applet:add_header("content-type", "application/json")
    applet:add_header("content-length", tostring(#out))
    applet:start_response()
    applet:send(out)
  end)
end

-- What was loaded, for the report: each library's version and file.
core.register_service("versions", "http", function(applet)
  local out = ("qjson %s\nlua-cjson %s %s\ndkjson %s %s\n%s\n"):format(
    package.searchpath("qjson", package.cpath), cjson._VERSION, package.searchpath("cjson", package.cpath),
    dkjson.version, package.searchpath("dkjson", package.path), _VERSION)
  applet:set_status(200)
  applet:add_header("content-length", tostring(#out))
  applet:start_response()
  applet:send(out)
end)
