-- qjson.parse_file: the document owns the file's bytes.
local qjson = require("qjson")
local support = require("support")

local error_of = support.error_of

describe("parse_file", function()
  local names = {}

  -- A temporary file holding `s`, removed after each test.
  local function temp(s)
    local name = os.tmpname()
    support.write(name, s)
    names[#names + 1] = name
    return name
  end

  after_each(function()
    for _, name in ipairs(names) do
      os.remove(name)
    end
    names = {}
  end)

  it("parses a file", function()
    local doc = qjson.parse_file(temp('{"a": [1, 2, {"b": "\\u00e9"}], "n": null}\n'))
    assert.are.equal("object", doc:typeof())
    assert.are.equal(3, doc:len("a"))
    assert.are.equal("é", doc:get_str("a[2].b"))
    assert.are.equal(true, doc:is_null("n"))
    assert.are.equal('{"b": "\\u00e9"}', doc:raw("a[2]"))
    assert.are.equal("qjson.document", tostring(doc))
  end)

  it("owns the bytes: reads work after the file is deleted", function()
    local name = temp('{"keep": "' .. ("k"):rep(5000) .. '", "list": [' .. ("7,"):rep(999) .. "7]}")
    local doc = qjson.parse_file(name)
    assert.is_true(os.remove(name))
    collectgarbage("collect")
    collectgarbage("collect")
    assert.are.equal(("k"):rep(5000), doc:get_str("keep"))
    assert.are.equal(1000, doc:len("list"))
    assert.are.equal(7, doc:get_num("list[999]"))
    local n = 0
    for _, v in doc:ipairs("list") do
      n = n + v
    end
    assert.are.equal(7000, n)
  end)

  it("owns the bytes: reads work after the file is rewritten", function()
    local name = temp('{"v": "before"}')
    local doc = qjson.parse_file(name)
    support.write(name, '{"v": "AFTER!", "w": 1}')
    assert.are.equal("before", doc:get_str("v"))
    assert.are.equal('{"v": "before"}', doc:raw())
  end)

  it("reads the same as parse of the same bytes", function()
    local src = '[1, "two", {"three": [3.5, true, null]}, -4e2]'
    local a, b = qjson.parse_file(temp(src)), qjson.parse(src)
    for _, path in ipairs({ "", "[0]", "[1]", "[2]", "[2].three", "/2/three/1", "[3]" }) do
      assert.are.equal(b:raw(path), a:raw(path))
      assert.are.equal(b:typeof(path), a:typeof(path))
    end
  end)

  it("raises naming the file when it does not exist", function()
    local err = error_of(qjson.parse_file, "/nonexistent/dir/qjson-missing.json")
    assert.truthy(err:find("^qjson: cannot read file '/nonexistent/dir/qjson%-missing%.json': "), err)
  end)

  it("raises naming the path when it is a directory", function()
    local err = error_of(qjson.parse_file, "/tmp")
    assert.truthy(err:find("^qjson: cannot read file '/tmp': "), err)
  end)

  it("raises with the position for invalid JSON in the file", function()
    assert.are.equal("qjson: expected a value, found ']' at line 2, column 5 (byte 8)",
      error_of(qjson.parse_file, temp("[1,\n  2,]")))
    assert.are.equal("qjson: empty input at line 1, column 1 (byte 0)", error_of(qjson.parse_file, temp("")))
    assert.are.equal("qjson: byte-order mark is not allowed at line 1, column 1 (byte 0)",
      error_of(qjson.parse_file, temp("\239\187\191{}")))
  end)

  it("takes the options parse takes", function()
    local dup = temp('{"a": 1, "a": 2}')
    assert.are.equal(2, qjson.parse_file(dup):get_num("a"))
    assert.truthy(error_of(qjson.parse_file, dup, { duplicate_keys = "reject" }):find("duplicate key", 1, true))
    assert.truthy(error_of(qjson.parse_file, temp("[[1]]"), { max_depth = 1 }):find("max_depth", 1, true))
    local lazy = qjson.parse_file(temp("[tru, 1]"), { mode = "lazy" })
    assert.are.equal(1, lazy:get_num("[1]"))
    assert.truthy(error_of(lazy.get_bool, lazy, "[0]"):find("invalid literal", 1, true))
  end)

  it("raises for a name with a NUL byte in it, saying so", function()
    -- (The name used to be cut at the NUL in the message.)
    local err = error_of(qjson.parse_file, temp("[1]") .. "\0x")
    assert.matches("bad argument #1 to 'parse_file' %(path contains a NUL byte%)$", err)
  end)

  -- Rust bug: qjson_parse_file turns the name into a String with
  -- String::from_utf8_lossy, so a byte that is not UTF-8 becomes U+FFFD and
  -- another (nonexistent) file is opened. Unix file names are bytes
  -- (OsStr::from_bytes would keep them).
  it("opens files whose names are not valid UTF-8", function()
    local name = os.tmpname() .. "-\255.json"
    support.write(name, "[42]")
    local ok, doc = pcall(qjson.parse_file, name)
    os.remove(name)
    assert.is_true(ok, doc)
    assert.are.equal(42, doc:get_num("[0]"))
  end)

  -- Issue 18, item 7: only regular files, their size checked before reading.
  describe("refuses what is not a bounded regular file", function()
    it("a FIFO without a writer, at once instead of blocking", function()
      local name = os.tmpname()
      os.remove(name)
      os.execute("mkfifo '" .. name .. "'")
      names[#names + 1] = name
      local err = error_of(qjson.parse_file, name)
      assert.are.equal("qjson: cannot read file '" .. name .. "': not a regular file (a FIFO)", err)
    end)

    it("/dev/zero, without reading it", function()
      assert.are.equal("qjson: cannot read file '/dev/zero': not a regular file (a character device)",
        error_of(qjson.parse_file, "/dev/zero"))
    end)

    it("a directory", function()
      assert.are.equal("qjson: cannot read file '/tmp': not a regular file (a directory)",
        error_of(qjson.parse_file, "/tmp"))
    end)

    it("a file over 4 GiB, by its size (a sparse file: nothing is read)", function()
      local name = temp("")
      local f = assert(io.open(name, "wb"))
      assert(f:seek("set", 5 * 2 ^ 30))
      f:write("]")
      f:close()
      local err = error_of(qjson.parse_file, name)
      assert.are.equal("qjson: cannot read file '" .. name .. "': file too large: 5368709121 bytes "
        .. "(the most a document holds is 4294967295)", err)
    end)

    it("a file over max_size", function()
      local name = temp("[1, 2, 3]")
      assert.are.equal(3, qjson.parse_file(name, { max_size = 9 }):len())
      assert.are.equal("qjson: cannot read file '" .. name .. "': file too large: 9 bytes (max_size is 8)",
        error_of(qjson.parse_file, name, { max_size = 8 }))
      assert.are.equal(3, qjson.parse_file(name, { max_size = 2 ^ 60, mode = "lazy" }):len())
    end)

    it("a file that grows past max_size while read (procfs reports size 0)", function()
      local f = io.open("/proc/self/status", "rb")
      if not f then
        return pending("no /proc here")
      end
      f:close()
      assert.are.equal("qjson: cannot read file '/proc/self/status': file grew past the size limit of 10 bytes "
        .. "while read", error_of(qjson.parse_file, "/proc/self/status", { max_size = 10 }))
    end)

    it("a bad max_size, as an argument error", function()
      for _, bad in ipairs({ -1, 1.5, "10", 0 / 0, true }) do
        local err = error_of(qjson.parse_file, temp("[]"), { max_size = bad })
        assert.are.equal("bad argument #2 to 'parse_file' (bad option 'max_size' (non-negative integer expected, "
          .. "got " .. tostring(bad) .. "))", err)
      end
      assert.truthy(error_of(qjson.parse_file, temp("[]"), { max_size = 1, nope = 1 }):find("unknown option 'nope'"))
    end)
  end)
end)
