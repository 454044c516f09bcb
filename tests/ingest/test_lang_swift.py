"""Golden test of Swift extraction by the query engine (queries/swift.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
import Foundation
import XCTest

/// A cart of items.
class Cart: BaseCart, Totals {
    private var items: [Item] = []

    init(items: [Item]) {
        self.items = items
    }

    func total() -> Int {
        let sum = items.map { $0.price }.reduce(0, +)
        log("total")
        return Money.round(sum)
    }
}

protocol Totals {
    func total() -> Int
}

struct Item { let price: Int }

enum Currency { case usd, eur }

extension Cart: CustomStringConvertible {
    var description: String { return format(total()) }
    func clear() { items.removeAll() }
}

func format(_ cents: Int) -> String { String(cents) }

final class CartTests: XCTestCase {
    func testTotalIsZero() {
        XCTAssertEqual(Cart(items: []).total(), 0)
    }
}
"""


def test_swift_rows() -> None:
    fx = parse("swift", SOURCE, "Tests/CartTests.swift")
    assert fx.language == "swift" and fx.error_lines == []
    assert symbols(fx) == [
        ("Cart", "class", 5, 17, "", False),
        ("Cart.init", "method", 8, 10, "Cart", False),
        ("Cart.total", "method", 12, 16, "Cart", False),
        ("Totals", "interface", 19, 21, "", False),
        ("Totals.total", "method", 20, 20, "Totals", False),
        ("Item", "struct", 23, 23, "", False),
        ("Currency", "enum", 25, 25, "", False),
        ("Cart.clear", "method", 29, 29, "Cart", False),  # declared in an extension of Cart
        ("format", "function", 32, 32, "", False),
        ("CartTests", "class", 34, 38, "", False),
        ("CartTests.testTotalIsZero", "method", 35, 37, "CartTests", True),
    ]
    assert fx.symbols[0].docstring == "A cart of items."
    assert imports(fx) == [("Foundation", "", "", 1), ("XCTest", "", "", 2)]
    assert calls(fx) == [
        ("Cart.total", "", 13),  # items.map { ... }.reduce: a call on a call's result
        ("Cart.total", "items.map", 13),
        ("Cart.total", "log", 14),
        ("Cart.total", "Money.round", 15),
        ("", "format", 28),  # a computed property of an extension: no call scope of its own
        ("", "total", 28),
        ("Cart.clear", "items.removeAll", 29),
        ("format", "String", 32),
        ("CartTests.testTotalIsZero", "XCTAssertEqual", 36),
        ("CartTests.testTotalIsZero", "", 36),
        ("CartTests.testTotalIsZero", "Cart", 36),
    ]
    assert inherits(fx) == [
        ("Cart", "BaseCart", 5, "extends"),
        ("Cart", "Totals", 5, "extends"),
        ("Cart", "CustomStringConvertible", 27, "implements"),
        ("CartTests", "XCTestCase", 34, "extends"),
    ]
