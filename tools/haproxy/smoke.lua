-- The HAProxy smoke test's Lua (tools/test-haproxy.sh): qjson loaded by
-- Debian's haproxy (Lua 5.3) through lua-prepend-path. An http-request
-- action routes on the body's `model`; a service edits `temperature`
-- and returns the body re-encoded. A body qjson cannot parse gets a 400
-- with qjson's positioned message.
local qjson = require("qjson")

core.register_action("qjson_route", { "http-req" }, function(txn)
  local body = txn.sf:req_body() or ""
  local ok, doc = pcall(qjson.parse, body)
  if not ok then
    local reply = txn:reply({ status = 400, headers = { ["content-type"] = { "text/plain" } }, body = doc .. "\n" })
    return txn:done(reply)
  end
  local model = doc:typeof("model") == "string" and doc:get_str("model") or ""
  txn:set_var("txn.model", model)
end)

core.register_service("qjson_edit", "http", function(applet)
  local t = qjson.decode(applet:receive())
  t.temperature = 0.5
  local out = qjson.encode(t, { sort_keys = true })
  applet:set_status(200)
  applet:add_header("content-type", "application/json")
  applet:add_header("x-backend", applet:get_var("txn.backend") or "?")
  applet:add_header("content-length", tostring(#out))
  applet:start_response()
  applet:send(out)
end)
