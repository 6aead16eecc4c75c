-- Finalizers that call qjson in the middle of qjson calls (issue 18,
-- items 1 to 5; docs/security.md, "Finalizers"). Each scenario of
-- spec/finalizer/scenarios.lua runs in a process of its own: a use
-- after free there may crash the process, which this spec then reports. (make test-gc also runs the whole suite with
-- qjson-calling finalizers pending at every allocation: spec/gc_stress.lua.)
local support = require("support")

local SCRIPT = support.root .. "/spec/finalizer/scenarios.lua"

-- (`limit`: seconds after which the scenario is killed, a hang shown as
-- exit=124; `prefix`: a command to run the interpreter under, as valgrind.)
local function run(name, mode, limit, prefix)
  local cmd = ("LUA_PATH=%q %s%s %s %s %s %s 2>&1; echo \"exit=$?\""):format(
    support.root .. "/lua/?.lua;" .. support.root .. "/lua/?/init.lua;;",
    limit and ("timeout %d "):format(limit) or "", prefix or "", support.luajit, SCRIPT, name, mode)
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  return out
end

-- (With the JIT off: finalizers then run at the allocations themselves,
-- not at the exits of compiled code, so each scenario reaches the point
-- it aims at; trace_exits aims at those exits, with the JIT on. make
-- test-gc runs everything with the JIT on too.)
describe("finalizers calling qjson during a qjson call", function()
  for _, mode in ipairs({ "nojit" }) do
    describe("(JIT off)", function()
      it("closing a parse_file document during an encode of its view: the text or 'document is closed'", function()
        assert.are.equal("ok\nexit=0\n", run("encode_close", mode))
      end)

      it("closing a parse_file document during a materialize: the table or 'document is closed'", function()
        assert.are.equal("ok\nexit=0\n", run("materialize_close", mode))
      end)

      it("reads of another document between a read and its string: every read gives its own value", function()
        assert.are.equal("ok\nexit=0\n", run("shared_boxes", mode))
      end)

      it("every reader of qjson.base with other reads at each of its allocations: each read its own value",
        function()
          assert.are.equal("ok\nexit=0\n", run("reads", mode))
        end)

      it("an indented encode of an edited array during a view's string read: the string, not foreign bytes",
        function()
          assert.are.equal("ok\nexit=0\n", run("encode_kind_read", mode))
        end)

      it("encodes of other views between a view and its child's write: the same bytes", function()
        assert.are.equal("ok\nexit=0\n", run("encode_nested", mode))
      end)

      it("encodes of plain tables while an encode takes its output: a lazy-mode view's text is still checked",
        function()
          assert.are.equal("ok\nexit=0\n", run("encode_output", mode))
        end)

      it("key reads of another document while doc:get adopts a view: the edit reaches the root's encode", function()
        assert.are.equal("ok\nexit=0\n", run("attach_key", mode))
      end)

      it("parses with other options between the halves of a parse: duplicate_keys and ijson hold", function()
        assert.are.equal("ok\nexit=0\n", run("options_box", mode))
      end)

      it("patches between a patch and the copy of its result: each call its own result and message", function()
        assert.are.equal("ok\nexit=0\n", run("patch_nested", mode))
      end)

      it("materializes with other settings between a materialize and its build: each its own array_mt",
        function()
          assert.are.equal("ok\nexit=0\n", run("materialize_mt", mode))
        end)

      it("a validation between a failed is_valid and its message: the message is its own", function()
        assert.are.equal("ok\nexit=0\n", run("schema_message", mode))
      end)

      it("validations and problem() with the same OpenAPI spec during a call: each its own result and text",
        function()
          assert.are.equal("ok\nexit=0\n", run("openapi_nested", mode))
        end)

      it("errors raised during decodes and materializes: no decode slot is lost", function()
        assert.are.equal("ok\nexit=0\n", run("slot_leak", mode))
      end)
    end)
  end

  for _, mode in ipairs({ "nojit", "jit" }) do
    describe(mode == "jit" and "(JIT on)" or "(JIT off)", function()
      it("a feed of the same feeder during an iteration of its values: each iteration its own values", function()
        assert.are.equal("ok\nexit=0\n", run("feeder_values", mode))
      end)

      it("an error raised inside feed(): not stuck, and the values come with the next feed", function()
        assert.are.equal("ok\nexit=0\n", run("feeder_error", mode))
      end)
    end)
  end

  it("(JIT on) reads in compiled loops, finalizers run at trace exits reading through the same boxes: "
    .. "every value right", function()
    assert.are.equal("ok\nexit=0\n", run("trace_exits", "jit"))
  end)

  it("a userdata __gc using selectors, feeders, validators and paths at lua_close: 'is freed'", function()
    assert.are.equal("ok\nat close:\nselector: qjson: selector is freed\nfeeder: qjson: stream splitter is freed\n"
      .. "validator: qjson: validator is freed\npath: qjson: compiled path is freed\neach: gave {\"a\":4}\nexit=0\n",
      run("lua_close_objects", "nojit"))
  end)

  it("a userdata older than qjson whose __gc encodes at lua_close: the library is still there", function()
    assert.are.equal("ok\nat close: [1.5]\nexit=0\n", run("lua_close_unloaded", "nojit"))
  end)

  it("the lua_close scenarios under valgrind: no invalid read or write", function()
    local status = os.execute("command -v valgrind >/dev/null 2>&1")
    if status ~= 0 and status ~= true then
      pending("valgrind is not installed")
      return
    end
    for _, name in ipairs({ "lua_close_objects", "lua_close", "lua_close_unloaded" }) do
      local out = run(name, "nojit", nil, "valgrind --error-exitcode=99")
      assert.truthy(out:find("ERROR SUMMARY: 0 errors", 1, true), out)
      assert.truthy(out:find("exit=0\n", 1, true), out)
    end
  end)

  -- Issue 39, item 18: this hung LuaJIT (exit=124 here) with the JIT on,
  -- on both builds.
  for _, mode in ipairs({ "jit", "nojit" }) do
    it(("(JIT %s) a storm of finalizers that parse, read, decode, encode and materialize while the main "
      .. "loop does the same: every result right, no hang"):format(mode == "jit" and "on" or "off"), function()
      assert.are.equal("ok\nexit=0\n", run("storm", mode, 120))
    end)
  end

  it("a userdata __gc reading documents at lua_close gets 'document is closed'", function()
    local out = run("lua_close", "nojit")
    assert.are.equal("ok\nat close: qjson: document is closed; qjson: document is closed; "
      .. "qjson: document is closed\nexit=0\n", out)
  end)
end)
