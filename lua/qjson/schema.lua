-- JSON Schema validation: qjson.schema(schema [, opts]) compiles once,
-- v:validate(instance) / v:is_valid(instance) check a body string, a
-- document (or cursor) or an unedited view where it lies, with one native
-- call and no Lua table built (crates/core/src/schema/ does the work).
local ffi = require("ffi")
local base = require("qjson.base")
local C = base.C
local view = require("qjson.view.fields")
local arg_error = require("qjson.base").arg_error

local type, error, next, tostring, setmetatable, getmetatable, pcall, concat =
  type, error, next, tostring, setmetatable, getmetatable, pcall, table.concat
local ffi_string, ffi_new = ffi.string, ffi.new
local tonumber = tonumber

local ERROR = tonumber(C.QJSON_STATUS_ERROR)

local DRAFTS = {
  [4] = C.QJSON_SCHEMA_DRAFT_DRAFT4, ["4"] = C.QJSON_SCHEMA_DRAFT_DRAFT4,
  [6] = C.QJSON_SCHEMA_DRAFT_DRAFT6, ["6"] = C.QJSON_SCHEMA_DRAFT_DRAFT6,
  [7] = C.QJSON_SCHEMA_DRAFT_DRAFT7, ["7"] = C.QJSON_SCHEMA_DRAFT_DRAFT7,
  ["2019-09"] = C.QJSON_SCHEMA_DRAFT_DRAFT201909,
  ["2020-12"] = C.QJSON_SCHEMA_DRAFT_DRAFT202012,
}
local BOUNDS = {
  max_depth = true, max_errors = true, backtrack_limit = true, backtrack_budget = true, regex_size_limit = true,
}

-- A validator's compiled schema is held through a ref (qjson.base).
local schema_ref = ffi.typeof("qjson_schema *[1]")
-- Error boxes by nesting depth, as init.lua's: a finalizer run by an
-- allocation between a call and the reading of its box (a boxed result,
-- the message's string) may validate too, with a box of its own.
local boxes, nesting = {}, 0

local function enter()
  nesting = nesting + 1
  local box = boxes[nesting]
  if box == nil then
    box = ffi_new("qjson_error")
    boxes[nesting] = box
  end
  box.message[0] = 0
  return box
end

-- Reports are written into Lua memory (qjson.report).
local report = require("qjson.report")
local SCRATCH = report.SIZE

local M = {}

-- Set by install: qjson.encode, for schemas and instances given as tables.
local encode

local Validator = {}
local ValidatorMT = { __index = Validator, __tostring = function() return "qjson.schema" end }
M.Validator = Validator


-- Schema text from a string, a table or a view (argument n).
local function json_text(v, n, what, level)
  local t = type(v)
  if t == "string" then
    return v
  elseif t == "table" or t == "boolean" then
    return encode(v)
  end
  arg_error(n, "schema", what .. " as JSON string, table or view expected, got " .. t, level)
end

local function remotes_text(remotes)
  if type(remotes) ~= "table" then
    arg_error(2, "schema", "remotes: table of URI -> document expected, got " .. type(remotes), 4)
  end
  local parts = {}
  -- (`while` loops over next(), not for loops, here and in pack: see
  -- qjson.base, ITERN.)
  local uri, body = next(remotes)
  while uri ~= nil do
    if type(uri) ~= "string" then
      arg_error(2, "schema", "remotes: URI string keys expected, got " .. type(uri), 4)
    end
    parts[#parts + 1] = encode(uri) .. ":" .. json_text(body, 2, "remote document", 5)
    uri, body = next(remotes, uri)
  end
  return "{" .. concat(parts, ",") .. "}"
end

local function pack(opts)
  local o = ffi_new("qjson_schema_options")
  local remotes
  if opts == nil then
    return o, nil
  end
  if type(opts) ~= "table" then
    arg_error(2, "schema", "options table expected, got " .. type(opts), 3)
  end
  local k, v = next(opts)
  while k ~= nil do
    if k == "draft" then
      local d = DRAFTS[v]
      if d == nil then
        arg_error(2, "schema", "draft: 4, 6, 7, '2019-09' or '2020-12' expected, got " .. tostring(v), 3)
      end
      o.draft = d
    elseif k == "format" then
      o.formats = v and 1 or 0
    elseif k == "openapi" then
      if v ~= false and v ~= "3.0" and v ~= true then
        arg_error(2, "schema", 'openapi: "3.0" expected, got ' .. tostring(v), 3)
      end
      o.openapi = v and 1 or 0
    elseif k == "remotes" then
      remotes = remotes_text(v)
    elseif BOUNDS[k] then
      if type(v) ~= "number" or v < 1 or v > 0xFFFFFFFF or v % 1 ~= 0 then
        arg_error(2, "schema", k .. ": positive integer expected, got " .. tostring(v), 3)
      end
      o[k] = v
    else
      arg_error(2, "schema", "unknown option '" .. tostring(k) .. "'", 3)
    end
    k, v = next(opts, k)
  end
  return o, remotes
end

-- qjson.schema(schema [, opts]): raises on a schema that does not compile.
function M.compile(schema, opts)
  local text = json_text(schema, 1, "schema", 3)
  local o, remotes = pack(opts)
  -- A box of its own: allocating the ref may run a finalizer (which may
  -- validate) before the message is read.
  local box = ffi_new("qjson_error")
  local ref = base.new_ref(schema_ref, C.qjson_schema_release)
  if C.qjson_schema_new_in(text, #text, remotes, remotes and #remotes or 0, o, ref, box) == 0 then
    error("qjson: " .. ffi_string(box.message), 2)
  end
  -- (`ptr`: the ref, which every native call takes, qjson.base.)
  return setmetatable({ ptr = ref }, ValidatorMT)
end

-- What an instance is: "string" with its text, or "doc" with the handle,
-- node and the value that keeps the handle's input alive.
local function instance(v, fname)
  local t = type(v)
  if t == "string" then
    return "string", v
  elseif t == "table" then
    local ptr, node = view.json_at(v)
    if ptr ~= nil then
      return "doc", ptr, node
    end
    return "string", encode(v) -- an edited view: what it would encode to
  end
  arg_error(1, fname, "JSON string, document, view or table expected, got " .. t, 3)
end

-- The errors of a schema report: the count, then per error the numbers
-- byte, line, column and the strings instance location, keyword location,
-- message.
local function read_report(buf)
  local errors = {}
  local off = 4
  for i = 1, report.word(buf, 0) do
    local h, next_off = report.record(buf, off, 3, 3)
    local il, kl, msg = report.strings(h, 3, 3)
    errors[i] = {
      instance_location = il, keyword_location = kl, message = msg,
      byte = tonumber(h[0]), line = tonumber(h[1]), column = tonumber(h[2]),
    }
    off = next_off
  end
  return errors
end

local function check(self, kind, a, b, buf, cap, box)
  if kind == "string" then
    return C.qjson_schema_check(self.ptr, a, #a, buf, cap, box)
  end
  return C.qjson_schema_check_doc(self.ptr, a, b, buf, cap, box)
end

-- true, or false and the errors (at most max_errors). A body that is not
-- JSON is invalid too: one error with the parse error's message and place.
function Validator:validate(v)
  if getmetatable(self) ~= ValidatorMT then
    arg_error(1, "validate", "qjson.schema expected", 2)
  end
  local kind, a, b = instance(v, "validate")
  local own = report.take()
  local box = enter()
  local buf = own
  local n = check(self, kind, a, b, buf, SCRATCH, box)
  if n > SCRATCH then
    buf = report.buffer(n)
    n = check(self, kind, a, b, buf, n, box)
  end
  if n > 0 then
    nesting = nesting - 1
    local errors = read_report(buf)
    report.give(own)
    return false, errors
  end
  report.give(own)
  if n == 0 then
    nesting = nesting - 1
    return true
  end
  local msg = ffi_string(box.message)
  local line, column, offset = box.line, box.column, tonumber(box.offset)
  nesting = nesting - 1
  if n == ERROR and kind == "string" and line > 0 then
    return false, { {
      instance_location = "", keyword_location = "", message = msg, byte = offset, line = line, column = column,
    } }
  end
  error("qjson: " .. msg, 2)
end

-- The verdict alone (a body that is not JSON is not valid).
function Validator:is_valid(v)
  if getmetatable(self) ~= ValidatorMT then
    arg_error(1, "is_valid", "qjson.schema expected", 2)
  end
  local kind, a, b = instance(v, "is_valid")
  local box = enter()
  local r
  if kind == "string" then
    r = C.qjson_schema_valid(self.ptr, a, #a, box)
  else
    r = C.qjson_schema_valid_doc(self.ptr, a, b, box)
  end
  -- (The box is read before it is given back: `nesting`.)
  local line = box.line
  if r == 1 or r == 0 or (r == ERROR and kind == "string" and line > 0) then
    nesting = nesting - 1
    return r == 1
  end
  local msg = ffi_string(box.message)
  nesting = nesting - 1
  error("qjson: " .. msg, 2)
end

-- qjson.safe's: compile returns nil and a message; the validator's methods
-- return nil and a message where these raise.
local SafeValidator = {}
local SafeMT = { __index = SafeValidator, __tostring = ValidatorMT.__tostring }

local settle = require("qjson.base").settle

function SafeValidator:validate(v)
  return settle(pcall(Validator.validate, setmetatable({ ptr = self.ptr }, ValidatorMT), v))
end

function SafeValidator:is_valid(v)
  return settle(pcall(Validator.is_valid, setmetatable({ ptr = self.ptr }, ValidatorMT), v))
end

function M.safe_compile(schema, opts)
  local ok, v = pcall(M.compile, schema, opts)
  if not ok then
    return nil, v
  end
  return setmetatable({ ptr = v.ptr }, SafeMT)
end

function M.install(qjson)
  encode = qjson.encode
  qjson.schema = M.compile
end

return M
