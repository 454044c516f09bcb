"""Golden test of Kotlin extraction by the query engine (queries/kotlin.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
package com.shop.cart

import com.shop.model.Item
import kotlinx.coroutines.*
import java.time.Clock as WallClock

/** A cart of items. */
class Cart(private val clock: WallClock) : BaseCart(), Totals {
    fun total(): Long {
        val sum = items.sumOf { it.price }
        log("total")
        return Money.round(sum)
    }

    companion object {
        fun empty() = Cart(WallClock.systemUTC())
    }
}

interface Totals {
    fun total(): Long
}

object Registry { fun register(cart: Cart) = carts.add(cart) }

fun checkout(cart: Cart) = cart.total()

class CartTest {
    @Test
    fun totalIsZero() {
        assertEquals(0, Cart.empty().total())
    }
}
"""


def test_kotlin_rows() -> None:
    fx = parse("kotlin", SOURCE, "src/test/kotlin/com/shop/cart/CartTest.kt")
    assert fx.language == "kotlin" and fx.error_lines == [] and fx.package == "com.shop.cart"
    assert symbols(fx) == [
        ("Cart", "class", 8, 18, "", False),
        ("Cart.total", "method", 9, 13, "Cart", False),
        ("Cart.empty", "method", 16, 16, "Cart", False),  # in the companion object
        ("Totals", "interface", 20, 22, "", False),
        ("Totals.total", "method", 21, 21, "Totals", False),
        ("Registry", "class", 24, 24, "", False),
        ("Registry.register", "method", 24, 24, "Registry", False),
        ("checkout", "function", 26, 26, "", False),
        ("CartTest", "class", 28, 33, "", False),
        ("CartTest.totalIsZero", "method", 29, 32, "CartTest", True),
    ]
    assert fx.symbols[0].docstring == "A cart of items."
    assert imports(fx) == [
        ("com.shop.model.Item", "", "", 3),
        ("kotlinx.coroutines", "*", "", 4),
        ("java.time.Clock", "", "WallClock", 5),
    ]
    assert calls(fx) == [
        ("Cart.total", "items.sumOf", 10),
        ("Cart.total", "log", 11),
        ("Cart.total", "Money.round", 12),
        ("Cart.empty", "Cart", 16),
        ("Cart.empty", "WallClock.systemUTC", 16),
        ("Registry.register", "carts.add", 24),
        ("checkout", "cart.total", 26),
        ("CartTest.totalIsZero", "assertEquals", 31),
        ("CartTest.totalIsZero", "", 31),
        ("CartTest.totalIsZero", "Cart.empty", 31),
    ]
    assert inherits(fx) == [("Cart", "BaseCart", 8, "extends"),
                            ("Cart", "Totals", 8, "implements")]
