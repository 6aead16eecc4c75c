-- Measures qjson.cjson.decode against lua-cjson's cjson.decode, side by
-- side: a fresh luajit process per library and case (alternating), a
-- warm-up, then ROUNDS rounds of at least SECONDS each; the median of each
-- process, and the median over PROCS processes. Prints ops/s and the ratio.
--
--   luajit tools/measure-dropin.lua [procs [rounds [seconds]]]
--
-- Cases: cjson.decode of the corpus documents (../shared/data/corpus),
-- and a ~200-byte object decoded with every field read, in a loop.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path

local CORPUS = "../shared/data/corpus/"
local TINY = '{"id":1234567,"user":"ada@example.com","scope":["read","write"],"active":true,'
  .. '"quota":{"limit":1000,"used":371,"ratio":0.371},"region":"eu-west-1","note":"caf\\u00e9 \\"ok\\"",'
  .. '"expires":1767225600}'

local CASES = {
  { name = "twitter", file = "twitter.json" },
  { name = "citm_catalog", file = "citm_catalog.json" },
  { name = "canada", file = "canada.json" },
  { name = "tiny", inner = 1000 },
}
local LIBS = { "cjson", "qjson.cjson" }

local function read(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) / 2] or (t[n / 2] + t[n / 2 + 1]) / 2
end

-- The job of one case with `decode`: returns something derived from the
-- result, so that nothing can be optimized away.
local function job(case, decode)
  if case.name ~= "tiny" then
    return function(s)
      return decode(s)
    end
  end
  return function(s)
    local t = decode(s)
    local scope = t.scope
    local n = 0
    for i = 1, #scope do
      n = n + #scope[i]
    end
    local q = t.quota
    return t.id + #t.user + n + (t.active and 1 or 0) + q.limit + q.used + q.ratio + #t.region + #t.note + t.expires
  end
end

-- In a child process: ops/s of one library on one case.
local function child(case_name, lib, rounds, seconds)
  local case
  for _, c in ipairs(CASES) do
    if c.name == case_name then
      case = c
    end
  end
  local s = case.file and assert(read(CORPUS .. case.file)) or TINY
  local run = job(case, require(lib).decode)
  local inner = case.inner or 1
  local clock = os.clock
  local t0 = clock()
  while clock() - t0 < seconds do -- warm-up: traces compile, heap settles
    for _ = 1, inner do
      run(s)
    end
  end
  local rates = {}
  for r = 1, rounds do
    local n = 0
    t0 = clock()
    local dt
    repeat
      for _ = 1, inner do
        run(s)
      end
      n = n + inner
      dt = clock() - t0
    until dt >= seconds
    rates[r] = n / dt
  end
  io.write(("%.6g\n"):format(median(rates)))
end

if arg[1] == "--child" then
  child(arg[2], arg[3], tonumber(arg[4]), tonumber(arg[5]))
  return
end

local procs, rounds, seconds = tonumber(arg[1]) or 3, tonumber(arg[2]) or 5, tonumber(arg[3]) or 0.25
local luajit = "luajit"
do -- the interpreter running this script
  local i = -1
  while arg[i] do
    luajit = arg[i]
    i = i - 1
  end
end

print(("%d processes per library and case, %d rounds of >= %.2f s each; ops/s (median)"):format(procs, rounds,
  seconds))
print(("%-14s %14s %14s %8s"):format("case", LIBS[1], LIBS[2], "ratio"))
for _, case in ipairs(CASES) do
  if case.file and not read(CORPUS .. case.file) then
    print(("%-14s skipped: %s not found (../shared/data is not beside the checkout)"):format(case.name,
      CORPUS .. case.file))
  else
    local rates = { {}, {} }
    for p = 1, procs do
      for k = 1, 2 do
        -- Alternate which library goes first, so drift hits both alike.
        local lib = (p % 2 == 1) and k or 3 - k
        local cmd = ("%s tools/measure-dropin.lua --child %s %s %d %g"):format(luajit, case.name, LIBS[lib], rounds,
          seconds)
        local h = assert(io.popen(cmd))
        local out = h:read("*a")
        h:close()
        rates[lib][#rates[lib] + 1] = assert(tonumber(out), "child failed: " .. cmd .. "\n" .. out)
      end
    end
    local a, b = median(rates[1]), median(rates[2])
    print(("%-14s %14.1f %14.1f %7.2fx"):format(case.name, a, b, b / a))
  end
end
