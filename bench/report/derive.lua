-- The figures derived from a results file (bench/run.lua's): MB/s, the
-- ratios of every scenario, and the verdicts on the targets; the lookups
-- the tables, plots and docs share.
local M = {}

M.FLOOR, M.BASELINE, M.MAIN = "memchr", "lua-cjson", "qjson"
local FLOOR, BASELINE, MAIN = M.FLOOR, M.BASELINE, M.MAIN
M.EDIT_KINDS = { roundtrip = true, modify_top = true, add_field = true, modify_nested = true }
local EDIT_KINDS = M.EDIT_KINDS
-- The reference rows (bench/libs.lua's floors), not libraries: what a job
-- costs at least. memchr for the reading jobs; for the edit of a top-level
-- field, a parse and one copy of the body into a new string.
M.EDIT_FLOOR = "parse+copy"
local EDIT_FLOOR = M.EDIT_FLOOR
local FLOORS = { [FLOOR] = true, [EDIT_FLOOR] = true }
local function is_floor(lib)
  return FLOORS[lib] ~= nil
end
M.is_floor = is_floor
-- The floor of a job kind's rows.
function M.floor_of(kind)
  return kind == "modify_top" and EDIT_FLOOR or FLOOR
end

-- qjson's row for a job: the document API for reading, views for
-- decode + encode, qjson.encode for plain tables.
local function main_lib(kind)
  return EDIT_KINDS[kind] and "qjson.decode" or MAIN
end
M.main_lib = main_lib

local function is_qjson(lib)
  return lib:match("^qjson") ~= nil
end
M.is_qjson = is_qjson

local LADDER = { "chat-100k", "chat-200k", "chat-500k", "chat-1m", "chat-2m", "chat-5m", "chat-10m" }

-- Targets from the issues: what a qjson row must reach, per workload.
-- `lib` is the qjson row checked (default: the job's main row).
M.TARGETS = {
  { what = "parse + read fields (`qjson.parse`), chat ladder ≥ 100 KB: ≥ 60× lua-cjson",
    short = "parse+read >= 60x cjson", workloads = LADDER, metric = "x_cjson", at_least = 60 },
  { what = "parse + read fields (`qjson.parse`), chat ladder ≥ 100 KB: ≥ 0.5× the memchr floor",
    short = "parse+read >= 0.5x memchr", workloads = LADDER, metric = "x_floor", at_least = 0.5 },
  { what = "parse + read fields (`qjson.parse`), chat 2 KB: ≥ 3× lua-cjson", short = "parse+read >= 3x cjson",
    workloads = { "chat-2k" }, metric = "x_cjson", at_least = 3 },
  { what = "parse + read fields (`qjson.parse`), issues list ~100 KB: ≥ 5× lua-cjson",
    short = "parse+read >= 5x cjson", workloads = { "issues-100k" }, metric = "x_cjson", at_least = 5 },
  { what = "Lua heap retained ≤ 64 KB at every size (`qjson.parse`; chat ladder, issues list)",
    short = "Lua heap retained <= 64 KB", kinds = { chat = true, issues = true }, metric = "heap_retained_kb",
    at_most = 64 },
  { what = "decode + read fields (`qjson.decode`), chat ladder ≥ 100 KB: ≥ 60× lua-cjson",
    short = "decode+read >= 60x cjson", lib = "qjson.decode", workloads = LADDER, metric = "x_cjson",
    at_least = 60 },
  { what = "decode + read fields (`qjson.decode`), chat 2 KB: ≥ 3× lua-cjson", short = "decode+read >= 3x cjson",
    lib = "qjson.decode", workloads = { "chat-2k" }, metric = "x_cjson", at_least = 3 },
  { what = "decode + encode unmodified (`qjson.decode` + `qjson.encode`), ≥ 100 KB: ≥ 60× lua-cjson",
    short = "roundtrip >= 60x cjson", workloads = { "roundtrip-100k", "roundtrip-1m", "roundtrip-10m" },
    metric = "x_cjson", at_least = 60 },
  { what = "modify a top-level field + encode, 10 MB: ≥ 0.5× the unmodified decode + encode",
    short = "modify top >= 0.5x roundtrip", workloads = { "modtop-10m" }, metric = "x_roundtrip", at_least = 0.5 },
  { what = "modify a top-level field + encode, 10 MB: ≥ 0.5× a parse + one copy of the body into a new string",
    short = "modify top >= 0.5x parse+copy", workloads = { "modtop-10m" }, metric = "x_floor", at_least = 0.5 },
  { what = "add a field + encode, 10 MB: ≥ 0.5× the unmodified decode + encode",
    short = "add field >= 0.5x roundtrip", workloads = { "addfield-10m" }, metric = "x_roundtrip", at_least = 0.5 },
  { what = "modify a nested field + encode, 10 MB: ≥ 0.5× the unmodified decode + encode",
    short = "modify nested >= 0.5x roundtrip", workloads = { "modnested-10m" }, metric = "x_roundtrip",
    at_least = 0.5 },
  { what = "`qjson.cjson.decode` of twitter, citm_catalog and canada (+ a few reads): ≥ 2× `cjson.decode`",
    short = "qjson.cjson >= 2x cjson", lib = "qjson.cjson", workloads = { "read-twitter", "read-citm", "read-canada" },
    metric = "x_cjson", at_least = 2 },
  { what = "~200-byte object decoded and fully read, `qjson.cjson.decode`: ≥ 1.5× lua-cjson",
    short = "tiny qjson.cjson >= 1.5x", lib = "qjson.cjson", workloads = { "decode-tiny" }, metric = "x_cjson",
    at_least = 1.5 },
  { what = "~200-byte object decoded and fully read, `qjson.decode`: ≥ 1.2× lua-cjson",
    short = "tiny qjson.decode >= 1.2x", lib = "qjson.decode", workloads = { "decode-tiny" }, metric = "x_cjson",
    at_least = 1.2 },
  { what = "encode the tables decoded from twitter, citm_catalog and canada: ≥ 2× cjson.encode",
    short = "encode >= 2x cjson", workloads = { "encode-twitter", "encode-citm", "encode-canada" },
    metric = "x_cjson", at_least = 2 },
  { what = "~200-byte object encoded in a loop: ≥ 1.5× cjson.encode", short = "encode tiny >= 1.5x cjson",
    workloads = { "encode-tiny" }, metric = "x_cjson", at_least = 1.5 },
  { what = "~200-byte object read in full, `qjson.parse` + reads: ≥ 1.5× lua-cjson", short = "tiny parse >= 1.5x",
    workloads = { "decode-tiny" }, metric = "x_cjson", at_least = 1.5 },
  { what = "~200-byte object read in full, batched reads (`qjson.select`): ≥ 2× lua-cjson",
    short = "tiny select >= 2x", lib = "qjson.select", workloads = { "decode-tiny" }, metric = "x_cjson",
    at_least = 2 },
  { what = "SSE stream and NDJSON, every value read (`qjson.select` + `qjson.stream`): ≥ 3× lua-cjson",
    short = "streams >= 3x cjson", lib = "qjson.select", workloads = { "sse-chat", "ndjson-logs" },
    metric = "x_cjson", at_least = 3 },
  { what = "Every workload: qjson's row ahead of every other library measured (fastest non-qjson library)",
    short = "ahead of every other library", all = true, metric = "x_best_other", at_least = 1, strictly = true },
  { what = "Every workload: the other qjson API rows (`qjson.decode`, `qjson.cjson`) ahead of every other "
      .. "library measured too", short = "other qjson rows ahead", all = true, libs = { "qjson.decode", "qjson.cjson" },
    metric = "x_best_other", at_least = 1, strictly = true },
}

local function find(results, workload, library)
  for _, s in ipairs(results.scenarios) do
    if s.workload == workload and s.library == library then
      return s
    end
  end
end
M.find = find

-- Target `t`'s verdict on library `lib`'s row of workload `w`; nil for an
-- "every workload" target where that row did not run.
local function verdict(t, results, w, lib, skipped, unavailable)
  local s = find(results, w, lib)
  if t.all and not s then
    return nil
  end
  local v = { target = t.what, short = t.short, workload = w, library = lib, metric = t.metric,
    at_least = t.at_least, at_most = t.at_most, strictly = t.strictly,
    skipped = skipped[w] or (not s and unavailable[lib] and lib .. ": " .. unavailable[lib]) or nil,
    against = s and t.metric == "x_best_other" and s.best_other or nil,
    -- One of several qjson rows of the workload: the table names it.
    per_library = t.libs ~= nil }
  if s and s[t.metric] then
    v.measured = s[t.metric]
    if t.at_least then
      v.met = v.measured > t.at_least or (not t.strictly and v.measured == t.at_least)
      v.of_target = v.measured / t.at_least
    else
      v.met = v.measured <= t.at_most
      v.of_target = v.measured / t.at_most
    end
  end
  return v
end

-- Adds MB/s and the ratios to every scenario, and the target verdicts.
function M.derive(results)
  local kind_of = {}
  for _, w in ipairs(results.workloads) do
    kind_of[w.name] = w.kind
  end
  for _, s in ipairs(results.scenarios) do
    s.mbps = s.median * s.size / 1e6
    local kind = kind_of[s.workload]
    local base, floor = find(results, s.workload, BASELINE), find(results, s.workload, M.floor_of(kind))
    s.x_cjson = base and s.median / base.median or nil
    s.x_floor = floor and s.median / floor.median or nil
    local dk = find(results, s.workload, "dkjson")
    s.x_dkjson = dk and s.median / dk.median or nil
    -- Fastest library that is neither qjson nor a floor.
    local best
    for _, o in ipairs(results.scenarios) do
      if o.workload == s.workload and not is_qjson(o.library) and not is_floor(o.library)
        and (not best or o.median > best.median) then
        best = o
      end
    end
    if best then
      s.x_best_other, s.best_other = s.median / best.median, best.library
    end
    -- An edit job against the unmodified decode + encode of the same document.
    if EDIT_KINDS[kind] and kind ~= "roundtrip" then
      local rt = find(results, (s.workload:gsub("^%a+%-", "roundtrip-")), s.library)
      s.x_roundtrip = rt and s.median / rt.median or nil
    end
  end
  local skipped = {}
  for _, k in ipairs(results.skipped or {}) do
    skipped[k.name] = k.reason
  end
  for _, f in ipairs(results.failed or {}) do
    skipped[f.name] = skipped[f.name] or "wrong answer: " .. f.reason
  end
  local unavailable = {}
  for _, u in ipairs(results.unavailable or {}) do
    unavailable[u.library] = u.reason
  end
  local verdicts = {}
  for _, t in ipairs(M.TARGETS) do
    local names = t.workloads
    if not names then
      names = {}
      for _, w in ipairs(results.workloads) do
        if t.all or t.kinds[w.kind] then
          names[#names + 1] = w.name
        end
      end
    end
    for _, w in ipairs(names) do
      local edit = ({ roundtrip = true, modtop = true, addfield = true, modnested = true })[w:match("^(%a+)%-") or ""]
      local main = t.lib or (edit and "qjson.decode") or main_lib(kind_of[w] or "")
      for _, lib in ipairs(t.libs or { main }) do
        -- (t.libs: rows besides the main one, which its own target checks)
        local v = not (t.libs and lib == main) and verdict(t, results, w, lib, skipped, unavailable)
        if v then
          verdicts[#verdicts + 1] = v
        end
      end
    end
  end
  results.targets = verdicts
  return results
end

-- The rows of a workload, in the order the libraries ran.
function M.library_order(results, workload)
  local rows = {}
  for _, l in ipairs(results.config.libraries) do
    local s = find(results, workload, l)
    if s then
      rows[#rows + 1] = s
    end
  end
  return rows
end

return M
