-- Turns a results file into tables, the target check, docs/benchmarks.md
-- and docs/bench-chat.png. Used by run.lua; also on its own:
--
--   luajit bench/report.lua [bench/results/<date>.json]   (default: the newest)
--
-- regenerates the docs from an existing results file without re-running.
if (...) ~= "report" then
  local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
  package.path = dir .. "/?.lua;" .. package.path
end
local util = require("util")

local format, concat = string.format, table.concat
local fmt_ops, fmt_sig = util.fmt_ops, util.fmt_sig

local M = {}

local FLOOR, BASELINE = "memchr", "lua-cjson"
local MAIN = "qjson"

-- Targets from the issue: what qjson must reach, per workload.
M.TARGETS = {
  { what = "parse + read fields, chat ladder ≥ 100 KB: ≥ 60× lua-cjson", short = ">= 60x lua-cjson",
    workloads = { "chat-100k", "chat-1m", "chat-10m" }, metric = "x_cjson", at_least = 60 },
  { what = "parse + read fields, chat ladder ≥ 100 KB: ≥ 0.5× the memchr floor", short = ">= 0.5x memchr floor",
    workloads = { "chat-100k", "chat-1m", "chat-10m" }, metric = "x_floor", at_least = 0.5 },
  { what = "parse + read fields, chat 2 KB: ≥ 3× lua-cjson", short = ">= 3x lua-cjson",
    workloads = { "chat-2k" }, metric = "x_cjson", at_least = 3 },
  { what = "parse + read fields, issues list ~100 KB: ≥ 5× lua-cjson", short = ">= 5x lua-cjson",
    workloads = { "issues-100k" }, metric = "x_cjson", at_least = 5 },
  { what = "Lua heap retained ≤ 64 KB at every size (chat ladder, issues list)", short = "Lua heap retained <= 64 KB",
    kinds = { chat = true, issues = true }, metric = "heap_retained_kb", at_most = 64 },
  { what = "encode the tables decoded from twitter, citm_catalog and canada: ≥ 2× cjson.encode",
    short = ">= 2x cjson.encode", workloads = { "encode-twitter", "encode-citm", "encode-canada" },
    metric = "x_cjson", at_least = 2 },
  { what = "encode the tables decoded from twitter, citm_catalog and canada: ahead of dkjson.encode",
    short = "ahead of dkjson.encode", workloads = { "encode-twitter", "encode-citm", "encode-canada" },
    metric = "x_dkjson", at_least = 1, strictly = true },
  { what = "~200-byte object encoded in a loop: ≥ 1.2× cjson.encode", short = ">= 1.2x cjson.encode",
    workloads = { "encode-tiny" }, metric = "x_cjson", at_least = 1.2 },
}

local function find(results, workload, library)
  for _, s in ipairs(results.scenarios) do
    if s.workload == workload and s.library == library then
      return s
    end
  end
end
M.find = find

-- Adds MB/s and the ratios to every scenario, and the target verdicts.
function M.derive(results)
  for _, s in ipairs(results.scenarios) do
    s.mbps = s.median * s.size / 1e6
    local base, floor = find(results, s.workload, BASELINE), find(results, s.workload, FLOOR)
    s.x_cjson = base and s.median / base.median or nil
    s.x_floor = floor and s.median / floor.median or nil
    local dk = find(results, s.workload, "dkjson")
    s.x_dkjson = dk and s.median / dk.median or nil
  end
  local skipped = {}
  for _, k in ipairs(results.skipped or {}) do
    skipped[k.name] = k.reason
  end
  local verdicts = {}
  for _, t in ipairs(M.TARGETS) do
    local names = t.workloads
    if not names then
      names = {}
      for _, w in ipairs(results.workloads) do
        if t.kinds[w.kind] then
          names[#names + 1] = w.name
        end
      end
    end
    for _, w in ipairs(names) do
      local s = find(results, w, MAIN)
      local v = { target = t.what, short = t.short, workload = w, metric = t.metric, at_least = t.at_least,
        at_most = t.at_most, strictly = t.strictly, skipped = skipped[w] }
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
      verdicts[#verdicts + 1] = v
    end
  end
  results.targets = verdicts
  return results
end

local function library_order(results, workload)
  local rows = {}
  for _, l in ipairs(results.config.libraries) do
    local s = find(results, workload, l)
    if s then
      rows[#rows + 1] = s
    end
  end
  return rows
end

local function row_cells(s, markdown)
  local x = markdown and "×" or "x"
  local is_qjson = s.library:match("^qjson") ~= nil
  local name = s.library == FLOOR and "memchr (floor)" or s.library
  if markdown and s.library == MAIN then
    name = "**qjson**"
  end
  return {
    name,
    fmt_ops(s.median),
    fmt_ops(s.min) .. ".." .. fmt_ops(s.max),
    fmt_sig(s.mbps),
    s.library == BASELINE and "1" .. x or fmt_sig(s.x_cjson, x),
    is_qjson and s.x_floor and fmt_sig(s.x_floor, x) or "",
    format("%.1f", s.heap_retained_kb),
    format("%.1f", s.vmhwm_kb / 1024),
  }
end

local HEADER = { "library", "ops/s (median)", "min..max", "MB/s", "x cjson", "x memchr", "heap KB", "peak RSS MB" }

local function workload_title(w)
  if w.kind == "encode" then
    return format("%s: encode the table decoded from %s (%s bytes of JSON; cjson.encode writes %s)", w.name,
      w.label, fmt_ops(w.size), w.output_size and fmt_ops(w.output_size) or "?")
  elseif w.kind == "tiny" then
    return format("%s: %s, %s bytes, parse + read every field", w.name, w.label, fmt_ops(w.size))
  end
  return format("%s: %s, %s bytes", w.name, w.kind == "chat" and "chat request" or "GitHub issues list",
    fmt_ops(w.size))
end

function M.text_tables(results)
  local out = {}
  for _, w in ipairs(results.workloads) do
    local rows = {}
    for _, s in ipairs(library_order(results, w.name)) do
      rows[#rows + 1] = row_cells(s, false)
    end
    out[#out + 1] = workload_title(w) .. "\n" .. util.text_table(HEADER, rows)
  end
  return concat(out, "\n\n")
end

local function verdict_text(v, markdown)
  if v.measured == nil then
    return v.skipped and "not measured: skipped (" .. v.skipped .. ")" or "not measured"
  end
  local yes = markdown and "**met**" or "met"
  local no = markdown and "**not met**" or "NOT MET"
  if v.at_least then
    if v.met then
      return format("%s (%.2f%s the target)", yes, v.of_target, markdown and "×" or "x")
    end
    return format("%s (%.1f%% of the target: needs %.2f%s as fast)", no, v.of_target * 100, 1 / v.of_target,
      markdown and "×" or "x")
  end
  if v.met then
    return format("%s (%.1f KB under)", yes, v.at_most - v.measured)
  end
  return format("%s (%.1f KB over)", no, v.measured - v.at_most)
end

local function measured_text(v, x)
  if v.measured == nil then
    return "-"
  end
  if v.metric == "heap_retained_kb" then
    return format("%.1f KB", v.measured)
  end
  return fmt_sig(v.measured, x or "×")
end

local function needed_text(v)
  if v.at_least then
    return (v.strictly and "> " or "≥ ") .. fmt_sig(v.at_least, "×")
  end
  return format("≤ %d KB", v.at_most)
end

function M.text_targets(results)
  local rows = {}
  for _, v in ipairs(results.targets) do
    rows[#rows + 1] = { v.short, v.workload, measured_text(v, "x"), verdict_text(v, false) }
  end
  return "Targets (qjson: parse + read fields, encode)\n"
    .. util.text_table({ "target", "workload", "measured", "verdict" }, rows)
end

----------------------------------------------------------------------
-- Plot: MB/s against document size, log-log, the chat ladder.
----------------------------------------------------------------------
local PLOT_LIBS = {
  { "qjson", "qjson", "lw 3 pt 7 ps 1.2 lc rgb '#1f6fd1'" },
  { "lua-cjson", "lua-cjson", "lw 2 pt 5 lc rgb '#d1601f'" },
  { "dkjson", "dkjson", "lw 2 pt 9 lc rgb '#6a9a1f'" },
  { "memchr", "memchr floor (C memchr, one pass)", "lw 2 dt 2 pt 6 lc rgb '#777777'" },
}

function M.plot(results, png_path, tmp_dir)
  local chat = {}
  for _, w in ipairs(results.workloads) do
    if w.kind == "chat" then
      chat[#chat + 1] = w
    end
  end
  if #chat == 0 then
    return nil
  end
  local data, xtics = {}, {}
  for _, w in ipairs(chat) do
    local cells = { tostring(w.size) }
    for _, l in ipairs(PLOT_LIBS) do
      local s = find(results, w.name, l[1])
      cells[#cells + 1] = s and format("%.6g", s.mbps) or "?"
    end
    -- A size close to the previous one gets its labels below rather than above.
    local prev = chat[#xtics]
    local close = prev and w.size / prev.size < 3 and not xtics[#xtics]:find("\\n", 1, true)
    local q = find(results, w.name, MAIN)
    local label = q and q.x_cjson and format('"%s cjson"', fmt_sig(q.x_cjson, "×")) or '""'
    cells[#cells + 1] = close and '""' or label
    cells[#cells + 1] = close and label or '""'
    data[#data + 1] = concat(cells, " ")
    xtics[#xtics + 1] = format('"%s%s" %d', close and "\\n" or "", w.label, w.size)
  end
  local plots = {}
  for i, l in ipairs(PLOT_LIBS) do
    plots[#plots + 1] = format("$data using 1:%d with linespoints %s title '%s'", i + 1, l[3], l[2])
  end
  plots[#plots + 1] = format("$data using 1:2:%d with labels offset 0,1.2 font ',10' tc rgb '#1f6fd1' notitle",
    #PLOT_LIBS + 2)
  plots[#plots + 1] = format("$data using 1:2:%d with labels offset 0,-1.3 font ',10' tc rgb '#1f6fd1' notitle",
    #PLOT_LIBS + 3)
  local m = results.meta
  local script = concat({
    "set terminal pngcairo size 1000,660 enhanced font 'Sans,11'",
    "set output '" .. png_path .. "'",
    "set encoding utf8",
    "set datafile missing '?'",
    format("set title \"Chat-completion request: parse + read fields (higher is better)\\n"
      .. "{/*0.8 %s, LuaJIT %s, qjson %s (%s), %s}\"", m.cpu, m.luajit:gsub("^LuaJIT ", ""), m.qjson,
      m.qjson_backend, m.date),
    "set logscale xy",
    "set xrange [1200:18000000]",
    "set yrange [10:400000]",
    "set xtics (" .. concat(xtics, ", ") .. ")",
    "set ytics ('10' 10, '100' 100, '1,000' 1000, '10,000' 10000, '100,000' 100000)",
    "set xlabel 'document size (one message per MB, each a short text part and a base64 image)' offset 0,-0.6",
    "set bmargin 7",
    "set ylabel 'throughput, MB/s (10^6 bytes/s, median of rounds)'",
    "set grid xtics ytics mytics lc rgb '#dddddd'",
    "set key below horizontal",
    "$data << EOD",
    concat(data, "\n"),
    "EOD",
    "plot " .. concat(plots, ", \\\n  "),
    "",
  }, "\n")
  os.execute("mkdir -p '" .. tmp_dir .. "'")
  local gp = tmp_dir .. "/bench-chat.gp"
  util.write_file(gp, script)
  local p = io.popen("gnuplot -e 'set terminal' 2>&1")
  local terms = p and p:read("*a") or ""
  if p then
    p:close()
  end
  if not terms:find("pngcairo", 1, true) then
    util.write_file(gp, (script:gsub("set terminal pngcairo size 1000,660 enhanced font 'Sans,11'",
      "set terminal png size 1000,660")))
  end
  local ok = os.execute("gnuplot '" .. gp .. "'")
  if ok ~= 0 and ok ~= true then
    return nil
  end
  return png_path
end

----------------------------------------------------------------------
-- docs/benchmarks.md
----------------------------------------------------------------------
local function md_workload_table(results, w)
  local rows = {}
  for _, s in ipairs(library_order(results, w.name)) do
    rows[#rows + 1] = row_cells(s, true)
  end
  local header = { "library", "ops/s (median)", "min..max", "MB/s", "× cjson", "× memchr", "Lua heap retained KB",
    "peak RSS MB" }
  return util.md_table(header, rows, "lrrrrrrr")
end

function M.markdown(results, results_rel)
  local m, c = results.meta, results.config
  local L = {}
  local function add(...)
    for _, s in ipairs({ ... }) do
      L[#L + 1] = s
    end
  end
  add("# qjson benchmarks", "",
    "<!-- Generated by bench/report.lua from " .. results_rel .. "; do not edit by hand. `make bench` rewrites it. -->",
    "",
    format("Measured on %s by `make bench` (`luajit bench/run.lua`), results in [`%s`](../%s). "
      .. "Every figure below comes from that one run on one machine, all libraries side by side; "
      .. "ratios are what to compare, not absolute numbers.", m.date, results_rel, results_rel), "")

  add("## Targets", "",
    "The targets from the issues, for qjson's jobs \"parse and read fields\" and \"encode\" (below),"
      .. " measured in this run:", "")
  local rows = {}
  for i, v in ipairs(results.targets) do
    local prev = results.targets[i - 1]
    rows[#rows + 1] = { (prev and prev.target == v.target) and "" or v.target, v.workload, measured_text(v),
      needed_text(v), verdict_text(v, true) }
  end
  add(util.md_table({ "target", "workload", "measured", "needed", "verdict" }, rows, "llrrl"), "")
  if results.skipped and #results.skipped > 0 then
    local lines = {}
    for _, k in ipairs(results.skipped) do
      lines[#lines + 1] = format("- `%s`: %s", k.name, k.reason)
    end
    add("**Skipped in this run** (their rows and targets are missing):", "", concat(lines, "\n"), "")
  end

  add("## Machine", "",
    format("- CPU: %s, %d cores (%s)%s", m.cpu, m.cores, m.cpu_flags,
      m.mem_total_mb and format(", %d MB RAM", m.mem_total_mb) or ""),
    format("- Kernel: %s", m.kernel or "?"),
    format("- %s (%s); Debian's lua-cjson %s; dkjson %s (pure Lua, no LPeg)", m.luajit, m.jit_arch, m.cjson,
      m.dkjson),
    format("- qjson %s, stage 1 backend `%s`, commit %s%s", m.qjson, m.qjson_backend, m.git_commit or "?",
      m.git_dirty and " plus uncommitted changes to src/ or lua/" or ""),
    format("- Load average at start %.2f %.2f %.2f, at end %.2f %.2f %.2f (the machine is shared: other jobs "
      .. "were running, so expect noise of ±20%% between runs; the per-scenario load is in the JSON)",
      m.loadavg_start[1], m.loadavg_start[2], m.loadavg_start[3], m.loadavg_end[1], m.loadavg_end[2],
      m.loadavg_end[3]),
    format("- Whole run: %.0f s", m.runtime_seconds), "")

  add("## Results: parse and read fields", "",
    "Columns: median ops/s over the rounds with the slowest and fastest round; MB/s = median ops/s × document "
      .. "size / 10^6; × cjson = ops/s over lua-cjson's on the same document; × memchr = qjson's ops/s over "
      .. "the floor's (1 would be as fast as one memchr pass over the document); Lua heap retained = "
      .. "`collectgarbage(\"count\")` after the run and a full GC, with the last result (document or table) "
      .. "still referenced, minus the same figure before the first parse; peak RSS = `VmHWM` at the end "
      .. "(includes the input string and the interpreter, ~4 MB).", "")
  add("### Chat-completion ladder", "", "![MB/s against document size, log-log](bench-chat.png)", "")
  for _, w in ipairs(results.workloads) do
    if w.kind == "chat" then
      add("#### " .. workload_title(w), "", md_workload_table(results, w), "")
    end
  end
  add("### REST issues list", "")
  for _, w in ipairs(results.workloads) do
    if w.kind == "issues" then
      add("#### " .. workload_title(w), "", md_workload_table(results, w), "")
    end
  end
  local tiny = {}
  for _, w in ipairs(results.workloads) do
    if w.kind == "tiny" then
      tiny[#tiny + 1] = w
    end
  end
  if #tiny > 0 then
    add("### ~200-byte API object, in a loop", "",
      "The object `encode-tiny` encodes (below), parsed and every one of its 11 leaf values read: qjson with "
        .. "`qjson.parse` and `get_num`/`get_str`/`get_bool`/`len` on compiled paths, lua-cjson and dkjson "
        .. "with `decode` and table reads. No floor row: one memchr pass over 194 bytes is call overhead.", "")
    for _, w in ipairs(tiny) do
      add("#### " .. workload_title(w), "", md_workload_table(results, w), "")
    end
  end

  -- The qjson reader written three ways.
  local variants = {}
  for _, l in ipairs(c.libraries) do
    if l:match("^qjson") then
      variants[#variants + 1] = l
    end
  end
  if #variants > 1 then
    add("### qjson: what the API style costs", "",
      "The `qjson` rows above read with paths from the root, compiled once per index with `qjson.path` "
        .. "(`messages[i].content[j].type`) and kept. The same job written with cursors:", "",
      "- `qjson-cursor`: `d:open(\"messages\")`, `:len()`, `:open(\"[i]\")` (index paths compiled once), "
        .. "then reads relative to the cursor;",
      "- `qjson-ipairs`: `for _, msg in d:ipairs(\"messages\")` / `msg:ipairs(\"content\")`.", "")
    local header, align = { "workload" }, "l"
    for _, l in ipairs(variants) do
      header[#header + 1] = l .. " ops/s"
      align = align .. "r"
    end
    for _, l in ipairs(variants) do
      header[#header + 1] = l .. " × cjson"
      align = align .. "r"
    end
    local vrows = {}
    for _, w in ipairs(results.workloads) do
      local r, others = { w.name }, false
      for _, l in ipairs(variants) do
        local s = find(results, w.name, l)
        r[#r + 1] = s and fmt_ops(s.median) or "-"
        others = others or (s ~= nil and l ~= MAIN)
      end
      for _, l in ipairs(variants) do
        local s = find(results, w.name, l)
        r[#r + 1] = s and fmt_sig(s.x_cjson, "×") or "-"
      end
      if others then -- the workloads the variants ran
        vrows[#vrows + 1] = r
      end
    end
    add(util.md_table(header, vrows, align), "")
  end

  add("## Results: encode", "",
    "The job: `encode(t)` to a string, where `t` is the table `cjson.decode` built from the document, once "
      .. "per process, before the measurements and outside the timed work; every library encodes that same "
      .. "table (`qjson.encode`, `cjson.encode`, `dkjson.encode`; dkjson gets an `exception` hook that writes "
      .. "`cjson.null` as `null`, called for the nulls only). Checked before timing: qjson's output is "
      .. "lua-cjson's byte for byte; dkjson's, whose bytes differ (its own escapes, `[]` for an empty table), "
      .. "decodes with `cjson.decode` to a structure deep-equal to the table, numbers to the 14 significant "
      .. "digits both write. × cjson = ops/s over `cjson.encode`'s; MB/s counts the size of the source "
      .. "document; Lua heap retained counts the last output string and the encoder's state, not the table "
      .. "(built before the baseline).", "")
  for _, w in ipairs(results.workloads) do
    if w.kind == "encode" then
      add("#### " .. workload_title(w), "", md_workload_table(results, w), "")
    end
  end

  add("## Memory", "", "### qjson's index", "",
    "Native bytes of the document's index (`qjson_index_bytes`) per structural character of the input "
      .. "(`{ } [ ] : ,` outside strings plus each string's opening quote, counted by a Lua scan outside the "
      .. "timed region).", "")
  rows = {}
  for _, w in ipairs(results.workloads) do
    local s = find(results, w.name, MAIN)
    if s and s.index_bytes then
      rows[#rows + 1] = { w.name, fmt_ops(w.size), fmt_ops(s.structurals), fmt_ops(s.index_bytes),
        format("%.2f", s.index_bytes_per_structural), format("%.3f", s.index_bytes / w.size) }
    end
  end
  add(util.md_table({ "workload", "bytes", "structural chars", "index bytes", "index bytes per structural char",
    "index bytes per input byte" }, rows, "lrrrrr"), "")

  add("### Lua heap and native peak, every scenario", "",
    "Lua heap in KB over the baseline taken before the first parse or encode (after loading the library and "
      .. "the input: the JSON text, or for an encode the table): with the last result alive; after dropping "
      .. "it; after also `jit.flush()` (what is left is neither the result nor compiled traces: lazily "
      .. "created module state, memoized paths). Native: `VmHWM` before the first parse and at the end, in MB.",
    "")
  rows = {}
  for _, w in ipairs(results.workloads) do
    for _, s in ipairs(library_order(results, w.name)) do
      rows[#rows + 1] = { w.name, s.library, format("%.1f", s.heap_retained_kb),
        format("%.1f", s.heap_retained_kb - s.heap_after_drop_kb), format("%.1f", s.heap_after_drop_kb),
        format("%.1f", s.heap_after_flush_kb), format("%.1f", s.vmhwm_before_kb / 1024),
        format("%.1f", s.vmhwm_kb / 1024) }
    end
  end
  add(util.md_table({ "workload", "library", "retained, result alive", "held by the result", "after drop",
    "after jit.flush", "VmHWM before MB", "VmHWM end MB" }, rows, "llrrrrrr"), "")

  -- What the memory figures say, from this run's numbers.
  local notes = {}
  local held, flushed, floor_kb = 0, 0, 0
  for _, w in ipairs(results.workloads) do
    local q, f = find(results, w.name, MAIN), find(results, w.name, FLOOR)
    if q and w.kind ~= "encode" then -- documents only
      held = math.max(held, q.heap_retained_kb - q.heap_after_drop_kb)
      flushed = math.max(flushed, q.heap_after_flush_kb)
    end
    if f then
      floor_kb = math.max(floor_kb, f.heap_retained_kb)
    end
  end
  notes[#notes + 1] = format("- **Lua heap.** A live qjson document holds at most %.1f KB of Lua heap at any size "
    .. "(lua-cjson's table holds the whole document). Most of qjson's retained figure is LuaJIT's own: compiled "
    .. "traces, and the compiler's buffers, which stay after `jit.flush()` (up to %.1f KB here); the harness "
    .. "alone accounts for up to %.1f KB (the memchr rows).", held, flushed, floor_kb)
  local grew, base_max = {}, 0
  for _, w in ipairs(results.workloads) do
    local q, b = find(results, w.name, MAIN), find(results, w.name, BASELINE)
    if q and b and q.index_bytes then
      local qg, bg = (q.vmhwm_kb - q.vmhwm_before_kb) / 1024, (b.vmhwm_kb - b.vmhwm_before_kb) / 1024
      base_max = math.max(base_max, bg)
      if qg > 4 and qg > 2 * bg then
        grew[#grew + 1] = format("%.1f MB on %s (index %s bytes)", qg, w.name, fmt_ops(q.index_bytes))
      end
    end
  end
  if #grew > 0 then
    notes[#notes + 1] = format("- **Native peak.** qjson's peak RSS grew during the run by %s, lua-cjson's by "
      .. "at most %.1f MB. Documents are freed by their `ffi.gc` finalizers, which run only when the Lua GC "
      .. "runs; the GC does not see native bytes, and a document costs the Lua heap ~0.2 KB, so thousands of "
      .. "dead documents can wait for a collection.", concat(grew, ", "), base_max)
  end
  add("### Notes", "", concat(notes, "\n"), "")

  add("## Method", "",
    "- **Workloads** (`bench/workloads.lua`), generated deterministically (a seeded xorshift32, no "
      .. "`math.random`) and cached in `bench/data/`:",
    "  - the chat-completion ladder, 2 KB, 60 KB, 100 KB, 1 MB and 10 MB (each within 2% of its target): "
      .. "`{\"model\":\"gpt-4o\",\"temperature\":0.7,\"max_tokens\":1024,\"stream\":false,\"messages\":[...]}` "
      .. "with one message per MB (at least one), each `{\"role\":\"user\",\"content\":[{\"type\":\"text\","
      .. "\"text\":...},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,...\"}}]}`; "
      .. "the text is 240-420 bytes of sentences with `\\n`, `\\\"`, `\\t`, `\\u2014` escapes and raw 2-, 3- "
      .. "and 4-byte UTF-8; the base64 payload fills the document to its size;",
    "  - a GitHub REST issues list of ~100 KB: 32 issue objects with every field the API returns (`user`, "
      .. "`labels`, `assignee(s)`, `reactions`, URLs, nulls), bodies with `\\r\\n`, `\\\"` and `\\u` escapes;",
    "  - a ~200-byte API-gateway-like object (`" .. (results.tiny_json or "workloads.TINY") .. "`): strings "
      .. "(one with escapes and non-ASCII), integers, a fraction, a boolean, a nested object, an array;",
    "  - for encoding, the real documents twitter.json, citm_catalog.json and canada.json of "
      .. "`../shared/data/corpus/` (beside the checkout, not in it; skipped with a message when absent), and "
      .. "the ~200-byte object.",
    "- **Job** (`bench/libs.lua`), per library, as its user would write it: parse, then read `model`, "
      .. "`temperature` and, for every message, its `content` array and, per part, `type` and (text parts) "
      .. "`text`. The image URL is not read: a gateway doesn't. For the issues list: `number`, `title`, "
      .. "`state`, `user.login` of every issue. qjson: `qjson.parse` + `doc:len`/`doc:get_str`/`doc:get_num` "
      .. "with compiled paths; lua-cjson and dkjson: `decode` + table reads. dkjson parses up to 1 MB only. "
      .. "For the ~200-byte object: parse and read all 11 leaf values (`get_bool` for the boolean).",
    "- **Encode job**: `qjson.encode(t)`, `cjson.encode(t)`, `dkjson.encode(t, state)` of the one table "
      .. "`cjson.decode` built from the document, once per process before the heap baseline and outside the "
      .. "timed work; each call's checksum is the output's length.",
    "- **Floor**: `memchr(s, 0x01, #s)` through the FFI, a byte valid JSON never holds, so one full pass of "
      .. "glibc's vectorized memchr: the least work any reader of every byte must do.",
    "- **Same values**: before timing, each workload is read once by every library with the timed code "
      .. "(collecting every value read) and the run aborts unless all read identical values; each timed "
      .. "process also checks its checksum (total length of the strings read plus the sum of the numbers) "
      .. "on every call. Encode workloads: the run aborts unless `qjson.encode`'s output equals "
      .. "`cjson.encode`'s byte for byte, and `dkjson.encode`'s decodes (`cjson.decode`) to a structure "
      .. "deep-equal to the table (numbers to the 14 significant digits both write).",
    format("- **Timing** (`bench/one.lua`): a fresh `luajit` process per scenario%s; warm-up of %s; then %d "
      .. "rounds of at least %.2f s of CPU time each, timed with `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)` "
      .. "around batches of ~5 ms, a full GC before each round (outside its time). CPU time rather than wall "
      .. "time because the machine is shared: time spent descheduled is not the library's (each round's "
      .. "wall-clock ops/s is in the JSON as `rounds_wall`). Reported: median ops/s, min..max over the "
      .. "rounds. Defaults of LuaJIT's JIT, no tuning. The speed of one process's traces varies from one "
      .. "process to the next (up to ~20%% on the small documents), more than between rounds: "
      .. "`--procs=N` pools the rounds of N processes per scenario.",
      (c.processes or 1) > 1 and format(" (%d processes, rounds pooled)", c.processes) or "",
      c.warmup, c.rounds, c.round_seconds),
    "- **Memory**: Lua heap via `collectgarbage(\"count\")` (full GC repeated until it stops shrinking), "
      .. "native peak via `VmHWM` in `/proc/self/status`.",
    "- Not covered yet (design §4): lua-resty-simdjson (not installed here), the interleaved mix, and parsing "
      .. "the real corpus documents (they are covered for encoding).", "")

  add("## Reproducing", "",
    "```sh",
    "make bench          # full run (~" .. format("%.0f", m.runtime_seconds / 60 + 0.5)
      .. " min here): results JSON, this page and the plot",
    "make bench-quick    # 2 short rounds, no API variants; writes bench/results/tmp/quick-<date>.json only",
    "luajit bench/run.lua --only=chat-2k --libs=qjson,lua-cjson --procs=5   # a subset, 5 processes each",
    "luajit bench/one.lua chat-1m qjson          # one scenario, one RESULT line of JSON",
    "luajit bench/one.lua issues-100k --verify   # check the libraries read the same values",
    "luajit bench/one.lua encode-twitter --verify   # check qjson.encode writes cjson.encode's bytes",
    "luajit bench/report.lua bench/results/<date>.json   # rebuild this page and the plot from a results file",
    "```", "")
  return concat(L, "\n")
end

-- `path` relative to `root` (both as given on the command line).
local function relative(path, root)
  path = path:gsub("^%./", "")
  if root ~= "." and path:sub(1, #root + 1) == root .. "/" then
    path = path:sub(#root + 2)
  end
  return path
end

function M.write_docs(results, results_path, root)
  local md_path = root .. "/docs/benchmarks.md"
  util.write_file(md_path, M.markdown(results, relative(results_path, root)))
  local png = M.plot(results, root .. "/docs/bench-chat.png", root .. "/bench/results/tmp")
  return md_path, png
end

-- Standalone (not required as a module): regenerate the docs.
if (...) ~= "report" then
  local script = arg and arg[0] or "bench/report.lua"
  local bench_dir = script:match("^(.*)/[^/]*$") or "."
  local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
  local path = arg[1]
  if not path then
    local p = io.popen("ls " .. util.shell_quote(root .. "/bench/results") .. "/*.json 2>/dev/null | sort | tail -n 1")
    path = p and p:read("*l")
    if p then
      p:close()
    end
  end
  if not path or path == "" then
    io.stderr:write("report.lua: no results file (run `make bench` first)\n")
    os.exit(1)
  end
  local results = require("cjson").decode((assert(util.read_file(path), "cannot read " .. path)))
  M.derive(results)
  local md, png = M.write_docs(results, path, root)
  print("wrote " .. md .. " and " .. tostring(png))
end

return M
