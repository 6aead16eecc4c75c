-- qjson.encode: Lua values to JSON text, lua-cjson's output by default.
--
-- The walk runs in Lua (the FFI cannot walk a Lua table) and appends to a
-- LuaJIT string.buffer; strings and numbers are written by the native
-- library straight into the buffer (qjson.encode.string / .number).
-- Settings are lua-cjson's configuration (qjson.encode.settings), per
-- instance, plus per-call options (qjson.encode.options). See
-- docs/encoding.md.
local settings = require("qjson.encode.settings")
local options = require("qjson.encode.options")
local argerror = require("qjson.args").argerror
local arg_error = require("qjson.base").arg_error

local getmetatable, error, select = getmetatable, error, select

local M = {}

-- Lazy views (qjson.view) register their metatables here, each with
-- `put` (write the view in compact output: its original bytes where
-- untouched), `source` (the whole parsed text, for an untouched root),
-- `members` (its members in source order, numbers as their text, for
-- output with indentation, sorted keys or skipped values) and `lazy`
-- (whether its document was parsed in lazy mode, unchecked bytes).
M.views = {}
local views = M.views
-- Metatables of tables that are not values (qjson documents and cursors
-- here, qjson.safe's its own): encode raises the message given.
M.refused = {
  [require("qjson.doc").DocMT] = "Cannot serialise a qjson document or cursor: encode doc:get() (a view of it) instead",
}
-- A key every view has (set by qjson.view.write): a table that holds it
-- but is no view is a view whose metatable was changed (setmetatable),
-- whose members would be its private fields.
M.view_field = nil

-- lua-cjson's array markers (qjson.markers), for the decoder and the
-- public table.
local markers = require("qjson.markers")
M.array_mt, M.empty_array_mt, M.empty_array = markers.array_mt, markers.empty_array_mt, markers.empty_array

-- The walkers (qjson.encode.walk), which read what is registered above.
-- A compiled `pairs` loop (bytecode ITERN) cannot run inside a finalizer:
-- when its trace exits at the loop's head (a key or value of another
-- type, or the end of the table), LuaJIT resumes at the loop, which
-- enters the trace again, and counts on recording a side trace there to
-- make progress; while a finalizer runs it records none, so the loop
-- spins for ever (docs/security.md, guarantee 11). The walk's loops over
-- tables are such loops (`while` loops over next() made encoding much
-- slower: docs/security.md). So an encode that a finalizer runs (the collector
-- stopped: qjson.collector) takes a walker from a second copy of the
-- walk, which LuaJIT never compiles, and runs it in a coroutine (see
-- isolated); every other encode, one from the walk itself. (After
-- collectgarbage("stop") every encode is such an encode.) Each kind keeps
-- one walker, and makes another for an encode called in the middle of
-- its walk.
local walk = require("qjson.encode.walk")
local running = require("qjson.collector").running
local compiled, uncompiled = { new = walk.new }, { new = walk.uncompiled() }
compiled.walker, uncompiled.walker = compiled.new(M), uncompiled.new(M)

-- Runs `run` (an uncompiled walker's) in a coroutine: a trace being
-- recorded that calls code with the JIT off is given up (and, after a few
-- such calls, not tried again: a caller's loop that encodes while the
-- program stopped the collector would stay interpreted), while at
-- coroutine.resume LuaJIT ends the trace and starts another after it.
local co_create, co_resume, co_status = coroutine.create, coroutine.resume, coroutine.status
local YIELDED = require("qjson.encode.walk").YIELDED
local function returned(co, ok, ...)
  if not ok then
    error((...), 0)
  elseif co_status(co) ~= "dead" then
    error(YIELDED, 0)
  end
  return ...
end
local function isolated(run, ...)
  local co = co_create(run)
  return returned(co, co_resume(co, ...))
end

-- Installs `encode` and the configuration functions, bound to a fresh
-- settings table, into `into` (the qjson module or a qjson.new() copy).
-- `dropin` (qjson.cjson): encode takes exactly one argument, reports a
-- reference cycle as lua-cjson does (too deep) and refuses cdata.
function M.install(into, dropin)
  local s = settings.defaults()
  s.dropin = dropin or false
  settings.install(into, s)

  function into.encode(...)
    local nargs = select("#", ...)
    if dropin then
      if nargs ~= 1 then
        argerror(1, 1, "expected 1 argument")
      end
    elseif nargs == 0 then
      arg_error(1, "encode", "expected 1 argument", 2)
    end
    local v, opts = ...
    local kind = running() and compiled or uncompiled
    local w = kind.walker
    if w.busy and w.walking() then
      w = kind.new(M)
    end
    if opts == nil then
      local view = not s.indent and views[getmetatable(v)]
      local text = view and view.source(v)
      if text then
        return text
      end
      if kind == compiled then
        return w.run_plain(v, s)
      end
      return isolated(w.run_plain, v, s)
    end
    local prec, flags, indent, sort_keys = options.resolve(s, opts)
    if prec == nil then
      arg_error(2, "encode", flags, 2)
    end
    if kind == compiled then
      return w.run(v, s, prec, flags, indent, sort_keys)
    end
    return isolated(w.run, v, s, prec, flags, indent, sort_keys)
  end

  return into
end

return M
