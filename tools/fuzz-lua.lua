-- make fuzz-lua: the Lua-level fuzzer (spec/fuzz/driver.lua) for longer
-- runs or to replay a failure: seeds SEED, SEED+1, ... until STEPS steps
-- have run in all (at most 20,000 per seed).
--   luajit tools/fuzz-lua.lua [SEED [STEPS]]
package.path = "lua/?.lua;lua/?/init.lua;spec/?.lua;" .. package.path
local driver = require("fuzz.driver")

local seed = math.floor(tonumber(arg[1]) or os.time())
local total = math.floor(tonumber(arg[2]) or 20000)
local per_seed = math.min(total, 20000)
local done, runs = 0, 0
local started = os.clock()
while done < total do
  local steps = math.min(per_seed, total - done)
  local ok, err = pcall(driver.run, seed, steps, { log = print })
  if not ok then
    io.stderr:write(tostring(err), "\n")
    os.exit(1)
  end
  done, runs, seed = done + steps, runs + 1, seed + 1
end
print(("fuzz-lua: %d steps over %d seeds, no failure (%.1f s)"):format(done, runs, os.clock() - started))
