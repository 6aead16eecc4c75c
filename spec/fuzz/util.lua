-- Small helpers shared by the fuzzer's modules.
local cjson = require("cjson")

local format, sub = string.format, string.sub

local U = {}

-- lua-cjson's null, which qjson.null is when lua-cjson is installed.
U.null = cjson.null

-- Keys the generators favour: ones that could shadow a view's state,
-- ones that need escaping in a path, and ordinary ones.
U.KEYS = { "a", "b", "model", "messages", "content", "role", "_doc", "_cur", "__index", "__len",
  "n", "", "a.b", "x[0]", "[", "]", "/", "~", "~1", "é", "😀", "0", "1", "01", "key with space",
  "nul\0byte", "self", "ptr", "node", "src" }

-- A value for a failure message: quoted, and cut when long.
function U.show(s)
  s = tostring(s)
  if #s > 300 then s = sub(s, 1, 300) .. format("...(%d bytes)", #s) end
  return format("%q", s)
end

function U.show_opts(o)
  if o == nil then return "nil" end
  local t = {}
  for _, k in ipairs({ "mode", "max_depth", "duplicate_keys", "ijson", "big_int" }) do
    if o[k] ~= nil then t[#t + 1] = k .. "=" .. tostring(o[k]) end
  end
  return "{" .. table.concat(t, ", ") .. "}"
end

-- Deep equality of Lua values as JSON sees them: numbers by value (and
-- the sign of zero), 64-bit cdata by value, tables by content.
function U.deep_equal(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == "number" then
    return a == b and (a ~= 0 or 1 / a == 1 / b)
  end
  if type(a) == "cdata" then return tostring(a) == tostring(b) end
  if type(a) ~= "table" or a == U.null or b == U.null then return a == b end
  for k, v in pairs(a) do
    if not U.deep_equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- A number as C's printf("%.14g") writes it (lua-cjson's default), which
-- LuaJIT's string.format does not always match on exact ties.
local g14 = cjson.new()
function U.g14(x)
  local ok, s = pcall(g14.encode, x)
  return ok and s or tostring(x)
end

-- Where two values first differ, for a failure message ("" if nowhere).
function U.diff(a, b, path)
  path = path or "$"
  if U.deep_equal(a, b) then return "" end
  if type(a) ~= "table" or type(b) ~= "table" or a == U.null or b == U.null then
    return path .. ": " .. U.show(a) .. " vs " .. U.show(b)
  end
  for k, v in pairs(a) do
    if not U.deep_equal(v, b[k]) then return U.diff(v, b[k], path .. "[" .. U.show(k) .. "]") end
  end
  for k, v in pairs(b) do
    if a[k] == nil then return U.diff(nil, v, path .. "[" .. U.show(k) .. "]") end
  end
  return path
end

-- Whether `digits` (no sign, no leading zero) is at most `limit`.
function U.at_most(digits, limit)
  return #digits < #limit or (#digits == #limit and digits <= limit)
end

-- Whether `key` can be a segment of a dotted path (`first`: its first
-- segment, which must not look like a JSON Pointer either).
function U.dotted_key(key, first)
  return key ~= "" and not key:find("[%.%[%]]") and not (first and key:sub(1, 1) == "/")
end

return U
