-- Turns the C header into the declarations LuaJIT's ffi.cdef accepts:
-- drops preprocessor lines and comments, keeps everything else as is.
--   luajit tools/gen-cdef.lua crates/luajit/include/qjson.h > lua/qjson/cdef.lua
-- spec/cdef_spec.lua runs `declarations` again to check for drift.
local M = {}

function M.declarations(header)
  local out = {}
  for line in (header .. "\n"):gmatch("(.-)\n") do
    line = line:gsub("//.*$", ""):gsub("/%*.-%*/", ""):gsub("%s+$", "")
    if not line:match("^%s*#") and line ~= "" then
      out[#out + 1] = line
    end
  end
  return table.concat(out, "\n") .. "\n"
end

function M.module(header)
  return "-- Generated from crates/luajit/include/qjson.h by tools/gen-cdef.lua (make header); do not edit.\n"
    .. "-- spec/cdef_spec.lua fails when this drifts from the header.\n"
    .. "return [[\n" .. M.declarations(header) .. "]]\n"
end

-- Run as a script only when given a header (loading it as a module, from a
-- test runner whose own `arg` is set, must not write anything).
local header_path = ...
if type(header_path) == "string" and header_path:match("%.h$") then
  local f = assert(io.open(header_path, "rb"))
  io.write(M.module(f:read("*a")))
  f:close()
end

return M
