-- Turns a results file into tables, the target check, docs/benchmarks.md,
-- the plots (docs/bench-chat.png, docs/bench-ratios.png) and the README's
-- headline table. Used by run.lua; also on its own:
--
--   luajit bench/report.lua [bench/results/<date>.json]   (default: the newest)
--
-- regenerates the docs from an existing results file without re-running.
-- The nginx gateway's section comes from the newest
-- bench/results/gateway-<date>.json (bench/gateway/run.lua), when there is one.
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
local EDIT_KINDS = { roundtrip = true, modify_top = true, add_field = true, modify_nested = true }

-- qjson's row for a job: the document API for reading, views for
-- decode + encode, qjson.encode for plain tables.
local function main_lib(kind)
  return EDIT_KINDS[kind] and "qjson.decode" or MAIN
end
M.main_lib = main_lib

local function is_qjson(lib)
  return lib:match("^qjson") ~= nil
end

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
  { what = "add a field + encode, 10 MB: ≥ 0.5× the unmodified decode + encode",
    short = "add field >= 0.5x roundtrip", workloads = { "addfield-10m" }, metric = "x_roundtrip", at_least = 0.5 },
  { what = "modify a nested field + encode, 10 MB: ≥ 0.5× the unmodified decode + encode",
    short = "modify nested >= 0.5x roundtrip", workloads = { "modnested-10m" }, metric = "x_roundtrip",
    at_least = 0.5 },
  { what = "`qjson.cjson.decode` of twitter, citm_catalog and canada (+ a few reads): ≥ 2× `cjson.decode`",
    short = "qjson.cjson >= 2x cjson", lib = "qjson.cjson", workloads = { "read-twitter", "read-citm", "read-canada" },
    metric = "x_cjson", at_least = 2 },
  { what = "~200-byte object decoded and fully read, `qjson.cjson.decode`: ≥ 1.2× lua-cjson",
    short = "tiny qjson.cjson >= 1.2x", lib = "qjson.cjson", workloads = { "decode-tiny" }, metric = "x_cjson",
    at_least = 1.2 },
  { what = "~200-byte object decoded and fully read, `qjson.decode`: ≥ 1.2× lua-cjson",
    short = "tiny qjson.decode >= 1.2x", lib = "qjson.decode", workloads = { "decode-tiny" }, metric = "x_cjson",
    at_least = 1.2 },
  { what = "encode the tables decoded from twitter, citm_catalog and canada: ≥ 2× cjson.encode",
    short = "encode >= 2x cjson", workloads = { "encode-twitter", "encode-citm", "encode-canada" },
    metric = "x_cjson", at_least = 2 },
  { what = "~200-byte object encoded in a loop: ≥ 1.2× cjson.encode", short = "encode tiny >= 1.2x cjson",
    workloads = { "encode-tiny" }, metric = "x_cjson", at_least = 1.2 },
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
    local base, floor = find(results, s.workload, BASELINE), find(results, s.workload, FLOOR)
    s.x_cjson = base and s.median / base.median or nil
    s.x_floor = floor and s.median / floor.median or nil
    local dk = find(results, s.workload, "dkjson")
    s.x_dkjson = dk and s.median / dk.median or nil
    -- Fastest library that is neither qjson nor the floor.
    local best
    for _, o in ipairs(results.scenarios) do
      if o.workload == s.workload and not is_qjson(o.library) and o.library ~= FLOOR
        and (not best or o.median > best.median) then
        best = o
      end
    end
    if best then
      s.x_best_other, s.best_other = s.median / best.median, best.library
    end
    -- An edit job against the unmodified decode + encode of the same document.
    local kind = kind_of[s.workload]
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

local function row_cells(s, markdown, main)
  local x = markdown and "×" or "x"
  local name = s.library == FLOOR and "memchr (floor)" or s.library
  if markdown and s.library == main then
    name = "**" .. name .. "**"
  end
  return {
    name,
    fmt_ops(s.median),
    fmt_ops(s.min) .. ".." .. fmt_ops(s.max),
    fmt_sig(s.mbps),
    s.library == BASELINE and "1" .. x or fmt_sig(s.x_cjson, x),
    is_qjson(s.library) and s.x_floor and fmt_sig(s.x_floor, x) or "",
    format("%.1f", s.heap_retained_kb),
    format("%.1f", s.vmhwm_kb / 1024),
  }
end

local HEADER = { "library", "ops/s (median)", "min..max", "MB/s", "x cjson", "x memchr", "heap KB", "peak RSS MB" }

local CORPUS_JOBS = {
  twitter = "every status's id, text, user.screen_name, user.followers_count, retweet_count",
  citm = "every performance's id, eventId, start, venueCode, seat category and price counts, its event's name",
  canada = "type; each feature's properties.name, geometry.type; each ring's point count and first point",
}

local function workload_title(w)
  local size = fmt_ops(w.size)
  if w.kind == "encode" then
    return format("%s: encode the table decoded from %s (%s bytes of JSON; cjson.encode writes %s)", w.name,
      w.label, size, w.output_size and fmt_ops(w.output_size) or "?")
  elseif w.kind == "tiny" then
    return format("%s: %s, %s bytes, decoded and every field read", w.name, w.label, size)
  elseif w.kind == "sse" then
    return format("%s: %s, %s bytes; every delta's content and finish reason", w.name, w.label, size)
  elseif w.kind == "sse_feed" then
    return format("%s: %s, %s bytes; every delta's content and finish reason", w.name, w.label, size)
  elseif w.kind == "ndjson" then
    return format("%s: %s, %s bytes; ts, level and http.status of each", w.name, w.label, size)
  elseif w.kind == "mix" then
    return format("%s: chat requests of %s in turn, %s bytes per cycle (one op = the four)", w.name, w.label, size)
  elseif CORPUS_JOBS[w.kind] then
    return format("%s: %s.json, %s bytes; read %s", w.name, w.label, size, CORPUS_JOBS[w.kind])
  elseif EDIT_KINDS[w.kind] then
    return format("%s: %s (chat request, %s bytes)", w.name, w.label, size)
  end
  return format("%s: %s, %s bytes", w.name, w.kind == "chat" and "chat request" or "GitHub issues list", size)
end

function M.text_tables(results)
  local out = {}
  for _, w in ipairs(results.workloads) do
    local rows = {}
    for _, s in ipairs(library_order(results, w.name)) do
      rows[#rows + 1] = row_cells(s, false)
    end
    if #rows > 0 then
      out[#out + 1] = workload_title(w) .. "\n" .. util.text_table(HEADER, rows)
    end
  end
  return concat(out, "\n\n")
end

local function verdict_text(v, markdown)
  if v.measured == nil then
    return v.skipped and "not measured: skipped (" .. v.skipped .. ")" or "not measured"
  end
  local yes = markdown and "**met**" or "met"
  local no = markdown and "**not met**" or "NOT MET"
  if v.against then
    return format("%s (%s %s)", v.met and yes or no, fmt_sig(v.measured, markdown and "×" or "x"), v.against)
  end
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
    rows[#rows + 1] = { v.short, v.workload, v.library, measured_text(v, "x"), verdict_text(v, false) }
  end
  return "Targets\n" .. util.text_table({ "target", "workload", "qjson row", "measured", "verdict" }, rows)
end

----------------------------------------------------------------------
-- Plots (gnuplot).
----------------------------------------------------------------------

-- Runs a gnuplot script (falls back to the plain png terminal when
-- pngcairo is missing); returns png_path, or nil when gnuplot failed.
local function gnuplot(script, png_path, tmp_dir, name)
  os.execute("mkdir -p '" .. tmp_dir .. "'")
  local p = io.popen("gnuplot -e 'set terminal' 2>&1")
  local terms = p and p:read("*a") or ""
  if p then
    p:close()
  end
  if not terms:find("pngcairo", 1, true) then
    script = script:gsub("set terminal pngcairo size (%d+),(%d+) enhanced font '[^']*'", "set terminal png size %1,%2")
  end
  local gp = tmp_dir .. "/" .. name .. ".gp"
  util.write_file(gp, script)
  local ok = os.execute("gnuplot '" .. gp .. "'")
  if ok ~= 0 and ok ~= true then
    return nil
  end
  return png_path
end
M.gnuplot = gnuplot

local function subtitle(m)
  return format("{/*0.8 %s, LuaJIT %s, qjson %s (%s), %s}", m.cpu, m.luajit:gsub("^LuaJIT ", ""), m.qjson,
    m.qjson_backend, m.date)
end
M.subtitle = subtitle

-- MB/s against document size, log-log, the chat ladder: one line per library.
local PLOT_LIBS = {
  { "qjson", "qjson.parse", "lw 3 pt 7 ps 1.2 lc rgb '#1f6fd1'" },
  { "qjson.decode", "qjson.decode (lazy views)", "lw 3 pt 13 ps 1.2 lc rgb '#6f3fbf'" },
  { "resty.simdjson", "lua-resty-simdjson", "lw 2 pt 11 lc rgb '#bf3f6f'" },
  { "lua-cjson", "lua-cjson (OpenResty's, the baseline)", "lw 2 pt 5 lc rgb '#d1601f'" },
  { "lua-cjson-2.1.0", "lua-cjson 2.1.0 (Debian's)", "lw 1 dt 3 pt 4 lc rgb '#d1601f'" },
  { "dkjson", "dkjson", "lw 2 pt 9 lc rgb '#6a9a1f'" },
  { "memchr", "memchr floor (C memchr, one pass)", "lw 2 dt 2 pt 6 lc rgb '#777777'" },
}

local function chat_ladder(results)
  local chat = {}
  for _, w in ipairs(results.workloads) do
    if w.kind == "chat" then
      chat[#chat + 1] = w
    end
  end
  return chat
end

function M.plot(results, png_path, tmp_dir)
  local chat = chat_ladder(results)
  if #chat == 0 then
    return nil
  end
  local libs = {}
  for _, l in ipairs(PLOT_LIBS) do
    for _, w in ipairs(chat) do
      if find(results, w.name, l[1]) then
        libs[#libs + 1] = l
        break
      end
    end
  end
  local data, xtics = {}, {}
  for i, w in ipairs(chat) do
    local cells = { tostring(w.size) }
    for _, l in ipairs(libs) do
      local s = find(results, w.name, l[1])
      cells[#cells + 1] = s and format("%.6g", s.mbps) or "?"
    end
    local q = find(results, w.name, MAIN)
    cells[#cells + 1] = q and q.x_cjson and format('"%s"', fmt_sig(q.x_cjson, "×")) or '""'
    data[#data + 1] = concat(cells, " ")
    -- Rungs close together: every other label one line down.
    xtics[#xtics + 1] = format('"%s%s" %d', i % 2 == 0 and "\\n" or "", w.label, w.size)
  end
  local plots = {}
  for i, l in ipairs(libs) do
    plots[#plots + 1] = format("$data using 1:%d with linespoints %s title '%s'", i + 1, l[3], l[2])
  end
  plots[#plots + 1] = format("$data using 1:2:%d with labels offset 0,1.2 font ',9' tc rgb '#1f6fd1' notitle",
    #libs + 2)
  local script = concat({
    "set terminal pngcairo size 1000,660 enhanced font 'Sans,11'",
    "set output '" .. png_path .. "'",
    "set encoding utf8",
    "set datafile missing '?'",
    "set title \"Chat-completion request: parse + read fields (higher is better; labels: qjson.parse × lua-cjson)\\n"
      .. subtitle(results.meta) .. "\"",
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
  return gnuplot(script, png_path, tmp_dir, "bench-chat")
end

-- qjson's speed-up over lua-cjson: left, per job along the chat ladder
-- (log-log); right, per fixed document and qjson API (log scale).
local RATIO_JOBS = {
  { kind = "chat", prefix = "chat", lib = "qjson", title = "parse + read (qjson.parse)",
    style = "lw 3 pt 7 lc rgb '#1f6fd1'" },
  { kind = "chat", prefix = "chat", lib = "qjson.decode", title = "decode + read (qjson.decode)",
    style = "lw 3 pt 13 lc rgb '#6f3fbf'" },
  { kind = "roundtrip", prefix = "roundtrip", lib = "qjson.decode", title = "decode + encode, unmodified",
    style = "lw 2 pt 5 lc rgb '#2a9d8f'" },
  { kind = "modify_top", prefix = "modtop", lib = "qjson.decode", title = "decode + set top field + encode",
    style = "lw 2 pt 9 lc rgb '#e9a03b'" },
  { kind = "add_field", prefix = "addfield", lib = "qjson.decode", title = "decode + add field + encode",
    style = "lw 2 pt 11 lc rgb '#d1601f'" },
  { kind = "modify_nested", prefix = "modnested", lib = "qjson.decode", title = "decode + set nested field + encode",
    style = "lw 2 pt 6 lc rgb '#8a5a44'" },
  -- The fastest other library, when it ran (a line only then).
  { kind = "chat", prefix = "chat", lib = "resty.simdjson", title = "decode + read (lua-resty-simdjson)",
    style = "lw 2 dt 3 pt 11 lc rgb '#bf3f6f'" },
}
local RATIO_DOCS = {
  { "issues-100k", "issues" }, { "mix", "mix" }, { "read-twitter", "twitter" }, { "read-citm", "citm" },
  { "read-canada", "canada" }, { "decode-tiny", "200 B" }, { "encode-twitter", "enc twitter" },
  { "encode-citm", "enc citm" }, { "encode-canada", "enc canada" }, { "encode-tiny", "enc 200 B" },
}
local RATIO_APIS = {
  { "qjson", "qjson.parse / qjson.encode", "#1f6fd1" },
  { "qjson.decode", "qjson.decode", "#6f3fbf" },
  { "qjson.cjson", "qjson.cjson.decode", "#2a9d8f" },
  { "resty.simdjson", "lua-resty-simdjson", "#bf3f6f" },
}

function M.plot_ratios(results, png_path, tmp_dir)
  local sizes = {}
  for _, w in ipairs(chat_ladder(results)) do
    sizes[#sizes + 1] = w
  end
  if #sizes == 0 then
    return nil
  end
  -- Left panel: one line per job.
  local left, lines = {}, {}
  for _, w in ipairs(sizes) do
    local cells = { tostring(w.size) }
    for _, j in ipairs(RATIO_JOBS) do
      local s = find(results, (w.name:gsub("^chat", j.prefix)), j.lib)
      cells[#cells + 1] = s and s.x_cjson and format("%.6g", s.x_cjson) or "?"
    end
    left[#left + 1] = concat(cells, " ")
  end
  for i, j in ipairs(RATIO_JOBS) do
    local any = false
    for _, w in ipairs(sizes) do
      any = any or find(results, (w.name:gsub("^chat", j.prefix)), j.lib) ~= nil
    end
    if any then
      lines[#lines + 1] = format("$left using 1:%d with linespoints %s title '%s'", i + 1, j.style, j.title)
    end
  end
  lines[#lines + 1] = "1 with lines lw 1 dt 2 lc rgb '#333333' title 'as fast as lua-cjson'"
  -- Right panel: clustered bars, one cluster per document.
  local apis = {}
  for _, a in ipairs(RATIO_APIS) do
    for _, d in ipairs(RATIO_DOCS) do
      local s = find(results, d[1], a[1])
      if s and s.x_cjson then
        apis[#apis + 1] = a
        break
      end
    end
  end
  local right = {}
  for _, d in ipairs(RATIO_DOCS) do
    local cells, any = { '"' .. d[2] .. '"' }, false
    for _, a in ipairs(apis) do
      local s = find(results, d[1], a[1])
      cells[#cells + 1] = s and s.x_cjson and format("%.6g", s.x_cjson) or "?"
      any = any or (s ~= nil and s.x_cjson ~= nil)
    end
    if any then
      right[#right + 1] = concat(cells, " ")
    end
  end
  local bars = {}
  for i, a in ipairs(apis) do
    bars[#bars + 1] = format("$right using %d:xtic(1) title '%s' lc rgb '%s'", i + 1, a[2], a[3])
  end
  local xtics = {}
  for i, w in ipairs(sizes) do
    xtics[i] = format('"%s%s" %d', i % 2 == 0 and "\\n" or "", w.label, w.size)
  end
  local script = concat({
    "set terminal pngcairo size 1400,640 enhanced font 'Sans,11'",
    "set output '" .. png_path .. "'",
    "set encoding utf8",
    "set datafile missing '?'",
    "set multiplot layout 1,2 title \"qjson's speed-up over lua-cjson, same job side by side (higher is better; "
      .. "1 = as fast)\\n" .. subtitle(results.meta) .. "\"",
    "$left << EOD", concat(left, "\n"), "EOD",
    #right > 0 and "$right << EOD\n" .. concat(right, "\n") .. "\nEOD" or "",
    "set title 'chat-completion ladder'",
    "set logscale xy",
    "set xrange [1200:18000000]",
    "set yrange [0.3:1000]",
    "set xtics (" .. concat(xtics, ", ") .. ")",
    "set ytics ('0.5×' 0.5, '1×' 1, '2×' 2, '5×' 5, '10×' 10, '20×' 20, '50×' 50, '100×' 100, '200×' 200, "
      .. "'500×' 500)",
    "set grid xtics ytics lc rgb '#dddddd'",
    "set xlabel 'document size' offset 0,-0.8",
    "set ylabel '× lua-cjson (ops/s over lua-cjson ops/s)'",
    "set key bottom right font ',9' box opaque",
    "set bmargin 6",
    "plot " .. concat(lines, ", \\\n  "),
    "unset logscale x",
    "set xrange [*:*]",
    "set xtics rotate by 45 right font ',9' nomirror",
    "set rmargin 4",
    "set xlabel 'document (read jobs, then encode of plain tables)'",
    "set title 'other documents'",
    "set style data histogram",
    "set style histogram clustered gap 1",
    "set style fill solid 0.85 border -1",
    "set boxwidth 0.9",
    "set key top right font ',9' box opaque",
    #right > 0 and "plot " .. concat(bars, ", \\\n  ") .. ", 1 with lines lw 1 dt 2 lc rgb '#333333' notitle"
      or "",
    "unset multiplot",
    "",
  }, "\n")
  return gnuplot(script, png_path, tmp_dir, "bench-ratios")
end

-- The nginx gateway (bench/gateway/run.lua's results): requests/s (log)
-- and p99 latency per body size, bodies in memory.
function M.plot_gateway(g, png_path, tmp_dir)
  local data, bodies = {}, {}
  for _, r in ipairs(g.rows) do
    if r.mode == "memory" then
      if not bodies[r.body] then
        bodies[r.body] = { label = r.body_label }
        bodies[#bodies + 1] = bodies[r.body]
      end
      bodies[r.body][r.handler] = r
    end
  end
  for _, b in ipairs(bodies) do
    local q, c, f = b.qjson, b["lua-cjson"], b["floor (no JSON)"]
    if not (q and c and f) then
      return nil
    end
    data[#data + 1] = format('"%s" %.6g %.6g %.6g %.6g %.6g "%s"', b.label, q.rps, c.rps, q.p99_ms, c.p99_ms, f.rps,
      fmt_sig(q.x_rps, "×"))
  end
  local script = concat({
    "set terminal pngcairo size 1200,520 enhanced font 'Sans,11'",
    "set output '" .. png_path .. "'",
    "set encoding utf8",
    "$d << EOD", concat(data, "\n"), "EOD",
    format("set multiplot layout 1,2 title \"nginx gateway, one worker: read the body, read model and every "
      .. "message's content, set a field, re-encode\\n{/*0.8 %s, %s, %d connections; bodies in memory; median of "
      .. "%d runs; %s}\"", g.nginx, g.wrk, g.connections, g.runs, g.date),
    "set style data histogram", "set style histogram clustered gap 1", "set style fill solid 0.85 border -1",
    "set boxwidth 0.9", "set logscale y", "set grid ytics lc rgb '#dddddd'", "set key top right box opaque",
    "set title 'requests/s (higher is better; labels: qjson × lua-cjson)'", "set ylabel 'requests/s'",
    "set yrange [10:300000]",
    "plot $d using 2:xtic(1) title 'qjson' lc rgb '#1f6fd1', $d using 3 title 'lua-cjson' lc rgb '#d1601f', "
      .. "$d using 6 title 'floor: body read, no JSON' lc rgb '#aaaaaa', "
      .. "$d using ($0-0.3):2:7 with labels offset 0,1 font ',10' notitle",
    "set title 'p99 latency (lower is better)'", "set ylabel 'p99 latency, ms'", "set yrange [0.1:3000]",
    "set key top left box opaque",
    "plot $d using 4:xtic(1) title 'qjson' lc rgb '#1f6fd1', $d using 5 title 'lua-cjson' lc rgb '#d1601f'",
    "unset multiplot", "",
  }, "\n")
  return gnuplot(script, png_path, tmp_dir, "bench-gateway")
end

----------------------------------------------------------------------
-- docs/benchmarks.md
----------------------------------------------------------------------
local function md_workload_table(results, w)
  local rows = {}
  for _, s in ipairs(library_order(results, w.name)) do
    rows[#rows + 1] = row_cells(s, true, main_lib(w.kind))
  end
  local header = { "library", "ops/s (median)", "min..max", "MB/s", "× cjson", "× memchr", "Lua heap retained KB",
    "peak RSS MB" }
  return util.md_table(header, rows, "lrrrrrrr")
end

-- The speed-up table: one row per workload, × lua-cjson of each qjson API
-- and of the fastest other library.
local function summary_table(results)
  local apis = { "qjson", "qjson.decode", "qjson.cjson" }
  local rows = {}
  for _, w in ipairs(results.workloads) do
    local r, any = { w.name }, false
    for _, a in ipairs(apis) do
      local s = find(results, w.name, a)
      r[#r + 1] = s and s.x_cjson and fmt_sig(s.x_cjson, "×") or ""
      any = any or s ~= nil
    end
    local best, ratio
    for _, s in ipairs(results.scenarios) do
      if s.workload == w.name and not is_qjson(s.library) and s.library ~= FLOOR and s.library ~= BASELINE
        and (not best or s.median > best.median) then
        best = s
      end
    end
    if best and best.x_cjson then
      ratio = format("%s %s", best.library, fmt_sig(best.x_cjson, "×"))
    end
    r[#r + 1] = ratio or ""
    local b = find(results, w.name, BASELINE)
    r[#r + 1] = b and fmt_ops(b.median) or ""
    if any then
      rows[#rows + 1] = r
    end
  end
  return util.md_table({ "workload", "qjson.parse (encode: qjson.encode)", "qjson.decode", "qjson.cjson",
    "fastest other library (not lua-cjson)", "lua-cjson ops/s" }, rows, "lrrrrr")
end

local function list_of(items, fmt)
  local lines = {}
  for _, k in ipairs(items or {}) do
    lines[#lines + 1] = fmt(k)
  end
  return concat(lines, "\n")
end

-- The nginx gateway section, from bench/gateway/run.lua's results.
function M.gateway_markdown(g, rel)
  if not g then
    return "Not run yet: `make bench-gateway` measures it and writes this section.\n"
  end
  local L = {}
  local function add(...)
    for _, x in ipairs({ ... }) do
      L[#L + 1] = x
    end
  end
  add(format("Measured on %s by `make bench-gateway` (`luajit bench/gateway/run.lua`), results in [`%s`](../%s): "
    .. "%s, one worker, on 127.0.0.1, driven by %s (%d connections, one thread). Request bodies are held in memory "
    .. "(`client_body_buffer_size %s`)%s. Each handler reads `model` and every `messages[i].content` "
    .. "(for array contents, each part's `type` and `text`), sets `temperature`, re-encodes the body and responds "
    .. "with its length. %s", g.date, rel, rel, g.nginx or "nginx", g.wrk or "wrk", g.connections,
    g.body_buffer, g.file_mode and format("; the `%s` rows are with bodies buffered to a temporary file "
      .. "(`client_body_buffer_size %s`), read with `qjson.parse_file` / `io.open`", "file", g.file_buffer) or "",
    g.qjson_api_note or ""), "")
  add(format("Every figure is the median of %d runs of %g s per handler, the handlers taking turns; "
    .. "the machine is shared (load average %s at the start), and %s, so "
    .. "compare the ratios; the p99 latencies carry the scheduling noise of the other jobs.", g.runs, g.seconds,
    (g.loadavg or "?"):match("^(%S+ %S+ %S+)") or "?",
    g.pinned and "the nginx worker runs on CPU 0 and wrk on CPU 1 (`worker_cpu_affinity`, `taskset`)"
      or "wrk and nginx share its cores"), "")
  local rows = {}
  for _, r in ipairs(g.rows) do
    local base = r.handler == "lua-cjson"
    rows[#rows + 1] = { r.body_label, r.mode, r.handler == "qjson" and "**qjson**" or r.handler, fmt_ops(r.rps),
      r.x_rps and fmt_sig(r.x_rps, "×") or (base and "1×" or ""), r.of_floor and fmt_sig(r.of_floor, "×") or "",
      format("%.2f", r.p50_ms), format("%.2f", r.p99_ms),
      r.p99_ratio and fmt_sig(r.p99_ratio, "×") or (base and "1×" or ""),
      format("%.1f", r.rss_before_kb / 1024), format("%.1f", r.rss_after_kb / 1024), fmt_ops(r.requests),
      tostring(r.errors) }
  end
  add(format("lua-cjson, the baseline of every ratio: %s.%s", g.cjson or "Debian's lua-cjson 2.1.0",
    g.cjson and not g.cjson:find("^Debian") and " The `lua-cjson 2.1.0 (Debian)` rows do the same job with "
      .. "Debian's lua-cjson 2.1.0 (2012), for comparison." or ""), "")
  add("Rows: `qjson` and `lua-cjson` do the job; `floor (no JSON)` only reads the body (from memory, or its "
    .. "file) and answers its length: the most requests/s any handler can reach on this nginx and machine. "
    .. "\"of floor\" = requests/s over the floor's; the floor's own \"× cjson\" is therefore the highest ratio "
    .. "over lua-cjson any handler can reach. The worker's RSS is read from `/proc` before a handler's "
    .. "first run and after its last (the handlers share the one worker and take turns).", "")
  add(util.md_table({ "body", "body in", "handler", "requests/s", "× cjson", "of floor", "p50 ms", "p99 ms",
    "p99 / cjson's", "worker RSS before MB", "after MB", "requests", "errors" }, rows, "lllrrrrrrrrrr"), "")
  if g.soak then
    local rows2 = {}
    for _, s in ipairs(g.soak) do
      rows2[#rows2 + 1] = { s.handler, s.body_label, fmt_ops(s.requests), format("%.1f", s.rss_start_kb / 1024),
        format("%.1f", s.rss_end_kb / 1024), format("%+.2f", (s.rss_end_kb - s.rss_start_kb) / 1024),
        s.met and "**met**" or "**not met**" }
    end
    add("Worker RSS over a long run (after a warm-up of " .. fmt_ops(g.soak_warmup or 0) .. " requests):", "",
      util.md_table({ "handler", "body", "requests", "RSS at start MB", "RSS at end MB", "growth MB",
        "< 5 MB growth" }, rows2, "llrrrrl"), "")
  end
  if g.targets then
    local rows3 = {}
    for _, t in ipairs(g.targets) do
      rows3[#rows3 + 1] = { t.what, t.measured, t.needed, t.ceiling or "", t.met and "**met**" or "**not met**" }
    end
    add("Targets (\"the floor reaches\": the floor handler's own requests/s over lua-cjson's, which no handler "
      .. "can pass on this nginx and machine):", "",
      util.md_table({ "target", "measured", "needed", "the floor reaches", "verdict" }, rows3, "lrrrl"), "")
  end
  add(M.gateway_costs(g), "")
  add("![requests/s and p99 latency per body size](bench-gateway.png)", "")
  return concat(L, "\n")
end

-- Time per request (1 / requests/s) and what each handler adds to the
-- floor's: the JSON job's own cost, which the ratios of whole requests
-- dilute where the floor is most of a request (small bodies).
function M.gateway_costs(g)
  local by = {}
  for _, r in ipairs(g.rows) do
    by[r.body_label .. "/" .. r.mode .. "/" .. r.handler] = r
  end
  local rows = {}
  for _, r in ipairs(g.rows) do
    local key = r.body_label .. "/" .. r.mode .. "/"
    local floor, cj = by[key .. "floor (no JSON)"], by[key .. "lua-cjson"]
    if r.handler == "qjson" and floor and cj then
      local us = function(x)
        return 1e6 / x.rps
      end
      local q_job, c_job = us(r) - us(floor), us(cj) - us(floor)
      rows[#rows + 1] = { r.body_label, r.mode, format("%.1f", us(floor)), format("%.1f", us(cj)),
        format("%.1f", us(r)), format("%.1f", c_job), q_job > 0 and format("%.1f", q_job) or "below the floor",
        q_job > 0 and fmt_sig(c_job / q_job, "×") or "" }
    end
  end
  return "Where a request's time goes (µs a request = 1 / requests/s; \"job\" = a handler's time beyond the "
    .. "floor's, the JSON work and the garbage it leaves; from the medians above, so as noisy as they are: a "
    .. "handler can measure below the floor). Where the floor is most of a request, as at 2 KB, the "
    .. "requests/s ratio stays well below the ratio of the jobs:\n\n"
    .. util.md_table({ "body", "body in", "floor µs", "lua-cjson µs", "qjson µs", "lua-cjson job µs",
      "qjson job µs", "job × cjson" }, rows, "llrrrrrr")
end

function M.markdown(results, results_rel, gateway, gateway_rel)
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
      .. "ratios are what to compare, not absolute numbers. The nginx gateway under load is "
      .. "[its own section](#nginx-gateway-under-load) (`make bench-gateway`).", m.date, results_rel,
      results_rel), "")

  add("## Targets", "",
    "The targets from the issues, measured in this run (the qjson row checked is named in each target; "
      .. "\"ahead of every other library\" compares the job's main qjson row, `qjson.parse` for reading, "
      .. "`qjson.decode` for decode + encode, `qjson.encode` for encoding, with the fastest library that is "
      .. "not qjson; the target after it, each other qjson API's row, named beside the workload):", "")
  local rows = {}
  for i, v in ipairs(results.targets) do
    local prev = results.targets[i - 1]
    local workload = v.workload
    if v.per_library then
      workload = format("%s (`%s`)", workload, v.library)
    end
    rows[#rows + 1] = { (prev and prev.target == v.target) and "" or v.target, workload, measured_text(v),
      needed_text(v), verdict_text(v, true) }
  end
  add(util.md_table({ "target", "workload", "measured", "needed", "verdict" }, rows, "llrrl"), "")
  if #(results.unavailable or {}) > 0 then
    add("**Libraries not measured in this run** (their rows are missing):", "",
      list_of(results.unavailable, function(u)
        return format("- `%s`: %s", u.library, u.reason)
      end), "")
  end
  if #(results.skipped or {}) > 0 then
    add("**Workloads skipped in this run**:", "", list_of(results.skipped, function(k)
      return format("- `%s`: %s", k.name, k.reason)
    end), "")
  end
  if #(results.failed or {}) > 0 then
    add("**Wrong answers: not timed.** Before timing, every library's answer is checked against the others' "
      .. "(`bench/one.lua <workload> --verify`), and every timed call against the checked checksum. These "
      .. "disagreed, so they have no figures:", "", list_of(results.failed, function(f)
        return format("- `%s`%s: %s", f.name, f.library and " (" .. f.library .. ")" or "", f.reason)
      end), "")
  end

  add("## Machine", "",
    format("- CPU: %s, %d cores (%s)%s", m.cpu, m.cores, m.cpu_flags,
      m.mem_total_mb and format(", %d MB RAM", m.mem_total_mb) or ""),
    format("- Kernel: %s", m.kernel or "?"),
    format("- %s (%s); lua-cjson, the baseline of every ratio: %s (its `_VERSION` says %s); row `lua-cjson-2.1.0`: "
      .. "Debian's lua-cjson %s; dkjson %s (pure Lua, no LPeg)%s", m.luajit, m.jit_arch,
      m.cjson_which or "Debian's lua-cjson", m.cjson, m.cjson_debian or m.cjson, m.dkjson,
      m.simdjson and "; lua-resty-simdjson " .. m.simdjson or "; lua-resty-simdjson not installed"),
    format("- qjson %s, stage 1 backend `%s`, commit %s%s", m.qjson, m.qjson_backend, m.git_commit or "?",
      m.git_dirty and " plus uncommitted changes to src/ or lua/" or ""),
    format("- Load average at start %.2f %.2f %.2f, at end %.2f %.2f %.2f (the machine is shared: other jobs "
      .. "were running, so expect noise of ±20%% between runs; the per-scenario load is in the JSON)",
      m.loadavg_start[1], m.loadavg_start[2], m.loadavg_start[3], m.loadavg_end[1], m.loadavg_end[2],
      m.loadavg_end[3]),
    format("- Whole run: %.0f s", m.runtime_seconds), "")

  add("## Speed-up over lua-cjson", "",
    "× lua-cjson = ops/s over lua-cjson's doing the same job on the same document (reading jobs: "
      .. "`cjson.decode` + table reads; decode + encode jobs: `cjson.decode`, the edit, `cjson.encode`; "
      .. "encode: `cjson.encode` of the same table). Empty: that API does not do this job.", "",
    "![qjson's speed-up over lua-cjson](bench-ratios.png)", "", summary_table(results), "")

  add("## Results: parse and read fields", "",
    "Columns: median ops/s over the rounds with the slowest and fastest round; MB/s = median ops/s × document "
      .. "size / 10^6; × cjson = ops/s over lua-cjson's on the same document; × memchr = qjson's ops/s over "
      .. "the floor's (1 would be as fast as one memchr pass over the document); Lua heap retained = "
      .. "`collectgarbage(\"count\")` after the run and a full GC, with the last result (document or table) "
      .. "still referenced, minus the same figure before the first parse; peak RSS = `VmHWM` at the end "
      .. "(includes the input string and the interpreter, ~4 MB). Rows: `qjson` = `qjson.parse` and the "
      .. "document API; `qjson.decode` = lazy views read like lua-cjson's tables (`qjson.len` for lengths); "
      .. "`qjson.cjson` = the drop-in module's `decode` to plain tables.", "")
  local sections = {
    { title = "### Chat-completion ladder", kinds = { chat = true }, extra = "![MB/s against document size, "
      .. "log-log](bench-chat.png)" },
    { title = "### REST issues list", kinds = { issues = true } },
    { title = "### Interleaved mix", kinds = { mix = true },
      extra = "One op reads the four chat requests in turn (100 KB, 200 KB, 500 KB, 1 MB), so no size stays "
        .. "in the caches and branch predictors from one call to the next." },
    { title = "### Real documents (../shared/data/corpus)", kinds = { twitter = true, citm = true, canada = true },
      extra = "Each decoded and a few fields read from every record (the same fields with every library). "
        .. "Before timing, `qjson.cjson.decode`'s tables and `qjson.materialize` of `qjson.decode`'s view are "
        .. "checked deep-equal to `cjson.decode`'s, numbers exactly." },
    { title = "### ~200-byte API object, in a loop", kinds = { tiny = true },
      extra = "The object `encode-tiny` encodes, decoded and every one of its 11 leaf values read. No floor row: "
        .. "one memchr pass over 194 bytes is call overhead." },
  }
  for _, sec in ipairs(sections) do
    local parts = {}
    for _, w in ipairs(results.workloads) do
      if sec.kinds[w.kind] and #library_order(results, w.name) > 0 then
        parts[#parts + 1] = "#### " .. workload_title(w) .. "\n\n" .. md_workload_table(results, w) .. "\n"
      end
    end
    if #parts > 0 then
      add(sec.title, "")
      if sec.extra then
        add(sec.extra, "")
      end
      add(concat(parts, "\n"))
    end
  end

  -- The qjson reader written three ways.
  local variants = {}
  for _, l in ipairs(c.libraries) do
    if l == MAIN or l:match("^qjson%-") then
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

  local edits = {}
  for _, w in ipairs(results.workloads) do
    if EDIT_KINDS[w.kind] and #library_order(results, w.name) > 0 then
      edits[#edits + 1] = "#### " .. workload_title(w) .. "\n\n" .. md_workload_table(results, w) .. "\n"
    end
  end
  if #edits > 0 then
    add("## Results: decode, edit, re-encode", "",
      "The gateway's job: decode a chat request, change nothing (`roundtrip`), set `temperature = 0.5` "
        .. "(`modtop`), add `new_field = \"x\"` (`addfield`) or set `messages[1].role = \"system\"` "
        .. "(`modnested`), and encode it again. qjson: `qjson.decode` (a lazy view), the edit on the view, "
        .. "`qjson.encode(view)`, which writes untouched parts as their original bytes; the others decode to "
        .. "tables and encode those. Checked before timing: every output decodes (`cjson.decode`) to the "
        .. "document with the edit applied, and qjson's unmodified output is the input byte for byte. "
        .. "The targets compare the edits at 10 MB with the unmodified decode + encode of the same document. "
        .. "An unmodified view encodes to the very string it was decoded from, so that round trip costs the "
        .. "parse alone, while an edit returns a new string of the document's size: `luajit "
        .. "bench/edit_floor.lua` times, in one process, the round trip, an edit, and the parse plus one "
        .. "`ffi.copy` of the document into a buffer allocated once, less than any edit can cost.",
      "", concat(edits, "\n"))
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

  add("## nginx gateway under load", "", M.gateway_markdown(gateway, gateway_rel))

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
    .. "traces, and state that stays after `jit.flush()` (up to %.1f KB here); the harness alone accounts for "
    .. "up to %.1f KB (the memchr rows).", held, flushed, floor_kb)
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
      .. "at most %.1f MB. Native documents (those that need over 16 KB; smaller ones live in the Lua heap) "
      .. "are freed by their `ffi.gc` finalizers, which run only when the Lua GC runs; the GC does not see "
      .. "native bytes, and such a document costs the Lua heap ~0.2 KB, so thousands of dead documents can "
      .. "wait for a collection.", concat(grew, ", "), base_max)
  end
  add("### Notes", "", concat(notes, "\n"), "")

  add("## Method", "",
    "- **Workloads** (`bench/workloads.lua`), generated deterministically (a seeded xorshift32, no "
      .. "`math.random`) and cached in `bench/data/`:",
    "  - the chat-completion ladder, 2 KB, 60 KB, 100 KB, 200 KB, 500 KB, 1 MB, 2 MB, 5 MB and 10 MB (each "
      .. "within 2% of its target): "
      .. "`{\"model\":\"gpt-4o\",\"temperature\":0.7,\"max_tokens\":1024,\"stream\":false,\"messages\":[...]}` "
      .. "with one message per MB (at least one), each `{\"role\":\"user\",\"content\":[{\"type\":\"text\","
      .. "\"text\":...},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,...\"}}]}`; "
      .. "the text is 240-420 bytes of sentences with `\\n`, `\\\"`, `\\t`, `\\u2014` escapes and raw 2-, 3- "
      .. "and 4-byte UTF-8; the base64 payload fills the document to its size;",
    "  - a GitHub REST issues list of ~100 KB: 32 issue objects with every field the API returns (`user`, "
      .. "`labels`, `assignee(s)`, `reactions`, URLs, nulls), bodies with `\\r\\n`, `\\\"` and `\\u` escapes;",
    "  - the interleaved mix: the 100 KB, 200 KB, 500 KB and 1 MB chat requests in turn;",
    "  - the real documents twitter.json, citm_catalog.json and canada.json of `../shared/data/corpus/` "
      .. "(read where they are, beside the checkout; skipped with a message when absent), decoded and read, "
      .. "and the tables `cjson.decode` builds from them, encoded;",
    "  - a ~200-byte API-gateway-like object (`" .. (results.tiny_json or "workloads.TINY") .. "`): strings "
      .. "(one with escapes and non-ASCII), integers, a fraction, a boolean, a nested object, an array; "
      .. "decoded and fully read, and encoded.",
    "- **Jobs** (`bench/libs.lua`), per library, as its user would write it. Chat: read `model`, "
      .. "`temperature` and, for every message, its `content` array and, per part, `type` and (text parts) "
      .. "`text`; the image URL is not read: a gateway doesn't. Issues list: `number`, `title`, `state`, "
      .. "`user.login` of every issue. Real documents: the fields named in each table's title. Tiny object: "
      .. "all 11 leaf values. `qjson`: `qjson.parse` + `doc:len`/`get_str`/`get_num` on compiled paths (or "
      .. "cursors from `doc:ipairs`); `qjson.decode`, `qjson.cjson`, lua-cjson, dkjson and lua-resty-simdjson: "
      .. "the one table-reading code, with `qjson.len` for a view's lengths. dkjson parses up to 1 MB only.",
    "- **Decode + encode jobs**: `encode(edit(decode(s)))` per call; the edit is the same function for a "
      .. "view and a table. Each call's checksum is the output's length.",
    "- **Encode job**: `qjson.encode(t)`, `cjson.encode(t)`, `dkjson.encode(t, state)` of the one table "
      .. "`cjson.decode` built from the document, once per process before the heap baseline and outside the "
      .. "timed work; each call's checksum is the output's length.",
    "- **Floor**: `memchr(s, 0x01, #s)` through the FFI, a byte valid JSON never holds, so one full pass of "
      .. "glibc's vectorized memchr: the least work any reader of every byte must do.",
    "- **Same answers** (`bench/one.lua <workload> --verify`, and `make bench-smoke`, part of `make test`): "
      .. "before timing, each workload's job is run once by every library with the timed code (collecting "
      .. "every value read) and all must read identical values; decoders that build a whole document "
      .. "(`qjson.cjson`, `qjson.materialize` of a view) must equal `cjson.decode`'s table, numbers exactly; "
      .. "decode + encode outputs must decode to the edited document, and qjson's unmodified view must encode "
      .. "to the input byte for byte; `qjson.encode`'s output must be `cjson.encode`'s byte for byte. Each "
      .. "timed process also checks its checksum on every call. A workload or scenario that fails is listed "
      .. "above and not timed, and `make bench` exits 1.",
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
      .. "native peak via `VmHWM` in `/proc/self/status`. Before the heap baseline, a throwaway long trace "
      .. "grows LuaJIT's trace recorder buffers to their limit: they stay at the size of the longest trace "
      .. "ever recorded and never shrink, so they would otherwise count against whichever run records the "
      .. "longest trace (8 KB between two runs of the same code).",
    "- **lua-resty-simdjson** is timed when `require(\"resty.simdjson\")` loads. It is not packaged in "
      .. "Debian, so a fresh machine skips it (listed above when so); to include it, build it and put it on "
      .. "`LUA_PATH` and `LUA_CPATH` (below). Outside nginx, `bench/libs.lua` gives it what OpenResty would: "
      .. "`ngx.null` (lua-cjson's null), resty.core.base's error-message box, and the `array_mt`, "
      .. "`empty_array_mt` and `empty_array` of OpenResty's lua-cjson (qjson's values), which Debian's "
      .. "lua-cjson lacks.", "")

  add("## Reproducing", "",
    "```sh",
    "make bench          # full run (~" .. format("%.0f", m.runtime_seconds / 60 + 0.5)
      .. " min here): results JSON, this page, the plots, the README's table",
    "make bench-quick    # 2 short rounds, fewer sizes, no API variants; writes bench/results/tmp/quick-<date>.json",
    "make bench-smoke    # every job of every library once, answers compared (part of make test)",
    "make bench-gateway  # nginx + wrk: the gateway section of this page",
    "luajit bench/run.lua --only=chat-2k --libs=qjson,lua-cjson --procs=5   # a subset, 5 processes each",
    "luajit bench/one.lua chat-1m qjson          # one scenario, one RESULT line of JSON",
    "LUA_PATH='<dir>/lib/?.lua;<dir>/lib/?/init.lua;;' LUA_CPATH='<dir>/?.so;;' make bench"
      .. "   # with lua-resty-simdjson built in <dir>",
    "luajit bench/one.lua read-twitter --verify  # check the libraries read the same values",
    "luajit bench/edit_floor.lua modtop-10m     # round trip, edit, parse + one copy of the document, one process",
    "luajit bench/report.lua bench/results/<date>.json   # rebuild this page and the plots from a results file",
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

-- The newest results file matching `pattern` under bench/results, or nil.
local function newest(root, pattern)
  local p = io.popen("ls " .. util.shell_quote(root .. "/bench/results") .. "/" .. pattern
    .. " 2>/dev/null | sort | tail -n 1")
  local path = p and p:read("*l")
  if p then
    p:close()
  end
  return path ~= "" and path or nil
end
M.newest = newest

-- The README's headline table, between its bench:headline markers.
local HEADLINE = {
  { "parse + read fields (`qjson.parse`)", "chat-2k", "qjson", "chat request, 2 KB" },
  { "parse + read fields (`qjson.parse`)", "chat-100k", "qjson", "chat request, 100 KB" },
  { "parse + read fields (`qjson.parse`)", "chat-1m", "qjson", "chat request, 1 MB" },
  { "parse + read fields (`qjson.parse`)", "chat-10m", "qjson", "chat request, 10 MB" },
  { "decode + read fields (`qjson.decode`)", "chat-100k", "qjson.decode", "chat request, 100 KB" },
  { "decode + read fields (`qjson.decode`)", "chat-10m", "qjson.decode", "chat request, 10 MB" },
  { "decode + encode, unmodified", "roundtrip-1m", "qjson.decode", "chat request, 1 MB" },
  { "decode + set a field + encode", "modtop-10m", "qjson.decode", "chat request, 10 MB" },
  { "parse + read fields (`qjson.parse`)", "issues-100k", "qjson", "GitHub issues list, 100 KB" },
  { "decode to tables (`qjson.cjson`)", "read-twitter", "qjson.cjson", "twitter.json" },
  { "decode to tables (`qjson.cjson`)", "read-canada", "qjson.cjson", "canada.json" },
  { "decode + read every field", "decode-tiny", "qjson.decode", "~200-byte object" },
  { "encode", "encode-twitter", "qjson", "table from twitter.json" },
  { "encode", "encode-tiny", "qjson", "~200-byte object" },
}

function M.readme_headline(results, gateway)
  local m = results.meta
  -- A column for lua-resty-simdjson when this run timed it: qjson's ops/s
  -- over its, on the same job (empty where it has no figure).
  local simdjson = false
  for _, h in ipairs(HEADLINE) do
    simdjson = simdjson or find(results, h[2], "resty.simdjson") ~= nil
  end
  local rows = {}
  for _, h in ipairs(HEADLINE) do
    local s = find(results, h[2], h[3])
    if s then
      local row = { h[1], h[4], fmt_ops(s.median), fmt_sig(s.x_cjson, "×") }
      if simdjson then
        local o = find(results, h[2], "resty.simdjson")
        row[5] = o and o.median and o.median > 0 and fmt_sig(s.median / o.median, "×") or ""
      end
      rows[#rows + 1] = row
    end
  end
  local head = { "job", "document", "qjson ops/s", "× lua-cjson" }
  if simdjson then
    head[5] = "× lua-resty-simdjson"
  end
  local L = {
    format("From one `make bench` run (%s; %s cores, %s; %s); ratios are what to compare, as the machine is "
      .. "shared. Full tables, targets, method and memory figures in [docs/benchmarks.md](docs/benchmarks.md).",
      m.date, m.cores, m.cpu, m.luajit),
    "",
    util.md_table(head, rows, simdjson and "llrrr" or "llrr"),
    "",
  }
  if gateway then
    local g = {}
    for _, r in ipairs(gateway.rows) do
      if r.handler == "qjson" and r.x_rps and r.mode == "memory" then
        g[#g + 1] = format("%s %s (p99 %s lua-cjson's)", r.body_label, fmt_sig(r.x_rps, "×"),
          fmt_sig(r.p99_ratio, "×"))
      end
    end
    if #g > 0 then
      L[#L + 1] = "nginx gateway (`make bench-gateway`, one worker): requests/s over lua-cjson's, " .. concat(g, ", ")
        .. "."
      L[#L + 1] = ""
    end
  end
  L[#L + 1] = "![qjson's speed-up over lua-cjson](docs/bench-ratios.png)"
  L[#L + 1] = ""
  L[#L + 1] = "![parse + read fields, MB/s against document size](docs/bench-chat.png)"
  return concat(L, "\n")
end

local function update_readme(root, text)
  local path = root .. "/README.md"
  local readme = util.read_file(path)
  if not readme then
    return nil
  end
  local a, b = readme:find("<!-- bench:headline -->\n", 1, true)
  local c = readme:find("<!-- /bench:headline -->", 1, true)
  if not a or not c or c < b then
    return nil
  end
  util.write_file(path, readme:sub(1, b) .. text .. "\n" .. readme:sub(c))
  return path
end

function M.write_docs(results, results_path, root)
  local gpath = newest(root, "gateway-*.json")
  local gateway = gpath and require("cjson").decode(util.read_file(gpath)) or nil
  local md_path = root .. "/docs/benchmarks.md"
  local md = M.markdown(results, relative(results_path, root), gateway, gpath and relative(gpath, root))
  -- The Rust core's section (benches/core writes it) is kept as it was.
  local old = util.read_file(md_path) or ""
  local a = old:find("<!-- core-bench:begin", 1, true)
  local _, b = old:find("<!-- core-bench:end -->\n", 1, true)
  if a and b and b > a then
    local m = md:find("\n## Method", 1, true)
    local core = old:sub(a, b)
    md = m and md:sub(1, m) .. core .. md:sub(m) or md .. "\n" .. core
  end
  util.write_file(md_path, md)
  local tmp = root .. "/bench/results/tmp"
  local png = M.plot(results, root .. "/docs/bench-chat.png", tmp)
  local ratios = M.plot_ratios(results, root .. "/docs/bench-ratios.png", tmp)
  if gateway then
    M.plot_gateway(gateway, root .. "/docs/bench-gateway.png", tmp)
  end
  update_readme(root, M.readme_headline(results, gateway))
  return md_path, png, ratios
end

-- Standalone (not required as a module): regenerate the docs.
if (...) ~= "report" then
  local script = arg and arg[0] or "bench/report.lua"
  local bench_dir = script:match("^(.*)/[^/]*$") or "."
  local root = bench_dir:match("^(.*)/bench$") or (bench_dir == "bench" and ".") or bench_dir .. "/.."
  local path = arg[1] or newest(root, "[0-9]*.json")
  if not path or path == "" then
    io.stderr:write("report.lua: no results file (run `make bench` first)\n")
    os.exit(1)
  end
  local results = require("cjson").decode((assert(util.read_file(path), "cannot read " .. path)))
  M.derive(results)
  local md, png, ratios = M.write_docs(results, path, root)
  print("wrote " .. md .. ", " .. tostring(png) .. ", " .. tostring(ratios))
end

return M
