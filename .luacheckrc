-- luacheck configuration: `luacheck lua spec bench tools` (make lint).
std = "luajit"
max_line_length = 120

files["spec"] = { std = "+busted" }
