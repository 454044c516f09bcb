"""A real git repository in the ten query-engine languages, ingested through the real pipeline
into a real database: each language's imports, calls and inheritance must resolve within that
language (two or three files each, one importing and calling the other)."""

from __future__ import annotations

import pytest

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from tests.gitrepo import GitRepo

TREE: dict[str, str] = {
    # -- C: a header declares, its .c defines, main.c includes the header -------------------
    "c/strbuf.h": """
        #ifndef STRBUF_H
        #define STRBUF_H
        void strbuf_grow(int n);
        #endif
        """,
    "c/strbuf.c": """
        #include "strbuf.h"

        static int clamp(int n) { return n < 0 ? 0 : n; }

        void strbuf_grow(int n) { clamp(n); }
        """,
    "c/main.c": """
        #include <stdio.h>
        #include "strbuf.h"

        int main(void) {
            strbuf_grow(4);
            printf("ok");
            return 0;
        }
        """,
    # -- C++ -------------------------------------------------------------------------------
    "cpp/shape.hpp": """
        class Shape {
        public:
            double scale() const { return 1.0; }
        };
        """,
    "cpp/circle.cpp": """
        #include "shape.hpp"

        class Circle : public Shape {
        public:
            double area() const { return scale() * 3.14; }
        };
        """,
    # -- C# --------------------------------------------------------------------------------
    "cs/Models/Item.cs": """
        namespace Shop.Models
        {
            public class Item
            {
                public static Item Create() { return new Item(); }
                public int Price() { return 1; }
            }
        }
        """,
    "cs/Services/Cart.cs": """
        using Shop.Models;

        namespace Shop.Services
        {
            public class CartBase { protected void Log() { } }

            public class Cart : CartBase
            {
                public int Total()
                {
                    Log();
                    return Item.Create().Price();
                }
            }
        }
        """,
    # -- Ruby ------------------------------------------------------------------------------
    "rb/lib/base.rb": """
        class Base
          def save
          end
        end
        """,
    "rb/lib/cart.rb": """
        require_relative "base"

        class Cart < Base
          def total
            save
            Base.new
          end
        end
        """,
    "rb/test/cart_test.rb": """
        require_relative "../lib/cart"

        class CartTest < Minitest::Test
          def test_total
            assert_nil Cart.new.total
          end
        end
        """,
    # -- PHP -------------------------------------------------------------------------------
    "php/src/Models/Invoice.php": """
        <?php
        namespace App\\Models;

        class Invoice
        {
            public function total(): int { return 1; }
        }
        """,
    "php/src/helpers.php": """
        <?php
        function format_total(int $cents): string { return (string) $cents; }
        """,
    "php/src/Mailer.php": """
        <?php
        namespace App;

        use App\\Models\\Invoice;

        require_once __DIR__ . '/helpers.php';

        class Mailer
        {
            public function send(): string
            {
                $invoice = new Invoice();
                return format_total($invoice->total());
            }
        }
        """,
    # -- Kotlin ----------------------------------------------------------------------------
    "kt/model/Item.kt": """
        package com.shop.model

        class Item {
            fun price(): Long = 1
        }

        fun makeItem(): Item = Item()
        """,
    "kt/cart/Cart.kt": """
        package com.shop.cart

        import com.shop.model.makeItem

        open class Base

        class Cart : Base() {
            fun total(): Long = makeItem().price() + helper()

            fun helper(): Long = 0
        }
        """,
    # -- Swift (a SwiftPM package: each Sources/<Target> is a module) ----------------------
    "swift/Sources/Shop/Item.swift": """
        public struct Item {
            public func price() -> Int { return 1 }
        }

        public func makeItem() -> Item { return Item() }
        """,
    "swift/Sources/App/Main.swift": """
        import Shop

        func run() -> Int {
            let item = makeItem()
            return item.price()
        }
        """,
    # -- Scala -----------------------------------------------------------------------------
    "scala/shop/model/Item.scala": """
        package shop.model

        class Item {
          def price(): Long = 1
        }

        object Items {
          def make(): Item = new Item()
        }
        """,
    "scala/shop/cart/Cart.scala": """
        package shop.cart

        import shop.model.{Item, Items}

        class Cart extends Item {
          def total(): Long = Items.make().price()
        }
        """,
    # -- Bash ------------------------------------------------------------------------------
    "sh/lib.sh": """
        log_info() {
            echo "$1"
        }
        """,
    "sh/build.sh": """
        #!/usr/bin/env bash
        source "$(dirname "$0")/lib.sh"

        build() {
            log_info building
            make all
        }

        build
        """,
    # -- Lua -------------------------------------------------------------------------------
    "lua/shop/util.lua": """
        local M = {}

        function M.sum(t)
          return 0
        end

        return M
        """,
    "lua/shop/cart.lua": """
        local util = require("shop.util")

        local Cart = {}

        function Cart:total()
          return util.sum(self.items)
        end

        return Cart
        """,
}


def _short(node_id: str) -> str:
    kind, rest = node_id.split(":", 1)
    return rest if kind == "ext" else rest.removeprefix("poly/")


def _edges(store: Store, rel: str, top: str) -> list[tuple[str, str, str]]:
    """Current ``rel`` edges from files under ``top``/: (src, dst, resolution)."""
    frame = store.cypher(
        f"MATCH (a)-[e:{rel}]->(b) WHERE a.valid_to IS NULL AND b.valid_to IS NULL "
        "RETURN a.id, b.id, e.resolution")
    return sorted((_short(a), _short(b), how) for a, b, how in frame.rows()
                  if _short(a).startswith(f"{top}/"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    base = tmp_path_factory.mktemp("poly")
    repo = GitRepo(base / "poly")
    repo.commit("ten languages", TREE)
    s = Store.open(base / "db")
    summary = ingest_repository(s, repo.root, options=IngestOptions(name="poly")).to_dict()
    assert summary["files"]["parsed"] == len(TREE) and summary["files"]["partial"] == 0
    yield s
    s.close()


def test_every_file_has_its_language(store: Store) -> None:
    rows = store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL RETURN f.path, f.language, "
                        "f.parse_status").rows()
    languages = {path: lang for path, lang, status in rows if status == "ok"}
    assert languages == {
        "c/strbuf.h": "c", "c/strbuf.c": "c", "c/main.c": "c",
        "cpp/shape.hpp": "cpp", "cpp/circle.cpp": "cpp",
        "cs/Models/Item.cs": "csharp", "cs/Services/Cart.cs": "csharp",
        "rb/lib/base.rb": "ruby", "rb/lib/cart.rb": "ruby", "rb/test/cart_test.rb": "ruby",
        "php/src/Models/Invoice.php": "php", "php/src/helpers.php": "php",
        "php/src/Mailer.php": "php",
        "kt/model/Item.kt": "kotlin", "kt/cart/Cart.kt": "kotlin",
        "swift/Sources/Shop/Item.swift": "swift", "swift/Sources/App/Main.swift": "swift",
        "scala/shop/model/Item.scala": "scala", "scala/shop/cart/Cart.scala": "scala",
        "sh/lib.sh": "bash", "sh/build.sh": "bash",
        "lua/shop/util.lua": "lua", "lua/shop/cart.lua": "lua",
    }



def test_imports_resolve_within_each_language(store: Store) -> None:
    imports = {top: _edges(store, "IMPORTS", top)
               for top in ("c", "cpp", "cs", "rb", "php", "kt", "swift", "scala", "sh", "lua")}
    assert imports == {
        "c": [("c/main.c", "c/strbuf.h", "import"), ("c/main.c", "c:stdio.h", "external"),
              ("c/strbuf.c", "c/strbuf.h", "import")],
        "cpp": [("cpp/circle.cpp", "cpp/shape.hpp", "import")],
        "cs": [("cs/Services/Cart.cs", "cs/Models/Item.cs", "import")],  # using a namespace
        "rb": [("rb/lib/cart.rb", "rb/lib/base.rb", "import"),
               ("rb/test/cart_test.rb", "rb/lib/cart.rb", "import")],
        "php": [("php/src/Mailer.php", "php/src/Models/Invoice.php#Invoice", "import"),
                ("php/src/Mailer.php", "php/src/helpers.php", "import")],
        "kt": [("kt/cart/Cart.kt", "kt/model/Item.kt#makeItem", "import")],
        "swift": [("swift/Sources/App/Main.swift", "swift/Sources/Shop/Item.swift", "import")],
        "scala": [("scala/shop/cart/Cart.scala", "scala/shop/model/Item.scala#Item", "import"),
                  ("scala/shop/cart/Cart.scala", "scala/shop/model/Item.scala#Items",
                   "import")],
        "sh": [("sh/build.sh", "sh/lib.sh", "import")],
        "lua": [("lua/shop/cart.lua", "lua/shop/util.lua", "import")],
    }


def test_calls_resolve_within_each_language(store: Store) -> None:
    calls = {top: _edges(store, "CALLS", top)
             for top in ("c", "cpp", "cs", "rb", "php", "kt", "swift", "scala", "sh", "lua")}
    assert calls == {
        # the header declares strbuf_grow; its definition is in strbuf.c
        "c": [("c/main.c#main", "c/strbuf.c#strbuf_grow", "import"),
              ("c/main.c#main", "c:printf", "builtin"),
              ("c/strbuf.c#strbuf_grow", "c/strbuf.c#clamp", "same_module")],
        "cpp": [("cpp/circle.cpp#Circle.area", "cpp/shape.hpp#Shape.scale", "inheritance")],
        "cs": [("cs/Models/Item.cs#Item.Create", "cs/Models/Item.cs#Item", "same_module"),
               ("cs/Services/Cart.cs#Cart.Total", "cs/Models/Item.cs#Item.Create", "import"),
               ("cs/Services/Cart.cs#Cart.Total", "cs/Services/Cart.cs#CartBase.Log",
                "inheritance")],
        "rb": [("rb/lib/cart.rb#Cart.total", "rb/lib/base.rb#Base", "import"),  # Base.new
               ("rb/lib/cart.rb#Cart.total", "rb/lib/base.rb#Base.save", "inheritance"),
               ("rb/test/cart_test.rb#CartTest.test_total", "rb/lib/cart.rb#Cart", "import"),
               # Cart.new.total: the receiver's type is not tracked, the name is unique
               ("rb/test/cart_test.rb#CartTest.test_total", "rb/lib/cart.rb#Cart.total",
                "name_only")],
        "php": [("php/src/Mailer.php#Mailer.send", "php/src/Models/Invoice.php#Invoice",
                 "import"),
                ("php/src/Mailer.php#Mailer.send", "php/src/Models/Invoice.php#Invoice.total",
                 "name_only"),  # $invoice->total(): the variable's type is not tracked
                ("php/src/Mailer.php#Mailer.send", "php/src/helpers.php#format_total",
                 "import")],
        "kt": [("kt/cart/Cart.kt#Cart.total", "kt/cart/Cart.kt#Cart.helper", "self"),
               ("kt/cart/Cart.kt#Cart.total", "kt/model/Item.kt#makeItem", "import"),
               ("kt/model/Item.kt#makeItem", "kt/model/Item.kt#Item", "same_module")],
        "swift": [("swift/Sources/App/Main.swift#run", "swift/Sources/Shop/Item.swift#Item.price",
                   "name_only"),
                  ("swift/Sources/App/Main.swift#run", "swift/Sources/Shop/Item.swift#makeItem",
                   "import"),
                  ("swift/Sources/Shop/Item.swift#makeItem", "swift/Sources/Shop/Item.swift#Item",
                   "same_module")],
        "scala": [("scala/shop/cart/Cart.scala#Cart.total",
                   "scala/shop/model/Item.scala#Items.make", "import"),
                  ("scala/shop/model/Item.scala#Items.make", "scala/shop/model/Item.scala#Item",
                   "same_module")],
        "sh": [("sh/build.sh#<module>", "sh/build.sh#build", "same_module"),
               ("sh/build.sh#build", "sh/lib.sh#log_info", "import"),
               ("sh/lib.sh#log_info", "bash:echo", "builtin")],
        "lua": [("lua/shop/cart.lua#Cart.total", "lua/shop/util.lua#M.sum", "import")],
    }


def test_inheritance_resolves_within_each_language(store: Store) -> None:
    inherits = {top: _edges(store, "INHERITS", top) for top in ("cpp", "cs", "rb", "kt", "scala")}
    assert inherits == {
        "cpp": [("cpp/circle.cpp#Circle", "cpp/shape.hpp#Shape", "import")],
        "cs": [("cs/Services/Cart.cs#Cart", "cs/Services/Cart.cs#CartBase", "same_module")],
        "rb": [("rb/lib/cart.rb#Cart", "rb/lib/base.rb#Base", "import"),
               ("rb/test/cart_test.rb#CartTest", "ruby:Minitest.Test", "external")],
        "kt": [("kt/cart/Cart.kt#Cart", "kt/cart/Cart.kt#Base", "same_module")],
        "scala": [("scala/shop/cart/Cart.scala#Cart", "scala/shop/model/Item.scala#Item",
                   "import")],
    }


def test_tests_edges_of_a_minitest_file(store: Store) -> None:
    rows = store.cypher("MATCH (a)-[e:TESTS]->(b) WHERE a.valid_to IS NULL "
                        "RETURN a.id, b.id, e.method").rows()
    # test_total in cart_test.rb also names Cart.total of lua/shop/cart.lua: no edge there
    assert sorted((_short(a), _short(b), m) for a, b, m in rows) == [
        ("rb/test/cart_test.rb#CartTest.test_total", "rb/lib/cart.rb#Cart", "calls"),
        ("rb/test/cart_test.rb#CartTest.test_total", "rb/lib/cart.rb#Cart.total", "calls")]
