-- Benchmark workloads: deterministic generators (a private seeded PRNG, no
-- dependence on math.random), built in memory and optionally cached under
-- bench/data/ (git-ignored). A workload is a document (or several) and the
-- job done on it (`kind`; bench/jobs.lua describes each, bench/libs/ has
-- every library's code for it):
--
--   chat-2k .. chat-10m  parse + read fields of an OpenAI-style
--                        chat-completion request: one message per MB (at
--                        least one), each a short text part (with escapes
--                        and non-ASCII) and a base64 image part sized so
--                        that the document is the target size (within 2%).
--   issues-100k          a REST-style GitHub issues list (~100 KB, 32 issues).
--   mix                  an interleaved cycle of the 100 KB, 200 KB, 500 KB
--                        and 1 MB chat requests: one op reads all four.
--   read-twitter, read-citm, read-canada
--                        the real documents of ../shared/data/corpus/ (beside
--                        the checkout, not copied into it), decoded and a
--                        few fields read from every record.
--   decode-tiny          a ~200-byte API-gateway-like object, decoded and
--                        every field read.
--   sse-chat             a streamed chat completion: 1,000 server-sent
--                        events of 150-400 bytes; every delta's content and
--                        finish reason read.
--   ndjson-logs          1,000 NDJSON log lines of ~500 bytes; three
--                        fields of each read.
--   sse-chunks           sse-chat's stream fed in 4 KB chunks, as nginx's
--                        body_filter sees it: the unfinished tail kept.
--   roundtrip-*, modtop-*, addfield-*, modnested-*
--                        a chat request decoded then re-encoded: unmodified,
--                        after setting a top-level field, adding one, or
--                        setting a nested one.
--   encode-twitter, encode-citm, encode-canada, encode-tiny
--                        the table cjson.decode builds from a document,
--                        encoded.
local bit = require("bit")
local ffi = require("ffi")
local buffer = require("string.buffer")

local band, bxor, lshift, rshift = bit.band, bit.bxor, bit.lshift, bit.rshift
local floor, byte, format = math.floor, string.byte, string.format

local M = {}

-- Bumped whenever a generator changes: cached files carry it in their name.
M.GENERATOR_VERSION = 1

local KB, MB = 1024, 1024 * 1024

-- name, kind, target size in bytes; in ladder order. `quick = false`
-- leaves a workload out of --quick runs; `source` names the workload whose
-- document it uses; `parts` the documents a mix cycles through.
local function chat(size, target, label, quick)
  return { name = "chat-" .. size, kind = "chat", target = target, label = label, quick = quick }
end
M.list = {
  chat("2k", 2 * KB, "2 KB"),
  chat("60k", 60 * KB, "60 KB", false),
  chat("100k", 100 * KB, "100 KB"),
  chat("200k", 200 * KB, "200 KB", false),
  chat("500k", 500 * KB, "500 KB", false),
  chat("1m", 1 * MB, "1 MB"),
  chat("2m", 2 * MB, "2 MB", false),
  chat("5m", 5 * MB, "5 MB", false),
  chat("10m", 10 * MB, "10 MB"),
  { name = "issues-100k", kind = "issues", target = 100 * KB, label = "100 KB" },
  { name = "mix", kind = "mix", parts = { "chat-100k", "chat-200k", "chat-500k", "chat-1m" },
    label = "100 KB / 200 KB / 500 KB / 1 MB" },
  -- The real documents, decoded and read.
  { name = "read-twitter", kind = "twitter", file = "twitter.json", label = "twitter" },
  { name = "read-citm", kind = "citm", file = "citm_catalog.json", label = "citm_catalog" },
  { name = "read-canada", kind = "canada", file = "canada.json", label = "canada" },
  { name = "decode-tiny", kind = "tiny", label = "~200-byte object" },
  { name = "sse-chat", kind = "sse", label = "1,000 SSE events of a streamed chat completion" },
  { name = "ndjson-logs", kind = "ndjson", label = "1,000 NDJSON log lines" },
  { name = "sse-chunks", kind = "sse_feed", source = "sse-chat",
    label = "1,000 SSE events fed in 4 KB chunks (body_filter)" },
}
-- Decode + re-encode jobs on the chat ladder.
M.EDIT_JOBS = {
  { prefix = "roundtrip", kind = "roundtrip", what = "decode + encode, unmodified" },
  { prefix = "modtop", kind = "modify_top", what = "decode, set a top-level field, encode" },
  { prefix = "addfield", kind = "add_field", what = "decode, add a top-level field, encode" },
  { prefix = "modnested", kind = "modify_nested", what = "decode, set a nested field, encode" },
}
for _, job in ipairs(M.EDIT_JOBS) do
  for _, size in ipairs({ "2k", "100k", "1m", "10m" }) do
    M.list[#M.list + 1] = { name = job.prefix .. "-" .. size, kind = job.kind, source = "chat-" .. size,
      label = job.what, quick = job.kind == "roundtrip" or size == "100k" or size == "10m" }
  end
end
-- Encoding: the table decoded from a real document, or from the tiny object.
for _, w in ipairs({
  { name = "encode-twitter", kind = "encode", file = "twitter.json", label = "twitter" },
  { name = "encode-citm", kind = "encode", file = "citm_catalog.json", label = "citm_catalog" },
  { name = "encode-canada", kind = "encode", file = "canada.json", label = "canada" },
  { name = "encode-tiny", kind = "encode", label = "~200-byte object" },
}) do
  M.list[#M.list + 1] = w
end
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

-- A streamed chat completion as OpenAI sends it: a role chunk, 998
-- content chunks (a few words each, sometimes an escape or non-ASCII), a
-- finish chunk, then `data: [DONE]`. Each event is 150-400 bytes.
local WORDS = { "the", "gateway", "streams", "tokens", "quickly", "and", "every", "chunk", "is", "small",
  "caf\\u00e9", "na\\u00efve", "\\\\path", "\\\"quoted\\\"", "line\\n", "r\\u00e9sum\\u00e9", "\\u2014", "JSON",
  "\\u4f60\\u597d", "parse", "value", "server-sent", "event", "latency", "budget" }
function M.sse()
  local rng = prng(0x55e0001)
  local head = 'data: {"id":"chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz012","object":"chat.completion.chunk",'
    .. '"created":1732500000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_9f2b8e4a1c",'
    .. '"choices":[{"index":0,"delta":'
  local b = buffer.new()
  for i = 1, 1000 do
    local delta
    local finish = "null"
    if i == 1 then
      delta = '{"role":"assistant","content":"","refusal":null}'
    elseif i == 1000 then
      delta, finish = "{}", '"stop"'
    else
      local words = {}
      local target = rng.int(1, 130)
      local len = 0
      while len < target do
        local w = rng.pick(WORDS)
        words[#words + 1] = w
        len = len + #w + 1
      end
      delta = '{"content":"' .. table.concat(words, " ") .. ' "}'
    end
    b:put(head, delta, ',"logprobs":null,"finish_reason":', finish, "}]}\n\n")
  end
  b:put("data: [DONE]\n\n")
  return b:tostring()
end

-- Structured access logs of a gateway, one JSON object per line, ~500
-- bytes each.
local LEVELS = { "info", "info", "info", "warn", "error", "debug" }
local PATHS = { "/v1/chat/completions", "/v1/embeddings", "/v1/models", "/api/users/42/orders?page=2",
  "/healthz", "/v1/images/generations" }
function M.ndjson()
  local rng = prng(0x10657)
  local b = buffer.new()
  for i = 1, 1000 do
    local status = rng.pick({ 200, 200, 200, 201, 204, 400, 401, 404, 429, 500, 502 })
    local line = format('{"ts":"2026-11-24T12:%02d:%02d.%03dZ","level":"%s","service":"edge-gateway",'
      .. '"host":"gw-%d.eu-west-1","trace_id":"%08x%08x%08x%08x","span_id":"%08x%08x",'
      .. '"http":{"method":"%s","path":"%s","status":%d,"latency_ms":%d.%d,"bytes_in":%d,"bytes_out":%d,'
      .. '"user_agent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0"},'
      .. '"client":{"ip":"10.%d.%d.%d","country":"%s"},"upstream":"llm-pool-%d","retries":%d,'
      .. '"msg":"request %s in %d ms \\u2014 route \\"%s\\""}',
      i % 60, rng.int(0, 59), rng.int(0, 999), rng.pick(LEVELS), rng.int(1, 9), rng.u32(), rng.u32(),
      rng.u32(), rng.u32(), rng.u32(), rng.u32(), rng.pick({ "GET", "POST", "POST", "DELETE" }),
      rng.pick(PATHS), status, rng.int(1, 2500), rng.int(0, 9), rng.int(0, 200000), rng.int(0, 900000),
      rng.int(0, 255), rng.int(0, 255), rng.int(0, 255), rng.pick({ "DE", "FR", "US", "JP", "BR" }),
      rng.int(1, 4), rng.int(0, 2), status < 400 and "completed" or "failed", rng.int(1, 2500),
      rng.pick({ "chat", "embeddings", "default" }))
    b:put(line, "\n")
  end
  return b:tostring()
end

-- The workload's bytes; nil (with the reason) for a corpus document that
-- is not there. A mix has no bytes of its own (see M.load).
function M.generate(name)
  local w = assert(M.by_name[name], "unknown workload " .. tostring(name))
  assert(not w.parts, "a mix is made of other workloads")
  if w.source then
    return M.generate(w.source)
  end
  if w.file then
    local s = read_file(CORPUS .. w.file)
    if not s then
      return nil, CORPUS .. w.file .. " not found (../shared/data is not beside the checkout)"
    end
    return s
  end
  if w.kind == "sse" then
    return M.sse()
  elseif w.kind == "ndjson" then
    return M.ndjson()
  elseif not w.target then
    return M.TINY
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

-- What the job gets: the workload's JSON text, or for a mix the list of its
-- parts' texts; its size in bytes (a mix: the sum) and the size of its
-- largest document. Read from the cache
-- under `dir` when there, else generated (and cached when `dir` is given).
-- nil and the reason when a corpus document is missing.
function M.load(name, dir)
  local w = assert(M.by_name[name], "unknown workload " .. tostring(name))
  if w.parts then
    local list, size, largest = {}, 0, 0
    for i, part in ipairs(w.parts) do
      local s, why = M.load(part, dir)
      if not s then
        return nil, why
      end
      list[i], size, largest = s, size + #s, math.max(largest, #s)
    end
    return list, size, largest
  end
  local cached = w.source or name
  -- The corpus documents are read where they are, never copied.
  local cache = dir and not M.by_name[cached].file
  if cache then
    local s = read_file(M.cache_path(dir, cached))
    if s then
      return s, #s, #s
    end
  end
  local s, why = M.generate(cached)
  if not s then
    return nil, why
  end
  if cache then
    M.write_cache(dir, cached, s)
  end
  return s, #s, #s
end

function M.cache_path(dir, name)
  return format("%s/%s.v%d.json", dir, name, M.GENERATOR_VERSION)
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
