-- A top-level view is written by its own writer, not through the
-- encoder's generic value writer. A compiled trace that starts in that
-- writer and reaches a view writer's member loop is aborted (LuaJIT does
-- not enter an inner loop from a root trace); after a few aborts LuaJIT
-- blacklists the writer, and with it every loop that calls it, so plain
-- tables were encoded by the interpreter in any process that had encoded
-- edited views (measured on a 2 KB chat table: 1.2-1.8 µs fresh, 2.2-4.0
-- µs after view encodes). Whether LuaJIT blacklists depends on its hot
-- counters, so this checks the path instead: no generic writer frame
-- below the view writer.
local qjson = require("qjson")
local encode_module = require("qjson.encode")
local view = require("qjson.view")

describe("encoding a view", function()
  it("writes a top-level view without the generic value writer on the stack", function()
    -- Where the generic writer is defined, to recognise its frames.
    local source = debug.getinfo(encode_module.install, "S").source
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
    local frames
    hooks.put = function(...)
      if frames == nil then
        frames = {}
        for level = 2, 20 do
          local info = debug.getinfo(level, "S")
          if info == nil then
            break
          end
          if info.source == source then
            frames[#frames + 1] = info.linedefined
          end
        end
      end
      return put(...)
    end
    local ok, out = pcall(function()
      local v = qjson.decode('{"a": 1, "b": [1, 2]}')
      v.a = 2
      return qjson.encode(v)
    end)
    hooks.put = put
    assert(ok, out)
    assert.are.equal('{"a":2,"b":[1, 2]}', out)
    -- The encoder's own frames below the view writer (walk, at least).
    assert.is_true(#frames > 0)
    for _, line in ipairs(frames) do
      assert.are_not.equal(writer_line, line)
    end
  end)
end)
