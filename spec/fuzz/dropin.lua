-- qjson.cjson operations of the Lua-level fuzzer: decode of the same
-- random texts by qjson.cjson (and qjson.cjson.safe) and by OpenResty's
-- lua-cjson (built by tools/lua-cjson.sh; without ../shared, by the port
-- of its decoder, qjson.cjson.decoder, which checks the strict fast path
-- against it). Both must give the same value, or the same message.
local diff = require("fuzz.cjson_diff")
local util = require("fuzz.util")

local show = util.show

local D = {}

-- The reference decoder, made once.
local reference
local function ref()
  if reference == nil then
    local real = diff.openresty()
    if real then
      reference = { name = "OpenResty's lua-cjson", decode = real.cjson.new().decode }
    else
      local port = require("qjson.cjson.decoder")
      local settings = require("qjson.decode.settings").defaults()
      settings.null = require("qjson").null
      reference = {
        name = "qjson.cjson.decoder",
        decode = function(text)
          return port.decode(text, settings)
        end,
      }
    end
  end
  return reference
end

local function outcome(ok, v)
  return (ok and "ok: " or "error: ") .. (type(v) == "userdata" and "null" or diff.render(v))
end

function D:dropin_decode()
  local text, origin = self:gen_text()
  local safe_variant = self:chance(0.3)
  local got
  if safe_variant then
    local v, err = self.qc_safe.decode(text)
    got = v == nil and err ~= nil and outcome(false, err) or outcome(true, v)
  else
    got = outcome(pcall(self.qc.decode, text))
  end
  local r = ref()
  local want = outcome(pcall(r.decode, text))
  self:count("drop-in decodes")
  self:check(got == want, "qjson.cjson%s.decode of %s text %s: %s, %s: %s", safe_variant and ".safe" or "", origin,
    show(text), got, r.name, want)
end

D.ops = {
  { name = "drop-in decode", weight = 6, fn = function(self) self:dropin_decode() end },
}

return D
