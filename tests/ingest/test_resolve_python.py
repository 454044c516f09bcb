"""Python resolution on a small multi-file package: every resolution method, exact edges."""

from __future__ import annotations

import textwrap

import pytest

from ingest.extract import extract
from ingest.resolve import resolve
from ingest.resolve.python import module_name

FILES = {
    "src/pkg/__init__.py": """
        from .core import Engine
        from . import util
        """,
    "src/pkg/core.py": """
        from .util import helper as h

        class Base:
            def run(self):
                self.step()

            def step(self):
                pass

        class Engine(Base):
            def start(self):
                self.run()
                h()
                super().step()
                self.parts = Parts()
                self.parts.mount()

            def step(self):
                pass

        class Parts:
            def mount(self):
                pass
        """,
    "src/pkg/util.py": """
        import os

        def helper():
            return os.path.join("a", "b")

        def only_here_xyz():
            pass
        """,
    "src/app.py": """
        import pkg
        import pkg.util as u
        from pkg import Engine
        from pkg.core import Base as B

        class Sub(B):
            def go(self, thing):
                self.run()
                thing.only_here_xyz()
                thing.strip()

        def main(e2: Engine):
            e = Engine()
            e.start()
            pkg.Engine()
            u.helper()
            pkg.util.helper()
            e2.step()
            len([])
            unknown_thing.frobnicate()
            factory()()

        main(None)
        """,
}


@pytest.fixture(scope="module")
def result():
    extracts = {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                for p, src in FILES.items()}
    return resolve("r", extracts)


def _edges(result, rel: str, src: str) -> set[tuple[str, str]]:
    return {(e.dst, e.resolution) for e in result.edges
            if e.rel == rel and e.src == f"sym:r/{src}"}


def test_module_names_follow_packages_below_a_source_root() -> None:
    dirs = {"src/pkg"}
    assert module_name("src/pkg/core.py", dirs) == "pkg.core"
    assert module_name("src/pkg/__init__.py", dirs) == "pkg"
    assert module_name("src/app.py", dirs) == "app"


def test_calls_through_imports_reexports_constructors_and_builtins(result) -> None:
    assert _edges(result, "CALLS", "src/app.py#main") == {
        ("sym:r/src/pkg/core.py#Engine", "import"),  # Engine() via pkg/__init__ re-export
        ("sym:r/src/pkg/core.py#Engine.start", "constructor"),  # e = Engine(); e.start()
        ("sym:r/src/pkg/util.py#helper", "import"),  # u.helper() and pkg.util.helper()
        ("sym:r/src/pkg/core.py#Engine.step", "constructor"),  # e2: Engine annotation
        ("ext:python:builtins.len", "builtin"),
    }


def test_self_methods_inheritance_super_and_attribute_instances(result) -> None:
    assert _edges(result, "CALLS", "src/pkg/core.py#Engine.start") == {
        ("sym:r/src/pkg/core.py#Base.run", "inheritance"),
        ("sym:r/src/pkg/util.py#helper", "import"),  # h() is helper imported as h
        ("sym:r/src/pkg/core.py#Base.step", "inheritance"),  # super().step()
        ("ext:python:builtins.super", "builtin"),
        ("sym:r/src/pkg/core.py#Parts", "same_module"),
        ("sym:r/src/pkg/core.py#Parts.mount", "self"),  # self.parts = Parts() in a method
    }
    assert _edges(result, "CALLS", "src/pkg/core.py#Base.run") == {
        ("sym:r/src/pkg/core.py#Base.step", "self")}


def test_name_only_guess_only_for_unique_non_builtin_names(result) -> None:
    assert _edges(result, "CALLS", "src/app.py#Sub.go") == {
        ("sym:r/src/pkg/core.py#Base.run", "inheritance"),  # through the aliased base B
        ("sym:r/src/pkg/util.py#only_here_xyz", "name_only"),
    }
    reasons = {(u[2], u[4]) for u in result.unresolved if u[0] == "src/app.py"}
    assert ("thing.strip", "builtin-method") in reasons
    assert ("unknown_thing.frobnicate", "unknown") in reasons
    assert ("", "dynamic") in reasons


def test_external_calls_and_module_level_calls(result) -> None:
    assert _edges(result, "CALLS", "src/pkg/util.py#helper") == {
        ("ext:python:os.path.join", "external")}
    assert _edges(result, "CALLS", "src/app.py#<module>") == {
        ("sym:r/src/app.py#main", "same_module")}
    assert result.externals["ext:python:os.path.join"].package == "os"


def test_imports_resolve_to_files_symbols_and_externals(result) -> None:
    edges = {(e.dst, e.dst_table, e.name) for e in result.edges
             if e.rel == "IMPORTS" and e.src == "file:r/src/app.py"}
    assert edges == {
        ("file:r/src/pkg/__init__.py", "File", ""),
        ("file:r/src/pkg/util.py", "File", "u"),
        ("sym:r/src/pkg/core.py#Engine", "Symbol", "Engine"),
        ("sym:r/src/pkg/core.py#Base", "Symbol", "B"),
    }
    init = {(e.dst, e.name) for e in result.edges
            if e.rel == "IMPORTS" and e.src == "file:r/src/pkg/__init__.py"}
    assert init == {("sym:r/src/pkg/core.py#Engine", "Engine"),
                    ("file:r/src/pkg/util.py", "util")}
    util = {(e.dst, e.dst_table) for e in result.edges
            if e.rel == "IMPORTS" and e.src == "file:r/src/pkg/util.py"}
    assert util == {("ext:python:os", "External")}


def test_inherits_through_aliases(result) -> None:
    inherits = {(e.src, e.dst, e.resolution) for e in result.edges if e.rel == "INHERITS"}
    assert inherits == {
        ("sym:r/src/pkg/core.py#Engine", "sym:r/src/pkg/core.py#Base", "same_module"),
        ("sym:r/src/app.py#Sub", "sym:r/src/pkg/core.py#Base", "import"),
    }


def test_only_limits_the_edges_to_the_given_files() -> None:
    extracts = {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                for p, src in FILES.items()}
    part = resolve("r", extracts, only={"src/pkg/util.py"})
    assert {e.src for e in part.edges} == {"sym:r/src/pkg/util.py#helper",
                                           "file:r/src/pkg/util.py"}


def test_import_cycles_terminate() -> None:
    files = {
        "a.py": b"from b import x\n",
        "b.py": b"from a import x\n",
        "c.py": b"from a import x\nx()\n",
    }
    out = resolve("r", {p: extract("python", src, p) for p, src in files.items()})
    assert not [e for e in out.edges if e.rel == "CALLS"]


def test_importing_a_constant_points_at_its_declaration_not_its_value() -> None:
    """``CALLS = RelTable(...)`` re-exported by a package: the import names the constant."""
    files = {
        "pkg/__init__.py": b"from pkg.tables import CALLS, Table\n",
        "pkg/tables.py": b"class Table:\n    pass\n\nCALLS = Table()\n",
        "use.py": b"from pkg import CALLS\nfrom pkg import Table\nCALLS.name\n",
    }
    out = resolve("r", {p: extract("python", src, p) for p, src in files.items()})
    imports = {(e.dst, e.name) for e in out.edges
               if e.rel == "IMPORTS" and e.src == "file:r/use.py"}
    assert imports == {("sym:r/pkg/tables.py#CALLS", "CALLS"),
                       ("sym:r/pkg/tables.py#Table", "Table")}
