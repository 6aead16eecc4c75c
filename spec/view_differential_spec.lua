-- Views against lua-cjson on real documents and on every JSONTestSuite
-- document both accept: the same value at every path, materialize equal
-- to cjson.decode, and encode(decode(s)) == s byte for byte.
local qjson = require("qjson")
local cjson = require("cjson")
local support = require("support")
qjson.decode_views(true) -- views on every build (see spec/support.lua)

-- Compares view `v` with cjson's table `t` at every path; returns the
-- number of values compared, raising with the path at the first mismatch.
local function compare(v, t, path)
  if type(t) ~= "table" then
    if v ~= t and not (v ~= v and t ~= t) then
      error(("%s: qjson read %s, lua-cjson %s"):format(path, tostring(v), tostring(t)), 0)
    end
    return 1
  end
  if type(v) ~= "table" then
    error(("%s: qjson read %s where lua-cjson has a table"):format(path, tostring(v)), 0)
  end
  local n = 1
  for k, x in pairs(t) do
    n = n + compare(v[k], x, path .. "/" .. tostring(k))
  end
  -- And nothing more: every key the view yields is one cjson has.
  for k in qjson.pairs(v) do
    if t[k] == nil then
      error(("%s: qjson has %s, lua-cjson does not"):format(path, tostring(k)), 0)
    end
  end
  if qjson.len(v) ~= #t and next(t) ~= nil and type(next(t)) == "number" then
    error(("%s: length %d, lua-cjson %d"):format(path, qjson.len(v), #t), 0)
  end
  return n
end

local function check(name, s)
  local ok, t = pcall(cjson.decode, s)
  if not ok then
    return 0
  end
  local v = qjson.decode(s)
  local n = compare(v, t, name)
  assert.are.equal(s, qjson.encode(v), name .. ": encode(decode(s)) differs from s")
  local same, where = support.deep_equal(qjson.materialize(qjson.decode(s)), t)
  assert(same, name .. " (materialize): differs at " .. tostring(where))
  return n
end

describe("views against lua-cjson", function()
  it("read the same values in the corpus documents", function()
    local dir = support.data .. "/corpus"
    local names = support.list(dir)
    if not names then
      pending("../shared/data/corpus is absent: skipped (the shared data sits beside the checkout in CI)")
      return
    end
    local values = 0
    for _, name in ipairs(names) do
      values = values + check(name, assert(support.read(dir .. "/" .. name)))
    end
    assert.is_true(values > 100000, "compared " .. values .. " values")
  end)

  it("read the same values in every JSONTestSuite document both accept", function()
    local dir = support.data .. "/JSONTestSuite/test_parsing"
    local names = support.list(dir)
    if not names then
      pending("../shared/data/JSONTestSuite is absent: skipped (the shared data sits beside the checkout in CI)")
      return
    end
    local compared = 0
    for _, name in ipairs(names) do
      if name:match("^y_") then
        local s = assert(support.read(dir .. "/" .. name))
        -- Scalars come back as Lua values; only containers are views.
        local first = s:match("^%s*(.)")
        if (first == "{" or first == "[") and check(name, s) > 0 then
          compared = compared + 1
        end
      end
    end
    -- lua-cjson rejects a few y_ documents (e.g. deep nesting); the rest
    -- are all compared.
    assert.is_true(compared >= 70, "compared " .. compared .. " documents")
  end)
end)
