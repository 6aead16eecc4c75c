-- Loads the native library and its declarations (from the generated
-- header, see cdef.lua). Where the library is looked for, in order:
--   1. $QJSON_LIB, when set (and nothing else);
--   2. beside this module (an installed tree), then the built tree this
--      module sits in (<repo>/target/release/libqjson.so);
--   3. package.cpath, as "libqjson".
local ffi = require("ffi")

ffi.cdef(require("qjson.cdef"))

local function this_dir()
  local source = debug.getinfo(1, "S").source
  if source:sub(1, 1) ~= "@" then
    return nil
  end
  return source:sub(2):match("^(.*)/[^/]*$") or "."
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then
    f:close()
  end
  return f ~= nil
end

local function candidates()
  local env = os.getenv("QJSON_LIB")
  if env and env ~= "" then
    return { env }
  end
  local list = {}
  local dir = this_dir()
  if dir then
    list[#list + 1] = dir .. "/libqjson.so"
    list[#list + 1] = dir .. "/../../target/release/libqjson.so"
  end
  local on_cpath = package.searchpath("libqjson", package.cpath)
  if on_cpath then
    list[#list + 1] = on_cpath
  end
  return list
end

-- At lua_close LuaJIT closes the libraries ffi.load opened, and may do
-- so before running the __gc of userdata made before qjson was loaded: a
-- __gc that calls qjson then would jump into unmapped code. A second
-- dlopen with RTLD_NODELETE (Linux's value) keeps the library mapped for
-- the life of the process (it holds no state that needs unloading).
ffi.cdef([[void *qjson_lib_dlopen(const char *path, int flags) __asm__("dlopen");]])
local RTLD_NOW, RTLD_NODELETE = 0x2, 0x1000

local tried = {}
for _, path in ipairs(candidates()) do
  if exists(path) then
    local ok, lib = pcall(ffi.load, path)
    if ok then
      local called, pinned = pcall(function() return ffi.C.qjson_lib_dlopen(path, RTLD_NOW + RTLD_NODELETE) ~= nil end)
      if not (called and pinned) then
        error("qjson: cannot keep " .. path .. " loaded (dlopen with RTLD_NODELETE failed)", 2)
      end
      return lib
    end
    tried[#tried + 1] = path .. " (" .. tostring(lib) .. ")"
  else
    tried[#tried + 1] = path .. " (not found)"
  end
end
error("qjson: cannot load libqjson.so; run `make build` or set QJSON_LIB. Tried:\n  "
  .. table.concat(tried, "\n  "), 2)
