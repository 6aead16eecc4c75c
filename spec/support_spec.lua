-- The specs' own deep comparison (spec/support.lua): a helper that said
-- "equal" to everything would let every spec that uses it pass.
local support = require("support")
local qjson = require("qjson")

describe("support.deep_equal", function()
  it("finds equal values equal, NaN included", function()
    assert.is_true(support.deep_equal({ a = { 1, "x", true }, b = 0 / 0 }, { a = { 1, "x", true }, b = 0 / 0 }))
    assert.is_true(support.deep_equal(qjson.decode('{"a":[1,{"b":null}]}'), qjson.decode('{"a":[1,{"b":null}]}'),
      qjson.pairs))
  end)

  it("names the path of the first difference", function()
    assert.same({ false, "$.a.2 (x vs y)" }, { support.deep_equal({ a = { 1, "x" } }, { a = { 1, "y" } }) })
    assert.same({ false, "$.b (missing)" }, { support.deep_equal({ a = 1 }, { a = 1, b = 2 }) })
    assert.same({ false, "$.a (number vs string)" }, { support.deep_equal({ a = 1 }, { a = "1" }) })
    assert.is_false((support.deep_equal({ a = 1, b = 2 }, { a = 1 })))
    assert.is_false((support.deep_equal(qjson.decode('{"a":[1]}'), qjson.decode('{"a":[2]}'), qjson.pairs)))
  end)
end)
