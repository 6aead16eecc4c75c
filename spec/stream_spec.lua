-- Streams (qjson.stream): each() over whole buffers and feeders over
-- chunks give the same values wherever the chunks are cut; hostile
-- streams raise a positioned error in bounded memory.
local qjson = require("qjson")
local stream = qjson.stream

local SSE = ': keep-alive\n\n'
  .. 'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n'
  .. 'event: x\r\nid: 2\r\ndata: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo \\u00e9"},'
  .. '"finish_reason":null}]}\r\n\r\n'
  .. 'data: {"id":"c1",\ndata: "choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\r'
  .. 'data: [DONE]\n\ndata: {"ignored":true}\n\n'
local NDJSON = '{"level":"info","msg":"a","ms":1}\n\n{"level":"warn","msg":"b\\n","ms":2.5}\r\n'
  .. '  {"level":"error","msg":"c","ms":3}  \n{"level":"info","msg":"d","ms":4}'
local CONCAT = '{"a":"}"}[1,[2]]"s\\"" 12 true{"b":null} -1.5e3'

local function all(iter, st, i)
  local got = {}
  for _, a, b in iter, st, i do
    got[#got + 1] = { a, b }
  end
  return got
end

local function fed(format, how, chunks)
  local f = stream.feeder(format, how)
  local got = {}
  for k, c in ipairs(chunks) do
    for _, a, b in f:feed(c, k == #chunks) do
      got[#got + 1] = { a, b }
    end
  end
  return got, f
end

describe("qjson.stream", function()
  local sel = qjson.select({ "choices[0].delta.content", "choices[0].finish_reason" })

  it("reads server-sent events: data joined, comments, other fields and [DONE]", function()
    assert.are.same({ { "Hel", qjson.null }, { "lo \195\169", qjson.null }, { nil, "stop" } },
      all(stream.each(SSE, "sse", sel)))
    local ids = {}
    for i, d in stream.each(SSE, "sse") do
      ids[i] = d:get_num("choices[0].index")
    end
    assert.are.same({ 0, 0, 0 }, ids)
  end)

  it("reads NDJSON and concatenated JSON, as documents, texts or selections", function()
    local lines = {}
    for _, text in stream.each(NDJSON, "ndjson", "raw") do
      lines[#lines + 1] = text
    end
    assert.are.same({ '{"level":"info","msg":"a","ms":1}', '{"level":"warn","msg":"b\\n","ms":2.5}',
      '{"level":"error","msg":"c","ms":3}', '{"level":"info","msg":"d","ms":4}' }, lines)
    local s = qjson.select({ "msg", "ms" })
    assert.are.same({ { "a", 1 }, { "b\n", 2.5 }, { "c", 3 }, { "d", 4 } }, all(stream.each(NDJSON, "ndjson", s)))
    local texts = {}
    for _, d in stream.each(CONCAT, "json") do
      texts[#texts + 1] = d:raw()
    end
    assert.are.same({ '{"a":"}"}', '[1,[2]]', '"s\\""', "12", "true", '{"b":null}', "-1.5e3" }, texts)
  end)

  it("gives the same values however a stream is cut into chunks", function()
    for _, case in ipairs({ { "sse", SSE, sel }, { "ndjson", NDJSON, "raw" }, { "json", CONCAT, "raw" } }) do
      local format, text, how = case[1], case[2], case[3]
      local want = all(stream.each(text, format, how))
      for k = 0, #text do
        assert.are.same(want, (fed(format, how, { text:sub(1, k), text:sub(k + 1) })), format .. " cut at " .. k)
      end
      local bytes = {}
      for k = 1, #text do
        bytes[k] = text:sub(k, k)
      end
      local got, f = fed(format, how, bytes)
      assert.are.same(want, got)
      assert.are.equal(format == "sse", f.done)
    end
  end)

  it("names the stream position of a value that does not parse", function()
    local ok, err = pcall(all, stream.each('{"a":1}\n{"b":"\255"}\n{"c":\0}\n', "ndjson"))
    assert.is_false(ok)
    assert.are.equal("qjson: invalid UTF-8 at line 1, column 7 (byte 6) in the value at byte 8 of the stream", err)
    ok, err = pcall(all, stream.each('data: {"a":1}\n\ndata: {"a":\0}\n\n', "sse", qjson.select({ "a" })))
    assert.is_false(ok)
    assert.truthy(err:find("byte 0x00 .* in the value at byte 21 of the stream"), err)
    local n = 0
    ok, err = pcall(function()
      for _ in stream.each('[1] [2] } [3]', "json", "raw") do
        n = n + 1
      end
    end)
    assert.is_false(ok)
    assert.are.equal(2, n) -- the values before the fault
    assert.are.equal("qjson: unexpected '}' between values at byte 8 of the stream", err)
  end)

  it("fails hostile streams with a position, in bounded memory", function()
    local max = 1024 * 1024
    local chunk = string.rep("a", 64 * 1024)
    for _, case in ipairs({
      { "sse", 'data: {"ok":1}\n\ndata: "', "at byte 16 of the stream" }, -- a 100 MB data: line
      { "json", '{} {"never":"', "at byte 3 of the stream" },             -- a value that never ends
      { "ndjson", '{}\n"', "at byte 3 of the stream" },                   -- a huge line
      { "sse", ": ", "at byte 0 of the stream" },                        -- an endless comment
    }) do
      local f = stream.feeder(case[1], "raw", { max_size = max })
      local before = collectgarbage("count")
      local got = {}
      local ok = pcall(function()
        for _, t in f:feed(case[2]) do
          got[#got + 1] = t
        end
        for _ = 1, 100 * 16 do -- 100 MB
          for _ in f:feed(chunk) do
            error("no value expected")
          end
        end
      end)
      assert.is_false(ok)
      local err
      ok, err = pcall(function()
        for _ in f:feed("{}\n\n", true) do
          error("no value expected after the error")
        end
      end)
      assert.is_false(ok)
      assert.truthy(err:find("larger than max_size %(1048576 bytes%) " .. case[3]), err)
      assert.is_true(collectgarbage("count") - before < 8 * 1024, "Lua heap grew")
    end
  end)

  it("raises after the values the chunk completed, then on every call", function()
    local f = stream.feeder("json", "raw")
    local got = {}
    local ok, err = pcall(function()
      for _, t in f:feed('[1] {"a":2} ] [3]') do
        got[#got + 1] = t
      end
    end)
    assert.is_false(ok)
    assert.are.same({ "[1]", '{"a":2}' }, got)
    assert.are.equal("qjson: unexpected ']' between values at byte 12 of the stream", err)
    assert.has_error(function()
      for _ in f:feed("[4]") do
        error("no value expected")
      end
    end, "qjson: unexpected ']' between values at byte 12 of the stream")
  end)

  it("checks its arguments", function()
    assert.has_error(function() stream.each(42, "sse") end)
    assert.has_error(function() stream.each("", "xml") end)
    assert.has_error(function() stream.each("", "sse", "tables") end)
    assert.has_error(function() stream.feeder("sse", nil, { max_size = 0 }) end)
    assert.has_error(function() stream.feeder("sse"):feed(12) end)
    assert.are.same({}, all(stream.each("", "sse")))
    assert.are.same({}, all(stream.each("\n\n: only comments\n\n", "sse")))
  end)
end)
