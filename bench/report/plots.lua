-- The plots (gnuplot): docs/bench-chat.png (MB/s along the chat ladder),
-- docs/bench-ratios.png (the speed-up over lua-cjson), and
-- docs/bench-gateway.png (the nginx gateway).
local util = require("util")
local derive = require("report.derive")

local format, concat = string.format, table.concat
local fmt_sig = util.fmt_sig
local find, MAIN = derive.find, derive.MAIN

local M = {}

-- `s` as a gnuplot string: single quotes, a quote inside doubled.
local function quoted(s)
  return "'" .. s:gsub("'", "''") .. "'"
end

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
    plots[#plots + 1] = format("$data using 1:%d with linespoints %s title %s", i + 1, l[3], quoted(l[2]))
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

-- The left panel's data (one row per rung of the chat ladder, a column
-- per job) and its plot clauses (only for the jobs that ran).
local function ratio_lines(results, sizes)
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
      lines[#lines + 1] = format("$left using 1:%d with linespoints %s title %s", i + 1, j.style, quoted(j.title))
    end
  end
  lines[#lines + 1] = "1 with lines lw 1 dt 2 lc rgb '#333333' title 'as fast as lua-cjson'"
  return left, lines
end

-- The right panel's data (one row per document, a column per qjson API
-- that ran) and its bars.
local function ratio_bars(results)
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
    bars[#bars + 1] = format("$right using %d:xtic(1) title %s lc rgb '%s'", i + 1, quoted(a[2]), a[3])
  end
  return right, bars
end

function M.plot_ratios(results, png_path, tmp_dir)
  local sizes = {}
  for _, w in ipairs(chat_ladder(results)) do
    sizes[#sizes + 1] = w
  end
  if #sizes == 0 then
    return nil
  end
  local left, lines = ratio_lines(results, sizes)
  local right, bars = ratio_bars(results)
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
  local data, bodies, with_patch = {}, {}, false
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
    local q, c, f, bound = b.qjson, b["lua-cjson"], b["floor (no JSON)"], b["bound (strict parse + output)"]
    if not (q and c and f and bound) then
      return nil
    end
    -- (Columns 9 and 10: the select+patch handler's, when it ran.)
    local sp = b["qjson select+patch"] or {}
    with_patch = with_patch or sp.rps ~= nil
    data[#data + 1] = format('"%s" %.6g %.6g %.6g %.6g %.6g "%s" %.6g %.6g %.6g', b.label, q.rps, c.rps, q.p99_ms,
      c.p99_ms, f.rps, fmt_sig(q.x_rps, "×"), bound.rps, sp.rps or 0 / 0, sp.p99_ms or 0 / 0)
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
    "set yrange [10:3000000]",
    "plot $d using 2:xtic(1) title 'qjson (views)' lc rgb '#1f6fd1', "
      .. (with_patch and "$d using 9 title 'qjson select+patch' lc rgb '#6fa8ff', " or "")
      .. "$d using 3 title 'lua-cjson' lc rgb '#d1601f', "
      .. "$d using 8 title 'bound: strict parse + output string' lc rgb '#66aa66', "
      .. "$d using 6 title 'floor: body read, no JSON' lc rgb '#aaaaaa', "
      .. "$d using ($0-0.3):2:7 with labels offset 0,1 font ',10' notitle",
    "set title 'p99 latency (lower is better)'", "set ylabel 'p99 latency, ms'", "set yrange [0.1:3000]",
    "set key top left box opaque",
    "plot $d using 4:xtic(1) title 'qjson (views)' lc rgb '#1f6fd1', "
      .. (with_patch and "$d using 10 title 'qjson select+patch' lc rgb '#6fa8ff', " or "")
      .. "$d using 5 title 'lua-cjson' lc rgb '#d1601f'",
    "unset multiplot", "",
  }, "\n")
  return gnuplot(script, png_path, tmp_dir, "bench-gateway")
end

return M
