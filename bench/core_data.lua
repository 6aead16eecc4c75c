-- Writes the generated workloads that the Rust core benchmark
-- (bench/core) reads into bench/data/, the cache bench/run.lua uses:
--   luajit bench/core_data.lua
local dir = (arg and arg[0] or "bench/core_data.lua"):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path
local workloads = require("workloads")

for _, name in ipairs({ "chat-2k", "chat-60k", "chat-100k", "chat-200k", "chat-500k", "chat-1m", "chat-2m",
  "chat-5m", "chat-10m", "issues-100k" }) do
  assert(workloads.load(name, dir .. "/data"))
end
