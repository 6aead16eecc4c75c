-- The LuaJIT build the suite runs on, and what differs between builds.
-- `make test-lua` runs every spec twice: on Debian's luajit2 and on the
-- same source built with LUAJIT_ENABLE_LUA52COMPAT (tools/luajit52.sh),
-- which is how OpenResty builds its LuaJIT. It says which build each run
-- is meant to be in QJSON_LUAJIT_BUILD, so a run on the wrong interpreter
-- fails here instead of passing on the other build.
local support = require("support")
local qjson = require("qjson")
local cjson = require("cjson")

local BUILDS = { plain = false, lua52compat = true }

local function build_name(compat)
  return compat and "lua52compat" or "plain"
end

describe("LuaJIT build", function()
  it("is LuaJIT", function()
    assert.is_table(jit, "not LuaJIT: " .. _VERSION .. " (" .. support.luajit .. ")")
  end)

  it("is the build QJSON_LUAJIT_BUILD names", function()
    local expected = os.getenv("QJSON_LUAJIT_BUILD")
    if expected == nil or expected == "" then
      pending("QJSON_LUAJIT_BUILD is not set (make test-lua sets it); running on a "
        .. build_name(support.lua52compat) .. " build: " .. support.luajit)
      return
    end
    assert(BUILDS[expected] ~= nil, "QJSON_LUAJIT_BUILD must be plain or lua52compat, got '" .. expected .. "'")
    assert(support.lua52compat == BUILDS[expected], ("expected a %s build, running on a %s build: %s")
      :format(expected, build_name(support.lua52compat), support.luajit))
  end)

  -- support.lua52compat probes __len only; the flag brings the others too.
  it("honours __pairs, __ipairs and rawlen exactly when # honours __len", function()
    local mt = {
      __pairs = function()
        return next, { p = true }, nil
      end,
      __ipairs = function()
        return ipairs({ "i" })
      end,
    }
    local t = setmetatable({ "raw" }, mt)
    local k = pairs(t)(select(2, pairs(t)))
    local _, v = ipairs(t)(select(2, ipairs(t)), 0)
    local c = support.lua52compat
    assert.are.equal(c and "p" or 1, k)
    assert.are.equal(c and "i" or "raw", v)
    assert.are.equal(c, rawget(_G, "rawlen") ~= nil)
  end)
end)

-- lua-cjson reads tables with lua_next, lua_rawgeti and lua_objlen, none of
-- which calls a metamethod; the encoder must give the same bytes on both
-- builds. Debian's lua-cjson (upstream 2.1.0) is the oracle where its rules
-- are OpenResty's; it lacks OpenResty's "a __len field makes an array" rule,
-- so those cases state the expected bytes.
describe("encode ignores metamethods on this build, as lua-cjson", function()
  local function len(n)
    return {
      __len = function()
        return n
      end,
    }
  end

  it("a __len table is an array of its raw length, not of what __len returns", function()
    local short = setmetatable({ 1, 2, 3, a = 1 }, len(1))
    local long = setmetatable({ 1, 2 }, len(5))
    if support.lua52compat then
      assert.are.equal(1, #short) -- the metamethod is live here, and ignored below
    end
    assert.are.equal("[1,2,3]", qjson.encode(short))
    assert.are.equal("[1,2]", qjson.encode(long))
    assert.are.equal("[]", qjson.encode(setmetatable({}, len(3))))
    assert.are.equal("[\n  1,\n  2\n]", qjson.encode(long, { indent = 2 }))
    assert.are.equal('{"k":[1,2,3]}', qjson.encode({ k = short }, { sort_keys = true }))
  end)

  it("__pairs and __ipairs are not used to walk a table", function()
    local mt = {
      __pairs = function()
        return next, { fake = 1 }, nil
      end,
      __ipairs = function()
        return ipairs({ "fake" })
      end,
    }
    local obj = setmetatable({ a = 1 }, mt)
    local arr = setmetatable({ 1, 2 }, mt)
    if support.lua52compat then
      assert.are.equal("fake", (pairs(obj)(select(2, pairs(obj)))))
    end
    for _, v in ipairs({ obj, arr, { obj, arr }, { k = obj } }) do
      assert.are.equal(cjson.encode(v), qjson.encode(v))
    end
    assert.are.equal('{"a":1}', qjson.encode(obj))
    assert.are.equal("[1,2]", qjson.encode(arr))
    assert.are.equal('{"a":1}', qjson.encode(obj, { sort_keys = true }))
    assert.are.equal("[\n  1,\n  2\n]", qjson.encode(arr, { indent = 2 }))
  end)

  it("__index does not add members or elements", function()
    local t = setmetatable({ 1, 2 }, {
      __index = function(_, k)
        return "from __index " .. tostring(k)
      end,
    })
    assert.are.equal(cjson.encode(t), qjson.encode(t))
    assert.are.equal("[1,2]", qjson.encode(t))
  end)

  it("a __len and __pairs metatable together: raw length, raw elements", function()
    local t = setmetatable({ "x", "y" }, {
      __len = function()
        return 9
      end,
      __pairs = function()
        return next, { "no" }, nil
      end,
    })
    assert.are.equal('["x","y"]', qjson.encode(t))
    assert.are.equal('["x","y"]', qjson.encode(t, { sort_keys = true }))
  end)
end)
