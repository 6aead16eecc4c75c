-- The Lua-level fuzzer (spec/fuzz/driver.lua) with fixed seeds: random
-- sequences of parse, reads, cursors, iteration, close, views, edits and
-- encodes through qjson.safe, every result checked against the pure-Lua
-- model and lua-cjson, qjson.cjson beside lua-cjson, with a full
-- collection between steps.
-- `make fuzz-lua SEED=<n> STEPS=<n>` runs longer or replays a failure.
local driver = require("fuzz.driver")
local known = require("fuzz.known")

-- Fewer steps under valgrind (make test-memory), where the pure-Lua model
-- runs several times slower, and in forced-GC mode (make test-gc), where
-- the full collection between steps runs the stress finalizers too.
local memcheck = os.getenv("QJSON_MEMCHECK") ~= nil
local stressed = os.getenv("QJSON_GC_STRESS") == "1"
local SEEDS = { 1, 2 }
local STEPS = stressed and 600 or memcheck and 1500 or 2000

describe("Lua-level fuzzing", function()
  for _, seed in ipairs(SEEDS) do
    it(("seed %d, %d steps: no crash, no wrong value, no leaked document"):format(seed, STEPS), function()
      local stats = driver.run(seed, STEPS, { light = memcheck })
      assert.are.equal(STEPS, stats.steps)
      -- The run exercised what it is for (a generator gone wrong would
      -- otherwise pass quietly).
      for _, what in ipairs({ "parse: accepted", "parse: rejected", "reads", "reads after close", "iterations",
        "compiled paths", "encodes", "decodes", "view edits", "view encodes", "view iterations",
        "drop-in decodes", "selects", "select errors" }) do
        assert.is_true((stats[what] or 0) > 0, "no " .. what .. " in the run")
      end
    end)
  end
end)

-- Each bug the fuzzer found elsewhere, by its smallest reproduction: these
-- fail until the bug is fixed (spec/fuzz/known.lua says where).
describe("bugs found by the fuzzer", function()
  for _, bug in ipairs(known.bugs) do
    it(bug.name .. ": " .. bug.what, function()
      assert.is_false(bug.present(), bug.what)
    end)
  end
end)
