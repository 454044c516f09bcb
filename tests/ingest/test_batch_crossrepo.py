"""Cross-repository resolution (ingest/crossrepo.py): names leaving one repository resolve into
another repository of the graph that provides the module, whatever the ingest order, and fall
back to Externals when the provider loses the name or is ambiguous.

Real repositories: the installed ``attrs`` distribution is two top-level packages, ``attr``
(the implementation) and ``attrs`` (the new API, which re-exports ``attr``'s names).
"""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import pytest

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.history.pipeline import HistoryOptions
from tests.helpers import write_tree

SITE = Path(sysconfig.get_paths()["purelib"])
_EDGES = ("MATCH (a)-[e:IMPORTS|CALLS|INHERITS]->(t) WHERE a.repo = $r "
          "RETURN a.id AS src, label(e) AS rel, t.id AS dst, e.resolution AS how "
          "ORDER BY src, rel, dst")


def _opts(name: str) -> IngestOptions:
    return IngestOptions(name=name, workers=1, history=HistoryOptions(enabled=False),
                         papers=False)


def _edges(store: Store, repo: str) -> list[tuple]:
    return list(store.cypher(_EDGES, {"r": repo}).iter_rows())


@pytest.fixture(scope="module")
def attrs_trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    for name in ("attr", "attrs"):
        shutil.copytree(SITE / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _attrs_imports(store: Store) -> dict[str, str]:
    return {dst: how for src, rel, dst, how in _edges(store, "attrs")
            if src == "file:attrs/__init__.py" and rel == "IMPORTS"}


def test_attrs_resolves_into_attr_in_either_order(attrs_trees: Path, tmp_path: Path) -> None:
    with Store.open(tmp_path / "consumer-first") as store:
        ingest_repository(store, attrs_trees / "attrs", options=_opts("attrs"))
        alone = _attrs_imports(store)  # attr not in the graph yet: Externals
        assert alone["ext:python:attr.define"] == "external"
        assert not any(d.startswith("sym:attr/") for d in alone)
        summary = ingest_repository(store, attrs_trees / "attr", options=_opts("attr"))
        assert summary.cross_repo == {"provider": "attr", "modules": ["attr"],
                                      "files": {"attrs": 7}}
        consumer_first = _edges(store, "attrs")
        imports = _attrs_imports(store)
    # ``from attr import define``: attr/__init__.py re-exports it from attr._next_gen
    assert imports["sym:attr/_next_gen.py#define"] == "import"
    assert imports["sym:attr/_make.py#Factory"] == "import"
    assert imports["file:attrs/validators.py"] == "import"
    assert not any(dst.startswith("ext:python:attr.") for dst in imports)
    assert ("sym:attrs/__init__.py#<module>", "CALLS", "sym:attr/__init__.py#_make_getattr",
            "import") in consumer_first
    with Store.open(tmp_path / "provider-first") as store:
        ingest_repository(store, attrs_trees / "attr", options=_opts("attr"))
        summary = ingest_repository(store, attrs_trees / "attrs", options=_opts("attrs"))
        # attr's stubs import attrs (``from attrs import _ConverterType``): re-linked too
        assert summary.cross_repo is not None and set(summary.cross_repo["files"]) == {"attr"}
        assert _edges(store, "attrs") == consumer_first  # the order does not matter


def _lib(root: Path, *, helper: str = "helper") -> Path:
    return write_tree(root, {
        "lib/__init__.py": f"from .core import {helper}, Base\n",
        "lib/core.py": f"def {helper}():\n    return 1\n\n\nclass Base:\n    pass\n",
        "tests/test_core.py": "def test_x():\n    pass\n",
        "setup.py": "def setup():\n    pass\n",
    })


_APP = {"app/__init__.py": "",
        "app/main.py": "import lib\nfrom lib import helper, Base\nfrom lib.core import Base as B2\n"
                       "from setup import setup\n\n\nclass Mine(Base):\n    pass\n\n\n"
                       "def run():\n    setup()\n    lib.helper()\n    return helper()\n"}


def test_consumer_follows_the_provider_and_falls_back(tmp_path: Path, store: Store) -> None:
    app = write_tree(tmp_path / "app", _APP)
    ingest_repository(store, app, options=_opts("app"))
    lib = _lib(tmp_path / "lib")
    ingest_repository(store, lib, options=_opts("lib"))
    edges = set(_edges(store, "app"))
    assert ("sym:app/app/main.py#run", "CALLS", "sym:lib/lib/core.py#helper", "import") in edges
    assert ("sym:app/app/main.py#Mine", "INHERITS", "sym:lib/lib/core.py#Base",
            "import") in edges
    assert ("file:app/app/main.py", "IMPORTS", "file:lib/lib/__init__.py", "import") in edges
    # ``setup`` is no package anyone imports: it stays External
    assert ("sym:app/app/main.py#run", "CALLS", "ext:python:setup.setup", "external") in edges

    _lib(lib, helper="helper2")  # the provider renames helper: the consumer loses it
    ingest_repository(store, lib, options=_opts("lib"))
    edges = set(_edges(store, "app"))
    assert ("sym:app/app/main.py#run", "CALLS", "ext:python:lib.helper", "external") in edges
    assert ("sym:app/app/main.py#Mine", "INHERITS", "sym:lib/lib/core.py#Base",
            "import") in edges
    assert not any(dst.endswith("#helper") for _, _, dst, _ in edges)


def test_a_module_two_repositories_provide_links_to_neither(tmp_path: Path,
                                                            store: Store) -> None:
    for name in ("lib_a", "lib_b"):
        ingest_repository(store, _lib(tmp_path / name), options=_opts(name))
    ingest_repository(store, write_tree(tmp_path / "app", _APP), options=_opts("app"))
    calls = {dst for _, rel, dst, _ in _edges(store, "app") if rel == "CALLS"}
    assert "ext:python:lib.helper" in calls
    assert not any(d.startswith("sym:lib_") for d in calls)
