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

-- PUC Lua (make test-puc): specs and scripts that run on lua5.1-5.4 use
-- what those versions have (math.maxinteger, ...).
files["spec/puc_spec.lua"] = { std = "max+busted" }
files["spec/puc_differential_spec.lua"] = { std = "max+busted" }
files["spec/openapi_puc_spec.lua"] = { std = "max+busted" }
files["spec/gc_stress_puc.lua"] = { std = "max" }
files["bench/puc"] = { std = "max" }
-- HAProxy's Lua API (tools/test-haproxy.sh).
files["tools/haproxy"] = { std = "lua53", read_globals = { "core" } }
-- The OpenAPI action shipped for HAProxy (docs/haproxy.md).
files["lua/haproxy"] = { std = "lua53", read_globals = { "core" } }
-- The failing-allocator host's job defines the global it calls.
files["crates/puc/tests"] = { std = "max", globals = { "job" } }
