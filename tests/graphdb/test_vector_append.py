"""An update that adds vectors appends them to the stored file instead of writing it again
(issue 26), and an update killed anywhere in that leaves the previous state readable."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from graphdb import Store, stored_vectors
from ingest import IngestOptions, ingest_repository
from tests.helpers import run_vgdb, write_tree

_TREE = {
    "files.py": 'def read_text_file(path):\n    """Read a whole text file."""\n\n\n'
                'def remove_directory_tree(path):\n    """Delete a folder and all in it."""\n',
    "maths.py": 'def square_root(x):\n    """Compute the square root of a number."""\n',
}
_ADDED = {"net.py": 'def fetch_url(url):\n    """Download a web page."""\n\n\n'
                    'def open_socket(host):\n    """Connect to a server."""\n'}


def _manifest(db: Path) -> dict:
    return json.loads((db / "vectors" / "manifest.json").read_text())["tables"]["Symbol"]


def _vectors(db: Path) -> dict[str, np.ndarray]:
    with Store.open(db, read_only=True) as store:
        ids = store.cypher("MATCH (s:Symbol) WHERE s.valid_to IS NULL RETURN s.id AS id")
        return stored_vectors(store, ids["id"].to_list())


def _fresh(tmp_path: Path, root: Path) -> dict[str, np.ndarray]:
    with Store.open(tmp_path / "fresh") as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
    return _vectors(tmp_path / "fresh")


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a)


def test_an_added_file_appends_its_vectors_to_the_same_file(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", _TREE)
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
    first = _manifest(db)
    old = db / "vectors" / f"Symbol.{first['generation']}.npy"
    inode, size = old.stat().st_ino, old.stat().st_size
    write_tree(root, _ADDED)
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
    second = _manifest(db)
    new = db / "vectors" / f"Symbol.{second['generation']}.npy"
    assert second["generation"] == first["generation"] + 1 and not old.exists()
    assert new.stat().st_ino == inode  # the same file, grown by the new rows only
    assert second["rows"] == first["rows"] + 3  # the module, fetch_url, open_socket
    assert new.stat().st_size == size + 3 * 256 * 4
    assert np.load(new).shape == (second["rows"], 256)  # an ordinary .npy still
    assert _same(_vectors(db), _fresh(tmp_path, root))


def test_an_update_killed_before_its_manifest_leaves_the_last_state(tmp_path: Path) -> None:
    """Killed after the vectors were appended and linked under the next generation's name
    but before the manifest: the manifest's generation reads its own rows (the file's tail
    is not read), and the next update cuts that tail before appending its own."""
    root = write_tree(tmp_path / "tree", _TREE)
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
    before, first = _vectors(db), _manifest(db)
    write_tree(root, _ADDED)
    killed = run_vgdb("ingest", str(root), "--db", str(db), "--name", "r", "--no-papers",
                      env={"VGDB_FAILPOINT": "vectors:files-written", "VGDB_NO_SERVER": "1"})
    assert killed.returncode == -9
    assert _manifest(db) == first  # the commit point was not reached
    old = db / "vectors" / f"Symbol.{first['generation']}.npy"
    assert old.stat().st_size == 128 + (first["rows"] + 3) * 256 * 4  # the appended tail
    assert _same({k: v for k, v in _vectors(db).items() if k in before}, before)
    write_tree(root, {"extra.py": 'def parse_date(text):\n    """Read a calendar date."""\n'})
    again = run_vgdb("ingest", str(root), "--db", str(db), "--name", "r", "--no-papers",
                     env={"VGDB_NO_SERVER": "1"})
    assert again.returncode == 0, again.stderr
    last = _manifest(db)
    path = db / "vectors" / f"Symbol.{last['generation']}.npy"
    assert path.stat().st_size == 128 + last["rows"] * 256 * 4  # no tail left in it
    assert np.load(path).shape == (last["rows"], 256)
    assert _same(_vectors(db), _fresh(tmp_path, root))
