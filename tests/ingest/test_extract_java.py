"""Golden test of the Java extractor (exact rows, so grammar renames cannot pass silently)."""

from __future__ import annotations

from ingest.extract.java import extract
from ingest.extract.rows import CallRow, ImportRow, InheritRow

JAVA_SOURCE = b"""\
package com.acme.shop;

import java.util.List;
import com.acme.util.*;
import static com.acme.util.Strings.trim;

/**
 * A shopping cart.
 */
public class Cart<T> extends Base<T> implements Iterable<T>, Sized {
    public static final int MAX = 10, MIN = 0;
    private final List<T> items = new ArrayList<>();

    Cart() {
        super();
    }

    /** Adds an item. */
    @Override
    public void add(T item) {
        items.add(item);
        this.check();
        validate(trim(item.toString()));
        Logger.get().info("added");
    }

    protected void check() {}

    static class Line {
        int total() { return Math.max(1, 2); }
    }
}

interface Sized extends Measured {
    int size();
    int LIMIT = 3;
}

enum Status { OPEN, CLOSED }
"""


def test_java_symbols() -> None:
    fx = extract(JAVA_SOURCE, "src/main/java/com/acme/shop/Cart.java", language="java")
    got = [(s.qualname, str(s.kind), s.start_line, s.end_line, s.parent, s.visibility)
           for s in fx.symbols]
    assert got == [
        ("Cart", "class", 10, 32, "", "public"),
        ("Cart.MAX", "constant", 11, 11, "Cart", "public"),
        ("Cart.MIN", "constant", 11, 11, "Cart", "public"),
        ("Cart.items", "variable", 12, 12, "Cart", "private"),
        ("Cart.Cart", "method", 14, 16, "Cart", "internal"),
        ("Cart.add", "method", 19, 25, "Cart", "public"),
        ("Cart.check", "method", 27, 27, "Cart", "protected"),
        ("Cart.Line", "class", 29, 31, "Cart", "internal"),
        ("Cart.Line.total", "method", 30, 30, "Cart.Line", "internal"),
        ("Sized", "interface", 34, 37, "", "internal"),
        ("Sized.size", "method", 35, 35, "Sized", "public"),
        ("Sized.LIMIT", "constant", 36, 36, "Sized", "public"),
        ("Status", "enum", 39, 39, "", "internal"),
        ("Status.OPEN", "constant", 39, 39, "Status", "public"),
        ("Status.CLOSED", "constant", 39, 39, "Status", "public"),
    ]
    by_name = {s.qualname: s for s in fx.symbols}
    assert by_name["Cart"].docstring == "A shopping cart."
    assert by_name["Cart.add"].docstring == "Adds an item."
    assert by_name["Cart.add"].signature == "public void add(T item) {"
    assert fx.package == "com.acme.shop"
    assert fx.error_lines == []
    assert not any(s.is_test for s in fx.symbols)


def test_java_imports_calls_heritage() -> None:
    fx = extract(JAVA_SOURCE, "src/main/java/com/acme/shop/Cart.java", language="java")
    assert fx.imports == [
        ImportRow("java.util.List", line=3),
        ImportRow("com.acme.util", "*", line=4),
        ImportRow("com.acme.util.Strings", "trim", line=5),
    ]
    assert fx.calls == [
        CallRow("Cart", "ArrayList", 12),
        CallRow("Cart.add", "items.add", 21),
        CallRow("Cart.add", "this.check", 22),
        CallRow("Cart.add", "validate", 23),
        CallRow("Cart.add", "trim", 23),
        CallRow("Cart.add", "item.toString", 23),
        CallRow("Cart.add", "", 24),  # a call on a call's result
        CallRow("Cart.add", "Logger.get", 24),
        CallRow("Cart.Line.total", "Math.max", 30),
    ]
    assert fx.inherits == [
        InheritRow("Cart", "Base", 10, "extends"),
        InheritRow("Cart", "Iterable", 10, "implements"),
        InheritRow("Cart", "Sized", 10, "implements"),
        InheritRow("Sized", "Measured", 34, "extends"),
    ]


def test_java_tests_by_annotation_and_file_name() -> None:
    src = b"""\
package com.acme;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void addsItems() { helper(); }

    @org.junit.jupiter.params.ParameterizedTest
    void many() {}

    void helper() {}
}
"""
    fx = extract(src, "src/test/java/com/acme/CartTest.java", language="java")
    assert {s.qualname: s.is_test for s in fx.symbols} == {
        "CartTest": True, "CartTest.addsItems": True, "CartTest.many": True,
        "CartTest.helper": False,
    }


def test_java_syntax_error_keeps_partial_symbols() -> None:
    src = b"class A {\n  void ok() {}\n  void broken( {\n}\n"
    fx = extract(src, "A.java", language="java")
    assert "A.ok" in [s.qualname for s in fx.symbols]
    assert fx.error_lines
