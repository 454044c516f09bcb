"""Golden test of Ruby extraction by the query engine (queries/ruby.scm): Minitest and RSpec."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
require "json"
require_relative "../lib/shop/cart"

module Shop
  # A cart that can be checked out.
  class Checkout < Base
    include Comparable

    def initialize(cart)
      @cart = cart
    end

    # Total in cents.
    def total
      items = @cart.items.map(&:price)
      Tax.apply(sum(items))
    end

    def self.build(user)
      new(Cart.new(user))
    end
  end
end

class CheckoutTest < Minitest::Test
  def test_total
    assert_equal 0, Shop::Checkout.build(nil).total
  end
end
"""

SPEC = """\
require "spec_helper"

RSpec.describe Shop::Checkout do
  it "sums the items" do
    expect(described_class.build(user).total).to eq(0)
  end
end
"""


def test_ruby_rows() -> None:
    fx = parse("ruby", SOURCE, "test/checkout_test.rb")
    assert fx.language == "ruby" and fx.error_lines == []
    assert symbols(fx) == [
        ("Shop", "module", 4, 23, "", False),
        ("Shop.Checkout", "class", 6, 22, "Shop", False),
        ("Shop.Checkout.initialize", "method", 9, 11, "Shop.Checkout", False),
        ("Shop.Checkout.total", "method", 14, 17, "Shop.Checkout", False),
        ("Shop.Checkout.build", "method", 19, 21, "Shop.Checkout", False),
        ("CheckoutTest", "class", 25, 29, "", False),
        ("CheckoutTest.test_total", "method", 26, 28, "CheckoutTest", True),
    ]
    assert fx.symbols[3].docstring == "Total in cents."
    assert imports(fx) == [("json", "", "", 1), ("../lib/shop/cart", "", "", 2)]
    assert calls(fx) == [  # require, include: imports and mixins, not calls
        ("Shop.Checkout.total", "@cart.items", 15),
        ("Shop.Checkout.total", "@cart.items.map", 15),
        ("Shop.Checkout.total", "Tax.apply", 16),
        ("Shop.Checkout.total", "sum", 16),
        ("Shop.Checkout.build", "new", 20),
        ("Shop.Checkout.build", "Cart", 20),  # Cart.new(user) constructs a Cart
        ("CheckoutTest.test_total", "assert_equal", 27),
        ("CheckoutTest.test_total", "", 27),
        ("CheckoutTest.test_total", "Shop.Checkout.build", 27),
    ]
    assert inherits(fx) == [
        ("Shop.Checkout", "Base", 6, "extends"),
        ("Shop.Checkout", "Comparable", 7, "implements"),
        ("CheckoutTest", "Minitest.Test", 25, "extends"),
    ]
    elsewhere = parse("ruby", SOURCE, "lib/shop/checkout.rb")  # test_* only counts in tests
    assert [s.is_test for s in elsewhere.symbols] == [False] * 7


def test_ruby_rspec_examples_are_tests() -> None:
    fx = parse("ruby", SPEC, "spec/checkout_spec.rb")
    assert symbols(fx) == [("sums the items", "function", 4, 6, "", True)]
    assert imports(fx) == [("spec_helper", "", "", 1)]
    assert calls(fx) == [
        ("", "RSpec.describe", 3),
        ("sums the items", "", 5),
        ("sums the items", "expect", 5),
        ("sums the items", "", 5),
        ("sums the items", "described_class.build", 5),
        ("sums the items", "eq", 5),
    ]
