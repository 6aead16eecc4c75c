-- The floor: one pass of C memchr over every byte, looking for a byte the
-- document does not hold (0x01 is a control byte: never in valid JSON).
local ffi = require("ffi")
local jobs = require("jobs")

return {
  note = "memchr(s, 0x01, #s): one pass over every byte, nothing found",
  floor = true,
  kinds = jobs.kinds("chat", "issues", "mix"),
  load = function()
    ffi.cdef("void *memchr(const void *s, int c, size_t n);")
    local memchr = ffi.C.memchr
    local function read(s)
      if memchr(s, 1, #s) ~= nil then
        error("memchr floor: the document holds a 0x01 byte")
      end
      return 0, nil
    end
    return { chat = read, issues = read, mix = jobs.mix_reader(read) }
  end,
  version = function()
    return "libc"
  end,
}
