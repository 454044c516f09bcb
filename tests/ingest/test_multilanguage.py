"""End-to-end ingest of one small repository in five languages, through the real pipeline into
a real Kuzu database: JavaScript, TypeScript (.ts and .tsx), Go (a module with two packages),
Java (two packages, a JUnit test) and Rust (a crate with lib.rs and two modules).

The rows read back pin what each language's extractor and resolver contribute (files, symbols,
IMPORTS, CALLS, INHERITS, TESTS); then one file per language changes, and the incremental
ingest must re-parse exactly those files, re-resolve the unchanged files that point into them,
and end up with the graph a fresh full ingest of the changed tree builds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from graphdb import Store
from ingest import IngestOptions, ingest_repository

OPTIONS = IngestOptions(name="shop")

TREE: dict[str, str] = {
    # -- JavaScript / TypeScript -------------------------------------------------------------
    "web/src/util.js": """
        export function formatName(name) {
          return name.trim();
        }

        export default function log(message) {
          console.log(message);
        }
        """,
    "web/src/models.ts": """
        import { formatName } from './util.js';

        export interface Named {
          name: string;
        }

        export class Entity {
          id(): string {
            return 'entity';
          }

          describe(): string {
            return formatName(this.id());
          }
        }

        export class User extends Entity implements Named {
          name = '';

          greet(): string {
            return this.describe();
          }
        }
        """,
    "web/src/App.tsx": """
        import React from 'react';
        import { User } from './models';
        import log from './util';

        export function App() {
          const user = new User();
          log(user.greet());
          return <div>{user.name}</div>;
        }
        """,
    # -- Go ----------------------------------------------------------------------------------
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "internal/store/store.go": """
        package store

        // Base holds what every store shares.
        type Base struct{}

        func (b *Base) Close() {}

        // Store counts items by name.
        type Store struct {
        \tBase
        \titems map[string]int
        }

        func New() *Store {
        \treturn &Store{items: map[string]int{}}
        }

        func (s *Store) Add(name string, n int) {
        \ts.items[name] += n
        }

        func (s *Store) Count(name string) int {
        \treturn s.items[name]
        }
        """,
    "internal/store/store_test.go": """
        package store

        import "testing"

        func TestAdd(t *testing.T) {
        \ts := New()
        \ts.Add("apple", 2)
        \tif s.Count("apple") != 2 {
        \t\tt.Fatal("count")
        \t}
        }
        """,
    "cmd/shop/main.go": """
        package main

        import (
        \t"fmt"

        \t"example.com/shop/internal/store"
        )

        func main() {
        \ts := store.New()
        \ts.Add("apple", 2)
        \tfmt.Println(report(s))
        \ts.Close()
        }

        func report(s *store.Store) int {
        \treturn s.Count("apple")
        }
        """,
    # -- Java --------------------------------------------------------------------------------
    "java/src/main/java/com/shop/model/Entity.java": """
        package com.shop.model;

        public abstract class Entity {
            public String id() {
                return "entity";
            }
        }
        """,
    "java/src/main/java/com/shop/model/Item.java": """
        package com.shop.model;

        public class Item extends Entity implements Comparable<Item> {
            private final int cents;

            public Item(int cents) {
                this.cents = cents;
            }

            public int price() {
                return cents;
            }

            @Override
            public int compareTo(Item other) {
                return Integer.compare(price(), other.price());
            }

            public String label() {
                return id() + ":" + cents;
            }
        }
        """,
    "java/src/main/java/com/shop/service/Cart.java": """
        package com.shop.service;

        import com.shop.model.Item;
        import java.util.ArrayList;
        import java.util.List;

        public class Cart {
            private final List<Item> items = new ArrayList<>();

            public void add(Item item) {
                items.add(item);
            }

            public int total() {
                int sum = 0;
                for (Item item : items) {
                    sum += item.price();
                }
                return sum;
            }
        }
        """,
    "java/src/test/java/com/shop/service/CartTest.java": """
        package com.shop.service;

        import com.shop.model.Item;
        import org.junit.jupiter.api.Test;

        class CartTest {
            @Test
            void total() {
                Cart cart = new Cart();
                cart.add(new Item(3));
                assert cart.total() == 3;
            }
        }
        """,
    # -- Rust --------------------------------------------------------------------------------
    "shapes/Cargo.toml": '[package]\nname = "shapes"\nversion = "0.1.0"\n',
    "shapes/src/lib.rs": """
        pub mod geometry;
        pub mod render;

        pub use geometry::Circle;
        """,
    "shapes/src/geometry.rs": """
        /// Anything with an area.
        pub trait Shape {
            fn area(&self) -> f64;
        }

        pub struct Circle {
            pub r: f64,
        }

        impl Circle {
            pub fn new(r: f64) -> Self {
                Circle { r }
            }
        }

        impl Shape for Circle {
            fn area(&self) -> f64 {
                square(self.r) * 3.14
            }
        }

        fn square(x: f64) -> f64 {
            x * x
        }
        """,
    "shapes/src/render.rs": """
        use crate::geometry::{Circle, Shape};

        pub fn unit() -> Circle {
            Circle::new(1.0)
        }

        pub fn describe(c: &Circle) -> String {
            let area = c.area();
            area.to_string()
        }
        """,
}

#: One change per language; each is the target of an edge from a file that does not change.
EDITS: dict[str, dict[str, str]] = {
    # JavaScript: formatName renamed (models.ts imports and calls it)
    "web/src/util.js": {"formatName": "formatTitle"},
    # TypeScript: User.greet renamed (App.tsx calls it)
    "web/src/models.ts": {"greet()": "welcome()"},
    # Go: Count moves from Store to its embedded Base (main.go and the test call s.Count)
    "internal/store/store.go": {"func (s *Store) Count(": "func (b *Base) Count(",
                                "return s.items[name]": "return 0"},
    # Java: price() renamed (Cart.total calls item.price())
    "java/src/main/java/com/shop/model/Item.java": {"price()": "cost()"},
    # Rust: Circle::new renamed (render.rs calls Circle::new)
    "shapes/src/geometry.rs": {"fn new(": "fn with_radius("},
}


# ------------------------------------------------------------------------------------ reading
def _short(node_id: str) -> str:
    """``sym:shop/a.go#f`` -> ``a.go#f``, ``file:shop/a.go`` -> ``a.go``, ``ext:go:fmt`` ->
    ``go:fmt``."""
    kind, rest = node_id.split(":", 1)
    return rest if kind == "ext" else rest.removeprefix("shop/")


def _language_of(path: str) -> str:
    return {"web": "js", "cmd": "go", "internal": "go", "java": "java", "shapes": "rust"}[
        path.split("/", 1)[0]]


def _edges(store: Store, rel: str, prop: str = "") -> dict[str, list[tuple[str, ...]]]:
    """Current ``rel`` edges as (src, dst, resolution[, prop]) by language of the source."""
    extra = f", e.{prop} AS p" if prop else ""
    frame = store.cypher(
        f"MATCH (a)-[e:{rel}]->(b) WHERE a.valid_to IS NULL AND b.valid_to IS NULL "
        f"RETURN a.id AS src, b.id AS dst, e.resolution AS how{extra}")
    out: dict[str, list[tuple[str, ...]]] = {}
    for src, dst, how, *rest in sorted((_short(r[0]), _short(r[1]), *r[2:])
                                       for r in frame.rows()):
        out.setdefault(_language_of(src), []).append((src, dst, how, *rest))
    return out


def _tests(store: Store) -> list[tuple[str, str, str]]:
    frame = store.cypher("MATCH (a)-[e:TESTS]->(b) WHERE a.valid_to IS NULL AND "
                         "b.valid_to IS NULL RETURN a.id, b.id, e.method")
    return sorted((_short(a), _short(b), m) for a, b, m in frame.rows())


def _symbols(store: Store) -> list[tuple[str, str, bool]]:
    frame = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NULL "
                         "RETURN s.id, s.kind, s.is_test")
    return sorted((_short(i), k, t) for i, k, t in frame.rows())


def _graph(store: Store) -> dict[str, object]:
    """What the incremental and the full ingest must agree on."""
    return {
        "symbols": _symbols(store),
        "IMPORTS": _edges(store, "IMPORTS", "name"),
        "CALLS": _edges(store, "CALLS"),
        "INHERITS": _edges(store, "INHERITS", "kind"),
        "TESTS": _tests(store),
    }


# -------------------------------------------------------------------------------------- tests
def test_files_and_symbols_of_every_language(store: Store, tree: Callable) -> None:
    summary = ingest_repository(store, tree(TREE), options=OPTIONS).to_dict()
    # go.mod is walked, not parsed; Cargo.toml is a document (a File without symbols)
    assert summary["files"]["parsed"] == 14
    assert summary["files"]["partial"] == 0
    files = store.cypher("MATCH (f:File) WHERE f.language <> '' RETURN f.path, f.language, "
                         "f.parse_status, f.package, f.is_test")
    assert sorted(files.rows()) == [
        ("cmd/shop/main.go", "go", "ok", "main", False),
        ("internal/store/store.go", "go", "ok", "store", False),
        ("internal/store/store_test.go", "go", "ok", "store", True),
        ("java/src/main/java/com/shop/model/Entity.java", "java", "ok", "com.shop.model", False),
        ("java/src/main/java/com/shop/model/Item.java", "java", "ok", "com.shop.model", False),
        ("java/src/main/java/com/shop/service/Cart.java", "java", "ok", "com.shop.service",
         False),
        ("java/src/test/java/com/shop/service/CartTest.java", "java", "ok", "com.shop.service",
         True),
        ("shapes/Cargo.toml", "toml", "ok", "", False),
        ("shapes/src/geometry.rs", "rust", "ok", "", False),
        ("shapes/src/lib.rs", "rust", "ok", "", False),
        ("shapes/src/render.rs", "rust", "ok", "", False),
        ("web/src/App.tsx", "tsx", "ok", "", False),
        ("web/src/models.ts", "typescript", "ok", "", False),
        ("web/src/util.js", "javascript", "ok", "", False),
    ]
    symbols = set(_symbols(store))
    assert {
        # JavaScript / TypeScript
        ("web/src/util.js#formatName", "function", False),
        ("web/src/util.js#log", "function", False),
        ("web/src/models.ts#Named", "interface", False),
        ("web/src/models.ts#User", "class", False),
        ("web/src/models.ts#User.greet", "method", False),
        ("web/src/App.tsx#App", "function", False),
        # Go: methods are Type.Method whatever the receiver's name
        ("internal/store/store.go#Store", "struct", False),
        ("internal/store/store.go#Store.Add", "method", False),
        ("internal/store/store.go#Base.Close", "method", False),
        ("internal/store/store_test.go#TestAdd", "function", True),
        ("cmd/shop/main.go#main", "function", False),
        # Java: constructors are methods named for the class; @Test marks tests
        ("java/src/main/java/com/shop/model/Entity.java#Entity", "class", False),
        ("java/src/main/java/com/shop/model/Item.java#Item.Item", "method", False),
        ("java/src/main/java/com/shop/model/Item.java#Item.cents", "variable", False),
        ("java/src/main/java/com/shop/service/Cart.java#Cart.total", "method", False),
        ("java/src/test/java/com/shop/service/CartTest.java#CartTest.total", "method", True),
        # Rust: trait, struct, impl methods as Type.method
        ("shapes/src/geometry.rs#Shape", "trait", False),
        ("shapes/src/geometry.rs#Shape.area", "method", False),
        ("shapes/src/geometry.rs#Circle", "struct", False),
        ("shapes/src/geometry.rs#Circle.new", "method", False),
        ("shapes/src/geometry.rs#Circle.area", "method", False),
        ("shapes/src/render.rs#describe", "function", False),
        ("shapes/src/lib.rs#<module>", "module", False),
    } <= symbols
    # one per parsed file, Cargo.toml included
    assert len([s for s in symbols if s[0].endswith("#<module>")]) == 14


def test_imports_calls_inherits_and_tests_of_every_language(store: Store,
                                                            tree: Callable) -> None:
    ingest_repository(store, tree(TREE), options=OPTIONS)
    imports = _edges(store, "IMPORTS", "name")
    calls = _edges(store, "CALLS")
    inherits = _edges(store, "INHERITS", "kind")

    assert imports["js"] == [
        ("web/src/App.tsx", "javascript:react", "external", "default"),
        ("web/src/App.tsx", "web/src/models.ts#User", "import", "User"),
        ("web/src/App.tsx", "web/src/util.js#log", "import", "default"),
        ("web/src/models.ts", "web/src/util.js#formatName", "import", "formatName"),
    ]
    assert calls["js"] == [
        ("web/src/App.tsx#App", "web/src/models.ts#User", "import"),
        ("web/src/App.tsx#App", "web/src/models.ts#User.greet", "name_only"),
        ("web/src/App.tsx#App", "web/src/util.js#log", "import"),
        ("web/src/models.ts#Entity.describe", "web/src/models.ts#Entity.id", "self"),
        ("web/src/models.ts#Entity.describe", "web/src/util.js#formatName", "import"),
        ("web/src/models.ts#User.greet", "web/src/models.ts#Entity.describe", "inheritance"),
        ("web/src/util.js#log", "javascript:console.log", "builtin"),
    ]
    assert inherits["js"] == [
        ("web/src/models.ts#User", "web/src/models.ts#Entity", "same_module", "extends"),
        ("web/src/models.ts#User", "web/src/models.ts#Named", "same_module", "implements"),
    ]

    # Go: the module path in go.mod is matched by directory; _test.go files are not imported
    assert imports["go"] == [
        ("cmd/shop/main.go", "go:fmt", "external", ""),
        ("cmd/shop/main.go", "internal/store/store.go", "import", ""),
        ("internal/store/store_test.go", "go:testing", "external", ""),
    ]
    assert calls["go"] == [
        ("cmd/shop/main.go#main", "cmd/shop/main.go#report", "same_module"),
        ("cmd/shop/main.go#main", "go:fmt.Println", "external"),
        ("cmd/shop/main.go#main", "internal/store/store.go#Base.Close", "name_only"),
        ("cmd/shop/main.go#main", "internal/store/store.go#New", "import"),
        ("cmd/shop/main.go#main", "internal/store/store.go#Store.Add", "name_only"),
        ("cmd/shop/main.go#report", "internal/store/store.go#Store.Count", "name_only"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#New", "same_module"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Store.Add",
         "name_only"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Store.Count",
         "name_only"),
    ]
    assert inherits["go"] == [  # struct embedding
        ("internal/store/store.go#Store", "internal/store/store.go#Base", "same_module",
         "extends"),
    ]

    model, service = "java/src/main/java/com/shop/model", "java/src/main/java/com/shop/service"
    test = "java/src/test/java/com/shop/service"
    assert imports["java"] == [
        (f"{service}/Cart.java", f"{model}/Item.java", "import", ""),
        (f"{service}/Cart.java", "java:java.util.ArrayList", "external", ""),
        (f"{service}/Cart.java", "java:java.util.List", "external", ""),
        (f"{test}/CartTest.java", f"{model}/Item.java", "import", ""),
        (f"{test}/CartTest.java", "java:org.junit.jupiter.api.Test", "external", ""),
    ]
    assert calls["java"] == [
        (f"{model}/Item.java#Item.compareTo", f"{model}/Item.java#Item.price", "self"),
        (f"{model}/Item.java#Item.compareTo", "java:Integer.compare", "builtin"),
        (f"{model}/Item.java#Item.label", f"{model}/Entity.java#Entity.id", "inheritance"),
        (f"{service}/Cart.java#Cart", "java:java.util.ArrayList", "external"),
        # `items.add(item)`: items is a List field; the unique method named add is a guess
        (f"{service}/Cart.java#Cart.add", f"{service}/Cart.java#Cart.add", "name_only"),
        (f"{service}/Cart.java#Cart.total", f"{model}/Item.java#Item.price", "name_only"),
        (f"{test}/CartTest.java#CartTest.total", f"{model}/Item.java#Item", "import"),
        (f"{test}/CartTest.java#CartTest.total", f"{service}/Cart.java#Cart", "same_module"),
        (f"{test}/CartTest.java#CartTest.total", f"{service}/Cart.java#Cart.add", "name_only"),
    ]
    assert inherits["java"] == [
        (f"{model}/Item.java#Item", f"{model}/Entity.java#Entity", "same_module", "extends"),
        (f"{model}/Item.java#Item", "java:Comparable", "builtin", "implements"),
    ]

    assert imports["rust"] == [  # `mod x;` imports the module's file
        ("shapes/src/lib.rs", "shapes/src/geometry.rs", "import", ""),
        ("shapes/src/lib.rs", "shapes/src/geometry.rs#Circle", "import", "Circle"),
        ("shapes/src/lib.rs", "shapes/src/render.rs", "import", ""),
        ("shapes/src/render.rs", "shapes/src/geometry.rs#Circle", "import", "Circle"),
        ("shapes/src/render.rs", "shapes/src/geometry.rs#Shape", "import", "Shape"),
    ]
    assert calls["rust"] == [
        ("shapes/src/geometry.rs#Circle.area", "shapes/src/geometry.rs#square", "same_module"),
        ("shapes/src/render.rs#unit", "shapes/src/geometry.rs#Circle.new", "import"),
    ]
    assert inherits["rust"] == [  # impl Shape for Circle
        ("shapes/src/geometry.rs#Circle", "shapes/src/geometry.rs#Shape", "same_module",
         "implements"),
    ]

    assert _tests(store) == [
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#New", "calls"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Store.Add", "calls"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Store.Count",
         "calls"),
        (f"{test}/CartTest.java#CartTest.total", f"{model}/Item.java#Item", "calls"),
        (f"{test}/CartTest.java#CartTest.total", f"{service}/Cart.java#Cart", "calls"),
        (f"{test}/CartTest.java#CartTest.total", f"{service}/Cart.java#Cart.add", "calls"),
        # CartTest.java tests Cart.java; its test `total` is named for Cart.total
        (f"{test}/CartTest.java#CartTest.total", f"{service}/Cart.java#Cart.total", "naming"),
    ]


def _edit(tree: Callable) -> Path:
    changed: dict[str, str] = {}
    for path, replacements in EDITS.items():
        text = TREE[path]
        for old, new in replacements.items():
            assert old in text, (path, old)
            text = text.replace(old, new)
        changed[path] = text
    return tree(changed)


def test_changing_one_file_per_language_updates_edges_from_unchanged_files(
        store: Store, tree: Callable, tmp_path: Path) -> None:
    root = tree(TREE)
    ingest_repository(store, root, options=OPTIONS)
    before = _graph(store)
    _edit(tree)
    summary = ingest_repository(store, root, options=OPTIONS).to_dict()
    assert summary["reparsed_paths"] == sorted(EDITS)
    assert summary["files"]["modified"] == len(EDITS)
    after = _graph(store)
    calls_before, calls_after = before["CALLS"], after["CALLS"]

    # JavaScript: models.ts still imports formatName, which util.js no longer defines: the
    # import now names the file; the call no longer resolves. App.tsx (unchanged) loses its
    # guess at the renamed User.greet.
    assert ("web/src/models.ts", "web/src/util.js", "import", "formatName") \
        in after["IMPORTS"]["js"]
    assert set(calls_before["js"]) - set(calls_after["js"]) == {
        ("web/src/App.tsx#App", "web/src/models.ts#User.greet", "name_only"),
        ("web/src/models.ts#Entity.describe", "web/src/util.js#formatName", "import"),
        ("web/src/models.ts#User.greet", "web/src/models.ts#Entity.describe", "inheritance"),
    }
    assert set(calls_after["js"]) - set(calls_before["js"]) == {
        ("web/src/models.ts#User.welcome", "web/src/models.ts#Entity.describe", "inheritance"),
    }

    # Go: main.go and store_test.go did not change; their s.Count now reaches Base.Count
    assert set(calls_before["go"]) - set(calls_after["go"]) == {
        ("cmd/shop/main.go#report", "internal/store/store.go#Store.Count", "name_only"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Store.Count",
         "name_only"),
    }
    assert set(calls_after["go"]) - set(calls_before["go"]) == {
        ("cmd/shop/main.go#report", "internal/store/store.go#Base.Count", "name_only"),
        ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Base.Count",
         "name_only"),
    }
    assert ("internal/store/store_test.go#TestAdd", "internal/store/store.go#Base.Count",
            "calls") in after["TESTS"]
    assert not [t for t in after["TESTS"] if t[1].endswith("#Store.Count")]

    # Java: Cart.java did not change; item.price() no longer resolves
    model = "java/src/main/java/com/shop/model"
    assert set(calls_before["java"]) - set(calls_after["java"]) == {
        ("java/src/main/java/com/shop/service/Cart.java#Cart.total",
         f"{model}/Item.java#Item.price", "name_only"),
        (f"{model}/Item.java#Item.compareTo", f"{model}/Item.java#Item.price", "self"),
    }
    assert set(calls_after["java"]) - set(calls_before["java"]) == {
        (f"{model}/Item.java#Item.compareTo", f"{model}/Item.java#Item.cost", "self"),
    }

    # Rust: render.rs did not change; Circle::new is gone
    assert set(calls_before["rust"]) - set(calls_after["rust"]) == {
        ("shapes/src/render.rs#unit", "shapes/src/geometry.rs#Circle.new", "import"),
    }
    assert set(calls_after["rust"]) == set(calls_before["rust"]) - {
        ("shapes/src/render.rs#unit", "shapes/src/geometry.rs#Circle.new", "import")}

    with Store.open(tmp_path / "full") as fresh:
        ingest_repository(fresh, root, options=OPTIONS)
        full = _graph(fresh)
    for key in full:
        assert after[key] == full[key], key


# ------------------------------------------------------------------- known product bugs (fail)
def test_java_call_reaches_the_method_not_the_field_of_the_same_name(
        store: Store, tree: Callable) -> None:
    """A getter named like its field (``price`` / ``price()``) is everyday Java; the field is
    ``Item.price`` and the method ``Item.price~2``. ``price()`` can only call the method."""
    ingest_repository(store, tree({"java/Item.java": """
        package shop;

        public class Item {
            private final int price;

            public Item(int price) {
                this.price = price;
            }

            public int price() {
                return price;
            }

            public int doubled() {
                return price() * 2;
            }
        }
        """}), options=OPTIONS)
    calls = _edges(store, "CALLS")["java"]
    assert calls == [("java/Item.java#Item.doubled", "java/Item.java#Item.price~2", "self")]


def test_rust_use_super_inside_an_inline_test_module_imports_the_enclosing_file(
        store: Store, tree: Callable) -> None:
    """``use super::*;`` in ``mod tests { ... }`` of geometry.rs names geometry itself (the
    parent of ``tests``), not the crate root."""
    ingest_repository(store, tree({
        "shapes/src/lib.rs": "pub mod geometry;\n",
        "shapes/src/geometry.rs": """
            fn square(x: f64) -> f64 {
                x * x
            }

            #[cfg(test)]
            mod tests {
                use super::*;

                #[test]
                fn square_works() {
                    let four = square(2.0);
                    assert!(four == 4.0);
                }
            }
            """}), options=OPTIONS)
    imports = _edges(store, "IMPORTS", "name")["rust"]
    assert ("shapes/src/geometry.rs", "shapes/src/lib.rs", "import", "*") not in imports
    assert imports == [
        ("shapes/src/geometry.rs", "shapes/src/geometry.rs", "import", "*"),
        ("shapes/src/lib.rs", "shapes/src/geometry.rs", "import", ""),
    ]
