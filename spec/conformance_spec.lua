-- JSONTestSuite and the real-world corpus. docs/conformance.md is the
-- single source of truth for the i_ decisions: its table is parsed here.
local qjson = require("qjson")
local cjson = require("cjson")
local support = require("support")

local SUITE = support.data .. "/JSONTestSuite/test_parsing"
local CORPUS = support.data .. "/corpus"

-- The i_ table of docs/conformance.md: file name -> "accept" | "reject".
-- Rows look like "| `i_x.json` | accept | why |" (backticks optional).
local function decisions()
  local doc = assert(support.read(support.root .. "/docs/conformance.md"))
  local t, n = {}, 0
  for line in doc:gmatch("[^\n]+") do
    local file, decision = line:match("^|%s*`?(i_[^|`]-%.json)`?%s*|%s*([^|]-)%s*|")
    if file then
      assert(decision == "accept" or decision == "reject",
        ("docs/conformance.md: %s has decision %q (want accept or reject)"):format(file, decision))
      assert(t[file] == nil, "docs/conformance.md lists " .. file .. " twice")
      t[file] = decision
      n = n + 1
    end
  end
  return t, n
end

-- Every file of the suite: name -> bytes, and the names by prefix.
local function load_suite(names)
  local files, by = {}, { y_ = {}, n_ = {}, i_ = {} }
  for _, name in ipairs(names) do
    files[name] = assert(support.read(SUITE .. "/" .. name))
    local list = by[name:sub(1, 2)]
    if list then
      list[#list + 1] = name
    end
  end
  return files, by
end

-- Reads every value of a document or cursor (so that lazy mode checks
-- all of them); raises on the first invalid one.
local function read_all(d)
  local t = d:typeof()
  if t == "array" or t == "object" then
    for _, v in d:pairs() do
      if type(v) == "table" then
        read_all(v)
      end
    end
  else
    d:get()
  end
end

-- Compares a qjson document or cursor with cjson's table for the same
-- JSON, fully; returns false and the path of the first difference.
local function same(d, v, path)
  local t = d:typeof()
  if t == "object" or t == "array" then
    if type(v) ~= "table" then
      return false, path
    end
    local n = 0
    for k, x in d:pairs() do
      n = n + 1
      local sub = t == "array" and path .. "[" .. (k - 1) .. "]" or path .. "." .. k
      local want = v[k]
      if type(x) == "table" then
        local ok, where = same(x, want, sub)
        if not ok then
          return false, where
        end
      elseif x ~= want and not (support.integers and rawget(math, "type")(x) == "integer" and x + 0.0 == want) then
        -- (On Lua 5.3 and 5.4 qjson reads an integer as an integer, and
        -- Debian's lua-cjson 2.1.0 every number as a float.)
        return false, sub .. " (" .. tostring(x) .. " vs " .. tostring(want) .. ")"
      end
    end
    local m = 0
    for _ in pairs(v) do
      m = m + 1
    end
    if n ~= m then
      return false, path .. " (member count)"
    end
    return true
  end
  local x = d:get()
  return x == v, path
end

local names = support.list(SUITE)

describe("JSONTestSuite", function()
  if not names then
    print("skipped: ../shared/data/JSONTestSuite not found")
    pending("skipped: ../shared/data/JSONTestSuite not found")
    return
  end
  local files, by = load_suite(names)

  it("has the expected number of files", function()
    assert.are.equal(95, #by.y_)
    assert.are.equal(188, #by.n_)
  end)

  it("accepts every y_ file (95)", function()
    local rejected = {}
    for _, name in ipairs(by.y_) do
      local ok, err = pcall(qjson.parse, files[name])
      if not ok then
        rejected[#rejected + 1] = name .. ": " .. err
      end
    end
    assert.are.same({}, rejected)
  end)

  it("reads every y_ file in full as cjson does", function()
    for _, name in ipairs(by.y_) do
      local doc = qjson.parse(files[name])
      read_all(doc)
      local equal, where = same(doc, cjson.decode(files[name]), "$")
      assert.is_true(equal, name .. " differs at " .. tostring(where))
    end
  end)

  it("rejects every n_ file (188), with a positioned message", function()
    local accepted = {}
    for _, name in ipairs(by.n_) do
      local ok, err = pcall(qjson.parse, files[name])
      if ok then
        accepted[#accepted + 1] = name
      else
        assert.truthy(err:match("^qjson: .+ at line %d+, column %d+ %(byte %d+%)$"), name .. ": " .. err)
      end
    end
    assert.are.same({}, accepted)
  end)

  it("decides every i_ file as docs/conformance.md says", function()
    local table_, count = decisions()
    local wrong, unlisted = {}, {}
    for _, name in ipairs(by.i_) do
      local want = table_[name]
      if not want then
        unlisted[#unlisted + 1] = name
      else
        local got = pcall(qjson.parse, files[name]) and "accept" or "reject"
        if got ~= want then
          wrong[#wrong + 1] = name .. ": " .. got .. ", documented " .. want
        end
      end
    end
    assert.are.same({}, unlisted, "i_ files missing from docs/conformance.md")
    assert.are.same({}, wrong)
    assert.are.equal(#by.i_, count)
  end)

  it("lists no i_ file in docs/conformance.md that does not exist", function()
    local stale = {}
    for name in pairs((decisions())) do
      if not files[name] then
        stale[#stale + 1] = name
      end
    end
    table.sort(stale)
    assert.are.same({}, stale)
  end)

  it("in lazy mode, accepts y_ files and raises when reading what it let through", function()
    local lazy = { mode = "lazy" }
    local deferred, silent = 0, {}
    for _, name in ipairs(by.y_) do
      read_all(qjson.parse(files[name], lazy))
    end
    for _, name in ipairs(by.n_) do
      local ok, doc = pcall(qjson.parse, files[name], lazy)
      if ok then
        deferred = deferred + 1
        local read_ok, err = pcall(read_all, doc)
        if read_ok then
          silent[#silent + 1] = name
        else
          assert.truthy(err:match("^qjson: .+ at line %d+, column %d+ %(byte %d+%)$"), name .. ": " .. err)
        end
      end
    end
    assert.are.same({}, silent)
    -- As docs/conformance.md says.
    assert.are.equal(64, deferred)
  end)
end)

describe("corpus", function()
  local docs = { "twitter.json", "citm_catalog.json", "canada.json" }
  if not support.exists(CORPUS .. "/" .. docs[1]) then
    print("skipped: ../shared/data/corpus not found")
    pending("skipped: ../shared/data/corpus not found")
    return
  end

  for _, name in ipairs(docs) do
    it(name .. " parses and reads exactly as cjson.decode", function()
      local src = assert(support.read(CORPUS .. "/" .. name))
      local doc = qjson.parse(src)
      local equal, where = same(doc, cjson.decode(src), "$")
      assert.is_true(equal, name .. " differs at " .. tostring(where))
      -- The same from a file, and in lazy mode.
      assert.are.equal(src:match("^%s*(.-)%s*$"), qjson.parse_file(CORPUS .. "/" .. name):raw())
      read_all(qjson.parse(src, { mode = "lazy" }))
    end)
  end

  it("samples paths by pointer and dotted path", function()
    local twitter = qjson.parse(assert(support.read(CORPUS .. "/twitter.json")))
    local t = cjson.decode(twitter:raw())
    assert.are.equal(#t.statuses, twitter:len("statuses"))
    assert.are.equal(t.statuses[1].user.screen_name, twitter:get_str("statuses[0].user.screen_name"))
    assert.are.equal(t.statuses[1].id_str, twitter:get_str("/statuses/0/id_str"))
    if not support.puc or support.integers then
      -- (Lua 5.1 and 5.2 have no 64-bit integers: get_u64 refuses an id
      -- past 2^53 there.)
      assert.are.equal(t.statuses[1].id_str, (tostring(twitter:get_u64("/statuses/0/id")):gsub("ULL$", "")))
    end
    assert.are.equal(t.search_metadata.count, twitter:get_num("search_metadata.count"))
    local canada = qjson.parse(assert(support.read(CORPUS .. "/canada.json")))
    local c = cjson.decode(canada:raw())
    assert.are.equal(c.features[1].geometry.coordinates[1][1][1],
      canada:get_num("features[0].geometry.coordinates[0][0][0]"))
  end)
end)
