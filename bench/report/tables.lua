-- The cells and titles the text tables (bench/run.lua's output) and the
-- Markdown share: a scenario's row, a workload's title, a target's
-- verdict.
local util = require("util")
local derive = require("report.derive")

local format, concat = string.format, table.concat
local fmt_ops, fmt_sig = util.fmt_ops, util.fmt_sig
local BASELINE, EDIT_KINDS = derive.BASELINE, derive.EDIT_KINDS
local is_qjson, library_order, find, main_lib = derive.is_qjson, derive.library_order, derive.find, derive.main_lib
local is_floor, floor_of = derive.is_floor, derive.floor_of

local M = {}

function M.row_cells(s, markdown, main)
  local x = markdown and "×" or "x"
  local name = is_floor(s.library) and s.library .. " (floor)" or s.library
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

-- The columns; the sixth is the ratio to the floor of the job kind's rows.
local function header(kind, markdown)
  if markdown then
    return { "library", "ops/s (median)", "min..max", "MB/s", "× cjson", "× " .. floor_of(kind), "Lua heap retained KB",
      "peak RSS MB" }
  end
  return { "library", "ops/s (median)", "min..max", "MB/s", "x cjson", "x " .. floor_of(kind), "heap KB",
    "peak RSS MB" }
end

local CORPUS_JOBS = {
  twitter = "every status's id, text, user.screen_name, user.followers_count, retweet_count",
  citm = "every performance's id, eventId, start, venueCode, seat category and price counts, its event's name",
  canada = "type; each feature's properties.name, geometry.type; each ring's point count and first point",
}

function M.workload_title(w)
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
      rows[#rows + 1] = M.row_cells(s, false)
    end
    if #rows > 0 then
      out[#out + 1] = M.workload_title(w) .. "\n" .. util.text_table(header(w.kind, false), rows)
    end
  end
  return concat(out, "\n\n")
end

function M.verdict_text(v, markdown)
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

function M.measured_text(v, x)
  if v.measured == nil then
    return "-"
  end
  if v.metric == "heap_retained_kb" then
    return format("%.1f KB", v.measured)
  end
  return fmt_sig(v.measured, x or "×")
end

function M.needed_text(v)
  if v.at_least then
    return (v.strictly and "> " or "≥ ") .. fmt_sig(v.at_least, "×")
  end
  return format("≤ %d KB", v.at_most)
end

function M.text_targets(results)
  local rows = {}
  for _, v in ipairs(results.targets) do
    rows[#rows + 1] = { v.short, v.workload, v.library, M.measured_text(v, "x"), M.verdict_text(v, false) }
  end
  return "Targets\n" .. util.text_table({ "target", "workload", "qjson row", "measured", "verdict" }, rows)
end

-- Markdown tables.
function M.md_workload_table(results, w)
  local rows = {}
  for _, s in ipairs(library_order(results, w.name)) do
    rows[#rows + 1] = M.row_cells(s, true, main_lib(w.kind))
  end
  return util.md_table(header(w.kind, true), rows, "lrrrrrrr")
end

-- The speed-up table: one row per workload, × lua-cjson of each qjson API
-- and of the fastest other library.
function M.summary_table(results)
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
      if s.workload == w.name and not is_qjson(s.library) and not is_floor(s.library) and s.library ~= BASELINE
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

function M.list_of(items, fmt)
  local lines = {}
  for _, k in ipairs(items or {}) do
    lines[#lines + 1] = fmt(k)
  end
  return concat(lines, "\n")
end

return M
