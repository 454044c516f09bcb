"""Golden test of Scala extraction by the query engine (queries/scala.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
package shop.cart

import scala.collection.mutable
import shop.model.{Item, Price => Cost}
import shop.util._

/** A cart of items. */
class Cart(clock: Clock) extends BaseCart with Totals {
  def total(): Long = {
    val sum = items.map(_.price).sum
    log("total")
    Money.round(sum)
  }
}

trait Totals {
  def total(): Long
}

object Cart {
  def empty(): Cart = new Cart(Clock.systemUTC())
}

case class Line(item: Item, qty: Int)

class CartSpec extends AnyFunSuite {
  test("total is zero") {
    assert(Cart.empty().total() == 0)
  }
}
"""


def test_scala_rows() -> None:
    fx = parse("scala", SOURCE, "src/test/scala/shop/cart/CartSpec.scala")
    assert fx.language == "scala" and fx.error_lines == [] and fx.package == "shop.cart"
    assert symbols(fx) == [
        ("Cart", "class", 8, 14, "", False),
        ("Cart.total", "method", 9, 13, "Cart", False),
        ("Totals", "trait", 16, 18, "", False),
        ("Totals.total", "method", 17, 17, "Totals", False),
        ("Cart~2", "class", 20, 22, "", False),  # the companion object
        ("Cart~2.empty", "method", 21, 21, "Cart~2", False),
        ("Line", "class", 24, 24, "", False),
        ("CartSpec", "class", 26, 30, "", False),
        ("CartSpec.total is zero", "method", 27, 29, "CartSpec", True),
    ]
    assert fx.symbols[0].docstring == "A cart of items."
    assert imports(fx) == [
        ("scala.collection.mutable", "", "", 3),
        ("shop.model", "Item", "", 4),
        ("shop.model", "Price", "Cost", 4),
        ("shop.util", "*", "", 5),
    ]
    assert calls(fx) == [
        ("Cart.total", "items.map", 10),
        ("Cart.total", "log", 11),
        ("Cart.total", "Money.round", 12),
        ("Cart~2.empty", "Cart", 21),  # new Cart(...)
        ("Cart~2.empty", "Clock.systemUTC", 21),
        ("CartSpec.total is zero", "", 27),
        ("CartSpec.total is zero", "test", 27),
        ("CartSpec.total is zero", "assert", 28),
        ("CartSpec.total is zero", "", 28),
        ("CartSpec.total is zero", "Cart.empty", 28),
    ]
    assert inherits(fx) == [("Cart", "BaseCart", 8, "extends"), ("Cart", "Totals", 8, "extends"),
                            ("CartSpec", "AnyFunSuite", 26, "extends")]
