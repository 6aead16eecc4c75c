-- OpenAPI request validation: qjson.openapi(spec [, opts]) compiles a spec
-- once; api:validate_request(req) checks a request with two native calls
-- (the headers its operation reads, then the check), and api:problem(errors)
-- renders a failure as RFC 9457 problem details (crates/core/src/openapi/
-- does the work; the contract is docs/api.md's).
local ffi = require("ffi")
local base = require("qjson.base")
local report = require("qjson.report")
local C = base.C
local arg_error = base.arg_error

local type, error, next, tostring, setmetatable, getmetatable, pcall, concat, rawget =
  type, error, next, tostring, setmetatable, getmetatable, pcall, table.concat, rawget
local ffi_string, ffi_new = ffi.string, ffi.new
local byte, sub, find, tonumber = string.byte, string.sub, string.find, tonumber
local QUOTE = string.byte('"')
local take_report, give_report, record, strings, word = report.take, report.give, report.record, report.strings,
  report.word
local SCRATCH = report.SIZE

local M = {}

-- Set by install: qjson.encode (specs given as tables) and qjson.decode
-- (path parameters).
local encode, decode

local api_ref = ffi.typeof("qjson_openapi *[1]")
local header_array = ffi.typeof("qjson_openapi_header[?]")
local problem_item_array = ffi.typeof("qjson_openapi_problem_item[?]")
-- (qjson_openapi_problem's result for a bad status; a panic is -2.)
local STATUS_ERROR = -1

-- Per-call records (qjson.base.pool): the error box, the headers passed
-- to the check or the errors passed to problem(), and the Lua strings
-- their pointers point into, kept alive until the call returns. A
-- finalizer that validates during a call takes another.
local take_frame, give_frame = base.pool(function()
  return {
    box = ffi_new("qjson_error"), headers = header_array(8), cap = 8, items = problem_item_array(4), item_cap = 4,
    anchor = {},
  }
end, 8)

local Api = {}
local ApiMT = { __index = Api, __tostring = function() return "qjson.openapi" end }
local SafeApi = {}
local SafeMT = { __index = SafeApi, __tostring = ApiMT.__tostring }

-- (Raises at the caller of the method that calls it.)
local function checked_self(self, fname)
  local mt = getmetatable(self)
  if mt ~= ApiMT and mt ~= SafeMT then
    arg_error(1, fname, "qjson.openapi expected", 3)
  end
end

local function pack(opts)
  local max_errors, formats = 0, 0
  if opts == nil then
    return max_errors, formats
  end
  if type(opts) ~= "table" then
    arg_error(2, "openapi", "options table expected, got " .. type(opts), 3)
  end
  -- (A `while` over next(), not a for loop: see qjson.base, ITERN.)
  local k, v = next(opts)
  while k ~= nil do
    if k == "max_errors" then
      if type(v) ~= "number" or v < 1 or v > 0xFFFFFFFF or v % 1 ~= 0 then
        arg_error(2, "openapi", "max_errors: positive integer expected, got " .. tostring(v), 3)
      end
      max_errors = v
    elseif k == "format" then
      if type(v) ~= "boolean" then
        arg_error(2, "openapi", "format: boolean expected, got " .. type(v), 3)
      end
      formats = v and 1 or 0
    else
      arg_error(2, "openapi", "unknown option '" .. tostring(k) .. "'", 3)
    end
    k, v = next(opts, k)
  end
  return max_errors, formats
end

-- The names of a names report at `buf`, as a Lua list.
local function names_of(buf)
  local names, off = {}, 4
  for i = 1, word(buf, 0) do
    local h, next_off = record(buf, off, 0, 1)
    names[i] = strings(h, 0, 1)
    off = next_off
  end
  return names
end

-- A headers table is read for every header name of the spec, with no
-- native call to ask for the operation's, when the spec has at most this
-- many (a lookup each).
local FEW_HEADERS = 8

-- qjson.openapi(spec [, opts]): raises on a spec that does not compile.
function M.compile(spec, opts)
  local t = type(spec)
  if t == "table" then
    spec = encode(spec)
  elseif t ~= "string" then
    arg_error(1, "openapi", "spec as JSON or YAML string, table or view expected, got " .. t, 2)
  end
  local max_errors, formats = pack(opts)
  -- A box of its own: allocating the ref may run a finalizer (which may
  -- validate) before the message is read.
  local box = ffi_new("qjson_error")
  local ref = base.new_ref(api_ref, C.qjson_openapi_release)
  if C.qjson_openapi_new_in(spec, #spec, max_errors, formats, ref, box) == 0 then
    error("qjson: " .. ffi_string(box.message), 2)
  end
  local own = take_report()
  local n = C.qjson_openapi_all_header_names(ref, own, SCRATCH, box)
  local all = n > 0 and n <= SCRATCH and names_of(own) or nil
  give_report(own)
  if n < 0 then
    error("qjson: " .. ffi_string(box.message), 2)
  end
  -- (`ptr`: the ref, which every native call takes, qjson.base; `names`:
  -- per operation, its header names by the report that lists them;
  -- `all`: every header name of the spec when they are few, read from a
  -- headers table up front instead of asking for the operation's.)
  return setmetatable({ ptr = ref, names = {}, all = all and #all <= FEW_HEADERS and all or nil }, ApiMT)
end

-- Raises a native call's error (`n` < 0: a bad argument, a freed spec).
local function fail(frame, own)
  local msg = ffi_string(frame.box.message)
  give_report(own)
  error("qjson: " .. msg, 3)
end

-- The header names the operation of `method` and `path` reads, as a Lua
-- list cached per operation (keyed by the names' report).
local function header_names(self, method, path, frame, own)
  local n = C.qjson_openapi_header_names(self.ptr, method, #method, path, #path, own, SCRATCH, frame.box)
  local buf = own
  if n > SCRATCH then
    buf = report.buffer(n)
    n = C.qjson_openapi_header_names(self.ptr, method, #method, path, #path, buf, n, frame.box)
  end
  if n < 0 then
    fail(frame, own)
  end
  if n == 4 then -- (the count alone: no header)
    return nil
  end
  local key = ffi_string(buf + 4, n - 4)
  local names = self.names[key]
  if names == nil then
    names = names_of(buf)
    self.names[key] = names
  end
  return names
end

-- A header's value as the check takes it: a string, a table of strings
-- (a repeated header) joined with ", " (none: absent), or nil.
local function header_value(headers, name, from_function)
  local v
  if from_function then
    v = headers(name)
    if v ~= nil and type(v) ~= "string" then
      arg_error(1, "validate_request", "headers: the function returned " .. type(v) .. " for '" .. name
        .. "', string or nil expected", 4)
    end
    return v
  end
  v = headers[name]
  local t = type(v)
  if t == "table" then
    for i = 1, #v do
      if type(v[i]) ~= "string" then
        arg_error(1, "validate_request", "headers: value " .. i .. " of '" .. name .. "' is a " .. type(v[i])
          .. ", string expected", 4)
      end
    end
    -- (An empty list is no header at all.)
    return v[1] ~= nil and concat(v, ", ") or nil
  elseif v ~= nil and t ~= "string" then
    arg_error(1, "validate_request", "headers: the value of '" .. name .. "' is a " .. t
      .. ", string or table of strings expected", 4)
  end
  return v
end

-- Fills the frame's headers with the values of `names`: how many.
local function fill_headers(frame, names, headers)
  local n = #names
  if n > frame.cap then
    frame.headers, frame.cap = header_array(n), n
  end
  local from_function = type(headers) == "function"
  local hs, anchor = frame.headers, frame.anchor
  for i = 1, n do
    local name = names[i]
    local v = header_value(headers, name, from_function)
    anchor[i] = v
    local h = hs[i - 1]
    h.name, h.name_len = name, #name
    h.value, h.value_len = v, v and #v or 0
  end
  return n
end

-- Whether a JSON text is a short integer: at most 15 bytes of '-' and
-- digits (a byte loop: string.find with a pattern is not compiled).
local function short_integer(json)
  local n = #json
  if n > 15 then
    return false
  end
  for i = 1, n do
    local c = byte(json, i)
    if (c < 48 or c > 57) and c ~= 45 then
      return false
    end
  end
  return true
end

-- A path parameter's value from its JSON text: a plain string or a short
-- integer read directly (most are), anything else by qjson.decode.
local function scalar(json)
  if byte(json, 1) == QUOTE and not find(json, "\\", 2, true) then
    return sub(json, 2, -2)
  elseif short_integer(json) then
    return tonumber(json)
  end
  return decode(json)
end

local function valid(buf, count)
  local h, off = record(buf, 8, 1, 2)
  local id, template = strings(h, 1, 2)
  local path = {}
  for _ = 1, count do
    local p, next_off = record(buf, off, 0, 2)
    local name, json = strings(p, 0, 2)
    path[name] = scalar(json)
    off = next_off
  end
  return { operation_id = h[0] == 1 and id or nil, template = template, path = path }
end

local function invalid(buf, http_status, count)
  local errors = { status = http_status }
  local off = 8
  for i = 1, count do
    local h, next_off = record(buf, off, 4, 5)
    local where, name, il, kl, msg = strings(h, 4, 5)
    local e = {
      where = where, name = name, instance_location = il, keyword_location = kl, message = msg, status = h[3],
    }
    if h[1] > 0 then
      e.byte, e.line, e.column = h[0], h[1], h[2]
    end
    errors[i] = e
    off = next_off
  end
  return errors
end

local function check_request(req)
  if type(req) ~= "table" then
    arg_error(1, "validate_request", "request table expected, got " .. type(req), 3)
  end
  local method, path, query, body, ct, headers = req.method, req.path, req.query, req.body, req.content_type,
    req.headers
  if type(method) ~= "string" then
    arg_error(1, "validate_request", "method: string expected, got " .. type(method), 3)
  elseif type(path) ~= "string" then
    arg_error(1, "validate_request", "path: string expected, got " .. type(path), 3)
  elseif query ~= nil and type(query) ~= "string" then
    arg_error(1, "validate_request", "query: string or nil expected, got " .. type(query), 3)
  elseif body ~= nil and type(body) ~= "string" then
    arg_error(1, "validate_request", "body: string or nil expected, got " .. type(body), 3)
  elseif ct ~= nil and type(ct) ~= "string" then
    arg_error(1, "validate_request", "content_type: string or nil expected, got " .. type(ct), 3)
  elseif headers ~= nil and type(headers) ~= "table" and type(headers) ~= "function" then
    arg_error(1, "validate_request", "headers: table or function expected, got " .. type(headers), 3)
  end
  return method, path, query, body, ct, headers
end

-- true and the match, or false and the errors (their status, 400, 404,
-- 405 or 415, in errors.status).
local function validate(self, req)
  checked_self(self, "validate_request")
  local method, path, query, body, ct, headers = check_request(req)
  local frame = take_frame()
  local nh = 0
  if headers ~= nil then
    local names = self.all
    if names == nil or type(headers) == "function" then
      -- (The report buffer is given back before the caller's headers are
      -- read: a header function may raise.)
      local own = take_report()
      names = header_names(self, method, path, frame, own)
      give_report(own)
    end
    if names ~= nil then
      nh = fill_headers(frame, names, headers)
    end
  end
  local own = take_report()
  local hs, box, buf = frame.headers, frame.box, own
  local n = C.qjson_openapi_validate(self.ptr, method, #method, path, #path, query, query and #query or 0,
    body, body and #body or 0, ct, ct and #ct or 0, hs, nh, buf, SCRATCH, box)
  if n > SCRATCH then
    buf = report.buffer(n)
    n = C.qjson_openapi_validate(self.ptr, method, #method, path, #path, query, query and #query or 0,
      body, body and #body or 0, ct, ct and #ct or 0, hs, nh, buf, n, box)
  end
  local anchor = frame.anchor
  for i = 1, nh do
    anchor[i] = nil
  end
  if n < 0 then
    fail(frame, own)
  end
  -- (The head: the HTTP status, 0 when valid, and a count.)
  local http_status, count = word(buf, 0), word(buf, 1)
  local ok, res
  if http_status == 0 then
    ok, res = true, valid(buf, count)
  else
    ok, res = false, invalid(buf, http_status, count)
  end
  give_report(own)
  give_frame(frame)
  return ok, res
end

Api.validate_request = validate

-- Checks of problem()'s errors, raising at problem()'s caller.
local function text_field(e, i, key)
  local v = e[key]
  if type(v) ~= "string" then
    arg_error(1, "problem", "errors[" .. i .. "]." .. key .. ": string expected, got " .. type(v), 4)
  end
  return v
end

-- (The native call refuses the numbers without a title.)
local function bad_status(status)
  arg_error(1, "problem", "errors.status: 400, 404, 405 or 415 expected, got " .. tostring(status), 3)
end

-- A line, column or byte: -1 when absent.
local function position_field(e, i, key)
  local v = e[key]
  if v == nil then
    return -1
  elseif type(v) ~= "number" or v < 0 or v % 1 ~= 0 or v > 2 ^ 64 then -- (NaN: v % 1 ~= 0)
    arg_error(1, "problem", "errors[" .. i .. "]." .. key .. ": non-negative integer expected, got " .. tostring(v), 4)
  end
  return v
end

-- Fills the frame's problem items from `errors` (anchoring their strings
-- in the frame until the call returns): how many.
local function fill_items(frame, errors)
  local n = 0
  while rawget(errors, n + 1) ~= nil do
    n = n + 1
  end
  if n > frame.item_cap then
    frame.items, frame.item_cap = problem_item_array(n), n
  end
  local items, anchor = frame.items, frame.anchor
  for i = 1, n do
    local e = rawget(errors, i)
    if type(e) ~= "table" then
      arg_error(1, "problem", "errors[" .. i .. "]: table expected, got " .. type(e), 3)
    end
    local where, name = text_field(e, i, "where"), text_field(e, i, "name")
    local il, kl = text_field(e, i, "instance_location"), text_field(e, i, "keyword_location")
    local msg = text_field(e, i, "message")
    local line, column, at = position_field(e, i, "line"), position_field(e, i, "column"), position_field(e, i, "byte")
    local k = 5 * (i - 1)
    anchor[k + 1], anchor[k + 2], anchor[k + 3], anchor[k + 4], anchor[k + 5] = where, name, il, kl, msg
    local it = items[i - 1]
    it.where, it.where_len, it.name, it.name_len = where, #where, name, #name
    it.instance_location, it.instance_location_len, it.keyword_location, it.keyword_location_len = il, #il, kl, #kl
    it.message, it.message_len = msg, #msg
    it.line, it.column, it.byte = line, column, at
  end
  return n
end

-- RFC 9457 problem details (application/problem+json) for a failed
-- validation's errors, and their status: the core renders the text
-- (crates/core/src/openapi/problem.rs), as for the PUC binding.
local function problem(self, errors)
  checked_self(self, "problem")
  if type(errors) ~= "table" then
    arg_error(1, "problem", "errors of a failed validation expected, got " .. type(errors), 2)
  end
  local status = errors.status
  if type(status) ~= "number" then
    bad_status(status)
  end
  local frame = take_frame()
  local n = fill_items(frame, errors)
  local own = take_report()
  local items, box, buf = frame.items, frame.box, own
  local len = C.qjson_openapi_problem(status, items, n, buf, SCRATCH, box)
  if len > SCRATCH then
    buf = report.buffer(len)
    len = C.qjson_openapi_problem(status, items, n, buf, len, box)
  end
  local anchor = frame.anchor
  for k = 1, 5 * n do
    anchor[k] = nil
  end
  if len < 0 then
    local msg = ffi_string(box.message)
    give_report(own)
    give_frame(frame)
    if len == STATUS_ERROR then
      bad_status(status)
    end
    error("qjson: " .. msg, 2)
  end
  local text = ffi_string(buf, len)
  give_report(own)
  give_frame(frame)
  return text, status
end

Api.problem = problem

-- qjson.safe's: compile returns nil and a message; the api's methods
-- return nil and a message where these raise (a failed validation is
-- still false and the errors).
local settle = base.settle

function SafeApi:validate_request(req)
  return settle(pcall(validate, self, req))
end

function SafeApi:problem(errors)
  return settle(pcall(problem, self, errors))
end

function M.safe_compile(spec, opts)
  local ok, v = pcall(M.compile, spec, opts)
  if not ok then
    return nil, v
  end
  return setmetatable(v, SafeMT)
end

function M.install(qjson)
  encode, decode = qjson.encode, qjson.decode
  qjson.openapi = M.compile
end

return M
