-- One source of truth for the FFI: the Lua cdef is generated from the C
-- header (itself generated from the Rust exports), and every function it
-- declares must exist in the library actually loaded.
local support = require("support")

local root = support.root

-- tools/gen-cdef.lua is a script and a module; called with no header
-- path, it only returns its functions.
local function gen_cdef()
  return assert(loadfile(root .. "/tools/gen-cdef.lua"))()
end

-- The function names a cdef declares: the identifier before the first
-- "(" of every statement that is not a typedef.
local function function_names(cdef)
  local names = {}
  for stmt in cdef:gsub("%s+", " "):gmatch("([^;{}]+);") do
    if not stmt:match("^%s*typedef") then
      local name = stmt:match("([%a_][%w_]*)%s*%(")
      if name then
        names[#names + 1] = name
      end
    end
  end
  return names
end

describe("cdef", function()
  local cdef = require("qjson.cdef")

  it("equals the declarations generated from include/qjson.h", function()
    local header = assert(support.read(root .. "/include/qjson.h"))
    assert.are.equal(gen_cdef().declarations(header), cdef)
  end)

  it("declares more than 15 functions, all qjson_*", function()
    local names = function_names(cdef)
    assert.is_true(#names > 15, "only " .. #names .. " functions declared")
    for _, name in ipairs(names) do
      assert.truthy(name:match("^qjson_"), name)
    end
  end)

  it("has every declared function resolve in the loaded library", function()
    local C = require("qjson.lib")
    local missing = {}
    for _, name in ipairs(function_names(cdef)) do
      local ok = pcall(function() return C[name] end)
      if not ok then
        missing[#missing + 1] = name
      end
    end
    assert.are.same({}, missing)
  end)
end)
