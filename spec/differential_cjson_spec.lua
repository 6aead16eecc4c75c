-- Parser differentials: inputs on which JSON parsers are known to
-- disagree (the ways a body can mean one thing to a gateway and another
-- to its upstream), each run through qjson and through lua-cjson (the
-- installed one: Debian's 2.1.0), with the relation between the two
-- asserted. The table in docs/security.md is made from these results:
-- this spec fails when the page and the results differ, and
-- `QJSON_BLESS=1 busted spec/differential_cjson_spec.lua` rewrites it.
local qjson = require("qjson")
local cjson = require("cjson")
local qcjson = require("qjson.cjson")
local support = require("support")
-- qjson.cjson must answer as OpenResty's lua-cjson (when built).
local openresty = require("fuzz.cjson_diff").openresty()

local DOC = support.root .. "/docs/security.md"
local BEGIN, END = "<!-- differential:begin -->", "<!-- differential:end -->"

-- A value as a short, exact text: strings with non-ASCII and control
-- bytes as \xNN, numbers with 17 digits, tables with sorted keys.
local function render(v)
  local t = type(v)
  if v == cjson.null then return "null" end
  if t == "string" then
    return '"' .. v:gsub("[%z\1-\31\"\\\127-\255]", function(c) return ("\\x%02X"):format(c:byte()) end) .. '"'
  elseif t == "number" then
    if v ~= v then return "nan" end
    if v == 1 / 0 then return "inf" end
    if v == -1 / 0 then return "-inf" end
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return ("%d"):format(v) end
    return ("%.17g"):format(v)
  elseif t == "table" then
    local n, count = #v, 0
    for _ in pairs(v) do count = count + 1 end
    if n > 0 and count == n then
      local items = {}
      for i = 1, n do items[i] = render(v[i]) end
      return "[" .. table.concat(items, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = render(k) .. ":" .. render(v[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return tostring(v)
end

-- What a decoder makes of `text`: "reads <value>" or "rejects: <message>".
local function outcome(decode, text)
  local ok, v = pcall(decode, text)
  if ok then return "reads " .. render(v), v end
  return "rejects: " .. tostring(v):gsub("^.-: qjson:", "qjson:")
end

local function qjson_with(opts)
  return function(text)
    return qjson.materialize(qjson.decode(text, opts))
  end
end

-- An input as the table shows it: a Lua-style escaped string.
local function show_input(s)
  return (s:gsub("[%z\1-\31\127-\255]", function(c)
    local named = { ["\t"] = "\\t", ["\n"] = "\\n", ["\0"] = "\\0" }
    return named[c] or ("\\x%02X"):format(c:byte())
  end))
end

-- The cases. `qjson` is the expected relation of qjson's result to
-- lua-cjson's: "same" (both read the same value, or both reject),
-- "stricter" (qjson rejects what lua-cjson reads), or a function that
-- checks both outcomes itself. `opts`: qjson's decode options.
local CASES = {
  { what = "duplicate key", input = '{"role":"user","role":"admin"}', relation = "same",
    check = function(q) assert.are.equal("admin", q.role) end,
    why = "last value wins in both, as in Go, Python and JavaScript" },
  { what = "duplicate key, `duplicate_keys = \"reject\"`", input = '{"role":"user","role":"admin"}',
    opts = { duplicate_keys = "reject" }, relation = "stricter",
    why = "a gateway that must not forward an ambiguous body" },
  { what = "keys equal after unescaping", input = '{"role":"user","r\\u006fle":"admin"}', relation = "same",
    check = function(q) assert.are.equal("admin", q.role) end,
    why = "both compare keys after unescaping: the last one wins" },
  { what = "keys equal after unescaping, `ijson = true`", input = '{"role":"user","r\\u006fle":"admin"}',
    opts = { ijson = true }, relation = "stricter", why = "I-JSON: duplicate names are errors" },
  { what = "integer beyond 2^53", input = '{"id":9007199254740993}', relation = "same",
    check = function(q) assert.are.equal(2 ^ 53, q.id) end,
    why = "both read the nearest double; `big_int` or `get_i64` read it exactly" },
  { what = "integer beyond 2^53, `ijson = true`", input = '{"id":9007199254740993}', opts = { ijson = true },
    relation = "stricter", why = "I-JSON: integers beyond ±2^53 are errors" },
  { what = "number beyond binary64", input = '{"n":1e400}', relation = "same",
    check = function(q) assert.are.equal(1 / 0, q.n) end, why = "both read infinity" },
  { what = "number beyond binary64, `ijson = true`", input = '{"n":1e400}', opts = { ijson = true },
    relation = "stricter", why = "I-JSON: numbers must fit binary64" },
  { what = "30-digit integer", input = "[123456789012345678901234567890]", relation = "same",
    why = "both read the nearest double" },
  { what = "trailing content", input = '{"a":1} {"a":2}', relation = "same", why = "both reject" },
  { what = "trailing content after a NUL", input = '{"a":1}\0{"a":2}', relation = "stricter",
    why = "lua-cjson stops at the NUL and reads the first object; qjson reads the whole body" },
  { what = "NUL inside a string", input = '{"a":"x\0y"}', relation = "same",
    why = "both reject (lua-cjson cuts the input at the NUL: it sees a string left open)" },
  { what = "a NUL, then anything", input = '{"a":"x"}\0<?xml', relation = "stricter",
    why = "lua-cjson ignores everything after a NUL" },
  { what = "lone high surrogate", input = '["\\uD800"]', relation = "same", why = "both reject" },
  { what = "lone low surrogate", input = '["\\uDC00"]', relation = "same", why = "both reject" },
  { what = "swapped surrogates", input = '["\\uDE00\\uD83D"]', relation = "same", why = "both reject" },
  { what = "high surrogate, then a character", input = '["\\uD800\\u0041"]', relation = "same",
    why = "both reject" },
  { what = "invalid UTF-8 byte", input = '{"name":"\255"}', relation = "stricter",
    why = "lua-cjson passes the byte through; an upstream may replace or reject it" },
  { what = "overlong UTF-8 encoding of `/`", input = '{"path":"\192\175"}', relation = "stricter",
    why = "overlong forms hide characters from byte-level checks" },
  { what = "UTF-8-encoded surrogate", input = '["\237\160\128"]', relation = "stricter",
    why = "not UTF-8 (RFC 3629)" },
  { what = "unescaped control character", input = '["a\tb"]', relation = "stricter",
    why = "RFC 8259 requires it escaped" },
  { what = "`NaN`", input = "[NaN]", relation = "stricter", why = "not JSON; lua-cjson reads it by default" },
  { what = "`-Infinity`", input = "[-Infinity]", relation = "stricter", why = "not JSON" },
  { what = "hexadecimal number", input = "[0x10]", relation = "stricter",
    why = "not JSON; lua-cjson reads 16" },
  { what = "leading zero", input = "[012]", relation = "stricter", why = "not JSON; lua-cjson reads 12" },
  { what = "byte-order mark", input = "\239\187\191{}", relation = "same", why = "both reject" },
  { what = "1001 nested arrays", input = ("["):rep(1001) .. ("]"):rep(1001), relation = "same",
    why = "both stop at depth 1000" },
  { what = "empty input", input = "", relation = "same", why = "both reject" },
}

local function rows()
  local out = {}
  for _, c in ipairs(CASES) do
    local q, qv = outcome(qjson_with(c.opts), c.input)
    local p = outcome(function(s) return qjson.parse(s, c.opts) end, c.input)
    local l, lv = outcome(cjson.decode, c.input)
    out[#out + 1] = { case = c, qjson = q, qvalue = qv, parse = p, cjson = l, cvalue = lv }
  end
  return out
end

local function table_text(results)
  local lines = {
    ("Made by `spec/differential_cjson_spec.lua` from qjson %s and lua-cjson %s (%s);"):format(
      qjson._VERSION, cjson._VERSION, "Debian's package"),
    "`QJSON_BLESS=1 busted spec/differential_cjson_spec.lua` rewrites it. qjson's column is `qjson.decode`",
    "with the options shown (the default is strict mode); `qjson.parse` gives the same verdicts.",
    "",
    "| input | case | qjson | lua-cjson | |",
    "|---|---|---|---|---|",
  }
  for _, r in ipairs(results) do
    local function cell(s) return (s:gsub("|", "\\|")) end
    local input = show_input(r.case.input)
    if #input > 40 then input = input:sub(1, 18) .. "…" .. input:sub(-18) end
    input = input == "" and "(empty)" or "`" .. cell(input) .. "`"
    lines[#lines + 1] = ("| %s | %s | %s | %s | %s |"):format(input, r.case.what, cell(r.qjson), cell(r.cjson),
      r.case.why)
  end
  return table.concat(lines, "\n")
end

describe("parser differentials against lua-cjson", function()
  local results = rows()

  for _, r in ipairs(results) do
    local c = r.case
    it(c.what .. ": " .. c.why, function()
      local q_ok, l_ok = r.qjson:find("^reads") ~= nil, r.cjson:find("^reads") ~= nil
      -- qjson.parse and qjson.decode agree on every input.
      assert.are.equal(q_ok, r.parse:find("^reads") ~= nil, r.parse)
      if not q_ok then
        assert.truthy(r.qjson:find("^rejects: qjson: .- at line %d+, column %d+ %(byte %d+%)$"), r.qjson)
      end
      if c.relation == "same" then
        assert.are.equal(l_ok, q_ok, ("qjson %s; lua-cjson %s"):format(r.qjson, r.cjson))
        if q_ok then assert.are.equal(r.cjson, r.qjson) end
      else
        assert.is_false(q_ok, r.qjson)
        assert.is_true(l_ok, r.cjson)
      end
      if c.check then c.check(r.qvalue, r.cvalue) end
      -- qjson.cjson, the drop-in, answers as OpenResty's lua-cjson.
      if openresty and not c.opts then
        assert.are.equal((outcome(openresty.cjson.decode, c.input)), (outcome(qcjson.decode, c.input)))
      end
    end)
  end

  it("docs/security.md shows these results", function()
    local page = assert(support.read(DOC))
    local head, tail = page:find(BEGIN, 1, true), page:find(END, 1, true)
    assert.truthy(head and tail, "docs/security.md has no " .. BEGIN .. " ... " .. END .. " section")
    local want = table_text(results)
    local have = page:sub(head + #BEGIN + 1, tail - 2)
    if os.getenv("QJSON_BLESS") then
      support.write(DOC, page:sub(1, head + #BEGIN) .. want .. "\n" .. page:sub(tail))
      have = want
    end
    assert.are.equal(want, have, "docs/security.md is stale: QJSON_BLESS=1 busted spec/differential_cjson_spec.lua")
  end)
end)
