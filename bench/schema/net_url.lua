-- A stand-in for the `net.url` module that api7's jsonschema needs outside
-- nginx: just what its store uses (parse, resolve, normalize, tostring,
-- fragment), enough for schemas whose $refs stay within the document.
local M = {}
local URL = {}
URL.__index = URL
URL.__tostring = function(u)
  return u.base .. (u.fragment and ("#" .. u.fragment) or "")
end

function M.parse(s)
  local base, fragment = s:match("^([^#]*)#(.*)$")
  return setmetatable({ base = base or s, fragment = fragment,
    schema = (base or s):match("^(%a[%w+.-]*):") }, URL)
end

function URL:resolve(ref)
  local r = M.parse(ref)
  if r.base == "" then
    r.base = self.base
  end
  return r
end

function URL:normalize()
  return self
end

return M
