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
        ("sym:r/src/pkg/core.py#Base.step", "self"),
        # on an Engine, self.step() runs Engine's override (class hierarchy analysis)
        ("sym:r/src/pkg/core.py#Engine.step", "inheritance")}


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


def _resolve(files: dict[str, str]):
    return resolve("r", {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                         for p, src in files.items()})


def test_a_name_defined_several_times_in_one_scope_reaches_every_definition() -> None:
    """``@overload`` stubs then the implementation, ``if``/``else`` variants, a property and
    its setter: which definition runs is decided at run time, so a call reaches them all."""
    out = _resolve({
        "pkg/__init__.py": "",
        "pkg/core.py": """
            import typing as t

            @t.overload
            def conv(x: int) -> int: ...
            @t.overload
            def conv(x: str) -> str: ...
            def conv(x):
                return x

            if WIN:
                def getchar():
                    return 1
            else:
                def getchar():
                    return 2

            class Box:
                @property
                def size(self):
                    return 1

                @size.setter
                def size(self, v):
                    pass

                def grow(self):
                    self.size()

            size = 3
            def size():
                pass
            """,
        "tests/test_a.py": """
            from pkg.core import conv, getchar

            def test_conv():
                conv(1)
                getchar()
            """,
    })
    assert _edges(out, "CALLS", "tests/test_a.py#test_conv") == {
        ("sym:r/pkg/core.py#conv", "import"), ("sym:r/pkg/core.py#conv~2", "import"),
        ("sym:r/pkg/core.py#conv~3", "import"),
        ("sym:r/pkg/core.py#getchar", "import"), ("sym:r/pkg/core.py#getchar~2", "import"),
    }
    assert _edges(out, "CALLS", "pkg/core.py#Box.grow") == {
        ("sym:r/pkg/core.py#Box.size", "self"), ("sym:r/pkg/core.py#Box.size~2", "self")}
    assert {e.dst for e in out.edges if e.rel == "TESTS"} == {
        "sym:r/pkg/core.py#conv", "sym:r/pkg/core.py#conv~2", "sym:r/pkg/core.py#conv~3",
        "sym:r/pkg/core.py#getchar", "sym:r/pkg/core.py#getchar~2"}
    # every edge of one call site carries the call's line
    assert {e.line for e in out.edges if e.rel == "CALLS"
            and e.src == "sym:r/tests/test_a.py#test_conv"
            and "conv" in e.dst} == {4}


FIXTURE_FILES = {
    "pkg/core.py": """
        def helper():
            return 1
        """,
    "conftest.py": """
        import pytest

        @pytest.fixture
        def root_value():
            return 0
        """,
    "tests/conftest.py": """
        import pytest
        from pkg.core import helper
        from tests.shared import shared

        @pytest.fixture
        def value(root_value):
            return helper()

        @pytest.fixture(name="renamed")
        def _renamed_impl():
            return 2

        @pytest.fixture
        def runner():
            return 3

        def not_a_fixture():
            pass
        """,
    "tests/__init__.py": "",
    "tests/shared.py": """
        import pytest

        @pytest.fixture
        def shared():
            return 4
        """,
    "tests/sub/conftest.py": """
        import pytest

        @pytest.fixture
        def runner(runner):
            return runner + 1
        """,
    "tests/sub/test_b.py": """
        import pytest

        @pytest.fixture
        def local():
            return 5

        def test_local(local, runner, tmp_path):
            pass

        @pytest.mark.parametrize("value, other", [(1, 2)])
        def test_param(value, other, not_a_fixture):
            pass

        @pytest.mark.usefixtures("renamed")
        class TestK:
            @pytest.fixture
            def value(self):
                return 6

            def test_m(self, value, shared):
                pass
        """,
}


def test_pytest_fixtures_link_requesters_to_the_fixtures_pytest_would_inject() -> None:
    out = _resolve(FIXTURE_FILES)
    fixture_edges = {(e.src.removeprefix("sym:r/"), e.dst.removeprefix("sym:r/"))
                     for e in out.edges if e.rel == "CALLS" and e.resolution == "fixture"}
    assert fixture_edges == {
        ("tests/conftest.py#value", "conftest.py#root_value"),  # a parent directory's
        ("tests/sub/test_b.py#test_local", "tests/sub/test_b.py#local"),  # same module
        ("tests/sub/test_b.py#test_local", "tests/sub/conftest.py#runner"),  # nearest
        ("tests/sub/conftest.py#runner", "tests/conftest.py#runner"),  # the overridden one
        ("tests/sub/test_b.py#TestK", "tests/conftest.py#_renamed_impl"),  # usefixtures
        ("tests/sub/test_b.py#TestK.test_m", "tests/sub/test_b.py#TestK.value"),  # class
        ("tests/sub/test_b.py#TestK.test_m", "tests/shared.py#shared"),  # imported
    }
    # parametrized names, pytest's own fixtures and undecorated functions get no edge
    assert not [e for e in out.edges if e.src.endswith("#test_param")
                and e.resolution == "fixture"]
    confidence = {e.confidence for e in out.edges if e.resolution == "fixture"}
    assert confidence == {0.9}


def test_fixture_edges_resolve_the_same_incrementally() -> None:
    extracts = {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                for p, src in FIXTURE_FILES.items()}
    full = {e for e in resolve("r", extracts).edges if e.src.startswith("sym:r/tests/sub/")}
    part = resolve("r", extracts, only={"tests/sub/test_b.py", "tests/sub/conftest.py"})
    assert {e for e in part.edges if e.src.startswith("sym:r/tests/sub/")} == full


def test_a_parameter_naming_a_fixture_that_returns_an_instance_has_its_methods() -> None:
    """``def runner(): return CliRunner()`` in conftest.py, then ``runner.invoke()`` in a
    test: the call reaches ``CliRunner.invoke`` as for ``runner = CliRunner()``."""
    out = _resolve({
        "pkg/__init__.py": "",
        "pkg/testing.py": """
            class CliRunner:
                def invoke(self):
                    pass
            """,
        "tests/conftest.py": """
            import pytest
            from pkg.testing import CliRunner

            @pytest.fixture
            def runner():
                return CliRunner()

            @pytest.fixture
            def gen_runner():
                yield CliRunner()

            @pytest.fixture
            def number():
                return int("1")
            """,
        "tests/test_cli.py": """
            def test_invoke(runner, gen_runner, number):
                runner.invoke()
                gen_runner.invoke()
                number.invoke()
            """,
    })
    assert _edges(out, "CALLS", "tests/test_cli.py#test_invoke") == {
        ("sym:r/pkg/testing.py#CliRunner.invoke", "constructor"),
        ("sym:r/tests/conftest.py#runner", "fixture"),
        ("sym:r/tests/conftest.py#gen_runner", "fixture"),
        ("sym:r/tests/conftest.py#number", "fixture"),
        # what ``number`` holds is not known: the unique name is only a guess
        ("sym:r/pkg/testing.py#CliRunner.invoke", "name_only"),
    }
    assert [(e.line, e.resolution) for e in out.edges if e.rel == "CALLS"
            and e.dst.endswith("#CliRunner.invoke")] == [
        (2, "constructor"), (3, "constructor"), (4, "name_only")]
