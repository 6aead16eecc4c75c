-- The finalizer-safe read rule has one home: qjson.base's readers make
-- every native call that writes a shared out-parameter box, with the
-- ticket, the copy out and the check written once (qjson.base's header).
-- This spec fails when a module outside qjson.base reads a box by hand:
-- takes tickets, names a box, or makes one of the readers' native calls
-- itself. (spec/finalizer/scenarios.lua's `reads` runs each reader with
-- a finalizer calling qjson at each of its allocations.)
local support = require("support")

local root = support.root

-- Each Lua file of lua/qjson/ but base.lua, by its path from lua/.
local function modules()
  local list = {}
  local p = assert(io.popen("cd '" .. root .. "/lua' && find qjson -name '*.lua' | sort"))
  for path in p:lines() do
    if path ~= "qjson/base.lua" then
      list[#list + 1] = path
    end
  end
  p:close()
  assert(#list > 10, "found the modules")
  return list
end

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- The code of `s` without its comments, as a list of lines (a comment
-- would name a box in prose).
local function code_lines(s)
  s = s:gsub("%-%-%[(=*)%[.-%]%1%]", "")
  local lines = {}
  for line in (s .. "\n"):gmatch("(.-)\n") do
    lines[#lines + 1] = line:gsub("%-%-.*$", "")
  end
  return lines
end

-- The native functions qjson.base's readers call.
local function readers_calls()
  local calls = {}
  for name in read_file(root .. "/lua/qjson/base.lua"):gmatch("C%.(qjson_[%w_]+)") do
    calls[name] = true
  end
  assert(calls.qjson_read and calls.qjson_get_str and calls.qjson_entry, "found the readers' calls")
  return calls
end

-- What may stay outside the readers, and why.
local ALLOWED = {
  -- qjson_escape's consumed box, read by hand under a ticket: the
  -- encoder's modules are being reorganised on another branch.
  ["qjson/encode/string.lua"] = { ticket = true, stale = true, consumed_box = true, consumed_value = true },
  -- Parses made again with an error box of the call's own (no ticket).
  ["qjson/parse.lua"] = { qjson_parse_measured_in = true, qjson_path_compile_in = true },
}

-- The violations in module `path` (source `src`): lines that take or
-- check a ticket, name one of qjson.base's boxes or box readers, or call
-- a native function that qjson.base's readers wrap.
local function violations(path, src, calls)
  local allowed = ALLOWED[path] or {}
  local found = {}
  local function flag(i, what, line)
    if not allowed[what] then
      found[#found + 1] = path .. ":" .. i .. ": " .. what .. ": " .. line:gsub("^%s+", "")
    end
  end
  for i, line in ipairs(code_lines(src)) do
    for _, name in ipairs({ "ticket", "stale" }) do
      if line:find("%f[%w_]" .. name .. "%f[^%w_]") then
        flag(i, name, line)
      end
    end
    for name in line:gmatch("base%.([%w_]+)") do
      if name:find("_box$") or name:find("_value$") or name:find("_halves$")
        or name == "val_num" or name == "val_len" then
        flag(i, name, line)
      end
    end
    for name in line:gmatch("%f[%w_]C%.(qjson_[%w_]+)") do
      if calls[name] then
        flag(i, name, line)
      end
    end
  end
  return found
end

describe("finalizer-safe reads", function()
  it("qjson.base exports no shared box but the encoder's", function()
    local base = require("qjson.base")
    local ffi = require("ffi")
    local boxes = {}
    for k, v in pairs(base) do
      if type(v) == "cdata" and k ~= "doc_mem" and k ~= "consumed_box" and not ffi.istype("ctype", v) then
        boxes[#boxes + 1] = k
      end
    end
    table.sort(boxes)
    assert.are.same({}, boxes)
  end)

  it("no module outside qjson.base reads a shared box by hand", function()
    local calls = readers_calls()
    local found = {}
    for _, path in ipairs(modules()) do
      for _, v in ipairs(violations(path, read_file(root .. "/lua/" .. path), calls)) do
        found[#found + 1] = v
      end
    end
    assert.are.same({}, found)
  end)

  it("the scan finds a hand-written read", function()
    -- doc:len as it was written by hand before the readers.
    local src = table.concat({
      "local C, ticket, stale = base.C, base.ticket, base.stale",
      "local size_box, size_value = base.size_box, base.size_value",
      "function Doc:len(path)",
      "  local t = ticket() -- the ticket",
      "  local k = C.qjson_get_len(self.ptr, self.node, p, n, c, size_box)",
      "  local len = size_value()",
      "  if stale(t) then return Doc.len(self, path) end",
      "end",
    }, "\n")
    local found = violations("qjson/doc.lua", src, readers_calls())
    local kinds = {}
    for _, v in ipairs(found) do
      kinds[v:match("^[^:]+:%d+: ([%w_]+)")] = true
    end
    assert.are.same({ ticket = true, stale = true, size_box = true, size_value = true, qjson_get_len = true }, kinds)
    -- Comments are not code.
    assert.are.same({}, violations("qjson/doc.lua", "-- take a ticket(), read size_box\nlocal x = 1", readers_calls()))
  end)
end)
