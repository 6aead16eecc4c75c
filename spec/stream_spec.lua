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

  it("reads server-sent events through a selector", function()
    assert.are.same({ { "Hel", qjson.null }, { "lo \195\169", qjson.null }, { nil, "stop" } },
      all(stream.each(SSE, "sse", sel)))
  end)

  it("reads server-sent events: data joined, comments, other fields and [DONE]", function()
    assert.are.same({ { '{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}' },
      { '{"id":"c1","choices":[{"index":0,"delta":{"content":"lo \\u00e9"},"finish_reason":null}]}' },
      { '{"id":"c1",\n"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}' } },
      all(stream.each(SSE, "sse", "raw")))
    local ids = {}
    for i, d in stream.each(SSE, "sse") do
      ids[i] = d:get_num("choices[0].index")
    end
    assert.are.same({ 0, 0, 0 }, ids)
  end)

  it("reads NDJSON through a selector", function()
    local s = qjson.select({ "msg", "ms" })
    assert.are.same({ { "a", 1 }, { "b\n", 2.5 }, { "c", 3 }, { "d", 4 } }, all(stream.each(NDJSON, "ndjson", s)))
  end)

  it("reads NDJSON and concatenated JSON, as documents or texts", function()
    local lines = {}
    for _, text in stream.each(NDJSON, "ndjson", "raw") do
      lines[#lines + 1] = text
    end
    assert.are.same({ '{"level":"info","msg":"a","ms":1}', '{"level":"warn","msg":"b\\n","ms":2.5}',
      '{"level":"error","msg":"c","ms":3}', '{"level":"info","msg":"d","ms":4}' }, lines)
    local msgs = {}
    for i, d in stream.each(NDJSON, "ndjson") do
      msgs[i] = { d:get_str("msg"), d:get_num("ms"), d:raw() }
    end
    assert.are.same({ { "a", 1, lines[1] }, { "b\n", 2.5, lines[2] }, { "c", 3, lines[3] }, { "d", 4, lines[4] } },
      msgs)
    local texts = {}
    for _, d in stream.each(CONCAT, "json") do
      texts[#texts + 1] = d:raw()
    end
    assert.are.same({ '{"a":"}"}', '[1,[2]]', '"s\\""', "12", "true", '{"b":null}', "-1.5e3" }, texts)
  end)

  it("gives the same values however a stream is cut into chunks", function()
    local cases = { { "sse", SSE, "raw" }, { "ndjson", NDJSON, "raw" }, { "json", CONCAT, "raw" }, { "sse", SSE, sel } }
    for _, case in ipairs(cases) do
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

  it("names a wrong how: a selector is the third choice", function()
    for _, case in ipairs({ { "tables", "string" }, { {}, "table" }, { 1, "number" }, { true, "boolean" } }) do
      local want = '"doc", "raw" or a qjson.select selector expected, got ' .. case[2] .. ")"
      local ok, err = pcall(stream.each, "", "sse", case[1])
      assert.is_false(ok)
      assert.truthy(err:find("bad argument #3 to 'each' (" .. want, 1, true), err)
      ok, err = pcall(stream.feeder, "sse", case[1])
      assert.is_false(ok)
      assert.truthy(err:find("bad argument #2 to 'feeder' (" .. want, 1, true), err)
    end
  end)

  it("hands out a named selector's table, and containers, in each() and in a feeder", function()
    local text = '{"a":[1,{"b":2}],"n":"x"}\n{"a":{"c":[3]},"n":"y"}\n'
    local sel2 = qjson.select({ "a", n = "n" })
    local whole, cut = all(stream.each(text, "ndjson", sel2)), fed("ndjson", sel2, { text:sub(1, 9), text:sub(10) })
    for _, got in ipairs({ whole, cut }) do
      assert.are.equal(2, #got)
      local v1, v2 = got[1][1], got[2][1]
      assert.are.equal("x", v1.n)
      assert.are.equal(1, v1[1][1])
      assert.are.equal(2, v1[1][2].b)
      assert.are.equal("y", v2.n)
      assert.are.equal(3, v2[1].c[1])
    end
  end)

  -- The feeder's contract after a bad value (a value that does not parse
  -- or select, or a stream that cannot be split): the values before it,
  -- then its error, raised again by every later feed, however the stream
  -- is cut; each() over the whole stream gives the same values and error.
  describe("after a bad value", function()
    -- The values each feed gave, each feed in a pcall, and the errors.
    local function fed_pcall(format, how, chunks, opts)
      local f = stream.feeder(format, how, opts)
      local got, errs = {}, {}
      local function take(c, last)
        local ok, err = pcall(function()
          for _, a, b in f:feed(c, last) do
            got[#got + 1] = how == "doc" and a:raw() or { a, b }
          end
        end)
        if not ok then
          errs[#errs + 1] = err
        end
      end
      for k, c in ipairs(chunks) do
        take(c, k == #chunks)
      end
      take("{}\n\n", false) -- after the stream's end: still the error
      return got, errs
    end
    local function whole(format, how, text, opts)
      local got = {}
      local ok, err = pcall(function()
        for _, a, b in stream.each(text, format, how, opts) do
          got[#got + 1] = how == "doc" and a:raw() or { a, b }
        end
      end)
      return got, not ok and err or nil
    end
    local cases = {
      { "ndjson", "doc", '1\n{"x":\n2\n3\n' },
      { "ndjson", "doc", '{"a":1}\n{"a":[}\n{"a":3}\n' },
      { "json", "doc", '[1] [2,] [3] ] [4]' },
      { "json", "doc", '[1] [2] ] [3]' },
      { "sse", "doc", 'data: 1\n\ndata: {"a":\n\ndata: 3\n\n' },
      { "sse", "doc", 'data: [1]\n\ndata: [[2]]\n\ndata: [3]\n\n', { max_depth = 1 } },
      { "sse", "doc", 'data: [1,\ndata: 2]\n\ndata: [\ndata: ]]\n\ndata: [3]\n\n' },
      { "ndjson", qjson.select({ "a" }), '{"a":1}\n{"a":[}\n{"a":3}\n' },
      { "ndjson", qjson.select({ "a:number" }), '{"a":1}\n{"a":"s"}\n{"a":3}\n' },
    }
    for _, case in ipairs(cases) do
      local format, how, text, opts = case[1], case[2], case[3], case[4]
      it(format .. " " .. text:gsub("\n", "|"), function()
        local want, err = whole(format, how, text, opts)
        assert.is_string(err)
        local function check(chunks, what)
          local got, errs = fed_pcall(format, how, chunks, opts)
          assert.are.same(want, got, what)
          assert.is_true(#errs >= 1, what)
          for _, e in ipairs(errs) do
            assert.are.equal(err, e, what)
          end
        end
        check({ text }, "whole")
        for k = 0, #text do
          check({ text:sub(1, k), text:sub(k + 1) }, "cut at " .. k)
        end
        local bytes = {}
        for k = 1, #text do
          bytes[k] = text:sub(k, k)
        end
        check(bytes, "byte by byte")
      end)
    end

    it("the one-chunk feed of issue 39 delivers 1, then its error on every call", function()
      local got, errs = fed_pcall("ndjson", "doc", { '1\n{"x":\n2\n3\n', "4\n" })
      assert.are.same({ "1" }, got)
      assert.are.equal(3, #errs)
      assert.truthy(errs[1]:find("in the value at byte 2 of the stream", 1, true), errs[1])
    end)
  end)

  describe("options", function()
    local dup = '{"role":"user","role":"admin"}\n'
    it("apply to documents, in each() and in a feeder", function()
      assert.has_error(function()
        for _ in stream.each(dup, "ndjson", "doc", { duplicate_keys = "reject" }) do end
      end, "qjson: duplicate key at line 1, column 16 (byte 15) in the value at byte 0 of the stream")
      local f = stream.feeder("sse", nil, { max_depth = 2 })
      local got = {}
      local ok, err = pcall(function()
        for _, d in f:feed('data: {"a":1}\n\ndata: {"a":[[1]]}\n\n') do
          got[#got + 1] = d:get_num("a")
        end
      end)
      assert.is_false(ok)
      assert.are.same({ 1 }, got)
      assert.truthy(err:find("nesting deeper than max_depth (2) at line 1, column 7 (byte 6) in the value at byte 21 "
        .. "of the stream", 1, true), err)
      assert.are.same({ '{"n":01}' }, (function()
        local t = {}
        for _, d in stream.each('{"n":01}\n', "ndjson", "doc", { mode = "lazy" }) do
          t[#t + 1] = d:raw()
        end
        return t
      end)())
      assert.has_error(function() stream.each("", "ndjson", "doc", { mode = "fast" }) end,
        [[bad argument to 'each' (bad option 'mode' ("strict" or "lazy" expected, got "fast"))]])
      assert.has_error(function() stream.feeder("ndjson", "doc", { colour = true }) end,
        "bad argument to 'feeder' (unknown option 'colour')")
    end)

    it("apply to a selector's values, in each() and in a feeder", function()
      local role = qjson.select({ "role" })
      assert.has_error(function()
        for _ in stream.each(dup, "ndjson", role, { duplicate_keys = "reject" }) do end
      end, "qjson: duplicate key at line 1, column 16 (byte 15) in the value at byte 0 of the stream")
      assert.are.same({ { "admin" } }, all(stream.each(dup, "ndjson", role)))
      local f = stream.feeder("ndjson", qjson.select({ "id" }), { ijson = true })
      assert.has_error(function()
        for _ in f:feed('{"id":9007199254740993}\n') do end
      end, "qjson: number out of range at line 1, column 7 (byte 6) in the value at byte 0 of the stream")
      f = stream.feeder("sse", qjson.select({ "a" }), { max_depth = 2 })
      local got = {}
      local ok, err = pcall(function()
        for _, a in f:feed('data: {"a":1}\n\ndata: {"a":[[1]]}\n\n') do
          got[#got + 1] = a
        end
      end)
      assert.is_false(ok)
      assert.are.same({ 1 }, got)
      assert.truthy(err:find("nesting deeper than max_depth (2)", 1, true), err)
      -- Lazy mode: the selector reads the lazy document's values.
      local lazy = qjson.select({ "n" })
      assert.has_error(function()
        for _ in stream.each('{"n":01}\n', "ndjson", lazy, { mode = "lazy" }) do end
      end)
      assert.are.same({ { 1 } }, all(stream.each('{"n":1}\n', "ndjson", lazy, { mode = "lazy" })))
    end)

    it("are refused where they would not apply", function()
      assert.has_error(function() stream.each(dup, "ndjson", "raw", { ijson = true }) end,
        [[bad argument to 'each' (parse options with "raw": the values are not parsed)]])
      -- max_size alone is no parse option.
      assert.are.same({ '{"a":1}' }, (function()
        local t = {}
        for _, x in stream.each('{"a":1}\n', "ndjson", "raw", { max_size = 64 }) do
          t[#t + 1] = x
        end
        return t
      end)())
    end)

    it("given both to a selector and to the stream are refused", function()
      local own = qjson.select({ "role" }, { ijson = true })
      assert.has_error(function() stream.feeder("ndjson", own, { duplicate_keys = "reject" }) end,
        "bad argument to 'feeder' (parse options given both to the selector and to the stream)")
      -- The selector's own options apply when the stream gives none.
      assert.has_error(function()
        for _ in stream.each('{"role":9007199254740993}\n', "ndjson", own) do end
      end)
    end)

    it("max_size: an integer from 1 to 2^32 - 1, and a splitter of its own per format and size", function()
      local function count(...)
        local n = 0
        for _ in stream.each(...) do
          n = n + 1
        end
        return n
      end
      -- Issue 39: pooled under format * 2^32 + max_size, an NDJSON
      -- splitter of max_size 5 GiB served a JSON stream of 1 GiB (one
      -- value), and one of 2^32 + 16 a JSON stream of 16 (a 100-byte value
      -- passed).
      pcall(count, '{"a":1}\n', "ndjson", "raw", { max_size = 2 ^ 32 + 2 ^ 30 })
      assert.are.equal(2, count('{"a":1} {"b":2}', "json", "raw", { max_size = 2 ^ 30 }))
      pcall(count, '1\n', "ndjson", "raw", { max_size = 2 ^ 32 + 16 })
      assert.has_error(function() count('"' .. string.rep("x", 100) .. '"', "json", "raw", { max_size = 16 }) end,
        "qjson: value larger than max_size (16 bytes) at byte 0 of the stream")
      assert.are.equal(2 ^ 32 - 1, stream.MAX_SIZE)
      for _, bad in ipairs({ 0, 2 ^ 32, 2 ^ 32 + 16, 5 * 2 ^ 30, 1.5, -1, "8" }) do
        assert.has_error(function() stream.each("", "json", "raw", { max_size = bad }) end,
          "bad option 'max_size' (integer from 1 to 4294967295 expected, got " .. tostring(bad) .. ")")
      end
      assert.are.equal(1, count('{"a":1}\n', "ndjson", "raw", { max_size = 2 ^ 32 - 1 }))
      assert.are.equal(2, count('{"a":1} {"b":2}', "json", "raw", { max_size = 2 ^ 32 - 1 }))
    end)
  end)

  it("skips one byte-order mark at the start of an SSE stream, in each() and at every cut", function()
    local text = '\239\187\191data: {"a":1}\n\ndata: {"b":2}\n\n'
    local want = { { '{"a":1}' }, { '{"b":2}' } }
    assert.are.same(want, all(stream.each(text, "sse", "raw")))
    for k = 0, #text do
      assert.are.same(want, (fed("sse", "raw", { text:sub(1, k), text:sub(k + 1) })), "cut at " .. k)
    end
    local bytes = {}
    for k = 1, #text do
      bytes[k] = text:sub(k, k)
    end
    assert.are.same(want, (fed("sse", "raw", bytes)))
  end)

  it("raises on a feed after the end of the stream", function()
    local f = stream.feeder("ndjson", "raw")
    assert.are.same({ { "1" } }, all(f:feed("1\n")))
    assert.are.same({ { "2" } }, all(f:feed("2", true)))
    local msg = "qjson: feed after the end of the stream at byte 3 of the stream"
    assert.has_error(function() f:feed('{"a":1}\n') end, msg)
    assert.has_error(function() f:feed() end, msg)
    -- finish() again is no new data: nothing more.
    assert.are.same({}, all(f:finish()))
    f = stream.feeder("sse", "raw")
    assert.are.same({ { "3" } }, all(f:feed("data: 3", true)))
    assert.has_error(function() f:feed("\n\ndata: 4\n\n") end)
  end)
end)
