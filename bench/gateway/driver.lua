-- What the scripts that drive the gateway nginx share (bench/gateway/run.lua,
-- bench/schema/gateway.lua; bench/gateway/run.sh starts nginx and passes
-- --port=P --master=PID --prefix=DIR --cjson=WHICH [--quick]): their
-- options and wrk.
local cjson = require("cjson")
local util = require("util")

local format = string.format

local M = {}

-- The options: --name=value pairs and --quick; anything else is a usage
-- error (`usage` is printed).
function M.options(usage)
  local opts = {}
  for _, a in ipairs(arg) do
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if k then
      opts[k] = v
    elseif a == "--quick" then
      opts.quick = true
    else
      io.stderr:write("usage: ", usage, "\n")
      os.exit(2)
    end
  end
  return opts
end

-- wrk on CPU 1, beside the worker on CPU 0 (nginx.conf), when the machine
-- has a second CPU and taskset.
M.PIN = tonumber(util.sh("nproc 2>/dev/null"):match("%d+") or 1) >= 2
  and util.sh("command -v taskset 2>/dev/null") ~= ""

local POST = (debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or ".") .. "/post.lua"

-- One wrk run (one thread, `connections` connections, `seconds` s) POSTing
-- the file `body_file` (nil: GET) to `path` on 127.0.0.1:`port`
-- (bench/gateway/post.lua; `env`: more of its variables). Returns
-- post.lua's result table.
function M.wrk(port, path, body_file, seconds, connections, env)
  local vars = { body_file and "QJSON_BODY=" .. util.shell_quote(body_file) or "" }
  for k, v in pairs(env or {}) do
    vars[#vars + 1] = k .. "=" .. util.shell_quote(tostring(v))
  end
  local out = util.sh(format("%s %swrk -t1 -c%d -d%ds --timeout 30s -s %s http://127.0.0.1:%d%s 2>&1",
    table.concat(vars, " "), M.PIN and "taskset -c 1 " or "", connections, seconds, util.shell_quote(POST), port,
    path))
  local line = out:match("WRK (%b{})")
  if not line then
    error("wrk produced no result:\n" .. out, 0)
  end
  return cjson.decode(line)
end

return M
