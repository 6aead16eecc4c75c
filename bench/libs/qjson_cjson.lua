-- qjson's drop-in lua-cjson (require("qjson.cjson")): plain tables.
local jobs = require("jobs")
local table_readers = require("libs.tables")
local qjson_lib = require("libs.qjson")

return {
  note = "require('qjson.cjson').decode (plain tables) + table reads",
  kinds = jobs.kinds("twitter", "citm", "canada", "tiny", jobs.STREAM_KINDS),
  available = function()
    local ok, err = pcall(require, "qjson.cjson")
    if not ok then
      return false, "qjson.cjson is not built yet (" .. tostring(err):match("^[^\n]*"):gsub(":$", "") .. ")"
    end
    return true
  end,
  load = function()
    return table_readers(require("qjson.cjson").decode)
  end,
  materialize = function(t)
    return t
  end,
  version = qjson_lib.version,
}
