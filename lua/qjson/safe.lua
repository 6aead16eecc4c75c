-- qjson.safe: the same API as qjson, but failures return nil and a
-- message instead of raising, for documents and cursors too.
local qjson = require("qjson")
local base = require("qjson.base")
local doc = require("qjson.doc")
local parse = require("qjson.parse")
local protected_decode = require("qjson.decode").protected

local pcall, setmetatable, pairs, ipairs, error = pcall, setmetatable, pairs, ipairs, error

local safe = setmetatable({}, { __index = qjson })

local settle = base.settle

local function wrap(f)
  return function(...)
    return settle(pcall(f, ...))
  end
end

-- Documents from qjson.safe carry a metatable whose methods do not raise;
-- cursors they open inherit it.
local SafeDoc = {}
local SafeMT = { __index = SafeDoc, __tostring = doc.DocMT.__tostring }
for name, f in pairs(doc.Doc) do
  SafeDoc[name] = wrap(f)
end
require("qjson.encode").refused[SafeMT] = require("qjson.encode").refused[doc.DocMT]

-- pairs and ipairs feed a generic `for`, which cannot take nil and a
-- message: on failure they return an iterator that raises the message
-- at the loop's first step (check with doc:typeof first to avoid it).
local function iterator(f)
  return function(...)
    local ok, a, b, c = pcall(f, ...)
    if ok then
      return a, b, c
    end
    return function()
      error(a, 0)
    end, a
  end
end
SafeDoc.pairs = iterator(doc.Doc.pairs)
SafeDoc.ipairs = iterator(doc.Doc.ipairs)

function safe.parse(s, opts)
  local d, err = parse.document(s, opts, SafeMT)
  return d, err
end

function safe.parse_file(path, opts)
  local d, err = parse.file(path, opts, SafeMT)
  return d, err
end

-- encode and the encoder's configuration functions return nil and a
-- message where qjson's raise (settings are shared with qjson's).
local ENCODER = {
  "encode", "encode_sparse_array", "encode_max_depth", "encode_number_precision",
  "encode_keep_buffer", "encode_invalid_numbers", "encode_empty_table_as_object",
  "encode_escape_forward_slash", "encode_skip_unsupported_value_types",
}

local function wrap_encoder(into, from)
  for _, name in ipairs(ENCODER) do
    into[name] = wrap(from[name])
  end
  return into
end

wrap_encoder(safe, qjson)

-- decode bound to `inst`'s settings. Protected too: a lazy-mode scalar
-- document is read, and so checked, inside the call.
local function safe_decode(inst)
  local decode = protected_decode[inst]
  return function(s, opts)
    local ok, v, err = pcall(decode, s, opts)
    if not ok then
      return nil, v
    elseif v == nil then
      return nil, err
    end
    return v
  end
end

safe.decode = safe_decode(qjson)

-- An instance with its own encoder and decoder settings, as
-- cjson.safe.new().
function safe.new()
  local inst = qjson.new()
  return setmetatable(wrap_encoder({ parse = safe.parse, parse_file = safe.parse_file, path = safe.path,
    decode = safe_decode(inst) }, inst),
    { __index = inst })
end

-- A selector, or nil and a message. Its calls raise on invalid input as
-- qjson's do (wrap them in pcall); see docs/api.md.
function safe.select(specs, opts)
  local sel, err = require("qjson.select").new(specs, opts)
  return sel, err
end
-- qjson.schema returning nil and a message, with validators that do not raise.
safe.schema = require("qjson.schema").safe_compile
-- qjson.openapi returning nil and a message, with apis whose methods do not raise.
safe.openapi = require("qjson.openapi").safe_compile

-- patch and merge_patch returning nil and a message; patchers whose
-- apply does so too.
safe.patch = wrap(qjson.patch)
safe.merge_patch = wrap(qjson.merge_patch)
safe.patcher = require("qjson.patch").safe_patcher

function safe.path(s)
  local p, err = parse.path(s)
  return p, err
end

return safe
