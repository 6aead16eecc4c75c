-- qjson.select operations of the Lua-level fuzzer: selectors of random
-- dotted paths (keys, indexes, `[*]` wildcards, missing steps, paths that
-- share prefixes) run on documents and cursors the fuzzer holds and on
-- fresh texts, each value checked against the model: scalars as reads
-- give them, containers as views of the right kind and length, a `[*]`
-- as a Lua array of what the rest of the path finds in each element, and
-- a `[*]` over anything but an array or null as the first entry's error.
local model = require("fuzz.model")
local util = require("fuzz.util")

local format, concat = string.format, table.concat
local show = util.show

local S = {}

-- A random selector path from `node`: its text and its steps ({ "key", k },
-- { "index", i }, { "all" }); nil when the first step has no key to name.
function S:gen_select_path(node)
  local steps, text = {}, {}
  for _ = 1, self:int(1, 4) do
    local step
    if node ~= nil and node.t == "object" and #node.keys > 0 and self:chance(0.8) then
      local key = self:pick(node.keys)
      -- (A key with ':' goes in the table form, which carries the type.)
      if not util.dotted_key(key, #text == 0) then break end
      step = { "key", key }
      node = model.member(node, key)
    elseif node ~= nil and node.t == "array" and #node.items > 0 and self:chance(0.8) then
      if self:chance(0.5) and #node.items <= 40 then
        step = { "all" }
        node = self:pick(node.items)
      else
        local i = self:int(0, #node.items - 1)
        step = { "index", i }
        node = node.items[i + 1]
      end
    else
      -- A step to nowhere, or a wildcard over something else.
      local r = self:int(1, 6)
      step = r <= 3 and { "key", self:pick({ "zz", "nope", "a" }) } or r <= 5 and { "index", self:int(0, 3) }
        or { "all" }
      node = nil
    end
    steps[#steps + 1] = step
    if step[1] == "key" then
      text[#text + 1] = (#text > 0 and "." or "") .. step[2]
    elseif step[1] == "index" then
      text[#text + 1] = "[" .. step[2] .. "]"
    else
      text[#text + 1] = "[*]"
    end
  end
  if #steps == 0 then return nil end
  return concat(text), steps
end

-- What the model says entry `steps` reads from `node` from step `i`:
-- { node = n } (n nil: missing), { list = {...} }, or { err = message }.
local function expect(node, steps, i, text)
  if node == nil then return { node = nil } end
  local step = steps[i]
  if step == nil then return { node = node } end
  if step[1] == "key" then
    return expect(node.t == "object" and model.member(node, step[2]) or nil, steps, i + 1, text)
  elseif step[1] == "index" then
    return expect(node.t == "array" and node.items[step[2] + 1] or nil, steps, i + 1, text)
  end
  if node.t == "null" then return { node = node } end
  if node.t ~= "array" then
    -- (A NUL in the path reads as \0: the message crosses as a C string.)
    return { err = format("qjson: type mismatch at '%s': expected array for '[*]', got %s", text:gsub("%z", "\\0"),
      node.t) }
  end
  local list = {}
  for k, item in ipairs(node.items) do
    local e = expect(item, steps, i + 1, text)
    if e.err then return e end
    list[k] = e
  end
  return { list = list }
end

-- Checks value `got` against the model's expectation `e`.
function S:check_selected(got, e, context)
  if e.list then
    self:check(type(got) == "table" and #got <= #e.list, "%s: want a list of %d, got %s", context, #e.list, show(got))
    for k, item in ipairs(e.list) do
      self:check_selected(got[k], item, format("%s[%d]", context, k))
    end
  elseif e.node == nil then
    self:check(got == nil, "%s: want nothing, got %s", context, show(got))
  elseif e.node.t == "object" or e.node.t == "array" then
    local q = self.qjson
    self:check(type(got) == "table", "%s: want a view, got %s", context, show(got))
    local n = 0
    for _ in (e.node.t == "array" and q.ipairs or q.pairs)(got) do n = n + 1 end
    local want = e.node.t == "array" and #e.node.items or #model.unique(e.node)
    self:check(n == want, "%s: a view of %d members, want %d", context, n, want)
  else
    self:check_scalar(got, e.node, context)
  end
end

-- Runs a selector of random paths from `node` on `src` (a document,
-- cursor or text) and checks every value, or the error.
function S:select_and_check(src, node, label)
  local paths, wants, specs = {}, {}, {}
  for _ = 1, self:int(1, 12) do
    local text, steps
    if #paths > 0 and self:chance(0.3) then
      -- A path that repeats the last one's prefix, or the same path.
      text, steps = paths[#paths], wants[#wants].steps
    else
      text, steps = self:gen_select_path(node)
    end
    if text then
      paths[#paths + 1] = text
      wants[#wants + 1] = { steps = steps, e = expect(node, steps, 1, text) }
      specs[#specs + 1] = (text:find(":") or self:chance(0.5)) and { text, "any" } or text
    end
  end
  if #paths == 0 then return end
  local sel = self.qjson.select(specs)
  local shown = {}
  for k, p in ipairs(paths) do
    shown[k] = show(p)
  end
  local context = format("select({ %s }) on %s", concat(shown, ", "), label)
  local res = { pcall(sel, src) }
  self:count("selects")
  local first_err
  for _, w in ipairs(wants) do
    if w.e.err then
      first_err = w.e.err
      break
    end
  end
  if first_err then
    self:check(not res[1] and res[2] == first_err, "%s: want the error %s, got %s", context, show(first_err),
      show(res[2]))
    self:count("select errors")
    return
  end
  self:check(res[1], "%s: raised %s", context, show(res[2]))
  for k, w in ipairs(wants) do
    self:check_selected(res[k + 1], w.e, format("%s, path %s", context, shown[k]))
  end
end

function S:select_doc()
  local live = {}
  for _, e in ipairs(self.entries) do
    if e.node ~= nil and not e.doc.closed and not e.doc.lazy then live[#live + 1] = e end
  end
  if #live == 0 then return end
  local e = self:pick(live)
  self:select_and_check(e.h, e.node, "a document")
end

function S:select_text()
  local text, origin = self:gen_text()
  local tree = model.decode(text)
  if tree == nil then return end
  self:select_and_check(text, tree, origin .. " text " .. show(text))
end

S.ops = {
  { name = "select on a document", weight = 6, fn = function(self) self:select_doc() end },
  { name = "select on a text", weight = 4, fn = function(self) self:select_text() end },
}

return S
