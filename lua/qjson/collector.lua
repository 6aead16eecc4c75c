-- qjson.collector: whether LuaJIT's garbage collector is running. It is
-- not while a finalizer (a userdata's __gc, an ffi.gc finalizer) runs:
-- LuaJIT stops it for the finalizer's duration. (Nor after
-- collectgarbage("stop").) qjson.encode asks at every call, to give the
-- encodes that finalizers run walkers LuaJIT does not compile (see
-- there), so the answer must cost next to nothing where the call is
-- compiled.
--
-- collectgarbage("isrunning") gives it, but is a C function LuaJIT does not
-- compile: a trace that calls it is cut in two (small encodes got much
-- slower: docs/security.md). The same answer is
-- read here through the FFI from lua_gc(L, LUA_GCISRUNNING), which only
-- reads the collector's threshold, for a lua_State of this VM (any one:
-- the collector is the VM's). Where lua_gc cannot be found in the process
-- (a LuaJIT linked without exporting its C API), or gives another answer
-- than collectgarbage at load, collectgarbage("isrunning") is used.
local ffi = require("ffi")

local collectgarbage, tonumber, format = collectgarbage, tonumber, string.format

local M = {}

local function by_collectgarbage()
  return collectgarbage("isrunning")
end

-- The lua_gc option (LuaJIT's lua.h).
local GCISRUNNING = 9

-- A coroutine whose lua_State is the `L` passed to lua_gc, kept alive
-- with the module (M.thread).
local thread = coroutine.create(function() end)
M.thread = thread

local function by_ffi()
  -- (Under a name of qjson's own: another module may declare lua_gc.)
  ffi.cdef([[int qjson_collector_lua_gc(void *L, int what, int data) __asm__("lua_gc");]])
  local lua_gc = ffi.C.qjson_collector_lua_gc -- (raises when the symbol is not found)
  local L = ffi.cast("void *", tonumber(format("%p", thread)))
  local function running()
    return lua_gc(L, GCISRUNNING, 0) ~= 0
  end
  if running() ~= by_collectgarbage() then
    return nil
  end
  return running
end

local ok, running = pcall(by_ffi)
M.running = ok and running or by_collectgarbage
-- (For the specs: which way it is read.)
M.THROUGH_FFI = M.running ~= by_collectgarbage

return M
