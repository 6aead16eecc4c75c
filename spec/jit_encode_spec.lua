-- Views, at the top and nested, are written by their own writer, not
-- through the encoder's generic value writer. A compiled trace that starts in that
-- writer and reaches a view writer's member loop is aborted (LuaJIT does
-- not enter an inner loop from a root trace); after a few aborts LuaJIT
-- blacklists the writer, and with it every loop that calls it, so plain
-- tables were encoded by the interpreter in any process that had encoded
-- edited views (measured on a 2 KB chat table: 1.2-1.8 µs fresh, 2.2-4.0
-- µs after view encodes). Whether LuaJIT blacklists depends on its hot
-- counters, so this checks the path instead: no generic writer frame
-- below the view writer.
--
-- Nor a pcall frame: a view's member loop becomes a trace of its own, and
-- LuaJIT cannot trace the return from it into a pcall frame below, so
-- under a pcall every encode of an edited view ended in the interpreter
-- (measured on a 2 KB chat request with one edit: 1.4 µs an encode under
-- the pcall, 0.8 µs without).
local qjson = require("qjson")
qjson.decode_views(true) -- views on every build (see spec/support.lua)
local encode_module = require("qjson.encode")
local view = require("qjson.view")

describe("encoding a view", function()
  it("writes views, top-level and nested, without the generic value writer on the stack", function()
    -- Where the generic writer is defined (qjson.encode.walk), to recognise
    -- its frames.
    local source = debug.getinfo(require("qjson.encode.walk").new, "S").source
    local writer_line
    local n = 0
    for line in io.lines(source:sub(2)) do
      n = n + 1
      if line:find("^%s*put_value = function%(") then
        writer_line = n
      end
    end
    assert.is_number(writer_line)
    local hooks = encode_module.views[view.ObjectMT]
    local put = hooks.put
    local calls = {}
    local v = qjson.decode('{"a": 1, "b": [1, {"c": 2}], "d": {"e": 3}}')
    -- Only this encode's views count: under make test-gc, finalizers
    -- encode views of their own meanwhile.
    local mine = { [v] = true, [v.b] = true, [v.b[2]] = true, [v.d] = true }
    hooks.put = function(buf, t, ...)
      if not mine[t] then
        return put(buf, t, ...)
      end
      -- The encoder's frames below this call of the view writer.
      local frames = {}
      for level = 2, 30 do
        local info = debug.getinfo(level, "S")
        if info == nil then
          break
        end
        if info.source == source then
          frames[#frames + 1] = info.linedefined
        end
      end
      calls[#calls + 1] = frames
      return put(buf, t, ...)
    end
    local ok, out = pcall(function()
      v.a = 2
      v.b[2].c = 4
      return qjson.encode(v)
    end)
    hooks.put = put
    assert(ok, out)
    assert.are.equal('{"a":2,"b":[1,{"c": 4}],"d":{"e": 3}}', out)
    -- The root, b and b[2] are written by the view writer (d is copied).
    assert.are.equal(3, #calls)
    for _, frames in ipairs(calls) do
      assert.is_true(#frames > 0)
      for _, line in ipairs(frames) do
        assert.are_not.equal(writer_line, line)
      end
    end
  end)

  it("writes views with no pcall frame between encode and the view writer", function()
    local hooks = encode_module.views[view.ObjectMT]
    local put = hooks.put
    local caller, protected, reached
    local v = qjson.decode('{"a": 1, "b": {"c": 2}}')
    local mine = { [v] = true, [v.b] = true } -- (not a finalizer's views)
    hooks.put = function(buf, t, ...)
      if not mine[t] then
        return put(buf, t, ...)
      end
      for level = 2, 40 do
        local info = debug.getinfo(level, "f")
        if info == nil or info.func == caller then
          reached = info ~= nil
          break
        end
        if info.func == pcall or info.func == xpcall then
          protected = true
        end
      end
      return put(buf, t, ...)
    end
    caller = function()
      v.b.c = 3
      local out = qjson.encode(v) -- (not a tail call: this frame must stay)
      return out
    end
    local ok, out = pcall(caller)
    hooks.put = put
    assert(ok, out)
    assert.are.equal('{"a":1,"b":{"c": 3}}', out)
    assert.is_true(reached)
    assert.is_nil(protected)
  end)
end)
