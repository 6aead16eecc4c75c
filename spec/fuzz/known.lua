-- Bugs the Lua-level fuzzer found in code it does not own, each with its
-- smallest reproduction; fixed ones stay as regression tests.
-- spec/fuzz_lua_spec.lua fails while any of them is present; meanwhile the
-- fuzzer steers around the ones still present (so that it keeps finding
-- others), and covers that ground again on its own once a fix lands.
local K = {}

K.bugs = {
  {
    name = "safe_decode_raises",
    what = "qjson.safe.decode raises, instead of returning nil and the message, for a lazy-mode scalar"
      .. " document whose value is invalid (lua/qjson/safe.lua safe.decode calls its decode unprotected;"
      .. " view.decoded reads the scalar and raises)",
    present = function()
      local ok = pcall(require("qjson.safe").decode, "tru", { mode = "lazy" })
      return not ok
    end,
  },
  {
    name = "stale_child_view",
    what = "after qjson.remove / qjson.insert on an array view, reading an element that is an array or object"
      .. " can return the view of the element that was at that index before the shift (lua/qjson/view.lua"
      .. " array_get passes the index as child_view's cache key; st.cache is not shifted)",
    present = function()
      local qjson = require("qjson")
      local v = qjson.decode("[[1],[2],[3]]")
      qjson.remove(v, 1)
      return qjson.encode(v[1]) ~= "[2]"
    end,
  },
  {
    name = "materialize_nested_view",
    what = "qjson.materialize returns a plain table assigned into a view as it is, so a view inside that"
      .. " table stays a view (lua/qjson/view/materialize.lua: `if st == nil then return v end`)",
    present = function()
      local qjson = require("qjson")
      local v = qjson.decode("{}")
      v.a = { qjson.decode('{"y":2}') }
      return rawget(qjson.materialize(v).a[1], "y") ~= 2
    end,
  },
}

local present
-- Whether bug `name` is still there (checked once per process).
function K.present(name)
  if present == nil then
    present = {}
    for _, bug in ipairs(K.bugs) do present[bug.name] = bug.present() end
  end
  return present[name]
end

return K
