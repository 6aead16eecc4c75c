-- make cjson-diff: the differential between OpenResty's lua-cjson and
-- qjson.cjson (spec/fuzz/cjson_diff.lua), longer than make test's fixed
-- seed, or replaying a failure: seeds SEED, SEED+1, ... until STEPS steps
-- have run in all (at most 20,000 per seed).
--   luajit tools/cjson-diff.lua [SEED [STEPS]]
package.path = "lua/?.lua;lua/?/init.lua;spec/?.lua;" .. package.path
local diff = require("fuzz.cjson_diff")

local real, why = diff.openresty()
if not real then
  print("cjson-diff: SKIPPED (" .. why .. ")")
  os.exit(0)
end
local seed = math.floor(tonumber(arg[1]) or os.time())
local total = math.floor(tonumber(arg[2]) or 20000)
local per_seed = math.min(total, 20000)
local done, runs, checks = 0, 0, 0
local started = os.clock()
while done < total do
  local steps = math.min(per_seed, total - done)
  print(("cjson-diff: seed %d, %d steps"):format(seed, steps))
  local ok, stats = pcall(diff.run, real, seed, steps)
  if not ok then
    io.stderr:write(tostring(stats), "\n")
    io.stderr:write(("replay: make cjson-diff SEED=%d STEPS=%d\n"):format(seed, steps))
    os.exit(1)
  end
  done, runs, seed, checks = done + steps, runs + 1, seed + 1, checks + stats.checks
end
print(("cjson-diff: %d steps over %d seeds, %d answers compared, no difference (%.1f s)"):format(done, runs, checks,
  os.clock() - started))
