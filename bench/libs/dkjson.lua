-- dkjson (pure Lua, no LPeg).
local jobs = require("jobs")
local table_readers = require("libs.tables")

return {
  note = "dkjson.decode (pure Lua, no LPeg) + table reads; dkjson.encode",
  kinds = jobs.kinds(jobs.READ_KINDS, jobs.EDIT_KINDS, "encode"),
  max_size = 1024 * 1024 + 1024, -- parsing too slow beyond 1 MB
  -- Members in pairs order too, numbers via tostring (%.14g, as cjson),
  -- but its own escapes ("/" as is, some non-ASCII as \u) and [] for {}.
  encode_check = "roundtrip",
  load = function()
    local dkjson = require("dkjson")
    local r = table_readers(dkjson.decode)
    r.mix = jobs.mix_reader(r.chat)
    -- cjson.decode's nulls are cjson.null, a lightuserdata dkjson does
    -- not know: its `exception` hook writes them as null (called only
    -- for them; one state table for every call, as dkjson allows).
    local null = require("cjson").null
    local state = {
      exception = function(reason, value, _, message)
        if value == null then
          return "null"
        end
        return nil, message or reason
      end,
    }
    local function encode(t)
      return dkjson.encode(t, state)
    end
    r.encode = jobs.encoder(encode)
    return jobs.edit_jobs(r, dkjson.decode, encode)
  end,
  version = function()
    return (require("dkjson").version:gsub("^dkjson ", ""))
  end,
}
