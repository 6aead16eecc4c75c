-- Encoder operations of the Lua-level fuzzer: random Lua values through
-- qjson's encoder against lua-cjson's (Debian's lua-cjson 2.1.0): the
-- same bytes, the same errors, the same configuration functions; and
-- per-call options checked by reading the output back.
local cjson = require("cjson")
local model = require("fuzz.model")

local util = require("fuzz.util")

local show, deep_equal = util.show, util.deep_equal

local E = {}

-- What a generated value holds that changes how it encodes: a reference
-- cycle, unsupported types, NaN or infinities, strings (or keys) that are
-- not UTF-8, number keys, and a table with a number key and a string key
-- that may write as the same member name (2 and "2"). Keys that write
-- alike (those, or 1.5 and 2 at precision 1) repeat a member in the
-- output, and which value reads back then depends on the order the
-- encoder walked.
local function facts(v, seen, f)
  f = f or {}
  seen = seen or {}
  local t = type(v)
  if t == "string" then
    f.bad_utf8 = f.bad_utf8 or model.invalid_utf8_at(v) ~= nil
  elseif t == "number" then
    f.invalid_number = f.invalid_number or v ~= v or v == 1 / 0 or v == -1 / 0
  elseif t == "table" then
    if seen[v] then
      f.cycle = true
      return f
    end
    seen[v] = true
    local number_key, numeric_string_key = false, false
    for k, x in pairs(v) do
      facts(k, seen, f)
      facts(x, seen, f)
      number_key = number_key or type(k) == "number"
      numeric_string_key = numeric_string_key or (type(k) == "string" and tonumber(k) ~= nil)
    end
    f.number_key = f.number_key or number_key
    f.same_name = f.same_name or (number_key and numeric_string_key)
    seen[v] = nil
  elseif t ~= "boolean" and t ~= "nil" and v ~= cjson.null then
    f.unsupported = true
  end
  return f
end

-- One encode with the current settings of both instances: the same
-- outcome, the same bytes, the same error message (but cycles, which
-- qjson names and lua-cjson reports as excessive nesting).
function E:encode_default()
  local v = self:chance(0.02) and self:deep_lua(self:int(995, 1010)) or self:gen_lua(0)
  local flags = facts(v)
  local got, err = self.qj.encode(v)
  local ok, want = pcall(self.cj.encode, v)
  self:count("encodes")
  if ok then
    self:check(got == want, "encode: qjson %s, lua-cjson %s", show(got or err), show(want))
  elseif flags.cycle then
    self:check(got == nil and type(err) == "string" and err:find("^Cannot serialise"), "encode of a cycle: %s, %s",
      tostring(got), tostring(err))
  elseif want == "Cannot serialise number: must not be NaN or Inf" then
    -- lua-cjson 2.1.0's message; qjson has OpenResty's, which ends "Infinity".
    self:check(got == nil and err == want .. "inity", "encode of NaN: %s, %s", tostring(got), tostring(err))
  else
    self:check(got == nil and err == want, "encode: lua-cjson raises %s, qjson gives %s, %s", show(want),
      show(got), tostring(err))
  end
end

-- lua-cjson's configuration functions, on both instances (those the
-- installed lua-cjson 2.1.0 has, with its ranges).
function E:configure()
  local calls = {
    { "encode_sparse_array", self:chance(0.5), self:int(0, 4), self:int(0, 20) },
    { "encode_max_depth", self:int(1, 1200) },
    { "encode_number_precision", self:int(1, 14) },
    { "encode_invalid_numbers", self:pick({ false, "null" }) },
    { "encode_keep_buffer", self:chance(0.5) },
  }
  local c = self:pick(calls)
  local name = c[1]
  local got = { self.qj[name](unpack(c, 2)) }
  local want = { self.cj[name](unpack(c, 2)) }
  self:check(deep_equal(got, want), "%s(%s): qjson returns %s, lua-cjson %s", name, tostring(c[2]),
    tostring(got[1]), tostring(want[1]))
  self:count("configuration calls")
end

-- An encode with per-call options: the output reads back (per the
-- model) as what lua-cjson's default encoding reads back as, numbers
-- compared at the precision used.
function E:encode_options()
  local v = self:gen_lua(0)
  local flags = facts(v)
  if flags.cycle or flags.unsupported or flags.invalid_number then return end
  local opts = {}
  if self:chance(0.5) then opts.indent = self:pick({ 0, 2, 4, "\t", "  " }) end
  if self:chance(0.5) then opts.sort_keys = self:chance(0.5) end
  if self:chance(0.3) then opts.ascii = self:chance(0.5) end
  if self:chance(0.3) then opts.html_safe = self:chance(0.5) end
  if self:chance(0.3) then opts.escape_slash = self:chance(0.5) end
  if self:chance(0.3) then opts.validate_utf8 = self:chance(0.5) end
  if self:chance(0.3) then opts.precision = self:pick({ 1, 3, 14, 17, "shortest" }) end
  local p = opts.precision
  local digits = type(p) == "number" and p <= 14 and p or 14
  self.cj.encode_number_precision(digits)
  self.cj.encode_sparse_array(false, 2, 10)
  self.cj.encode_max_depth(1000)
  self.qj.encode_number_precision(digits)
  self.qj.encode_sparse_array(false, 2, 10)
  self.qj.encode_max_depth(1000)
  local ok, want = pcall(self.cj.encode, v)
  local got, err = self.qj.encode(v, opts)
  self:count("encodes with options")
  if not ok then
    self:check(got == nil, "encode with options accepted what lua-cjson refuses (%s)", want)
    return
  end
  if flags.bad_utf8 and (opts.ascii or opts.validate_utf8) then
    self:check(got == nil and err:find("^Cannot serialise string: invalid UTF%-8 at byte %d+$"),
      "encode of invalid UTF-8 with ascii/validate_utf8: %s, %s", show(got), tostring(err))
    return
  end
  self:check(type(got) == "string", "encode with options failed: %s", tostring(err))
  if opts.ascii then self:check(not got:find("[\128-\255]"), "ascii output has non-ASCII bytes: %s", show(got)) end
  if opts.html_safe then
    self:check(not got:find("[<>&]") and not got:find("\226\128[\168\169]"), "html_safe output: %s", show(got))
  end
  if flags.bad_utf8 then return end
  local tree = model.decode(got, { max_depth = 1e9 })
  self:check(tree, "encode with options wrote invalid JSON: %s", show(got))
  -- (Generated number keys are integers from -3 to 30 and 1.5 (gen.lua):
  -- alike only at a precision under 3 digits.)
  if flags.same_name or (flags.number_key and type(p) == "number" and p < 3) then return end
  local function norm(x)
    if type(x) == "number" then return self.cj.encode(x) end -- C's %.<digits>g
    if type(x) ~= "table" or x == cjson.null then return x end
    local t = {}
    for k, y in pairs(x) do t[k] = norm(y) end
    return t
  end
  self:check(deep_equal(norm(model.plain(tree, cjson.null)), norm(cjson.decode(want))),
    "encode with options reads back differently: %s vs %s", show(got), show(want))
end


E.ops = {
  { name = "encode", weight = 10, fn = function(self) self:encode_default() end },
  { name = "encode options", weight = 4, fn = function(self) self:encode_options() end },
  { name = "configure", weight = 2, fn = function(self) self:configure() end },
}

return E
