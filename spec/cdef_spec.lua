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

  it("equals the declarations generated from crates/luajit/include/qjson.h", function()
    local header = assert(support.read(root .. "/crates/luajit/include/qjson.h"))
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

-- Every constant the Lua side shares with the library comes from the
-- header: kinds, statuses, option values, escape flags, buffer sizes. A
-- number spelled in Lua instead would drift silently when the Rust side
-- changes (a buffer size that drifts is a memory-safety bug).

-- Each enum constant of the cdef: its full name, value, and its name
-- without the enum's prefix (QJSON_KIND_NULL -> NULL).
local function enum_constants(cdef)
  local out = {}
  for enum, body in cdef:gmatch("enum%s+qjson_([%w_]+)%s*(%b{})") do
    local prefix = "QJSON_" .. enum:upper() .. "_"
    for name in body:gmatch("(QJSON_[%w_]+)%s*=") do
      out[#out + 1] = { name = name, tail = name:sub(#prefix + 1) }
    end
  end
  return out
end

-- Splits "a, b, c" at its top-level commas.
local function split_list(s)
  local out, depth, cur = {}, 0, {}
  for ch in s:gmatch(".") do
    if ch == "(" or ch == "{" or ch == "[" then
      depth = depth + 1
    elseif ch == ")" or ch == "}" or ch == "]" then
      depth = depth - 1
    end
    if ch == "," and depth == 0 then
      out[#out + 1] = table.concat(cur):match("^%s*(.-)%s*$")
      cur = {}
    else
      cur[#cur + 1] = ch
    end
  end
  out[#out + 1] = table.concat(cur):match("^%s*(.-)%s*$")
  return out
end

local NUMBER = "^%-?%d[%w%.]*$"
-- Variables that hold a read's kind or status in qjson's Lua code (`k`
-- also names table keys: only a comparison with 0 or less, a status, is
-- flagged for it).
local KIND_VARS = { k = true, kind = true, vk = true, kk = true, tag = true, status = true }

-- The places in Lua source `text` that spell a header constant as a
-- number: a name that is a constant's (NULL = 1, strict = 0), a kind or
-- status variable compared with a number (k <= 0), a buffer reservation
-- sized with a number other than 1 or 2 (bytes the Lua code writes
-- itself: quotes). Each as "line N: text".
local function literal_constants(text, tails)
  local found = {}
  local n = 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    local code = line:gsub('"[^"]*"', '""'):gsub("'[^']*'", "''"):gsub("%-%-.*$", "")
    local function flag(why)
      found[#found + 1] = ("line %d: %s (%s)"):format(n, line:match("^%s*(.-)%s*$"), why)
    end
    -- Assignments, one name and value at a time.
    local lhs, rhs = code:match("^%s*l?o?c?a?l?%s*([%w_%.,%s%[%]]-)%s*=%s*([^=].*)$")
    if lhs and lhs:find(",") then
      local names, values = split_list(lhs:gsub("^local%s+", "")), split_list(rhs)
      for i, name in ipairs(names) do
        local key = name:match("([%a_][%w_]*)$")
        if key and tails[key:upper()] and values[i] and values[i]:match(NUMBER) then
          flag(key .. " is a header constant")
        end
      end
    else
      for key, value in code:gmatch("([%a_][%w_]*)%s*=%s*(%-?%d[%w%.]*)") do
        if tails[key:upper()] and not code:find(key .. "%s*==") then
          flag(key .. " = " .. value .. ": a header constant")
        end
      end
    end
    for var, op, value in code:gmatch("%f[%w_]([%a_][%w_]*)%s*([=~<>]=?)%s*(%-?%d+)") do
      if KIND_VARS[var] and op ~= "=" and (var ~= "k" or tonumber(value) <= 0) then
        flag(var .. " " .. op .. " " .. value .. ": a kind or status as a number")
      end
    end
    for args in code:gmatch("reserve(%b())") do
      for num in args:gmatch("%f[%w_%.](%d[%w%.]*)") do
        if num ~= "1" and num ~= "2" then
          flag("reserve with " .. num .. ": a buffer size as a number")
        end
      end
    end
  end
  return found
end

local function lua_sources()
  local files = {}
  local function walk(dir, prefix)
    for _, name in ipairs(support.list(dir)) do
      local path = dir .. "/" .. name
      if name:match("%.lua$") then
        if prefix .. name ~= "qjson/cdef.lua" then
          files[#files + 1] = path
        end
      elseif not name:find("%.") then
        walk(path, prefix .. name .. "/")
      end
    end
  end
  walk(root .. "/lua/qjson", "qjson/")
  return files
end

describe("constants from the header", function()
  local cdef = require("qjson.cdef")
  local C = require("qjson.base").C
  local tails = {}
  for _, c in ipairs(enum_constants(cdef)) do
    tails[c.tail] = true
  end

  it("finds the enums the Lua side needs in the cdef", function()
    for _, name in ipairs({ "QJSON_KIND_NULL", "QJSON_STATUS_MISSING", "QJSON_MODE_LAZY",
      "QJSON_DUPLICATES_REJECT", "QJSON_ESCAPE_FLAG_HTML_SAFE", "QJSON_LIMIT_ESCAPE_SLACK",
      "QJSON_LIMIT_NUMBER_MAX_LEN", "QJSON_LIMIT_DEFAULT_MAX_DEPTH" }) do
      local found = false
      for _, c in ipairs(enum_constants(cdef)) do
        found = found or c.name == name
      end
      assert.is_true(found, name)
    end
  end)

  it("flags each way of spelling a constant as a number (the scan can fail)", function()
    local bad = table.concat({
      "local MISSING, ERROR = 0, -1",
      "local NULL = 1",
      "M.MODES = { strict = 0, lazy = 1 }",
      "if k <= 0 then end",
      "if kind == 6 then end",
      "local p = buf:reserve(len * 6 + 16)",
      "local q = buf:reserve(32)",
    }, "\n")
    assert.are.equal(10, #literal_constants(bad, tails))
    local good = table.concat({
      "local MISSING, ERROR = C.QJSON_STATUS_MISSING, C.QJSON_STATUS_ERROR",
      "local prev, i, last = 0, 0, nil",
      "if k <= MISSING then end -- k <= 0 in a comment",
      "local p = buf:reserve(n * EXPANSION + SLACK + 2)",
      "local p = buf:reserve(1)",
      'error("kind == 1")',
    }, "\n")
    assert.are.same({}, literal_constants(good, tails))
  end)

  it("is never spelled as a number in lua/qjson", function()
    local files = lua_sources()
    assert.is_true(#files > 30, #files .. " files")
    local found = {}
    for _, path in ipairs(files) do
      for _, where in ipairs(literal_constants(assert(support.read(path)), tails)) do
        found[#found + 1] = path:sub(#root + 2) .. " " .. where
      end
    end
    assert.are.same({}, found)
  end)

  it("gives the encoder the buffer sizes the native writers rely on", function()
    local strings = require("qjson.encode.string")
    local numbers = require("qjson.encode.number")
    assert.are.equal(C.QJSON_LIMIT_ESCAPE_EXPANSION, strings.EXPANSION)
    assert.are.equal(C.QJSON_LIMIT_ESCAPE_SLACK, strings.SLACK)
    assert.are.equal(C.QJSON_LIMIT_NUMBER_MAX_LEN, numbers.MAX_LEN)
    assert.is_true(strings.CHUNK <= C.QJSON_LIMIT_ESCAPE_MAX_CHUNK)
    assert.are.equal(C.QJSON_ESCAPE_FLAG_ASCII, strings.ASCII)
    local options = require("qjson.parse.options")
    assert.are.equal(C.QJSON_LIMIT_DEFAULT_MAX_DEPTH, options.DEFAULT_MAX_DEPTH)
    assert.are.equal(C.QJSON_MODE_LAZY, options.MODES.lazy)
  end)

  it("has the header's sizes match what the library writes at worst", function()
    local ffi = require("ffi")
    -- Control bytes are the longest escapes (\u00XX): n of them take
    -- exactly EXPANSION x n bytes.
    local n = 100
    local s = ("\1"):rep(n)
    local dst = ffi.new("uint8_t[?]", n * C.QJSON_LIMIT_ESCAPE_EXPANSION + C.QJSON_LIMIT_ESCAPE_SLACK)
    local used = ffi.new("size_t[1]")
    assert.are.equal(n * C.QJSON_LIMIT_ESCAPE_EXPANSION, C.qjson_escape(s, n, dst, 0, true, used))
    -- The longest number text fits NUMBER_MAX_LEN.
    local out = ffi.new("uint8_t[?]", C.QJSON_LIMIT_NUMBER_MAX_LEN)
    local w = C.qjson_format_number(-2.2250738585072014e-308, 17, out)
    assert.is_true(w > 20 and w <= C.QJSON_LIMIT_NUMBER_MAX_LEN, tostring(w))
  end)
end)
