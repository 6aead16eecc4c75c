-- bench/one.lua <workload> --verify: runs every available library's job
-- once and checks the answers. Reading jobs: all read the same values
-- (and a full decode equals cjson.decode's table). Decode + edit + encode
-- jobs: every output decodes to the edited document (and an unmodified
-- view encodes to the input byte for byte). Encode jobs: qjson writes
-- lua-cjson's bytes and the others' output decodes back to the table.
-- Prints "VERIFY <json>", exits 1 on a mismatch. Libraries that cannot be
-- loaded here are listed as skipped, with the reason.
local ffi = require("ffi")
local libs = require("libs")
local util = require("util")

local format = string.format
local first_difference = util.first_difference

local M = {}

function M.emit(tag, t)
  local cjson = libs.cjson_baseline().module
  io.stdout:write(tag, " ", cjson.encode(t), "\n")
  io.stdout:flush()
end

-- Structural characters, as stage 1 sees them: { } [ ] : , outside
-- strings, plus each string's opening quote.
function M.count_structurals(s)
  local p = ffi.cast("const uint8_t *", s)
  local n, in_str, esc = 0, false, false
  for i = 0, #s - 1 do
    local c = p[i]
    if in_str then
      if esc then
        esc = false
      elseif c == 92 then
        esc = true
      elseif c == 34 then
        in_str = false
      end
    elseif c == 34 then
      in_str = true
      n = n + 1
    elseif c == 123 or c == 125 or c == 91 or c == 93 or c == 58 or c == 44 then
      n = n + 1
    end
  end
  return n
end

-- Scalars in a table, for the report.
local function count_values(v)
  if type(v) ~= "table" then
    return 1
  end
  local n = 0
  for _, x in pairs(v) do
    n = n + count_values(x)
  end
  return n
end

-- Where two strings first differ, with some bytes of each around it.
local function byte_difference(a, b)
  local i = 1
  while i <= #a and a:byte(i) == b:byte(i) do
    i = i + 1
  end
  local from = math.max(1, i - 30)
  return format("first difference at byte %d of %d/%d:\n  qjson: ...%s...\n  cjson: ...%s...", i - 1, #a, #b,
    a:sub(from, i + 30), b:sub(from, i + 30))
end

local function fail(msg)
  error({ verify_failure = msg }, 0)
end

-- The job's answer must not change once LuaJIT compiles it: calls it
-- again (up to 150 times or 0.2 s of CPU time) and compares checksums.
local function hot_check(name, job, input, sum)
  local t0, n = util.clock(util.CPU), 0
  repeat
    n = n + 1
    local again = job(input)
    if again ~= sum then
      fail(format("%s's answer changed on call %d (once compiled by the JIT?): checksum %.17g, first call %.17g",
        name, n + 1, again, sum))
    end
  until n >= 150 or util.clock(util.CPU) - t0 >= 0.2
end

-- A writing job's output: a string whose length is the checksum.
local function output_of(name, job, input)
  local ok, sum, o = pcall(job, input)
  if not ok then
    fail(name .. " raised: " .. tostring(sum))
  end
  if type(o) ~= "string" or sum ~= #o then
    fail(name .. ": the job returned no string, or a checksum other than its length")
  end
  return sum, o
end

-- The output, decoded by cjson, is `want` (`what` says what it should
-- be), its numbers to the library's `number_digits` significant digits
-- when it has them (else util.first_difference's default, 14).
local function decodes_to(name, o, want, what)
  local ok, back = pcall(libs.cjson_baseline().module.decode, o)
  if not ok then
    fail(format("cjson.decode cannot read %s's output: %s", name, tostring(back)))
  end
  local d = first_difference(want, back, "$", libs.libs[name].number_digits)
  if d then
    fail(format("%s's output %s: %s", name, what, d))
  end
end

-- How an output's numbers were compared, when not to the default digits.
local function digits_note(lib)
  return lib.number_digits and format(" (numbers to %d significant digits, all its encoder writes)",
    lib.number_digits) or ""
end

-- Encoding: the table every library encodes, against lua-cjson's bytes.
local function encode_jobs(v, s)
  local cjson = libs.cjson_baseline().module
  local t = cjson.decode(s)
  local ref = cjson.encode(t)
  local how = {}
  for _, name in ipairs(v.names) do
    v.check(name, function()
      local lib = libs.libs[name]
      local sum, o = output_of(name, lib.load().encode, t)
      if lib.encode_check == "bytes" then
        if o ~= ref then
          fail(format("%s.encode's output differs from cjson.encode's (%d vs %d bytes); %s", name, #o, #ref,
            byte_difference(o, ref)))
        end
        how[#how + 1] = name == libs.BASELINE and name or name .. " = lua-cjson byte for byte"
      else
        assert(lib.encode_check == "roundtrip", name)
        decodes_to(name, o, t, "does not decode to the table it encoded")
        how[#how + 1] = name .. " decodes back equal" .. digits_note(lib)
      end
      hot_check(name, lib.load().encode, t, sum)
      v.checksums[name] = sum
    end)
  end
  return { checksum = #ref, values = count_values(t), how = table.concat(how, ", "), output_size = #ref }
end

-- Decode, edit, encode: every output must decode to the document with
-- the same edit applied to cjson.decode's table.
local function edit_jobs(v, s, kind)
  local expected = libs.cjson_baseline().module.decode(s)
  libs.EDITS[kind](expected)
  local how = {}
  for _, name in ipairs(v.names) do
    v.check(name, function()
      local lib = libs.libs[name]
      local sum, o = output_of(name, lib.load()[kind], s)
      decodes_to(name, o, expected, "is not the edited document")
      if lib.passthrough and kind == "roundtrip" then
        if o ~= s then
          fail(format("%s: an unmodified view does not encode to its input; %s", name, byte_difference(o, s)))
        end
        how[#how + 1] = name .. " = the input byte for byte"
      else
        how[#how + 1] = name .. " decodes to the edited document" .. digits_note(lib)
      end
      hot_check(name, lib.load()[kind], s, sum)
      v.checksums[name] = sum
    end)
  end
  return { checksum = v.checksums[libs.BASELINE], values = count_values(expected), how = table.concat(how, ", ") }
end

-- Reading jobs: the same values, in the same order, from every library;
-- a full decode (qjson.cjson's tables, qjson.decode's view materialized)
-- equal to cjson.decode's table, numbers exactly.
local function read_jobs(v, s, kind)
  local full = {}
  local ref_name, ref, ref_sum = nil, nil, nil
  for _, name in ipairs(v.names) do
    v.check(name, function()
      local out = {}
      local ok, sum, kept = pcall(function()
        return libs.libs[name].load()[kind](s, out)
      end)
      if not ok then
        fail(name .. " raised: " .. tostring(sum))
      end
      local materialize = libs.libs[name].materialize
      if materialize and type(s) == "string" and not libs.STREAM_KINDS[kind] then
        local d = first_difference(libs.cjson_baseline().module.decode(s), materialize(kept), "$", true)
        if d then
          fail(format("%s does not decode what cjson.decode does: %s", name, d))
        end
        full[#full + 1] = name
      end
      if not ref then
        ref_name, ref, ref_sum = name, out, sum
      else
        if #out ~= #ref then
          fail(format("%s read %d values, %s read %d", name, #out, ref_name, #ref))
        end
        for i = 1, #ref do
          if out[i] ~= ref[i] or type(out[i]) ~= type(ref[i]) then
            fail(format("value #%d: %s read %q, %s read %q", i, name, tostring(out[i]), ref_name, tostring(ref[i])))
          end
        end
        if sum ~= ref_sum then
          fail(format("checksum: %s %.17g, %s %.17g", name, sum, ref_name, ref_sum))
        end
      end
      hot_check(name, libs.libs[name].load()[kind], s, sum)
      v.checksums[name] = sum
    end)
  end
  return { checksum = ref_sum, values = ref and #ref or 0,
    how_suffix = #full > 0 and "; decoded equal to cjson.decode: " .. table.concat(full, ", ") or "" }
end

-- The libraries that run workload `w` here (the baseline first), and
-- those that cannot be loaded, with the reason.
local function libraries(w)
  local names, unavailable = {}, {}
  for name, lib in pairs(libs.libs) do
    local ok, why = libs.available(name)
    if not ok then
      if lib.kinds[w.kind] then
        unavailable[#unavailable + 1] = { library = name, reason = why }
      end
    elseif (not lib.floor or lib.verified) and libs.runs(name, w) then
      names[#names + 1] = name
    end
  end
  table.sort(unavailable, function(a, b)
    return a.library < b.library
  end)
  table.sort(names, function(a, b)
    return (a == libs.BASELINE and "" or a) < (b == libs.BASELINE and "" or b)
  end)
  return names, unavailable
end

-- Checks workload `wname` (kind `kind`, input `s`), prints VERIFY and
-- exits.
function M.run(wname, kind, s, size, largest)
  local names, unavailable = libraries({ kind = kind, size = size, largest = largest })
  -- A library whose answer is wrong is reported and left out; the others
  -- are still checked (and timed by run.lua).
  local failures = {}
  local v = { names = names, checksums = {} }
  function v.check(name, body)
    local ok, e = pcall(body)
    if not ok then
      if type(e) ~= "table" or not e.verify_failure then
        error(e, 0)
      end
      io.stderr:write(format("one.lua: VERIFY FAILED on %s: %s\n", wname, e.verify_failure))
      failures[#failures + 1] = { library = name, reason = e.verify_failure }
    end
  end
  local t
  if kind == "encode" then
    t = encode_jobs(v, s)
  elseif libs.EDIT_KINDS[kind] then
    t = edit_jobs(v, s, kind)
  else
    t = read_jobs(v, s, kind)
  end
  local good = {}
  for _, name in ipairs(names) do
    local bad = false
    for _, f in ipairs(failures) do
      bad = bad or f.library == name
    end
    if not bad then
      good[#good + 1] = name
    end
  end
  t.workload, t.checksums, t.unavailable, t.size = wname, v.checksums, unavailable, size
  t.structurals = type(s) == "string" and M.count_structurals(s) or nil
  t.ok, t.failures, t.libraries = #failures == 0, failures, good
  if t.how_suffix then -- a reading job
    t.how, t.how_suffix = "read alike by " .. table.concat(good, ", ") .. t.how_suffix, nil
  end
  M.emit("VERIFY", t)
  os.exit(#failures == 0 and 0 or 1)
end

return M
