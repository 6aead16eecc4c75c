-- qjson.cjson.safe: as lua-cjson's cjson.safe, an instance of qjson.cjson
-- (settings of its own) whose encode and decode return nil and a message
-- instead of raising. Calling them without an argument still raises, and
-- the configuration functions raise on bad arguments, as in lua-cjson.
local cjson = require("qjson.cjson")

local select, pcall, error = select, pcall, error

local function settle(ok, ...)
  if ok then
    return ...
  end
  return nil, (...)
end

local function protect(f, name)
  return function(...)
    if select("#", ...) == 0 then
      error("bad argument #1 to '" .. name .. "' (expected 1 argument)", 2)
    end
    return settle(pcall(f, ...))
  end
end

local function new()
  local m = cjson.new()
  m.encode = protect(m.encode, "encode")
  m.decode = protect(m.decode, "decode")
  m.new = new
  return m
end

return new()
