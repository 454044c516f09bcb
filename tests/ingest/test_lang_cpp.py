"""Golden test of C++ extraction by the query engine (queries/cpp.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
#include <vector>
#include "shapes/shape.hpp"

namespace geo {

// A shape with an area.
class Circle : public Shape, private Named {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override { return kPi * r_ * r_; }
    static Circle unit();
private:
    double r_;
};

struct Point { int x; };

Circle Circle::unit() {
    auto c = std::make_unique<Circle>(1.0);
    c->area();
    Shape *s = new geo::Circle(2.0);
    return Circle(1.0);
}

template <typename T>
T clamp(T v) { return std::max(v, T{}); }

}  // namespace geo

TEST(CircleTest, HasArea) {
    EXPECT_GT(geo::Circle(2).area(), 0);
}
"""


def test_cpp_rows() -> None:
    fx = parse("cpp", SOURCE, "tests/circle_test.cpp")
    assert fx.language == "cpp" and fx.error_lines == [] and fx.package == "geo"
    assert symbols(fx) == [
        ("Circle", "class", 7, 14, "", False),
        ("Circle.Circle", "method", 9, 9, "Circle", False),
        ("Circle.area", "method", 10, 10, "Circle", False),
        ("Point", "struct", 16, 16, "", False),
        ("Circle.unit", "method", 18, 23, "Circle", False),
        ("clamp", "function", 26, 26, "", False),
        ("CircleTest_HasArea", "function", 30, 32, "", True),
    ]
    assert fx.symbols[0].docstring == "A shape with an area."
    assert imports(fx) == [("vector", "", "", 1), ("shapes/shape.hpp", "", "", 2)]
    assert calls(fx) == [
        ("Circle.unit", "std.make_unique", 19),
        ("Circle.unit", "c.area", 20),
        ("Circle.unit", "geo.Circle", 21),
        ("Circle.unit", "Circle", 22),
        ("clamp", "std.max", 26),
        ("CircleTest_HasArea", "EXPECT_GT", 31),
        ("CircleTest_HasArea", "", 31),  # geo::Circle(2).area(): a call on a call's result
        ("CircleTest_HasArea", "geo.Circle", 31),
    ]
    assert inherits(fx) == [("Circle", "Shape", 7, "extends"), ("Circle", "Named", 7, "extends")]


HEADER = """\
#pragma once
#include <string>

namespace geo {
class Named {
public:
    virtual ~Named() = default;
    std::string name() const { return name_; }
private:
    std::string name_;
};
}  // namespace geo
"""


def test_a_cpp_header_named_h_is_parsed_as_cpp() -> None:
    fx = parse("c", HEADER, "include/geo/named.h")
    assert fx.language == "c" and fx.error_lines == [] and fx.package == "geo"
    assert symbols(fx) == [("Named", "class", 5, 11, "", False),
                           ("Named.~Named", "method", 7, 7, "Named", False),
                           ("Named.name", "method", 8, 8, "Named", False)]
    plain_c = parse("c", "struct point { int x; };\nint norm(struct point p);\n", "point.h")
    assert symbols(plain_c) == [("point", "struct", 1, 1, "", False)]


def test_a_repeated_scope_renames_its_descendants_at_every_depth() -> None:
    """Both branches of an ``#ifdef`` define ``S`` with a nested ``T::f``: the second ``S``
    becomes ``S~2`` and its grandchild ``S~2.T.f`` (child of ``S~2.T``), never ``S.T.f~2``
    under the first ``S``. (Found on pyarrow's vendored pcg_random.hpp: a grandchild named
    after a parent that no longer existed failed the whole repository's load.)"""
    fx = parse("cpp", "#ifdef WIN\nstruct S { struct T { void f() {} }; };\n#else\n"
                      "struct S { struct T { void f() {} }; };\n#endif\n", "a.hpp")
    assert [(s.qualname, s.parent) for s in fx.symbols] == [
        ("S", ""), ("S.T", "S"), ("S.T.f", "S.T"),
        ("S~2", ""), ("S~2.T", "S~2"), ("S~2.T.f", "S~2.T")]
