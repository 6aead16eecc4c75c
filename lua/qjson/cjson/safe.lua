-- qjson.cjson.safe: as lua-cjson's cjson.safe, an instance of qjson.cjson
-- (settings of its own) whose encode and decode return nil and the
-- message instead of raising. A call without exactly one argument still
-- raises, and the configuration functions raise on bad arguments, as in
-- lua-cjson. Errors inside come as from a C pcall: no position, and
-- argument errors name the function '?'.
local cjson = require("qjson.cjson")
local argerror = require("qjson.args").argerror

local select, pcall = select, pcall

local settle = require("qjson.base").settle

local function protect(f)
  return function(...)
    if select("#", ...) ~= 1 then
      argerror(1, 1, "expected 1 argument")
    end
    return settle(pcall(f, ...))
  end
end

local function new()
  local m = cjson.new()
  m.encode = protect(m.encode)
  m.decode = protect(m.decode)
  m.new = new
  return m
end

return new()
