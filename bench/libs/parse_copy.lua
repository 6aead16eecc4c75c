-- The reference beside the edit of a top-level field (modify_top): a parse
-- of the body and one copy of the body into a new string, the least an
-- edit that returns a new string can cost. The job is qjson.decode (the
-- parse the edit pays) and ffi.string of the edited body, written once by
-- qjson.encode before the timed calls and kept in a cdata buffer: one copy
-- into a new Lua string of the same bytes the edit returns. (Not kept as a
-- Lua string: LuaJIT interns strings, and every call would get that one
-- back without a copy. A call may still find the last call's string not
-- yet collected and compare instead of copying, as the edit's encode may:
-- one pass over the body either way.)
local ffi = require("ffi")
local jobs = require("jobs")
local qjson_lib = require("libs.qjson")

return {
  note = "qjson.decode + ffi.string of the edited body (written beforehand): a parse and one copy into a new string",
  floor = true,
  -- Its output is the edited document, checked as every library's is.
  verified = true,
  kinds = jobs.kinds("modify_top"),
  load = function()
    local qjson = require("qjson")
    qjson.decode_views(true)
    local decode, ffi_string = qjson.decode, ffi.string
    -- The edited body of the input last given, in a cdata buffer.
    local input, edited, edited_len
    local function prepare(s)
      local v = decode(s)
      jobs.EDITS.modify_top(v)
      local o = qjson.encode(v)
      input, edited, edited_len = s, ffi.new("char[?]", #o), #o
      ffi.copy(edited, o, #o)
    end
    return {
      modify_top = function(s)
        if s ~= input then
          prepare(s)
        end
        decode(s)
        local o = ffi_string(edited, edited_len)
        return #o, o
      end,
    }
  end,
  version = qjson_lib.version,
}
