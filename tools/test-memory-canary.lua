-- A deliberate use after free, for tools/test-memory.sh to show that its
-- valgrind run sees the class of bug it is there for: a native document
-- reading the bytes of a Lua string that was collected. Here the string
-- is given to the C ABI directly, without the anchor qjson.parse keeps,
-- then dropped and collected before the read. Valgrind must report an
-- invalid read; the script itself prints nothing useful.
local ffi = require("ffi")
local C = require("qjson.lib")

local err = ffi.new("qjson_error")
local opts = ffi.new("qjson_options")
opts.max_depth = 1000
local s = '{"k": "' .. string.rep("v", 100) .. tostring(os.time()) .. '"}'
local doc = C.qjson_parse(s, #s, opts, err)
assert(doc ~= nil, "the canary document did not parse")
s = nil -- luacheck: ignore 311 (dropped on purpose)
collectgarbage("collect")
collectgarbage("collect")
local ptr, len = ffi.new("const char *[1]"), ffi.new("size_t[1]")
C.qjson_get_str(doc, 0, "k", 1, nil, ptr, len)
C.qjson_free(doc)
