-- luacheck configuration: `luacheck lua spec bench tools` (make lint).
std = "luajit"
max_line_length = 120

-- Every warning class is on, spelled out so that none is turned off by
-- accident: unused variables, values and arguments (and the unused
-- secondary values of a multiple assignment), redefinitions and
-- shadowing, globals set or read that the standard does not define.
unused = true
unused_args = true
unused_secondaries = true
redefined = true
global = true
allow_defined = false
allow_defined_top = false

-- The library: modules only (no globals, not even read ones beyond
-- LuaJIT's), and no function more tangled than the lua-cjson decoder
-- port's token reader.
files["lua"] = { max_cyclomatic_complexity = 40, read_globals = {}, globals = {} }

files["spec"] = { std = "+busted" }
