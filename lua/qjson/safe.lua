-- qjson.safe: the same API as qjson, but failures return nil and a
-- message instead of raising, for documents and cursors too.
local qjson = require("qjson")
local doc = require("qjson.doc")

local pcall, setmetatable, pairs = pcall, setmetatable, pairs

local safe = setmetatable({}, { __index = qjson })

local function settle(ok, ...)
  if ok then
    return ...
  end
  return nil, (...)
end

local function wrap(f)
  return function(...)
    return settle(pcall(f, ...))
  end
end

-- Documents from qjson.safe carry a metatable whose methods do not raise;
-- cursors they open inherit it.
local SafeDoc = {}
local SafeMT = { __index = SafeDoc, __tostring = doc.DocMT.__tostring }
for name, f in pairs(doc.Doc) do
  SafeDoc[name] = wrap(f)
end

function safe.parse(s, opts)
  local d, err = qjson._parse(s, opts, SafeMT)
  return d, err
end

function safe.parse_file(path, opts)
  local d, err = qjson._parse_file(path, opts, SafeMT)
  return d, err
end

function safe.path(s)
  local p, err = qjson._path(s)
  return p, err
end

return safe
