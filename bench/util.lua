-- Small helpers shared by the bench scripts: files, a deterministic
-- pretty JSON writer for the results file, number formatting, tables,
-- the deep comparison, medians, the clock, shell commands.
local ffi = require("ffi")

local format, rep, concat = string.format, string.rep, table.concat

local M = {}

-- The file helpers are the specs' (spec/support.lua, which changes no
-- setting when loaded), found from this file's own path.
local support
do
  local dir = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
  support = dofile(dir .. "/../spec/support.lua")
end
M.read_file, M.write_file = support.read, support.write

function M.shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function json_number(v)
  if v ~= v or v == math.huge or v == -math.huge then
    return "null"
  end
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then
    return format("%d", v)
  end
  for _, p in ipairs({ "%.6g", "%.10g", "%.15g" }) do
    local s = format(p, v)
    if tonumber(s) == v then
      return s
    end
  end
  return format("%.17g", v)
end

local ESC = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return ESC[c] or format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  return n == #t
end

-- Pretty JSON with sorted keys (the same data gives the same bytes);
-- arrays of scalars stay on one line.
function M.json_encode(v, indent)
  indent = indent or ""
  local t = type(v)
  if t == "nil" then
    return "null"
  elseif t == "boolean" then
    return tostring(v)
  elseif t == "number" then
    return json_number(v)
  elseif t == "string" then
    return json_string(v)
  elseif t ~= "table" then
    error("cannot encode a " .. t)
  end
  local inner = indent .. "  "
  if is_array(v) then
    if #v == 0 then
      return "[]"
    end
    local flat = true
    for _, x in ipairs(v) do
      if type(x) == "table" then
        flat = false
      end
    end
    local parts = {}
    for i, x in ipairs(v) do
      parts[i] = M.json_encode(x, inner)
    end
    if flat then
      return "[" .. concat(parts, ", ") .. "]"
    end
    return "[\n" .. inner .. concat(parts, ",\n" .. inner) .. "\n" .. indent .. "]"
  end
  local keys = {}
  for k in pairs(v) do
    keys[#keys + 1] = tostring(k)
  end
  table.sort(keys)
  local parts = {}
  for i, k in ipairs(keys) do
    parts[i] = json_string(k) .. ": " .. M.json_encode(v[k], inner)
  end
  return "{\n" .. inner .. concat(parts, ",\n" .. inner) .. "\n" .. indent .. "}"
end

-- 1234567.8 -> "1,234,568"; small values keep 3 significant digits.
function M.fmt_ops(v)
  if v == nil then
    return "-"
  end
  if v < 100 then
    return format("%.3g", v)
  end
  local s = format("%d", math.floor(v + 0.5))
  local out
  repeat
    out = s
    s = s:gsub("^(%d+)(%d%d%d)", "%1,%2")
  until s == out
  return s
end

-- Throughput and ratios with about three significant digits.
function M.fmt_sig(v, suffix)
  if v == nil or v ~= v then
    return "-"
  end
  local s
  local a = math.abs(v)
  if a >= 1000 then
    s = M.fmt_ops(v)
  elseif a >= 100 then
    s = format("%.0f", v)
  elseif a >= 10 then
    s = format("%.1f", v)
  elseif a >= 1 then
    s = format("%.2f", v)
  else
    s = format("%.3f", v)
  end
  return s .. (suffix or "")
end

function M.fmt_size(bytes)
  if bytes >= 1024 * 1024 then
    return format("%.2f MB", bytes / 1048576)
  elseif bytes >= 1024 then
    return format("%.1f KB", bytes / 1024)
  end
  return format("%d B", bytes)
end

-- Display width of a UTF-8 string (continuation bytes do not count).
local function width(s)
  return #(s:gsub("[\128-\191]", ""))
end

-- Plain-text table: rows of strings; columns after the first right-aligned.
function M.text_table(header, rows)
  local widths = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    for i, c in ipairs(r) do
      widths[i] = math.max(widths[i] or 0, width(c))
    end
  end
  local lines = {}
  local function line(r)
    local cells = {}
    for i, c in ipairs(r) do
      local pad = rep(" ", widths[i] - width(c))
      cells[i] = i == 1 and c .. pad or pad .. c
    end
    lines[#lines + 1] = concat(cells, "  ")
  end
  line(header)
  local dashes = {}
  for i, w in ipairs(widths) do
    dashes[i] = rep("-", w)
  end
  line(dashes)
  for _, r in ipairs(rows) do
    line(r)
  end
  return concat(lines, "\n")
end

-- Markdown table; `align` is a string of l/r per column.
function M.md_table(header, rows, align)
  local lines = { "| " .. concat(header, " | ") .. " |" }
  local seps = {}
  for i = 1, #header do
    seps[i] = (align and align:sub(i, i) == "r") and "---:" or "---"
  end
  lines[2] = "|" .. concat(seps, "|") .. "|"
  for _, r in ipairs(rows) do
    lines[#lines + 1] = "| " .. concat(r, " | ") .. " |"
  end
  return concat(lines, "\n")
end

-- "" for the root, then .key / [i] steps, for the messages.
local function step(where, k)
  if type(k) == "number" then
    return format("%s[%d]", where, k)
  end
  return format("%s.%s", where, tostring(k))
end

-- The bench's deep comparison: the path of the first difference between
-- `a` (what was expected) and `b` (what came back), or nil when they are
-- equal. `digits`: true, numbers must come back exactly; a count, a
-- number may also come back rounded to that many significant digits (what
-- an encoder writes); nil, to 14: what cjson.encode and dkjson.encode
-- (tostring) both write; a fraction in canada.json does.
function M.first_difference(a, b, where, digits)
  where = where or "$"
  digits = digits or 14
  local ta, tb = type(a), type(b)
  if ta == "number" and tb == "number" then
    if a == b or (digits ~= true and tonumber(format("%." .. digits .. "g", a)) == b) then
      return nil
    end
    return format("%s: %.17g became %.17g", where, a, b)
  end
  if ta ~= tb then
    return format("%s: a %s became a %s", where, ta, tb)
  end
  if ta ~= "table" then
    if a ~= b then
      return format("%s: %q became %q", where, tostring(a), tostring(b))
    end
    return nil
  end
  for k, v in pairs(a) do
    local d = M.first_difference(v, b[k], step(where, k), digits)
    if d then
      return d
    end
  end
  for k in pairs(b) do
    if a[k] == nil then
      return format("%s: not in the table, in the output", step(where, k))
    end
  end
  return nil
end

-- The median of a list of numbers (the list is left as it is).
function M.median(list)
  local t = {}
  for i, v in ipairs(list) do
    t[i] = v
  end
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) / 2] or (t[n / 2] + t[n / 2 + 1]) / 2
end

-- Seconds on a clock: M.MONOTONIC (wall) or M.CPU (this process's CPU
-- time, which on a shared machine leaves out the time spent waiting for
-- a CPU).
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } qjson_bench_timespec;
int clock_gettime(int clk_id, qjson_bench_timespec *tp);
]])
M.MONOTONIC, M.CPU = 1, 2 -- CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID
local ts = ffi.new("qjson_bench_timespec")
function M.clock(id)
  ffi.C.clock_gettime(id, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

-- What a shell command writes to stdout.
function M.sh(cmd)
  local p = assert(io.popen(cmd))
  local s = p:read("*a")
  p:close()
  return s
end

return M
