-- The values qjson shares with lua-cjson: `null` (what a JSON null reads
-- as, and what encodes as null), `empty_array` (encodes as []) and the
-- metatables `array_mt` and `empty_array_mt` (a table carrying one encodes
-- as an array). When lua-cjson is installed they are its own, so that
-- `v == cjson.null` holds and a table tagged for one library encodes the
-- same with the other; otherwise tables of the same use. Every module that
-- reads or writes them requires this one.
local setmetatable, error, pcall = setmetatable, error, pcall

local cjson
do
  local ok, c = pcall(require, "cjson")
  cjson = ok and c or {}
end

local M = {}

M.null = cjson.null or setmetatable({}, {
  __tostring = function()
    return "null"
  end,
})

M.array_mt = cjson.array_mt or {}
M.empty_array_mt = cjson.empty_array_mt or {}

-- A lightuserdata in OpenResty's lua-cjson; here a frozen empty table
-- when that is not loaded (plain LuaJIT cannot make a lightuserdata).
M.sentinel_mt = {
  __newindex = function()
    error("qjson.empty_array is read-only", 2)
  end,
  __tostring = function()
    return "qjson.empty_array"
  end,
}
M.empty_array = cjson.empty_array or setmetatable({}, M.sentinel_mt)

return M
