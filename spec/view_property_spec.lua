-- Property test: random traces of reads, writes, deletes, appends,
-- removes and encodes on views, checked after every step against a model
-- made of plain tables (cjson.decode of the same text, edited the same
-- way). Seeded and shrinkable: a failing trace is cut down to a minimal
-- one, printed with its seed so it can be replayed.
--
--   QJSON_PROP_SEED=<n>    first seed (default 1)
--   QJSON_PROP_TRACES=<n>  traces to run (default 200; more on demand)
--   QJSON_PROP_STEPS=<n>   steps per trace (default 40)
local qjson = require("qjson")
qjson.decode_views(true) -- views on every build (see spec/support.lua)
local cjson = require("cjson")
local support = require("support")

local SEED = tonumber(os.getenv("QJSON_PROP_SEED")) or 1
local TRACES = tonumber(os.getenv("QJSON_PROP_TRACES")) or 200
local STEPS = tonumber(os.getenv("QJSON_PROP_STEPS")) or 40

local null = cjson.null

-- A small deterministic generator (xorshift32), independent of
-- math.random so that traces replay the same on every build.
local function rng(seed)
  local x = seed % 4294967296
  if x == 0 then
    x = 2463534242
  end
  return function(n)
    x = bit.bxor(x, bit.lshift(x, 13))
    x = bit.bxor(x, bit.rshift(x, 17))
    x = bit.bxor(x, bit.lshift(x, 5))
    return (x % 4294967296) % n + 1
  end
end

local KEYS = { "a", "b", "c", "id", "n", "_doc", "__index", "k\"q" }

local function random_json(r, depth)
  local c = r(depth > 2 and 5 or 7)
  if c == 1 then
    return tostring(r(1000) - 500)
  elseif c == 2 then
    return '"s' .. r(99) .. (r(4) == 1 and "\\u00e9\\n" or "") .. '"'
  elseif c == 3 then
    return ({ "true", "false", "null", "1.5e3" })[r(4)]
  elseif c == 4 or c == 6 then
    local parts = {}
    for i = 1, r(5) - 1 do
      parts[i] = random_json(r, depth + 1)
    end
    return "[ " .. table.concat(parts, ", ") .. "]"
  else
    local parts = {}
    for i = 1, r(5) - 1 do
      -- Keys may repeat: reads must see the last value.
      parts[i] = ('"%s" :%s'):format(KEYS[r(#KEYS)]:gsub('"', '\\"'), random_json(r, depth + 1))
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
end

local function random_value(r)
  local c = r(6)
  if c == 1 then
    return r(100)
  elseif c == 2 then
    return "v" .. r(100)
  elseif c == 3 then
    return r(2) == 1
  elseif c == 4 then
    return null
  elseif c == 5 then
    return { x = r(9), y = { r(9), "z" } }
  end
  return { r(9), r(9) }
end

-- Ops are data, resolved against the current model when run, so any
-- subsequence of a trace is itself a valid trace (for shrinking).
local function random_op(r)
  local path = {}
  for i = 1, r(4) - 1 do
    path[i] = r(16)
  end
  local kinds = { "read", "read", "set", "add", "delete", "append", "remove", "insert", "encode", "gc", "pairs" }
  return { kind = kinds[r(#kinds)], path = path, pick = r(16), value = random_value(r) }
end

local ArrayMT = require("qjson.view").ArrayMT

-- Whether `v` (a view or a plain table of random_value's) is an array.
local function is_array(v)
  if getmetatable(v) == ArrayMT then
    return true
  end
  return type(v) == "table" and v[1] ~= nil
end

-- A fresh copy of an op's value: the view keeps the table it is given,
-- and later steps edit it, so a replayed trace needs its own.
local function copy(x)
  if type(x) ~= "table" then
    return x
  end
  local t = {}
  for k, v in pairs(x) do
    t[k] = copy(v)
  end
  return t
end

-- The keys of a model container, in a stable order.
local function model_keys(t)
  local keys = {}
  for k in pairs(t) do
    keys[#keys + 1] = k
  end
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  return keys
end

-- Follows `path` (numbers used to pick among children) in the model and
-- the view together; returns the last containers reached.
local function walk(model, view, path)
  for _, p in ipairs(path) do
    local keys = model_keys(model)
    if #keys == 0 then
      break
    end
    local k = keys[(p - 1) % #keys + 1]
    local m = model[k]
    if type(m) ~= "table" then
      break
    end
    model, view = m, view[k]
  end
  return model, view
end

-- Model equality with what encode produced, read back by cjson.
local function equal(a, b)
  return (support.deep_equal(a, b))
end

local function describe_value(v)
  if type(v) == "table" then
    return qjson.encode(v)
  end
  return tostring(v)
end

-- Runs `ops` on a fresh decode of `text`; returns nil, or a message for
-- the first step where view and model disagree.
local function run(text, ops)
  local model = cjson.decode(text)
  -- Which model tables are arrays (cjson.decode does not say for []).
  local arrays = setmetatable({}, { __mode = "k" })
  local function mark(t, v)
    if type(t) ~= "table" then
      return
    end
    if is_array(v) then
      arrays[t] = true
    end
    for k, x in pairs(t) do
      mark(x, v[k])
    end
  end
  local view
  do
    local s = text .. "" -- the caller's string is dropped at once
    view = qjson.decode(s)
  end
  mark(model, view)
  for step, op in ipairs(ops) do
    local ok, err = pcall(function()
      local m, v = walk(model, view, op.path)
      local keys = model_keys(m)
      local key = #keys > 0 and keys[(op.pick - 1) % #keys + 1] or nil
      local array = arrays[m]
      local kind = op.kind
      if kind == "read" then
        if key ~= nil then
          local want, got = m[key], v[key]
          if type(want) ~= "table" then
            assert(want == got, ("read %s: view %s, model %s"):format(tostring(key), tostring(got), tostring(want)))
          else
            assert(equal(want, cjson.decode(qjson.encode(got))), "read of a container differs")
          end
        end
        assert(qjson.len(v) == (array and #m or 0), "length differs")
      elseif kind == "set" and key ~= nil then
        local x = copy(op.value)
        m[key] = copy(x)
        mark(m[key], x)
        v[key] = x
      elseif kind == "add" and not array then
        local k = "new" .. op.pick
        local x = copy(op.value)
        m[k] = copy(x)
        mark(m[k], x)
        v[k] = x
      elseif kind == "delete" and key ~= nil and not array then
        m[key], v[key] = nil, nil
      elseif kind == "append" and array then
        local x = copy(op.value)
        m[#m + 1] = copy(x)
        mark(m[#m], x)
        v[qjson.len(v) + 1] = x
      elseif kind == "remove" and array and #m > 0 then
        local pos = (op.pick - 1) % #m + 1
        local a, b = table.remove(m, pos), qjson.remove(v, pos)
        assert(equal(a, type(b) == "table" and cjson.decode(qjson.encode(b)) or b), "removed values differ")
      elseif kind == "insert" and array then
        local pos = (op.pick - 1) % (#m + 1) + 1
        local x = copy(op.value)
        table.insert(m, pos, copy(x))
        mark(m[pos], x)
        qjson.insert(v, pos, x)
      elseif kind == "encode" then
        local out = qjson.encode(view)
        assert(equal(model, cjson.decode(out)), "encode differs from the model: " .. out)
      elseif kind == "pairs" then
        local n = 0
        for k, x in qjson.pairs(v) do
          n = n + 1
          assert(m[k] ~= nil, "pairs yields " .. tostring(k) .. " which the model lacks")
          if type(x) ~= "table" then
            assert(m[k] == x, "pairs value differs at " .. tostring(k))
          end
        end
        local want = 0
        for _ in pairs(m) do
          want = want + 1
        end
        assert(n == want, ("pairs yields %d entries, model has %d"):format(n, want))
      elseif kind == "gc" then
        collectgarbage("collect")
      end
    end)
    if not ok then
      return ("step %d (%s %s): %s"):format(step, op.kind, describe_value(op.path), tostring(err))
    end
  end
  local out = qjson.encode(view)
  if not equal(model, cjson.decode(out)) then
    return "final encode differs from the model: " .. out
  end
  return nil
end

-- Removes ops while the trace still fails: a minimal failing trace.
local function shrink(text, ops)
  local i = 1
  while i <= #ops do
    local fewer = {}
    for j, op in ipairs(ops) do
      if j ~= i then
        fewer[#fewer + 1] = op
      end
    end
    if run(text, fewer) then
      ops = fewer
    else
      i = i + 1
    end
  end
  return ops
end

describe("views under random edit traces", function()
  it("agree with a plain-table model after every step", function()
    local steps = 0
    for seed = SEED, SEED + TRACES - 1 do
      local r = rng(seed)
      local text = random_json(r, 0)
      if text:sub(1, 1) ~= "{" and text:sub(1, 1) ~= "[" then
        text = "[" .. text .. "]"
      end
      local ops = {}
      for i = 1, STEPS do
        ops[i] = random_op(r)
      end
      local failure = run(text, ops)
      if failure then
        local small = shrink(text, ops)
        local lines = {}
        for i, op in ipairs(small) do
          lines[i] = ("  %s path=%s pick=%d value=%s"):format(op.kind, describe_value(op.path), op.pick,
            describe_value(op.value))
        end
        local fmt = "seed %d: %s\ndocument: %s\nminimal trace (%d ops; replay with"
          .. " QJSON_PROP_SEED=%d QJSON_PROP_TRACES=1):\n%s"
        error(fmt:format(seed, run(text, small) or failure, text, #small, seed, table.concat(lines, "\n")), 0)
      end
      steps = steps + #ops
    end
    assert.are.equal(TRACES * STEPS, steps)
  end)
end)
