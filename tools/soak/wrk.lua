-- wrk script of make soak (tools/soak.sh): POSTs a fixed mix of request
-- bodies, valid chat requests and every kind of invalid one, and checks
-- every response: valid bodies get 200 "ok <model> <messages> ...",
-- invalid JSON gets 400 with qjson's message of the expected kind and a
-- position, JSON that is not a chat request gets 400 saying what is
-- wrong. Each thread (one connection each) stops after its share of
-- `wrk ... -- <requests>` and says so with a file in $SOAK_DONE_DIR.
-- At the end it prints one line
--   SOAK responses=<n> wrong=<n> valid=<n> invalid=<n> errors=<n>
-- and the first wrong responses.
-- luacheck: globals wrk init setup request response done seen wrong valid_seen invalid_seen examples thread_index
local rep, format = string.rep, string.format

-- A chat request of about `size` bytes.
local function chat(model, text, size)
  local image = rep("QUJDRA", math.floor((size or 0) / 6))
  local parts = size and format(',{"role":"user","content":[{"type":"text","text":"look"},'
    .. '{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]}', image) or ""
  return format('{"model":"%s","temperature":0.7,"messages":[{"role":"system","content":"be brief"},'
    .. '{"role":"user","content":"%s"}%s],"n":1,"stream":false}', model, text, parts)
end

local POSITION = " at line %d+, column %d+ %(byte %d+%)$"

-- The bodies: what each should get, as (status, pattern of the answer).
local BODIES = {}
local function add(name, status, pattern, body)
  BODIES[#BODIES + 1] = { name = name, status = status, pattern = pattern, body = body }
end
local function valid(name, model, messages, body)
  add(name, 200, "^ok " .. model:gsub("%p", "%%%0") .. " " .. messages .. " %d+$", body)
end
local function invalid(name, what, body)
  add(name, 400, "^qjson: " .. what .. ".*" .. POSITION, body)
end

local small = chat("gpt-4o", "Hello, caf\\u00e9 \\ud83d\\ude00 \\\"quoted\\\" é 😀")
valid("small", "gpt-4o", 2, small)
valid("small, whitespace", "gpt-4o", 2, (small:gsub(',"', ',\n  "'):gsub("%[{", "[ {\r\n\t")))
valid("image parts, 60 KB (body in a file)", "gpt-4o-mini", 3, chat("gpt-4o-mini", "hi", 60000))
valid("image parts, 8 KB", "gpt-4o-mini", 3, chat("gpt-4o-mini", "hi", 8000))
valid("extra fields", "m", 1, '{"model":"m","messages":[{"role":"user","content":"x","name":null}],'
  .. '"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}],'
  .. '"max_tokens":9007199254740991,"top_p":1e-3,"stop":["\\n"],"user":"\\/u"}')
valid("keys such as _doc and __index", "_doc", 1,
  '{"_doc":1,"__index":2,"n":3,"model":"_doc","messages":[{"content":"__len"}]}')

for _, cut in ipairs({ 1, 10, 30, 57, 100, #small - 1 }) do
  invalid("truncated at " .. cut, "", small:sub(1, cut))
end
invalid("truncated file body", "", chat("gpt-4o-mini", "hi", 60000):sub(1, 50000))
invalid("invalid UTF-8 byte", "invalid UTF%-8", chat("m", "bad \255 byte"))
invalid("overlong UTF-8", "invalid UTF%-8", chat("m", "\192\175etc/passwd"))
invalid("UTF-8-encoded surrogate", "invalid UTF%-8", chat("m", "\237\160\128"))
invalid("truncated UTF-8", "invalid UTF%-8", chat("m", "\226\130"))
invalid("trailing garbage", "trailing content", small .. "garbage")
invalid("a second document", "trailing content", small .. small)
invalid("NUL after the body", "trailing content", small .. "\0" .. small)
invalid("NUL in a string", "unescaped control character", chat("m", "a\0b"))
invalid("raw newline in a string", "unescaped control character", chat("m", "a\nb"))
invalid("nesting 65 deep", "nesting deeper than max_depth %(64%)",
  '{"model":"m","messages":[' .. rep("[", 64) .. rep("]", 64) .. "]}")
invalid("nesting 100,000 deep", "nesting deeper than max_depth %(64%)", rep("[", 100000))
invalid("duplicate key", "duplicate key", '{"model":"a","messages":[],"model":"b"}')
invalid("duplicate key after unescaping", "duplicate key", '{"model":"a","messages":[],"mod\\u0065l":"b"}')
invalid("number beyond binary64", "number out of range", '{"model":"m","messages":[],"n":1e400}')
invalid("integer beyond 2^53", "number out of range", '{"model":"m","messages":[],"seed":9007199254740993}')
invalid("100-digit integer", "number out of range", '{"model":"m","messages":[],"n":1' .. rep("0", 99) .. "}")
invalid("NaN", "unexpected character", '{"model":"m","messages":[],"t":NaN}')
invalid("leading zero", "invalid number", '{"model":"m","messages":[],"t":01}')
invalid("lone surrogate", "lone surrogate", chat("m", "\\ud800"))
invalid("swapped surrogates", "lone surrogate", chat("m", "\\ude00\\ud83d"))
invalid("byte-order mark", "byte%-order mark", "\239\187\191" .. small)
invalid("empty body", "empty input", "")
invalid("single quotes", "", "{'model':'m'}")
invalid("comment", "", "// x\n" .. small)
add("model not a string", 400, "^'model' must be a string$", '{"model":42,"messages":[]}')
add("messages not an array", 400, "^'messages' must be an array$", '{"model":"m","messages":"hi"}')
add("array body", 400, "", "[1,2]")
add("content of the wrong kind", 400, "content must be", '{"model":"m","messages":[{"content":7}]}')

-- Valid bodies are half of what is sent: each valid one recurs.
local ORDER = {}
for i, b in ipairs(BODIES) do
  ORDER[#ORDER + 1] = i
  if b.status == 200 then
    for _ = 1, 5 do ORDER[#ORDER + 1] = i end
  end
end

-- Per thread (globals, so that done(), in the main state, can read them).
seen, wrong, valid_seen, invalid_seen, examples = 0, 0, 0, 0, ""
local limit, next_body, sent = 0, 0, {}
local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  threads[#threads + 1] = thread
end

-- The requests are shared among the threads (SOAK_THREADS, as wrk's -t).
local nthreads = tonumber(os.getenv("SOAK_THREADS")) or 1
function init(args)
  limit = math.ceil((tonumber(args[1]) or 1000000) / nthreads)
  next_body = (thread_index or 0) * 7
end

local id = 0
function request()
  id = id + 1
  next_body = next_body % #ORDER + 1
  local b = BODIES[ORDER[next_body]]
  sent[tostring(id)] = b
  return wrk.format("POST", "/gateway", { ["Content-Type"] = "application/json", ["X-Soak-Id"] = tostring(id) },
    b.body)
end

function response(status, headers, body)
  local key = headers["X-Soak-Id"]
  local b = key and sent[key]
  seen = seen + 1
  if b then
    sent[key] = nil
    if b.status == 200 then valid_seen = valid_seen + 1 else invalid_seen = invalid_seen + 1 end
  end
  if not b or status ~= b.status or not body:find(b.pattern) then
    wrong = wrong + 1
    if #examples < 2000 then
      examples = examples .. format("  %s: want %s %q, got %d %q\n", b and b.name or "(unknown id " .. tostring(key)
        .. ")", b and b.status or "?", b and b.pattern or "", status, body:sub(1, 200))
    end
  end
  if seen == limit then
    -- wrk runs for its -d duration even once every thread has stopped:
    -- a file per thread tells tools/soak.sh to end it (SIGINT) now.
    local f = io.open((os.getenv("SOAK_DONE_DIR") or ".") .. "/done." .. (thread_index or 0), "w")
    if f then f:close() end
    wrk.thread:stop()
  end
end

function done(summary)
  local n, w, v, i, ex = 0, 0, 0, 0, ""
  for _, t in ipairs(threads) do
    n, w = n + t:get("seen"), w + t:get("wrong")
    v, i = v + t:get("valid_seen"), i + t:get("invalid_seen")
    ex = ex .. t:get("examples")
  end
  local e = summary.errors
  io.write(format("SOAK responses=%d wrong=%d valid=%d invalid=%d errors=%d bodies=%d\n", n, w, v, i,
    e.connect + e.read + e.write + e.timeout, #BODIES))
  io.write(ex)
end
