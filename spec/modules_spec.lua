-- The Lua module tree (lua/qjson/): each module gets what it needs by
-- require, and the core needs nothing of the lua-cjson drop-in. (The
-- rock installs the whole tree: tools/test-install.sh checks it.)
local support = require("support")

local root = support.root

-- The Lua files under lua/qjson, as module names ("qjson.encode.walk").
local function modules()
  local p = assert(io.popen("cd '" .. root .. "/lua' && find qjson -name '*.lua' | sort"))
  local names = {}
  for path in p:lines() do
    local name = path:gsub("%.lua$", ""):gsub("/", ".")
    names[#names + 1] = name == "qjson.init" and "qjson" or name
  end
  p:close()
  assert(#names > 20, "lua/qjson not found from " .. root)
  return names
end

-- Runs `code` in a new interpreter of this build with lua/ on its path;
-- returns its output and whether it exited with 0.
local function run(code)
  assert(not code:find("'", 1, true), "code must not contain single quotes")
  local cmd = ("cd '%s' && %s -e 'package.path = \"lua/?.lua;lua/?/init.lua;\" .. package.path' -e '%s' 2>&1;"
    .. " echo \"exit=$?\""):format(root, support.luajit, code)
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  return out:gsub("exit=%d+\n$", ""), out:match("exit=0\n$") ~= nil
end

describe("the module tree", function()
  it("has no core module that requires the lua-cjson drop-in (qjson.cjson.*)", function()
    for _, name in ipairs(modules()) do
      if name ~= "qjson.cjson" and not name:find("^qjson%.cjson%.") then
        local path = name == "qjson" and "lua/qjson/init.lua" or "lua/" .. name:gsub("%.", "/") .. ".lua"
        local src = assert(support.read(root .. "/" .. path))
        assert.is_nil(src:match('require%(?%s*["\']qjson%.cjson[%."]'), path .. " requires qjson.cjson")
      end
    end
  end)

  it("gives each module qjson.null by require, with no need of qjson's init", function()
    local out, ok = run([[
local null = require("qjson.doc").null
assert(null ~= nil, "qjson.doc.null is nil")
for _, name in ipairs({ "qjson.select", "qjson.view.fields", "qjson.markers" }) do
  assert(require(name).null == null, name .. ".null is not qjson.doc.null")
end
assert(package.loaded.qjson == nil, "qjson was loaded")
local d = require("qjson.parse").document("[null]")
local v = require("qjson.view").decoded(d.ptr, d.src, nil, nil, d.lazy, d.lenient)
assert(v[1] == null, "a view read null as something else")
io.write("ok")]])
    assert.is_true(ok, out)
    assert.are.equal("ok", out)
  end)

  it("refuses to encode a document through qjson.encode alone", function()
    local out, ok = run([[
local e = {}
require("qjson.encode").install(e)
local d = require("qjson.parse").document("[1]")
local fine, err = pcall(e.encode, d)
assert(not fine)
assert(package.loaded.qjson == nil, "qjson was loaded")
io.write(err)]])
    assert.is_true(ok, out)
    assert.are.equal("Cannot serialise a qjson document or cursor: encode doc:get() (a view of it) instead", out)
  end)
end)
