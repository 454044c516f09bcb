"""Golden test for the Python extractor: a grammar that renames node types would silently
yield nothing, so every row kind is pinned here on one realistic file."""

from __future__ import annotations

import textwrap

from ingest.extract import extract
from ingest.extract.python import is_test_path
from ingest.extract.rows import AssignRow, CallRow, ImportRow, InheritRow

SOURCE = textwrap.dedent('''
    """Module docstring."""
    import os.path as osp, sys
    from ..base import Base as B, helper
    from . import sibling
    from .star import *

    LIMIT = 10
    counter: int = 0


    class Shape(B, metaclass=Meta):
        """A shape."""

        sides = 0

        def __init__(self, name: str) -> None:
            self.name = name
            self.parts = Parts()

        @property
        def area(self):
            return self.compute(osp.join("a", "b"))

        @area.setter
        def area(self, value):
            def check(v: Validator):
                v.run()
                helper()
            check(value)

        def _hidden(self):
            super().prepare()
            factory()()


    if sys.platform == "win32":
        def native():
            pass
    else:
        def native():
            import ctypes
            ctypes.CDLL("x")
''').lstrip()


def test_symbols_have_qualnames_kinds_spans_and_ordinals() -> None:
    fx = extract("python", SOURCE.encode(), "pkg/shapes.py")
    rows = [(s.qualname, s.kind, s.start_line, s.end_line, s.parent, s.visibility)
            for s in fx.symbols]
    assert rows == [
        ("LIMIT", "constant", 7, 7, "", "public"),
        ("counter", "variable", 8, 8, "", "public"),
        ("Shape", "class", 11, 33, "", "public"),
        ("Shape.sides", "variable", 14, 14, "Shape", "public"),
        ("Shape.__init__", "method", 16, 18, "Shape", "public"),
        ("Shape.area", "method", 20, 22, "Shape", "public"),
        ("Shape.area~2", "method", 24, 29, "Shape", "public"),
        ("Shape.area~2.check", "function", 26, 28, "Shape.area~2", "public"),
        ("Shape._hidden", "method", 31, 33, "Shape", "private"),
        ("native", "function", 37, 38, "", "public"),
        ("native~2", "function", 40, 42, "", "public"),
    ]
    shape = fx.symbols[2]
    assert shape.docstring == "A shape."
    assert shape.signature == "class Shape(B, metaclass=Meta)"
    assert fx.symbols[4].signature == "def __init__(self, name: str) -> None"
    assert fx.module_doc == "Module docstring."
    assert fx.loc == 42
    assert fx.error_lines == []


def test_imports_keep_aliases_levels_and_scope() -> None:
    fx = extract("python", SOURCE.encode(), "pkg/shapes.py")
    assert fx.imports == [
        ImportRow("os.path", "", "osp", 0, 2, ""),
        ImportRow("sys", "", "", 0, 2, ""),
        ImportRow("base", "Base", "B", 2, 3, ""),
        ImportRow("base", "helper", "", 2, 3, ""),
        ImportRow("", "sibling", "", 1, 4, ""),
        ImportRow("star", "*", "", 1, 5, ""),
        ImportRow("ctypes", "", "", 0, 41, "native~2"),
    ]


def test_calls_are_scoped_to_the_innermost_definition() -> None:
    fx = extract("python", SOURCE.encode(), "pkg/shapes.py")
    assert fx.calls == [
        CallRow("Shape.__init__", "&name", 17),  # a name used as a value (a function?)
        CallRow("Shape.__init__", "Parts", 18),
        CallRow("Shape", "property", 20),  # a decorator runs in the enclosing scope
        CallRow("Shape.area", "self.compute", 22),
        CallRow("Shape.area", "osp.join", 22),
        CallRow("Shape", "area.setter", 24),
        CallRow("Shape.area~2.check", "v.run", 27),
        CallRow("Shape.area~2.check", "helper", 28),
        CallRow("Shape.area~2", "check", 29),
        CallRow("Shape.area~2", "&value", 29),
        CallRow("Shape._hidden", "super", 32),  # same start: the shorter (inner) call first
        CallRow("Shape._hidden", "super().prepare", 32),
        CallRow("Shape._hidden", "factory", 33),
        CallRow("Shape._hidden", "", 33),  # factory()() : a call of a call result
        CallRow("", "&sys.platform", 36),  # an attribute compared is read (a property?)
        CallRow("native~2", "ctypes.CDLL", 42),
    ]


def test_bases_and_bindings() -> None:
    fx = extract("python", SOURCE.encode(), "pkg/shapes.py")
    assert fx.inherits == [InheritRow("Shape", "B", 11)]
    assert fx.assigns == [
        AssignRow("", "counter", "int", 8, "instance"),
        AssignRow("Shape.__init__", "name", "str", 16, "instance"),
        AssignRow("Shape.__init__", "self.name", "name", 17, "alias"),
        AssignRow("Shape.__init__", "self.parts", "Parts", 18, "instance"),
        AssignRow("Shape", "area", "Shape.area", 20, "property"),  # a getter read as area
        # unannotated: what the call it returns gives
        AssignRow("Shape.area", "<returns>", "self.compute", 21, "returns"),
        AssignRow("Shape.area~2.check", "v", "Validator", 26, "instance"),
    ]


def test_syntax_errors_keep_the_partial_tree() -> None:
    source = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n"
    fx = extract("python", source, "m.py")
    assert [s.qualname for s in fx.symbols if s.qualname in ("ok", "After")] == ["ok", "After"]
    assert fx.error_lines and fx.error_lines[0] == 4


def test_tests_are_marked_in_test_files_only() -> None:
    source = (b"class TestShape:\n    def test_area(self):\n        pass\n\n"
              b"def test_x():\n    pass\n")
    in_tests = extract("python", source, "tests/test_shape.py")
    assert [(s.qualname, s.is_test) for s in in_tests.symbols] == [
        ("TestShape", True), ("TestShape.test_area", True), ("test_x", True)]
    elsewhere = extract("python", source, "pkg/shape.py")
    assert not any(s.is_test for s in elsewhere.symbols)
    assert is_test_path("test_a.py") and is_test_path("a_test.py")
    assert is_test_path("pkg/tests/helpers.py") and not is_test_path("pkg/testing_utils.py")


def test_empty_file_yields_no_rows() -> None:
    fx = extract("python", b"", "empty.py")
    assert (fx.symbols, fx.imports, fx.calls, fx.loc) == ([], [], [], 0)
