-- Lazy views: what qjson.decode and doc:get return for objects and
-- arrays. A view reads like the table lua-cjson's decode would build, but
-- reads through the parsed document on demand. This module is what the
-- rest of qjson uses; the parts, one concern each:
--   qjson.view.fields       a view's fields, constructors, child cache
--   qjson.view.read         reads (__index), and the views decode makes
--   qjson.view.iter         pairs, ipairs, length
--   qjson.view.edit         assignment, insert, remove
--   qjson.view.write        the encoder's hooks (and qjson.view.members)
--   qjson.view.materialize  plain tables
local F = require("qjson.view.fields")
local read = require("qjson.view.read")
local iter = require("qjson.view.iter")
local edit = require("qjson.view.edit")

local M = {}

M.ObjectMT, M.ArrayMT, M.is_view = F.ObjectMT, F.ArrayMT, F.is_view
M.open, M.decoded = read.open, read.decoded
M.pairs, M.ipairs, M.length = iter.pairs, iter.ipairs, iter.length
M.insert, M.remove = edit.insert, edit.remove

return M
