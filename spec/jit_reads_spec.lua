-- Values read in a loop that LuaJIT compiles stay the values read. LuaJIT's
-- x86-64 backend can fuse a load from an FFI out-parameter box into an
-- instruction placed after the next C call, which rewrites the box; a
-- number kept from one read and used after the next would then be the next
-- read's (crates/luajit/src/load.rs). These loops have the shape that showed it:
-- several reads per record, the first number used last.
local qjson = require("qjson")
qjson.decode_views(true) -- views on every build (see spec/support.lua)

local N = 300
local records = {}
for i = 1, N do
  records[i] = ('{"id":%d,"text":"t%d","user":{"name":"u","followers":%d},"retweets":%d}'):format(i * 7, i,
    i * 1000, i)
end
local SRC = '{"statuses":[' .. table.concat(records, ",") .. "]}"

local FOLLOWERS, RETWEETS = 0, 0
for i = 1, N do
  FOLLOWERS, RETWEETS = FOLLOWERS + i * 1000, RETWEETS + i
end

describe("reads in compiled loops", function()
  it("views: a number read before other reads keeps its value", function()
    local t = qjson.decode(SRC)
    local statuses = t.statuses
    local ids, texts, followers, retweets = 0, 0, 0, 0
    for i = 1, qjson.len(statuses) do
      local s = statuses[i]
      local user = s.user
      local id, text, name, f, r = s.id, s.text, user.name, user.followers, s.retweets
      ids, texts = ids + id % 65536 + #name, texts + #text
      followers, retweets = followers + f, retweets + r
    end
    assert.are.equal(FOLLOWERS, followers)
    assert.are.equal(RETWEETS, retweets)
  end)

  local P = qjson.path
  local ID, TEXT, F, R = P("id"), P("text"), P("user.followers"), P("retweets")

  it("documents: get_num keeps its value", function()
    local d = qjson.parse(SRC)
    local ids, texts, followers, retweets = 0, 0, 0, 0
    for _, s in d:ipairs("statuses") do
      local id, text, f, r = s:get_num(ID), s:get_str(TEXT), s:get_num(F), s:get_num(R)
      ids, texts = ids + id % 65536, texts + #text
      followers, retweets = followers + f, retweets + r
    end
    assert.are.equal(FOLLOWERS, followers)
    assert.are.equal(RETWEETS, retweets)
  end)

  it("documents: get_i64 and get_u64 keep their values", function()
    local d = qjson.parse(SRC)
    local followers, retweets, ufollowers = 0LL, 0LL, 0ULL
    for _, s in d:ipairs("statuses") do
      local id, f, r, u = s:get_i64(ID), s:get_i64(F), s:get_i64(R), s:get_u64(F)
      local _ = s:get_u64(ID) + id
      followers, retweets, ufollowers = followers + f, retweets + r, ufollowers + u
    end
    assert.is_true(followers == FOLLOWERS and ufollowers == FOLLOWERS and retweets == RETWEETS,
      ("int64 sums %s %s %s"):format(tostring(followers), tostring(ufollowers), tostring(retweets)))
  end)
end)
