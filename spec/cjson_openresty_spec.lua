-- qjson.cjson against OpenResty's lua-cjson 2.1.0.17 (built from
-- ../shared/vendor/lua-cjson by tools/lua-cjson.sh): the differential of
-- spec/fuzz/cjson_diff.lua with fixed seeds (random and mutated
-- documents, every configuration setting, encodes, argument errors: the
-- same answers word for word), and the nesting limits lua-cjson's Lua
-- stack sets. `make cjson-diff SEED=<n> STEPS=<n>` runs longer or
-- replays a failure. Pending, with the reason, without ../shared.
local diff = require("fuzz.cjson_diff")

local real, why = diff.openresty()

describe("qjson.cjson against OpenResty's lua-cjson", function()
  if not real then
    pending("OpenResty's lua-cjson not built: " .. tostring(why))
    return
  end

  for _, seed in ipairs({ 1, 2 }) do
    it(("differential, seed %d, 3000 steps: the same values and messages"):format(seed), function()
      local stats = diff.run(real, seed, 3000)
      assert.are.equal(3000, stats.steps)
      -- The run exercised what it is for.
      for _, what in ipairs({ "decodes accepted", "decodes rejected", "decodes rejected (safe)", "encodes",
        "configs" }) do
        assert.is_true((stats[what] or 0) > 50, "too few " .. what .. " in the run")
      end
    end)
  end

  it("nesting: the same limits and messages where lua-cjson's Lua stack runs out", function()
    local q, c = require("qjson.cjson").new(), real.cjson.new()
    assert.are.equal(c.decode_max_depth(100000), q.decode_max_depth(100000))
    for _, n in ipairs({ 2999, 3000, 3001, 3999, 4000, 7998, 7999 }) do
      for _, text in ipairs({ ("["):rep(n) .. ("]"):rep(n), ('{"a":'):rep(n) .. "1" .. ("}"):rep(n),
        ("[{\"a\":"):rep(math.floor(n / 2)) .. "0" .. ("}]"):rep(math.floor(n / 2)) }) do
        -- (accepted: both tables n deep, too deep to render)
        local cok, want = pcall(c.decode, text)
        local qok, got = pcall(q.decode, text)
        assert.are.equal(cok, qok, n)
        if cok then
          assert.are.equal(type(want), type(got))
        else
          assert.are.equal(want, got)
        end
      end
    end
  end)

  it("integers as strtoll reads them: -0 is 0, past 2^63 they stop there", function()
    local q = require("qjson.cjson")
    for _, text in ipairs({ "-0", "[-0]", "99999999999999999999", "-99999999999999999999", "[-0.0]", "1e400",
      "18446744073709551616", "9223372036854775807" }) do
      assert.are.equal(diff.render({ pcall(real.cjson.decode, text) }), diff.render({ pcall(q.decode, text) }), text)
    end
  end)
end)
