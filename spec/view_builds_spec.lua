-- Code written for lua-cjson's tables works, or fails loudly, on every
-- LuaJIT build (issue 18, items 9 and 10). Specs run on both builds
-- (make test-lua, test-lua52). These use fresh instances (qjson.new()),
-- whose decode_views is the build's default.
local qjson = require("qjson")
local support = require("support")

local CHAT = '{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}'

-- What a handler written for lua-cjson does with a request body.
local function cjson_style_handler(body)
  local msgs = body.messages
  msgs[#msgs + 1] = { role = "assistant", content = "ok" }
  local keys = {}
  for k in pairs(body) do
    keys[#keys + 1] = k
  end
  table.sort(keys)
  local roles = {}
  for _, m in ipairs(msgs) do
    roles[#roles + 1] = m.role
  end
  return table.concat(keys, ","), table.concat(roles, ",")
end

describe("qjson.decode on this build", function()
  it("returns views by default exactly where # and pairs reach their metamethods", function()
    assert.are.equal(support.lua52compat, qjson.new().decode_views())
    -- spec/support.lua, which bench/ shares, changes no setting when it
    -- loads (in this process, specs that want views turned them on).
    local before = qjson.decode_views()
    qjson.decode_views(not before)
    package.loaded.support = nil
    require("support")
    assert.are.equal(not before, qjson.decode_views())
    qjson.decode_views(before)
  end)

  it("has no decode_views in the drop-in, whose decode always builds plain tables", function()
    -- lua-cjson has none either: a setting it would accept and ignore.
    for _, m in ipairs({ require("qjson.cjson"), require("qjson.cjson").new(), require("qjson.cjson.safe") }) do
      assert.is_nil(m.decode_views)
      assert.are.equal("table", type(m.decode('{"a":[1]}')))
      assert.is_nil(getmetatable(m.decode('{"a":[1]}')))
    end
    assert.matches("attempt to call field 'decode_views' %(a nil value%)", support.error_of(function()
      require("qjson.cjson").decode_views(true)
    end))
  end)

  it("runs a handler written for lua-cjson tables as lua-cjson would", function()
    local q = qjson.new()
    local body = q.decode(CHAT)
    local keys, roles = cjson_style_handler(body)
    assert.are.equal("messages,model", keys)
    -- (Without LUA52COMPAT views gave 0 for #msgs: the append replaced
    -- the system prompt, and pairs listed the view's private fields.)
    assert.are.equal("system,user,assistant", roles)
    local out = require("cjson").decode(q.encode(body))
    assert.are.equal("be brief", out.messages[1].content)
    assert.are.equal(3, #out.messages)
  end)

  it("without LUA52COMPAT, decode_views(false) gives the tables qjson.materialize builds", function()
    local q = qjson.new()
    q.decode_views(false)
    local t = q.decode(CHAT)
    assert.is_nil(getmetatable(t))
    assert.are.same(qjson.materialize(qjson.decode(CHAT)), t)
    assert.are.equal("[]", q.encode(q.decode("[]")))
    local big = q.decode('[12345678901234567890]', { big_int = "string" })
    assert.are.same({ "12345678901234567890" }, big)
    assert.are.equal(7, q.decode("7"))
    assert.is_true(q.decode_views(true))
    assert.is_table(getmetatable(q.decode("{}")))
  end)

  it("checks decode_views' argument as lua-cjson's on/off settings", function()
    local q = qjson.new()
    assert.matches("bad argument #1 to 'decode_views' %(invalid option 'maybe'%)",
      select(2, pcall(function()
        q.decode_views("maybe") -- (not a tail call, which would hide the name)
      end)))
    assert.is_true(q.decode_views("on"))
    assert.is_false(q.decode_views(false))
  end)

  it("views opted into without LUA52COMPAT need qjson.len and qjson.pairs (docs/api.md)", function()
    local q = qjson.new()
    q.decode_views(true)
    local v = q.decode('[1,2]')
    assert.are.equal(2, qjson.len(v))
    if not support.lua52compat then
      -- What the docs warn of: `#` ignores __len on this build.
      assert.are.equal(0, #v)
    else
      assert.are.equal(2, #v)
    end
  end)
end)

-- lua-cjson's own encode given a view (item 10): OpenResty's calls __len
-- to tell arrays from objects and wrote an object view as `[]`; Debian's
-- followed the private fields into a nesting error.
describe("lua-cjson's encode of a view", function()
  local function check(cjson, name)
    local MSG = "qjson: lua-cjson cannot encode a qjson view (an object): use qjson.encode, or qjson.materialize first"
    local q = qjson.new()
    q.decode_views(true) -- (views on every build)
    for _, text in ipairs({ '{"a":1}', '{}', '[1,{"a":1}]' }) do
      local v = q.decode(text)
      local ok, err = pcall(cjson.encode, v)
      assert.is_false(ok, name .. " encoded " .. text .. " as " .. tostring(err))
      if name == "OpenResty's" then
        assert.are.equal(MSG, err)
      end
    end
    return MSG
  end

  it("raises with the lua-cjson this suite runs with", function()
    check(require("cjson"), "installed")
  end)

  it("raises with OpenResty's lua-cjson, saying what to do; arrays of scalars work", function()
    local path = os.getenv("QJSON_OPENRESTY_CJSON")
    if path == nil then
      local deps = support.root .. "/.deps/"
      for _, p in ipairs({ deps .. "lua-cjson/cjson.so", deps .. "openresty-cjson/cjson.so" }) do
        if support.read(p) then
          path = p
          break
        end
      end
    end
    if path == nil then
      pending("OpenResty's lua-cjson is not built (set QJSON_OPENRESTY_CJSON to its cjson.so): not tested")
      return
    end
    local open, err = package.loadlib(path, "luaopen_cjson")
    if open == nil then
      -- (The aarch64 leg runs the specs on an arm64 LuaJIT; .deps/ holds
      -- the host's build.)
      pending("OpenResty's lua-cjson at " .. path .. " does not load here (" .. tostring(err) .. "): not tested")
      return
    end
    local cjson = open()
    check(cjson, "OpenResty's")
    assert.are.equal('[1,2.5,"x"]', cjson.encode(qjson.decode('[1,2.5,"x"]')))
    assert.are.equal('{"x":[1,2]}', cjson.encode({ x = qjson.decode('[1,2]') }))
  end)
end)
