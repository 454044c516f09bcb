"""The operations tests' repositories: two real git repositories, one importing the other,
and an ingest as `vgdb ingest` runs it."""

from __future__ import annotations

from pathlib import Path

from api.steps import communities_after_ingest
from graphdb import Store
from ingest import ingest_repository


def ingest(store: Store, root: Path) -> dict:
    """Ingest as `vgdb ingest` does: the tree, its history, then its communities."""
    data = ingest_repository(store, root).to_dict()
    communities_after_ingest(store, data)
    return data


def ingested_db(path: Path, root: Path) -> Path:
    """A database at ``path`` holding the tree at ``root``, ingested as by :func:`ingest`."""
    with Store.open(path) as store:
        ingest(store, root)
    return path

#: ``alib`` provides a package; ``bapp`` imports it, calls it and subclasses from it.
ALIB = {
    "alib/__init__.py": "from alib.core import helper\n",
    "alib/core.py": '''
        def helper(x):
            """Add one."""
            return x + 1


        class Base:
            def name(self):
                return "base"
        ''',
}
BAPP = {
    "bapp/__init__.py": "",
    "bapp/main.py": '''
        from alib import helper
        from alib.core import Base


        class App(Base):
            def run(self):
                return helper(2)
        ''',
    "tests/test_main.py": '''
        from bapp.main import App


        def test_run():
            assert App().run() == 3
        ''',
}
