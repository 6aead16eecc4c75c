-- The chat job of bench/puc/run.lua and bench/puc/ab.lua: a chat request
-- of a given size and its reads (bench/jobs.lua's: model, temperature,
-- every content part's type and text), on decoded tables and on a
-- document.
-- A ~100 KB chat request: three messages, the last with an image.
local function request(size)
  local b64 = {}
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  local x = 7
  for i = 1, size do
    x = (x * 1103515245 + 12345) % 2147483648
    local k = x % 64 + 1
    b64[i] = alphabet:sub(k, k)
  end
  return '{"model":"gpt-4o","temperature":0.7,"messages":['
    .. '{"role":"system","content":[{"type":"text","text":"You are a helpful assistant."}]},'
    .. '{"role":"user","content":[{"type":"text","text":"What is in this image? caf\\u00e9"},'
    .. '{"type":"image_url","image_url":{"url":"data:image/png;base64,' .. table.concat(b64) .. '"}}]}]}'
end

-- The chat job on decoded tables, and on a document.
local function tables(t)
  local sum = #t.model + t.temperature
  for _, m in ipairs(t.messages) do
    for _, part in ipairs(m.content) do
      sum = sum + #part.type
      if part.type == "text" then
        sum = sum + #part.text
      end
    end
  end
  return sum
end
local function doc(d)
  local sum = #d:get_str("model") + d:get_num("temperature")
  for _, m in d:ipairs("messages") do
    for _, part in m:ipairs("content") do
      local ty = part:get_str("type")
      sum = sum + #ty
      if ty == "text" then
        sum = sum + #part:get_str("text")
      end
    end
  end
  return sum
end

return { request = request, tables = tables, doc = doc }
