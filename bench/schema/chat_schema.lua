-- The chat-completions request schema the validation benchmarks use
-- (bench/schema/run.lua's chat ladder, bench/schema/gateway.lua's handler).
return [[{
  "type": "object",
  "required": ["model", "messages"],
  "properties": {
    "model": {"type": "string", "minLength": 1},
    "temperature": {"type": "number", "minimum": 0, "maximum": 2},
    "max_tokens": {"type": "integer", "minimum": 1},
    "stream": {"type": "boolean"},
    "messages": {"type": "array", "minItems": 1, "items": {
      "type": "object",
      "required": ["role", "content"],
      "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "content": {"anyOf": [
          {"type": "string", "maxLength": 100000},
          {"type": "array", "items": {
            "type": "object",
            "required": ["type"],
            "properties": {
              "type": {"enum": ["text", "image_url"]},
              "text": {"type": "string", "maxLength": 100000},
              "image_url": {"type": "object", "required": ["url"], "properties": {"url": {"type": "string"}}}
            }
          }}
        ]}
      }
    }}
  }
}]]
