-- Helpers shared by the specs (not a spec itself: busted runs *_spec.lua).
local M = {}

-- The repository root, found from this file's own path so that the specs
-- do not depend on the directory busted was started from.
do
  local source = debug.getinfo(1, "S").source:sub(2)
  local dir = source:match("^(.*)/[^/]*$") or "."
  M.root = dir == "spec" and "." or dir:gsub("/spec$", "")
end

-- ../shared/data, beside the repository (absent in a bare checkout).
M.data = M.root .. "/../shared/data"

-- The interpreter running the specs (busted --lua=... starts it as
-- `<luajit> /usr/bin/busted ...`), for specs that start another one.
M.luajit = arg and arg[-1] or "luajit"

-- True on a LuaJIT built with LUAJIT_ENABLE_LUA52COMPAT, as OpenResty's:
-- `#`, pairs and ipairs then call __len, __pairs and __ipairs on tables.
-- `make test-lua` runs the specs on both kinds of build.
M.lua52compat = #setmetatable({}, {
  __len = function()
    return 1
  end,
}) == 1

-- PUC Lua (5.1-5.4): the native module (crates/puc, make puc), which has
-- no views; `make test-puc` runs the specs that apply there.
M.puc = rawget(_G, "jit") == nil
M.integers = rawget(math, "type") ~= nil -- Lua 5.3 and 5.4

-- This module changes nothing when required (bench/ uses it too). A spec
-- about qjson.decode's lazy views asks for them on both builds (without
-- LUA52COMPAT decode returns plain tables by default) with
-- `qjson.decode_views(true)`; the others test the build's default
-- (spec/view_builds_spec.lua tests the defaults themselves).

function M.read(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local s = f:read("*a")
  f:close()
  return s
end

function M.write(path, s)
  local f = assert(io.open(path, "wb"))
  assert(f:write(s))
  f:close()
end

function M.exists(path)
  local f = io.open(path, "rb")
  if f then
    f:close()
  end
  return f ~= nil
end

-- The names in directory `dir`, sorted; nil when it cannot be listed.
function M.list(dir)
  local p = io.popen("ls -1 '" .. dir .. "' 2>/dev/null")
  local names = {}
  for name in p:lines() do
    names[#names + 1] = name
  end
  p:close()
  if #names == 0 then
    return nil
  end
  table.sort(names)
  return names
end

-- The error a call raises; fails the test when it does not raise.
function M.error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error, got none")
  return tostring(err)
end

-- The file:line prefix of an argument error must point at the spec file
-- itself (the caller), e.g. "spec/errors_spec.lua:12: ".
function M.points_at(err, file)
  return err:match("^[^:]*" .. file:gsub("%.", "%%.") .. ":%d+: ") ~= nil
end

-- Deep equality of two values: NaN equals NaN, other numbers compare
-- exactly, and tables must have the same keys (each side's), compared
-- recursively. `iter` walks a table (default pairs; qjson.pairs for
-- views). Returns true, or false and the path of the first difference.
function M.deep_equal(a, b, iter, path)
  iter, path = iter or pairs, path or "$"
  if type(a) ~= type(b) then
    return false, path .. " (" .. type(a) .. " vs " .. type(b) .. ")"
  end
  if type(a) ~= "table" then
    if a == b or (a ~= a and b ~= b) then
      return true
    end
    return false, path .. " (" .. tostring(a) .. " vs " .. tostring(b) .. ")"
  end
  for k, v in iter(a) do
    local ok, where = M.deep_equal(v, b[k], iter, path .. "." .. tostring(k))
    if not ok then
      return false, where
    end
  end
  for k in iter(b) do
    if a[k] == nil then
      return false, path .. "." .. tostring(k) .. " (missing)"
    end
  end
  return true
end

return M
