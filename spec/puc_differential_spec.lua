-- qjson.cjson and qjson against lua-cjson built for the same PUC Lua, on
-- seeded random documents: OpenResty's 2.1.0.17 (built by
-- tools/lua-cjson.sh 5.X into .deps/lua-cjson-5.X/, the behaviour
-- qjson.cjson follows: integers on 5.3 and 5.4) and Debian's 2.1.0
-- (/usr/lib/x86_64-linux-gnu/lua/5.X/cjson.so). Decoded values must be
-- equal, encoded bytes the same; with Debian's, numbers stay within the
-- range where its floats and qjson's integers agree (docs/puc-lua.md
-- names the differences). QJSON_DIFF_SEED and QJSON_DIFF_STEPS replay or
-- lengthen a run.
local support = require("support")

if not support.puc then
  describe("PUC Lua differential", function()
    pending("PUC Lua only (make test-puc)")
  end)
  return
end

local qjson = require("qjson")
local qcjson = require("qjson.cjson")
local version = _VERSION:match("%d+%.%d+")

local function load_cjson(path)
  local open = package.loadlib(path, "luaopen_cjson")
  return open and open()
end

local references = {
  { "OpenResty's lua-cjson 2.1.0.17", load_cjson(support.root .. "/.deps/lua-cjson-" .. version .. "/cjson.so"), true },
  { "Debian's lua-cjson 2.1.0", load_cjson("/usr/lib/x86_64-linux-gnu/lua/" .. version .. "/cjson.so"), false },
}

local SEED = tonumber(os.getenv("QJSON_DIFF_SEED")) or 41
local STEPS = tonumber(os.getenv("QJSON_DIFF_STEPS")) or 400

-- A small deterministic generator (the same sequence on every version).
local function rng(seed)
  local s = seed % 2147483647
  return function(n)
    s = (s * 48271) % 2147483647
    return s % n + 1
  end
end

local PIECES = { "a", "b", "key", "é", "日本", "\\", '"', "/", "\n", "\t", "\1", " ", "x y", "😀", "\127" }

local function gen(r, depth, wide_numbers, odd)
  -- odd: a value JSON cannot have, now and then (a function).
  if odd and r(12) == 1 then
    return print
  end
  local k = r(depth > 3 and 6 or 8)
  if k == 1 then
    return r(2) == 1
  elseif k == 2 then
    return qjson.null
  elseif k == 3 then
    local parts = {}
    for i = 1, r(5) - 1 do
      parts[i] = PIECES[r(#PIECES)]
    end
    return table.concat(parts)
  elseif k == 4 then
    -- Integers: small, or (OpenResty's) up to the int64 ends.
    local v = r(2001) - 1001
    if wide_numbers and r(4) == 1 then
      v = v * 4611686018427387 + r(1000)
    end
    return v
  elseif k == 5 then
    return (r(200001) - 100001) / (r(64) * 8)
  elseif k == 6 then
    return r(2) == 1 and 1e300 * r(9) or -(r(1000000) / 1e12)
  elseif k == 7 then
    local t = {}
    for i = 1, r(5) - 1 do
      t[i] = gen(r, depth + 1, wide_numbers, odd)
    end
    return t
  else
    local t = {}
    for _ = 1, r(5) - 1 do
      t[PIECES[r(#PIECES)] .. r(9)] = gen(r, depth + 1, wide_numbers, odd)
    end
    return t
  end
end

local function same(a, b)
  if type(a) ~= type(b) then
    return false
  end
  if type(a) ~= "table" then
    return a == b
  end
  for k, v in pairs(a) do
    if not same(v, b[k]) then
      return false
    end
  end
  for k in pairs(b) do
    if a[k] == nil then
      return false
    end
  end
  return true
end

for _, ref in ipairs(references) do
  local name, cjson, wide = ref[1], ref[2], ref[3]
  describe("against " .. name, function()
    if not cjson then
      pending(name .. " is not installed or built (tools/lua-cjson.sh " .. version .. ")")
      return
    end

    it("decodes and encodes " .. STEPS .. " random documents the same (seed " .. SEED .. ")", function()
      local r = rng(SEED)
      for step = 1, STEPS do
        local v = gen(r, 0, wide)
        local text = cjson.encode(v)
        local mine = qcjson.encode(v)
        assert.are.equal(text, mine, ("step %d: encode"):format(step))
        local want = cjson.decode(text)
        assert.is_true(same(want, qcjson.decode(text)), ("step %d: qjson.cjson.decode of %s"):format(step, text))
        -- qjson.decode: the same values (empty arrays carry a metatable).
        assert.is_true(same(want, qjson.decode(text)), ("step %d: qjson.decode of %s"):format(step, text))
      end
    end)

    -- The encoder's other settings (its walk for cjson's defaults is a
    -- separate instance): lua-cjson 2.1.0.17's, on instances of both.
    it("encodes the same with the other encode settings", function()
      if not wide then
        return -- Debian's 2.1.0 has no encode_indent nor the skipping.
      end
      local settings = {
        { encode_indent = "  " },
        { encode_indent = "  ", encode_skip_unsupported_value_types = true },
        { encode_skip_unsupported_value_types = true },
        { encode_indent = "\t", encode_escape_forward_slash = false },
        { encode_empty_table_as_object = false, encode_number_precision = 16, encode_sparse_array = { true, 1, 1 } },
        { encode_invalid_numbers = "null", encode_max_depth = 3 },
      }
      for n, set in ipairs(settings) do
        local theirs, mine = cjson.new(), qcjson.new()
        for setting, value in pairs(set) do
          local args = type(value) == "table" and value or { value }
          theirs[setting]((table.unpack or unpack)(args))
          mine[setting]((table.unpack or unpack)(args))
        end
        local r = rng(SEED + 2 + n)
        for step = 1, STEPS do
          local v = gen(r, 0, wide, set.encode_skip_unsupported_value_types)
          local ok1, text = pcall(theirs.encode, v)
          local ok2, got = pcall(mine.encode, v)
          assert.are.equal(ok1, ok2, ("settings %d, step %d: %s / %s"):format(n, step, tostring(text), tostring(got)))
          assert.are.equal(text, got, ("settings %d, step %d"):format(n, step))
        end
      end
    end)

    it("gives the same answer on texts cut short or with a byte changed", function()
      local r = rng(SEED + 1)
      for step = 1, STEPS do
        local text = cjson.encode(gen(r, 0, wide))
        local at = r(#text)
        local bad = r(2) == 1 and text:sub(1, at - 1)
          or text:sub(1, at - 1) .. string.char(r(256) - 1) .. text:sub(at + 1)
        local ok1, v1 = pcall(cjson.decode, bad)
        local ok2, v2 = pcall(qcjson.decode, bad)
        assert.are.equal(ok1, ok2, ("step %d: %q: %s / %s"):format(step, bad, tostring(v1), tostring(v2)))
        if ok1 then
          assert.is_true(same(v1, v2) or v1 ~= v1, ("step %d: %q"):format(step, bad))
        else
          if not wide then
            -- Debian's 2.1.0 has no integer token: it names T_NUMBER.
            v2 = v2:gsub("found T_INTEGER", "found T_NUMBER")
          end
          assert.are.equal(v1, v2, ("step %d: %q"):format(step, bad))
        end
      end
    end)
  end)
end
