-- The parse entry path (qjson.parse.open): one native call parses and places a
-- document in the spare memory when it fits; a larger one falls back to
-- a second call (placed or boxed). Documents of changing sizes, and
-- finalizers that parse in between, read right.
local qjson = require("qjson")

local function obj(n)
  local parts = {}
  for i = 1, n do
    parts[i] = '"k' .. i .. '":"v\\u00e9' .. i .. '"'
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- The native parse calls `f` makes on the text `text`, by name: counting
-- wrappers stand in for qjson.base's parse readers (which make those
-- calls, and which qjson.parse.open calls through the base table) while
-- `f` runs.
local function count_calls(text, f)
  local base = require("qjson.base")
  local calls = {}
  local real = {}
  for _, name in ipairs({ "parse_into", "parse_in", "parse_measured_in" }) do
    local fn = base[name]
    real[name] = fn
    base[name] = function(s, ...)
      if s == text then
        calls["qjson_" .. name] = (calls["qjson_" .. name] or 0) + 1
      end
      return fn(s, ...)
    end
  end
  local ok, err = pcall(f)
  for name, fn in pairs(real) do
    base[name] = fn
  end
  assert(ok, err)
  return calls
end

describe("parse entry", function()
  -- (A finalizer that parses between two of these, as the forced-GC mode
  -- runs, may resize the spare: the count holds without one.)
  local stressed = os.getenv("QJSON_GC_STRESS") == "1"
  it("parses a run of similar documents in one native call each", function()
    local text = obj(60)
    -- The spare is now sized for a one-member object: too small for text.
    qjson.parse(obj(1))
    local calls = count_calls(text, function()
      for _ = 1, 5 do
        assert.are.equal("v\195\16960", qjson.parse(text):get_str("k60"))
      end
    end)
    assert.are.equal(5, calls.qjson_parse_into)
    if not stressed then
      -- Only the first parse found the spare too small and placed the
      -- document with a second call; the spare was sized after it.
      assert.are.equal(1, calls.qjson_parse_in)
    end
  end)

  it("reads documents of changing sizes right", function()
    local sizes = { 1, 200, 3, 50, 2000, 1, 9, 400, 2 }
    local texts = {}
    for i, n in ipairs(sizes) do
      texts[i] = obj(n)
    end
    local docs = {}
    for round = 1, 3 do
      for i, n in ipairs(sizes) do
        local d = qjson.parse(texts[i])
        docs[#docs + 1] = { d, n }
        assert.are.equal("v\195\169" .. n, d:get_str("k" .. n), "round " .. round)
      end
    end
    -- Every document still reads its own text (none shares memory).
    for _, e in ipairs(docs) do
      assert.are.equal(e[2], e[1]:len())
      assert.are.equal("v\195\1691", e[1]:get_str("k1"))
    end
  end)

  it("is safe when finalizers parse during a parse", function()
    local small, big = obj(3), obj(300)
    local stop, bad = false, 0
    local function arm()
      if stop then
        return
      end
      setmetatable({}, { __gc = function()
        local d = qjson.parse(big)
        if d:get_str("k300") ~= "v\195\169300" then
          bad = bad + 1
        end
        arm()
      end })
    end
    arm()
    for i = 1, 20000 do
      local d = qjson.parse(i % 2 == 0 and small or big)
      assert.are.equal("v\195\1693", d:get_str("k3"))
    end
    stop = true
    collectgarbage()
    assert.are.equal(0, bad)
  end)

  it("reports invalid input after a spare was sized", function()
    qjson.parse(obj(5))
    local ok, err = pcall(qjson.parse, '{"a":}')
    assert.is_false(ok)
    assert.truthy(err:find("byte 5", 1, true), err)
    assert.are.equal(1, qjson.parse('{"a":1}'):get_num("a"))
  end)
end)
