"""Static ``affected-tests`` around a hub class (issue 22, round 3): a method called by name
is reached through its calls, not through every constructor of its class (click's
``Context.with_resource`` selected 48% of the suite that way); a dunder the runtime calls
implicitly still is; a test calling an ambiguous name on a receiver of unknown type selects
itself through its ``candidate`` edges, without spending the budget; a module handing a class
on as a value (``TypeVar(bound=C)``) does not build it at import, one registering a function
may have it called in any importer."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries.impact import affected_tests
from tests.gitrepo import GitRepo

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "class Context:\n"
        "    def __init__(self):\n        self.resources = []\n\n"
        "    def with_resource(self, r):\n        self.resources.append(r)\n        return r\n\n"
        "    def close(self):\n        self.resources.clear()\n\n"
        "    def __repr__(self):\n        return 'Context'\n\n\n"
        "class Pool:\n    def close(self):\n        pass\n\n\n"
        "def make_context():\n    return Context()\n"),
    "pkg/run.py": ("from pkg.core import make_context\n\n\n"
                   "def main():\n    ctx = make_context()\n    ctx.close()\n    return ctx\n"),
    "pkg/types_.py": ("import typing as t\n\nfrom pkg.core import Context\n\n"
                      "CtxT = t.TypeVar('CtxT', bound=Context)\n"),
    "pkg/hooks.py": "from pkg.core import make_context\n\nHOOKS = [make_context]\n",
    "tests/__init__.py": "",
    "tests/test_types.py": ("from pkg.types_ import CtxT\n\n\n"
                            "def test_bound():\n    assert CtxT\n"),
    "tests/test_hooks.py": ("from pkg.hooks import HOOKS\n\n\n"
                            "def test_hooks():\n    assert HOOKS\n"),
    "tests/test_run.py": "from pkg.run import main\n\n\n" + "\n\n".join(
        f"def test_main_{i}():\n    assert main()" for i in range(6)) + "\n",
    "tests/test_resource.py": ("from pkg.core import Context\n\n\n"
                               "def test_with_resource():\n"
                               "    assert Context().with_resource(1) == 1\n"),
    "tests/test_unknown.py": ("def test_closes(factory):\n    c = factory()\n"
                              "    c.close()\n"),
}
CORE = "sym:proj/pkg/core.py#"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hub")
    repo = GitRepo(root / "proj")
    repo.commit("init", FILES)
    with Store.open(root / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    return root / "db"


def _selected(db: Path, qualname: str) -> list[str]:
    with Store.open(db, read_only=True) as store:
        return sorted(affected_tests(store, [CORE + qualname], coverage=False).test_ids())


MAINS = [f"tests/test_run.py::test_main_{i}" for i in range(6)]


def test_a_method_called_by_name_is_reached_through_its_calls(db: Path) -> None:
    # not through ``Context()`` in make_context, which every test of main runs
    assert _selected(db, "Context.with_resource") == ["tests/test_resource.py::test_with_resource"]


def test_an_ambiguous_call_in_a_test_selects_that_test(db: Path) -> None:
    # ``ctx.close()`` in main is resolved (``make_context`` returns a Context); ``c.close()``
    # on a fixture's value is ``Context.close`` or ``Pool.close``: a candidate of both
    assert _selected(db, "Context.close") == [*MAINS, "tests/test_unknown.py::test_closes"]
    assert _selected(db, "Pool.close") == ["tests/test_unknown.py::test_closes"]


def test_a_dunder_and_the_constructor_spread_through_the_class(db: Path) -> None:
    # ``repr(ctx)`` is called by the runtime on an object of unknown type: whoever makes one
    # (and the module registering make_context, which builds one)
    every = sorted([*MAINS, "tests/test_hooks.py", "tests/test_resource.py::test_with_resource"])
    assert _selected(db, "Context.__repr__") == every
    assert _selected(db, "Context.__init__") == every


def test_a_class_handed_on_at_import_is_not_built_a_function_may_be_called(db: Path) -> None:
    # ``CtxT = TypeVar(bound=Context)``: tests/test_types.py is not run whole for __init__
    assert "tests/test_types.py" not in _selected(db, "Context.__init__")
    # ``HOOKS = [make_context]``: whoever holds the list may call it, in any importer
    assert _selected(db, "make_context") == sorted([*MAINS, "tests/test_hooks.py"])
