"""Golden test of Lua extraction by the query engine (queries/lua.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
local json = require("cjson")
local util = require "shop.util"

--- A cart of items.
local Cart = {}
Cart.__index = Cart

function Cart.new(items)
  return setmetatable({ items = items }, Cart)
end

-- Sum of the prices.
function Cart:total()
  local sum = util.sum(self.items)
  self:log("total")
  return math.floor(sum)
end

local function format(cents)
  return string.format("%d", cents)
end

local Special = setmetatable({}, { __index = Cart })

describe("Cart", function()
  it("totals nothing", function()
    assert.are.equal(0, Cart.new({}):total())
  end)
end)

return Cart
"""


def test_lua_rows() -> None:
    fx = parse("lua", SOURCE, "spec/cart_spec.lua")
    assert fx.language == "lua" and fx.error_lines == []
    assert symbols(fx) == [
        ("Cart", "class", 5, 5, "", False),
        ("Cart.new", "method", 8, 10, "Cart", False),
        ("Cart.total", "method", 13, 17, "Cart", False),
        ("format", "function", 19, 21, "", False),
        ("Special", "class", 23, 23, "", False),
        ("totals nothing", "function", 26, 28, "", True),  # busted's it(...)
    ]
    assert [s.docstring for s in fx.symbols[:3]] == ["A cart of items.", "",
                                                     "Sum of the prices."]
    assert imports(fx) == [("cjson", "", "json", 1), ("shop.util", "", "util", 2)]
    assert calls(fx) == [  # require, describe and it are imports and test blocks
        ("Cart.new", "setmetatable", 9),
        ("Cart.total", "util.sum", 14),
        ("Cart.total", "self.log", 15),  # self:log(...)
        ("Cart.total", "math.floor", 16),
        ("format", "string.format", 20),
        ("Special", "setmetatable", 23),
        ("totals nothing", "assert.are.equal", 27),
        ("totals nothing", "", 27),
        ("totals nothing", "Cart.new", 27),
    ]
    assert inherits(fx) == [("Special", "Cart", 23, "extends")]  # setmetatable __index
