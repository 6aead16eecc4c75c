-- Finding libqjson.so: each case runs in a fresh luajit, since a loaded
-- library cannot be unloaded to try another way.
local support = require("support")

local root = support.root

-- Runs `code` in a new luajit started in `dir` with `env` set in the
-- environment (QJSON_LIB unset otherwise); returns the combined stdout
-- and stderr, and whether it exited with 0.
local function run(dir, env, code)
  assert(not code:find("'", 1, true), "code must not contain single quotes")
  local cmd = ("cd '%s' && env -u QJSON_LIB %s luajit -e '%s' 2>&1; echo \"exit=$?\"")
    :format(dir, env or "", code)
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  local status = tonumber(out:match("exit=(%d+)\n$"))
  return out:gsub("exit=%d+\n$", ""), status == 0
end

local function abs(path)
  local p = assert(io.popen("cd '" .. path .. "' && pwd"))
  local dir = p:read("*l")
  p:close()
  return dir
end

-- Loads qjson with package.path pointing at `lua_dir` and parses a document.
local function probe(lua_dir)
  return ([[package.path = "%s/?.lua;%s/?/init.lua;" .. package.path
local qjson = require("qjson")
io.write("len=", qjson.parse("[1, 2, 3]"):len(), " backend=", qjson.backend())]]):format(lua_dir, lua_dir)
end

-- The library under test (make check's is not in target/release).
local function library(top)
  local env = os.getenv("QJSON_LIB")
  return (env and env ~= "") and env or top .. "/target/release/libqjson.so"
end

-- A checkout's layout in a temporary directory: a copy of lua/, and the
-- library under test at `lib_at` (relative to it).
local function layout(top, lib_at)
  local p = assert(io.popen("mktemp -d"))
  local dir = p:read("*l")
  p:close()
  local target = dir .. "/" .. lib_at
  local status = os.execute(("cp -r '%s/lua' '%s/lua' && mkdir -p '%s' && cp '%s' '%s'")
    :format(top, dir, target:match("^(.*)/[^/]*$"), library(top), target))
  assert(status == 0 or status == true, "could not lay out " .. dir) -- 5.1's and LUA52COMPAT's

  return dir
end

describe("loader", function()
  local top = abs(root)
  local dirs = {}
  teardown(function()
    for _, dir in ipairs(dirs) do
      os.execute("rm -rf '" .. dir .. "'")
    end
  end)

  it("finds the built library in the checkout's target/release with no QJSON_LIB", function()
    local dir = layout(top, "target/release/libqjson.so")
    dirs[#dirs + 1] = dir
    local out, ok = run(dir, nil, probe("lua"))
    assert.is_true(ok, out)
    assert.truthy(out:match("^len=3 backend=%a+"), out)
  end)

  it("finds the library beside the modules from any directory", function()
    local dir = layout(top, "lua/qjson/libqjson.so")
    dirs[#dirs + 1] = dir
    local out, ok = run("/", nil, probe(dir .. "/lua"))
    assert.is_true(ok, out)
    assert.truthy(out:match("^len=3 "), out)
  end)

  it("loads the library QJSON_LIB names", function()
    local out, ok = run("/", "QJSON_LIB=" .. library(top), probe(top .. "/lua"))
    assert.is_true(ok, out)
    assert.truthy(out:match("^len=3 "), out)
  end)

  it("fails clearly when QJSON_LIB names a file that does not exist", function()
    local out, ok = run(top, "QJSON_LIB=/nonexistent", probe("lua"))
    assert.is_false(ok, out)
    assert.truthy(out:find("qjson: cannot load libqjson.so", 1, true), out)
    assert.truthy(out:find("QJSON_LIB", 1, true), out)
    assert.truthy(out:find("/nonexistent (not found)", 1, true), out)
  end)

  it("fails clearly when QJSON_LIB names a file that is not a library", function()
    local out, ok = run(top, "QJSON_LIB=" .. top .. "/README.md", probe("lua"))
    assert.is_false(ok, out)
    assert.truthy(out:find("QJSON_LIB", 1, true), out)
    assert.truthy(out:find(top .. "/README.md (", 1, true), out)
  end)

  it("is what require(\"qjson.lib\") returns in this process too", function()
    local C = require("qjson.lib")
    local ffi = require("ffi")
    assert.are.equal("string", type(ffi.string(C.qjson_version())))
  end)
end)
