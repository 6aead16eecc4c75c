-- qjson.decode's lazy views, read like tables (qjson.len for lengths);
-- qjson.encode of the view.
local jobs = require("jobs")
local table_readers = require("libs.tables")
local qjson_lib = require("libs.qjson")

return {
  note = "qjson.decode (lazy views) + table-style reads, qjson.len; qjson.encode of the view",
  kinds = jobs.kinds(jobs.READ_KINDS, jobs.EDIT_KINDS, jobs.STREAM_KINDS),
  -- Unmodified, the view must encode to the input byte for byte.
  passthrough = true,
  available = function()
    local qjson = require("qjson")
    if qjson.decode == nil or qjson.len == nil then
      return false, "qjson.decode (lazy views) is not built yet"
    end
    return true
  end,
  load = function()
    local qjson = require("qjson")
    -- Views on every build: these readers use qjson.len, which a LuaJIT
    -- without LUA52COMPAT (where views are opt-in) needs.
    if qjson.decode_views then
      qjson.decode_views(true)
    end
    local r = table_readers(qjson.decode, qjson.len)
    r.mix = jobs.mix_reader(r.chat)
    return jobs.edit_jobs(r, qjson.decode, qjson.encode)
  end,
  -- Plain tables equal to cjson.decode's, for --verify.
  materialize = function(v)
    return require("qjson").materialize(v)
  end,
  version = qjson_lib.version,
}
