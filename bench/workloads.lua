-- Benchmark workloads: deterministic generators (a private seeded PRNG, no
-- dependence on math.random), built in memory and optionally cached under
-- bench/data/ (git-ignored).
--
--   chat-2k .. chat-10m  an OpenAI-style chat-completion request: one message
--                        per MB (at least one), each a short text part (with
--                        escapes and non-ASCII) and a base64 image part sized
--                        so that the document is the target size (within 2%).
--   issues-100k          a REST-style GitHub issues list (~100 KB, 32 issues).
--   encode-twitter, encode-citm, encode-canada
--                        the real documents of ../shared/data/corpus/ (beside
--                        the checkout, not copied into it); the job encodes
--                        the table cjson.decode builds from them.
--   encode-tiny          a ~200-byte API-gateway-like object, encoded;
--   decode-tiny          the same object, parsed and every field read.
local bit = require("bit")
local ffi = require("ffi")
local buffer = require("string.buffer")

local band, bxor, lshift, rshift = bit.band, bit.bxor, bit.lshift, bit.rshift
local floor, byte, format = math.floor, string.byte, string.format

local M = {}

-- Bumped whenever a generator changes: cached files carry it in their name.
M.GENERATOR_VERSION = 1

local KB, MB = 1024, 1024 * 1024

-- name, kind, target size in bytes; in ladder order.
M.list = {
  { name = "chat-2k", kind = "chat", target = 2 * KB, label = "2 KB" },
  { name = "chat-60k", kind = "chat", target = 60 * KB, label = "60 KB" },
  { name = "chat-100k", kind = "chat", target = 100 * KB, label = "100 KB" },
  { name = "chat-1m", kind = "chat", target = 1 * MB, label = "1 MB" },
  { name = "chat-10m", kind = "chat", target = 10 * MB, label = "10 MB" },
  { name = "issues-100k", kind = "issues", target = 100 * KB, label = "100 KB" },
  -- Encoding: the table decoded from a real document, or a tiny object.
  { name = "encode-twitter", kind = "encode", file = "twitter.json", label = "twitter" },
  { name = "encode-citm", kind = "encode", file = "citm_catalog.json", label = "citm_catalog" },
  { name = "encode-canada", kind = "encode", file = "canada.json", label = "canada" },
  { name = "encode-tiny", kind = "encode", label = "~200-byte object" },
  { name = "decode-tiny", kind = "tiny", label = "~200-byte object" },
}
M.by_name = {}
for _, w in ipairs(M.list) do
  M.by_name[w.name] = w
end

-- xorshift32, seeded: the same sequence on every run and machine.
local function prng(seed)
  local x = bit.tobit(seed)
  local r = {}
  function r.u32()
    x = bxor(x, lshift(x, 13))
    x = bxor(x, rshift(x, 17))
    x = bxor(x, lshift(x, 5))
    return x % 4294967296
  end
  function r.int(lo, hi)
    return lo + r.u32() % (hi - lo + 1)
  end
  function r.pick(t)
    return t[1 + r.u32() % #t]
  end
  return r
end

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local b64_bytes = ffi.new("uint8_t[64]")
for i = 1, 64 do
  b64_bytes[i - 1] = byte(B64, i)
end

-- `n` characters of base64 (n a multiple of 4) that read as a PNG: the
-- real 8-byte signature and IHDR start, then random bytes' encoding
-- (24 random bits make 4 uniform base64 digits), ending in one '='.
local PNG_HEAD = "iVBORw0KGgoAAAANSUhEUgAA"
local function base64_payload(rng, n)
  assert(n % 4 == 0 and n >= #PNG_HEAD + 4, "payload length")
  local buf = ffi.new("uint8_t[?]", n)
  ffi.copy(buf, PNG_HEAD, #PNG_HEAD)
  for i = #PNG_HEAD, n - 4, 4 do
    local v = rng.u32()
    buf[i] = b64_bytes[band(v, 63)]
    buf[i + 1] = b64_bytes[band(rshift(v, 6), 63)]
    buf[i + 2] = b64_bytes[band(rshift(v, 12), 63)]
    buf[i + 3] = b64_bytes[band(rshift(v, 18), 63)]
  end
  buf[n - 1] = 61 -- '='
  return ffi.string(buf, n)
end

-- Sentence fragments, already JSON-escaped: "\n", "\"", "\t", "\u2014"
-- escapes, raw two-, three- and four-byte UTF-8.
local TEXT_FRAGMENTS = {
  "Describe what you see in this image.",
  "Please answer in French, with accents: caf\195\169, na\195\175ve, d\195\169j\195\160 vu.",
  "Line one of the instructions.\\nLine two: keep it short.",
  "The user said \\\"it's broken\\\" \\u2014 find out why.",
  "Columns:\\tname\\tsize\\tcolour",
  "Is the chart trending up \226\134\151 or down \226\134\152?",
  "Thanks! \240\159\153\130",
  "Compare it with the previous screenshot and list every difference.",
  "Return JSON only, e.g. {\\\"label\\\": \\\"cat\\\", \\\"score\\\": 0.93}.",
  "Temperature is 21\194\176C; the sign reads \\\"\229\140\151\228\186\172\\\".",
}

-- About `len` bytes of escaped text (whole fragments, so never a cut escape).
local function text(rng, len)
  local b = buffer.new()
  b:put(TEXT_FRAGMENTS[1 + rng.u32() % 3])
  while #b < len do
    b:put(" ", rng.pick(TEXT_FRAGMENTS))
  end
  return b:tostring()
end

local function chat_message(text_json, payload)
  return '{"role":"user","content":[{"type":"text","text":"' .. text_json
    .. '"},{"type":"image_url","image_url":{"url":"data:image/png;base64,' .. payload .. '"}}]}'
end

local function chat_document(messages)
  return '{"model":"gpt-4o","temperature":0.7,"max_tokens":1024,"stream":false,"messages":['
    .. table.concat(messages, ",") .. "]}"
end

function M.chat(target)
  local rng = prng(0x5eed0000 + target % 65536)
  local n = math.max(1, floor(target / MB + 0.5))
  local texts, fixed = {}, {}
  for i = 1, n do
    texts[i] = text(rng, rng.int(240, 420))
    fixed[i] = chat_message(texts[i], "")
  end
  local room = target - #chat_document(fixed)
  local each = floor(room / n / 4) * 4
  local messages = {}
  for i = 1, n do
    local len = i < n and each or floor((room - each * (n - 1)) / 4) * 4
    messages[i] = chat_message(texts[i], base64_payload(rng, len))
  end
  return chat_document(messages)
end

-- GitHub's REST issue object, field for field (values invented).
local LOGINS = { "octocat", "hubot", "monalisa", "defunkt", "mojombo", "pjhyett", "wycats", "ezmobius",
  "ivey", "evanphx", "vanpelt", "wayneeseguin", "brynary", "kevinclark", "technoweenie", "macournoyer" }
local LABELS = {
  { 208045946, "bug", "d73a4a", "Something isn't working" },
  { 208045947, "documentation", "0075ca", "Improvements or additions to documentation" },
  { 208045948, "duplicate", "cfd3d7", "This issue or pull request already exists" },
  { 208045949, "enhancement", "a2eeef", "New feature or request" },
  { 208045950, "good first issue", "7057ff", "Good for newcomers" },
  { 208045951, "help wanted", "008672", "Extra attention is needed" },
  { 208045952, "performance", "fbca04", "Slower than it should be" },
}
local TITLE_WORDS = { "parser", "crash", "on", "large", "input", "UTF-8", "surrogate", "escape", "error",
  "message", "wrong", "column", "when", "nested", "arrays", "exceed", "max_depth", "regression", "in",
  "2.1", "build", "fails", "aarch64", "docs:", "clarify", "lazy", "mode", "caf\195\169", "\\\"null\\\"" }
local BODY_FRAGMENTS = {
  "### Steps to reproduce\\r\\n\\r\\n1. Build with `make`\\r\\n2. Run the attached script\\r\\n",
  "### Expected behaviour\\r\\n\\r\\nThe document parses and `doc:get_str(\\\"a.b\\\")` returns the value.\\r\\n",
  "### Actual behaviour\\r\\n\\r\\n```\\r\\nqjson: expected a value, found ',' at line 1, column 13 (byte 12)"
    .. "\\r\\n```\\r\\n",
  "I tried this on Debian 12 and macOS 14 \\u2014 same result.\\r\\n",
  "Stack trace:\\r\\n\\tat parse (init.lua:42)\\r\\n\\tat handler (gateway.lua:7)\\r\\n",
  "Possibly related to #1234 and #1301. /cc @octocat\\r\\n",
  "Input: `{\\\"k\\\": \\\"\\\\u00e9\\\"}` (note the escaped backslash).\\r\\n",
  "Thanks for the great library! \240\159\154\128\\r\\n",
  "Workaround: disable the fast path with `QJSON_BACKEND=scalar`.\\r\\n",
  "Numbers like 1e400 and -0.0 behave differently from lua-cjson here.\\r\\n",
}

local function user_json(login, id)
  local base = "https://api.github.com/users/" .. login
  return format('{"login":"%s","id":%d,"node_id":"MDQ6VXNlcj%07d","avatar_url":'
    .. '"https://avatars.githubusercontent.com/u/%d?v=4","gravatar_id":"","url":"%s",'
    .. '"html_url":"https://github.com/%s","followers_url":"%s/followers",'
    .. '"following_url":"%s/following{/other_user}","gists_url":"%s/gists{/gist_id}",'
    .. '"starred_url":"%s/starred{/owner}{/repo}","subscriptions_url":"%s/subscriptions",'
    .. '"organizations_url":"%s/orgs","repos_url":"%s/repos","events_url":"%s/events{/privacy}",'
    .. '"received_events_url":"%s/received_events","type":"User","site_admin":false}',
    login, id, id, id, base, login, base, base, base, base, base, base, base, base, base)
end

local function issue_json(number, max_fragments)
  local rng = prng(0x155e5 * 7 + number)
  local repo = "https://api.github.com/repos/qjson/qjson"
  local url = repo .. "/issues/" .. number
  local words = {}
  for i = 1, rng.int(4, 9) do
    words[i] = rng.pick(TITLE_WORDS)
  end
  local labels = {}
  local used = {}
  for _ = 1, rng.int(0, 3) do
    local l = rng.pick(LABELS)
    if not used[l] then
      used[l] = true
      labels[#labels + 1] = format('{"id":%d,"node_id":"MDU6TGFiZWw%d","url":"%s/labels/%s","name":"%s",'
        .. '"color":"%s","default":%s,"description":"%s"}',
        l[1], l[1], repo, l[2]:gsub(" ", "%%20"), l[2], l[3], tostring(l[1] < 208045950), l[4])
    end
  end
  local body = buffer.new()
  for _ = 1, math.min(rng.int(3, 12), max_fragments or 12) do
    body:put(rng.pick(BODY_FRAGMENTS))
  end
  local login = rng.pick(LOGINS)
  local state = rng.u32() % 3 == 0 and "closed" or "open"
  local day = 1 + number % 28
  local created = format("2024-%02d-%02dT%02d:%02d:%02dZ", 1 + number % 12, day, rng.int(0, 23),
    rng.int(0, 59), rng.int(0, 59))
  local closed = state == "closed" and format('"2024-%02d-%02dT12:00:00Z"', 1 + number % 12, day) or "null"
  local assignee = rng.u32() % 4 == 0 and user_json("octocat", 583231) or "null"
  local reactions = format('{"url":"%s/reactions","total_count":%d,"+1":%d,"-1":%d,"laugh":0,'
    .. '"hooray":0,"confused":0,"heart":%d,"rocket":0,"eyes":0}', url, rng.int(0, 9), rng.int(0, 5),
    rng.int(0, 2), rng.int(0, 2))
  return format('{"url":"%s","repository_url":"%s","labels_url":"%s/labels{/name}",'
    .. '"comments_url":"%s/comments","events_url":"%s/events",'
    .. '"html_url":"https://github.com/qjson/qjson/issues/%d",'
    .. '"id":%d,"node_id":"I_kwDOAbCdE85%07d","number":%d,"title":"%s","user":%s,"labels":[%s],'
    .. '"state":"%s","locked":false,"assignee":%s,"assignees":[%s],"milestone":null,"comments":%d,'
    .. '"created_at":"%s","updated_at":"%s","closed_at":%s,"author_association":"%s",'
    .. '"active_lock_reason":null,"body":"%s","reactions":%s,"timeline_url":"%s/timeline",'
    .. '"performed_via_github_app":null,"state_reason":%s}',
    url, repo, url, url, url, number, 1800000000 + number * 7919, number, number,
    table.concat(words, " "), user_json(login, 1000 + rng.int(0, 999999)), table.concat(labels, ","),
    state, assignee, assignee == "null" and "" or assignee, rng.int(0, 40), created, created, closed,
    rng.pick({ "OWNER", "MEMBER", "CONTRIBUTOR", "NONE" }), body:tostring(), reactions, url,
    state == "closed" and '"completed"' or "null")
end

-- A page of issues, newest first, grown until it reaches `target` bytes;
-- the last issue's body is cut by whole fragments (or the issue left out)
-- to land as close to the target as it can.
function M.issues(target)
  local issues, size = {}, 1
  local number = 2400
  while true do
    local s = issue_json(number)
    if size + #s + 1 >= target then
      local best, best_off = nil, target - size
      for k = 12, 0, -1 do
        local c = issue_json(number, k)
        local off = math.abs(size + #c + 1 - target)
        if off < best_off then
          best, best_off = c, off
        end
      end
      issues[#issues + 1] = best
      break
    end
    issues[#issues + 1] = s
    size = size + #s + 1
    number = number - 1
  end
  return "[" .. table.concat(issues, ",") .. "]"
end

local read_file = require("util").read_file

-- The shared corpus beside the checkout (not copied into the project):
-- <root>/../shared/data/corpus/, wherever the harness is run from.
local CORPUS = (function()
  local dir = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local root = dir:match("^(.*)/bench$") or (dir == "bench" and ".") or dir .. "/.."
  return (root == "." and "" or root .. "/") .. "../shared/data/corpus/"
end)()
M.CORPUS = CORPUS

-- A small API-gateway-like object, about 200 bytes: strings (one with
-- escapes), integers, a fraction, a boolean, a nested object, an array.
M.TINY = '{"id":1234567,"user":"ada@example.com","scope":["read","write"],"active":true,'
  .. '"quota":{"limit":1000,"used":371,"ratio":0.371},"region":"eu-west-1","note":"caf\\u00e9 \\"ok\\"",'
  .. '"expires":1767225600}'

-- The workload's bytes; nil (with the reason) for a corpus document that
-- is not there.
function M.generate(name)
  local w = assert(M.by_name[name], "unknown workload " .. tostring(name))
  if w.kind == "encode" or w.kind == "tiny" then
    if not w.file then
      return M.TINY
    end
    local s = read_file(CORPUS .. w.file)
    if not s then
      return nil, CORPUS .. w.file .. " not found (../shared/data is not beside the checkout)"
    end
    return s
  end
  local s
  if w.kind == "chat" then
    s = M.chat(w.target)
  else
    s = M.issues(w.target)
  end
  local off = math.abs(#s - w.target) / w.target
  assert(off <= 0.02, format("workload %s is %d bytes, %.1f%% off its %d target", name, #s, off * 100, w.target))
  return s
end

function M.cache_path(dir, name)
  return format("%s/%s.v%d.json", dir, name, M.GENERATOR_VERSION)
end

-- The workload's bytes: from the cache under `dir` when present, else
-- generated (and written there when `dir` is given and writable).
function M.load(name, dir)
  if dir then
    local s = read_file(M.cache_path(dir, name))
    if s then
      return s
    end
  end
  local s = assert(M.generate(name))
  if dir then
    M.write_cache(dir, name, s)
  end
  return s
end

-- Writes the cache file if it is missing or differs; returns true if written.
function M.write_cache(dir, name, s)
  local path = M.cache_path(dir, name)
  if read_file(path) == s then
    return false
  end
  os.execute("mkdir -p '" .. dir .. "'")
  local tmp = path .. ".tmp"
  local f = io.open(tmp, "wb")
  if not f then
    return false
  end
  f:write(s)
  f:close()
  os.rename(tmp, path)
  return true
end

return M
