-- qjson.patcher, edits without views: each edit job (bench/jobs.lua's
-- EDITS) as a JSON Patch compiled once, applied to the body in one native
-- call per request (untouched bytes copied, no Lua table built).
local jobs = require("jobs")
local qjson_lib = require("libs.qjson")

local function load()
  local qjson = require("qjson")
  local patchers = {
    roundtrip = { qjson.patcher({}), nil },
    modify_top = { qjson.patcher({ { op = "replace", path = "/temperature" } }), 0.5 },
    add_field = { qjson.patcher({ { op = "add", path = "/new_field" } }), "x" },
    modify_nested = { qjson.patcher({ { op = "replace", path = "/messages/0/role" } }), "system" },
  }
  local r = {}
  for kind, pv in pairs(patchers) do
    local p, value = pv[1], pv[2]
    r[kind] = function(s)
      local o = p:apply(s, value)
      return #o, o
    end
  end
  return r
end

return {
  note = "qjson.patcher (compiled JSON Patch, values per call): one native call, untouched bytes copied",
  kinds = jobs.kinds(jobs.EDIT_KINDS),
  load = load,
  version = qjson_lib.version,
}
