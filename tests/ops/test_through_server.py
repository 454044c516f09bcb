"""While `vgdb serve --writable` owns the database, `vgdb status` and `vgdb remove` go
through it (the URL it records in the database directory, a token from $VGDB_TOKEN)."""

from __future__ import annotations

import json
from pathlib import Path

from graphdb import Store
from graphdb.health import table_digests
from graphdb.tokens import TokenStore
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb
from tests.ops.repos import ingest
from tests.ops.server import serving


def test_status_and_remove_through_the_server(tmp_path: Path, alib: GitRepo,
                                              bapp: GitRepo) -> None:
    with Store.open(tmp_path / "only") as store:
        ingest(store, bapp.root)
        expected = table_digests(store)
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest(store, alib.root)
        ingest(store, bapp.root)
    tokens = TokenStore(db)
    _, reader = tokens.create("reader", scope="read")
    _, admin = tokens.create("admin", scope="admin")
    alib.commit("later", {"alib/later.py": "L = 1\n"})
    with serving(db) as url:
        assert json.loads((db / "server.json").read_text())["url"] == url
        shown = run_vgdb("status", "--db", str(db), "--json", env={"VGDB_TOKEN": reader})
        assert shown.returncode == 0, shown.stderr
        data = json.loads(shown.stdout)
        assert [r["name"] for r in data["repositories"]] == ["alib", "bapp"]
        assert data["repositories"][0]["commits_behind"] == 1
        assert data["reasons"] == ["alib: 1 commit behind HEAD",
                                   "alib: 1 file changed since the ingest"]
        check = run_vgdb("status", "--db", str(db), "--check", env={"VGDB_TOKEN": reader})
        assert check.returncode == 1
        refused = run_vgdb("remove", "alib", "--db", str(db), env={"VGDB_TOKEN": reader})
        assert refused.returncode == 2 and "admin scope" in refused.stderr
        done = run_vgdb("remove", "alib", "--db", str(db), "--json",
                        env={"VGDB_TOKEN": admin})
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["relinked"] == {"bapp": 2}
        after = json.loads(run_vgdb("status", "--db", str(db), "--json",
                                    env={"VGDB_TOKEN": reader}).stdout)
        assert [r["name"] for r in after["repositories"]] == ["bapp"]
    with Store.open(db, read_only=True) as store:
        assert table_digests(store) == expected
