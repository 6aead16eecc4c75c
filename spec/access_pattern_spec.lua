-- Access patterns that used to be quadratic (issue 18, item 6): reading a
-- large array backwards and a wide object key by key, through the document
-- API, cursors and views. Each is timed (CPU time, best of three runs)
-- against the forward loop or `pairs` over the same document in the same
-- test: quadratic, these took hundreds of times as long at this size.
local qjson = require("qjson")
local C = require("qjson.lib")

local format, concat = string.format, table.concat

local N = 40000
local FACTOR = 25

local function messages(n)
  local parts = {}
  for i = 1, n do
    parts[i] = format('{"role":"r%d"}', i)
  end
  return '{"model":"m","messages":[' .. concat(parts, ",") .. "]}"
end

local function wide(n)
  local parts = {}
  for i = 1, n do
    parts[i] = format('"k%d":%d', i, i)
  end
  return "{" .. concat(parts, ",") .. "}"
end

-- The best CPU time of three runs of `f` (each on a fresh document).
local function best(f)
  local t
  for _ = 1, 3 do
    collectgarbage()
    local t0 = os.clock()
    f()
    local dt = os.clock() - t0
    t = t and math.min(t, dt) or dt
  end
  return t
end

local function assert_linear(slow, base, what)
  -- (Plus 5 ms, so that timer resolution cannot fail a fast base.)
  assert.is_true(slow <= base * FACTOR + 0.005, format("%s: %.4f s against %.4f s", what, slow, base))
end

describe("access patterns", function()
  local body = messages(N)

  local function doc_loop(from, to, step)
    local d, got = qjson.parse(body), 0
    for i = from, to, step do
      if d:get_str("messages[" .. i .. "].role") == "r" .. (i + 1) then
        got = got + 1
      end
    end
    assert.are.equal(N, got)
  end

  it("reads an array backwards through the document API in linear time", function()
    local fwd = best(function() doc_loop(0, N - 1, 1) end)
    local rev = best(function() doc_loop(N - 1, 0, -1) end)
    assert_linear(rev, fwd, "reverse doc:get_str")
  end)

  it("reads an array backwards through a cursor in linear time", function()
    local function loop(from, to, step)
      local c, got = qjson.parse(body):open("messages"), 0
      for i = from, to, step do
        if c:get_str("[" .. i .. "].role") == "r" .. (i + 1) then
          got = got + 1
        end
      end
      assert.are.equal(N, got)
    end
    local fwd = best(function() loop(0, N - 1, 1) end)
    local rev = best(function() loop(N - 1, 0, -1) end)
    assert_linear(rev, fwd, "reverse cursor")
  end)

  it("reads an array backwards through views in linear time", function()
    local function loop(from, to, step)
      local msgs, got = qjson.decode(body).messages, 0
      for i = from, to, step do
        if msgs[i].role == "r" .. i then
          got = got + 1
        end
      end
      assert.are.equal(N, got)
    end
    local fwd = best(function() loop(1, N, 1) end)
    local rev = best(function() loop(N, 1, -1) end)
    assert_linear(rev, fwd, "reverse view")
  end)

  it("builds an element index of 4 bytes an element, and none for a forward loop", function()
    local d = qjson.parse(body)
    local before = tonumber(C.qjson_index_bytes(d.ptr))
    for i = 0, N - 1 do
      d:get_str("messages[" .. i .. "].role")
    end
    assert.are.equal(before, tonumber(C.qjson_index_bytes(d.ptr)))
    for i = N - 1, 0, -1 do
      d:get_str("messages[" .. i .. "].role")
    end
    local extra = tonumber(C.qjson_index_bytes(d.ptr)) - before
    assert.is_true(extra >= 4 * N and extra <= 4 * N + 256, tostring(extra))
  end)

  describe("a wide object", function()
    local obj = wide(N)
    local keys = {}
    for i = 1, N do
      keys[i] = "k" .. i
    end

    it("is read key by key in linear time, through views and the document API", function()
      local base = best(function()
        local s = 0
        for _, v in qjson.pairs(qjson.decode(obj)) do
          s = s + v
        end
      end)
      local by_view = best(function()
        local v = qjson.decode(obj)
        for i = 1, N do
          assert(v[keys[i]] == i)
        end
      end)
      local by_doc = best(function()
        local d = qjson.parse(obj)
        for i = 1, N do
          assert(d:get_num(keys[i]) == i)
        end
      end)
      assert_linear(by_view, base, "v[key]")
      assert_linear(by_doc, base, "doc:get_num(key)")
    end)

    it("costs less memory than its tape", function()
      local d = qjson.parse(obj)
      local tape = tonumber(C.qjson_index_bytes(d.ptr))
      for i = N, 1, -1 do
        d:get_num(keys[i])
      end
      local extra = tonumber(C.qjson_index_bytes(d.ptr)) - tape
      assert.is_true(extra > 0 and extra <= tape, format("%d bytes, tape %d", extra, tape))
    end)

    it("still gives the last value of a repeated key, and matches escaped keys", function()
      local parts = {}
      for i = 1, 200 do
        parts[i] = format('"k%d":%d', i, i)
      end
      parts[#parts + 1] = '"k5":"last"'
      parts[#parts + 1] = '"\\u006b7":"escaped"'
      parts[#parts + 1] = '"\\u00e9t\\u00e9":"accents"'
      parts[#parts + 1] = '"":"empty"'
      local text = "{" .. concat(parts, ",") .. "}"
      local d, v = qjson.parse(text), qjson.decode(text)
      for _ = 1, 20 do
        assert.are.equal(1, d:get_num("k1"))
        assert.are.equal("last", d:get_str("k5"))
        assert.are.equal("escaped", d:get_str("k7"))
        assert.are.equal("accents", d:get_str("été"))
        assert.are.equal("empty", d:get_str("/"))
        assert.are.equal(200, d:get_num("k200"))
        assert.is_nil(d:typeof("k201"))
      end
      for i = 1, 200 do
        local want = i == 5 and "last" or i == 7 and "escaped" or i
        assert.are.equal(want, v["k" .. i])
        assert.are.equal(want, v["k" .. i])
      end
      assert.are.equal("accents", v["été"])
      assert.are.equal("empty", v[""])
      assert.is_nil(v["\\u006b7"])
    end)
  end)
end)
