"""The reads a writable server keeps warm across updates (ingest.warm): taken again after any
write, never a frame of an older graph version."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphdb import Store
from ingest import warm
from ingest.changes import stored_files
from ingest.pipeline import ingest_repository
from ingest.scope import current_symbols, stored_refs
from tests.gitrepo import GitRepo
from tests.ops.repos import BAPP


@pytest.fixture
def enabled() -> Iterator[None]:
    warm.enable()
    try:
        yield
    finally:
        warm.disable()


def test_a_write_makes_every_warm_read_fresh(tmp_path: Path, enabled: None) -> None:
    repo = GitRepo(tmp_path / "bapp")
    repo.commit("first", BAPP)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root)
        warm.prefill(store, "bapp")
        files, symbols = stored_files(store, "bapp"), current_symbols(store, "bapp")
        decls = stored_refs(store, "bapp", calls=False)
        # nothing written since: the same frames, not read again
        assert stored_files(store, "bapp") is files
        assert current_symbols(store, "bapp") is symbols
        assert stored_refs(store, "bapp", calls=False) is decls
        (repo.root / "bapp" / "extra.py").write_text("def zq_warm():\n    return 1\n")
        ingest_repository(store, repo.root)
        after = stored_files(store, "bapp")
        assert sorted(after["path"]) == sorted([*files["path"], "bapp/extra.py"])
        assert "zq_warm" in current_symbols(store, "bapp")["qualname"].to_list()
        assert stored_refs(store, "bapp", calls=False).height == decls.height + 1
        # what a server with nothing kept would read
        warm.disable()
        assert stored_files(store, "bapp").equals(after)


def test_nothing_is_kept_unless_enabled(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "bapp")
    repo.commit("first", BAPP)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root)
        assert stored_files(store, "bapp") is not stored_files(store, "bapp")
