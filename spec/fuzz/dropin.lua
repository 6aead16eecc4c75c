-- qjson.cjson operations of the Lua-level fuzzer: decode of the same
-- random texts by qjson.cjson (and qjson.cjson.safe) and by lua-cjson.
-- What one accepts the other reads the same; qjson.cjson rejects what
-- lua-cjson rejects, and besides only what docs/api.md says it is
-- stricter about (invalid UTF-8, control bytes, a NUL), with a position.
local model = require("fuzz.model")
local util = require("fuzz.util")

local format = string.format
local show = util.show

local D = {}

-- deep_equal, with NaN equal to NaN (lua-cjson reads "NaN").
local function same(a, b)
  if type(a) == "number" and a ~= a then return b ~= b end
  if type(a) ~= "table" or a == util.null or type(b) ~= "table" then return util.deep_equal(a, b) end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

function D:dropin_decode()
  local text, origin = self:gen_text()
  local safe_variant = self:chance(0.3)
  local ok, got, err
  if safe_variant then
    got, err = self.qc_safe.decode(text)
    ok = got ~= nil or err == nil
    if not ok then got = err end
  else
    ok, got = pcall(self.qc.decode, text)
  end
  local cok, want = pcall(self.cj_decoder.decode, text)
  local context = format("qjson.cjson%s.decode of %s text %s", safe_variant and ".safe" or "", origin, show(text))
  self:count("drop-in decodes")
  if ok then
    self:check(cok, "%s: accepted what lua-cjson rejects (%s)", context, tostring(want))
    self:check(same(got, want), "%s: values differ from lua-cjson's at %s", context, util.diff(got, want))
    return
  end
  self:check(type(got) == "string" and got:find("^qjson: .- at line %d+, column %d+ %(byte %d+%)$"),
    "%s: error without a position: %s", context, tostring(got))
  if cok then
    local stricter = model.invalid_utf8_at(text) or text:find("[%z\1-\31]")
    self:check(stricter, "%s: rejected (%s) what lua-cjson accepts, not for a documented reason", context, got)
    self:count("drop-in stricter than lua-cjson")
  end
end

D.ops = {
  { name = "drop-in decode", weight = 6, fn = function(self) self:dropin_decode() end },
}

return D
