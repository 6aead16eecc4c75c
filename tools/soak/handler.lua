-- The gateway handler of make soak (tools/soak.sh), in nginx's
-- content_by_lua: what a gateway does with a JSON request body, with
-- qjson.safe (nothing raises), under the policy a gateway in front of an
-- upstream wants (duplicate keys and numbers I-JSON cannot carry are
-- errors; nesting up to 64).
--
--   invalid JSON           -> 400, qjson's message (it has the position)
--   not a chat request     -> 400, what is wrong with it
--   a chat request         -> `model` and every messages[i].content read,
--                             `temperature` set, the body re-encoded;
--                             200 "ok <model> <messages> <bytes>"
--
-- Bodies nginx kept in memory are decoded to lazy views (qjson.decode);
-- bodies it buffered to a file are parsed from the file
-- (qjson.parse_file), read with the document API, then edited through the
-- root's view. Each response echoes the request's X-Soak-Id, so that the
-- load script can match it to the body it sent.
local qjson = require("qjson")
local safe = require("qjson.safe")

local type, pcall, tostring = type, pcall, tostring
local ngx = ngx -- luacheck: globals ngx

local OPTS = { duplicate_keys = "reject", ijson = true, max_depth = 64 }
local MODEL, MESSAGES, CONTENT = qjson.path("model"), qjson.path("messages"), qjson.path("content")

local M = {}

local function reply(status, text)
  ngx.status = status
  ngx.header["X-Soak-Id"] = ngx.var.http_x_soak_id
  ngx.print(text)
  return ngx.exit(ngx.HTTP_OK)
end

-- The reads of a chat request through its view; nil and what is wrong.
local function read_view(v)
  if type(v) ~= "table" or qjson.len(v) ~= 0 then
    return nil, "the body must be a JSON object"
  end
  local model, messages = v.model, v.messages
  if type(model) ~= "string" then
    return nil, "'model' must be a string"
  end
  if type(messages) ~= "table" then
    return nil, "'messages' must be an array"
  end
  local n = qjson.len(messages)
  for i = 1, n do
    local msg = messages[i]
    local content = type(msg) == "table" and msg.content
    if type(content) == "table" then
      for _, part in qjson.ipairs(content) do
        local _ = type(part) == "table" and part.text
      end
    elseif type(content) ~= "string" then
      return nil, "messages[" .. (i - 1) .. "].content must be a string or an array"
    end
  end
  return model, n
end

-- The same reads with the document API (a body parsed from its file).
local function read_document(doc)
  if doc:typeof() ~= "object" then
    return nil, "the body must be a JSON object"
  end
  local model = doc:get_str(MODEL)
  if not model then
    return nil, "'model' must be a string"
  end
  if doc:typeof(MESSAGES) ~= "array" then
    return nil, "'messages' must be an array"
  end
  local n = doc:len(MESSAGES)
  for i, msg in doc:ipairs(MESSAGES) do
    local kind = msg:typeof(CONTENT)
    if kind == "string" then
      local _ = msg:get_str(CONTENT)
    elseif kind ~= "array" then
      return nil, "messages[" .. (i - 1) .. "].content must be a string or an array"
    end
  end
  return model, n
end

-- The answer to the request: status and body.
local function handle()
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  local file = not body and ngx.req.get_body_file()
  local v, doc, err, model, n
  if file then
    doc, err = safe.parse_file(file, OPTS)
    if not doc then
      return 400, err
    end
    model, n = read_document(doc)
    v = doc:get()
  else
    v, err = safe.decode(body or "", OPTS)
    if err then
      return 400, err
    end
    model, n = read_view(v)
  end
  if not model then
    if doc then doc:close() end
    return 400, n
  end
  v.temperature = 0.5
  local out = qjson.encode(v)
  if doc then
    doc:close()
  end
  -- The re-encoded body reads back as the request with the edit.
  local back = safe.decode(out)
  if type(back) ~= "table" or back.model ~= model or back.temperature ~= 0.5 or qjson.len(back.messages) ~= n then
    return 500, "re-encoded body reads back differently"
  end
  return 200, ("ok %s %d %d"):format(model, n, #out)
end

function M.gateway()
  -- Nothing here should raise (qjson.safe); if something does, the
  -- request fails with 500 and the message, which the soak counts.
  local ok, status, text = pcall(handle)
  if not ok then
    ngx.log(ngx.ERR, "soak handler raised: ", tostring(status))
    status, text = 500, "handler raised: " .. tostring(status)
  end
  return reply(status, text)
end

function M.stats()
  collectgarbage("collect")
  collectgarbage("collect")
  ngx.print(("live_documents %d lua_kb %d\n"):format(qjson.live_documents(), collectgarbage("count")))
end

return M
