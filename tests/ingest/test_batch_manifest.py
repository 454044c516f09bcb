"""The batch manifest (ingest/batch/manifest.py): TOML and YAML read alike, every mistake is a
ManifestError naming the entry and the key, before anything runs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from ingest.batch import HistoryBounds, ManifestError, load_manifest
from ingest.batch.manifest import parse_manifest
from ingest.walk import DEFAULT_EXCLUDES

TOML = """
cache_dir = "clones"
[defaults]
papers = false
history = { max_commits = 50 }
[[repositories]]
path = "trees/lib"
[[repositories]]
name = "click"
git = "https://example.org/pallets/click.git/"
ref = "8.1.7"
include = ["src/**"]
exclude = ["**/_compat.py"]
history = { since = 2024-01-31, enabled = true }
"""

YAML = """
cache_dir: clones
defaults:
  papers: false
  history: {max_commits: 50}
repositories:
  - path: trees/lib
  - name: click
    git: https://example.org/pallets/click.git/
    ref: "8.1.7"
    include: [src/**]
    exclude: ["**/_compat.py"]
    history: {since: 2024-01-31, enabled: true}
"""


def test_toml_and_yaml_give_the_same_manifest(tmp_path: Path) -> None:
    (tmp_path / "m.toml").write_text(TOML)
    (tmp_path / "m.yaml").write_text(YAML)
    toml, yaml = load_manifest(tmp_path / "m.toml"), load_manifest(tmp_path / "m.yaml")
    assert toml.repositories == yaml.repositories
    assert toml.cache_dir == yaml.cache_dir == str(tmp_path / "clones")
    lib, click = toml.repositories
    assert (lib.name, lib.path, lib.git, lib.papers) == ("lib", str(tmp_path / "trees/lib"),
                                                         None, False)
    assert lib.history == HistoryBounds(enabled=True, max_commits=50)
    assert (click.name, click.git, click.ref) == ("click",
                                                  "https://example.org/pallets/click.git",
                                                  "8.1.7")
    # a repository's own history table replaces the defaults' one
    assert click.history == HistoryBounds(enabled=True, since=datetime(2024, 1, 31))
    assert lib.excludes() == ()
    assert click.excludes() == ("*", "!*/", "!src/**", *DEFAULT_EXCLUDES, "**/_compat.py")
    assert lib.fingerprint() != click.fingerprint()


def _error(data: object) -> str:
    with pytest.raises(ManifestError) as info:
        parse_manifest(data, base=Path("/m"), path="m.toml")
    return info.value.message


@pytest.mark.parametrize(("data", "message"), [
    ([], "m.toml: the manifest must be a table/mapping with a `repositories` list"),
    ({"repos": []}, "m.toml: unknown key in the manifest: 'repos' (allowed: cache_dir, "
                    "defaults, repositories)"),
    ({"repositories": []}, "`repositories` must be a non-empty list"),
    ({"repositories": [{"path": "a", "branch": "x"}]},
     "unknown key in repository #1: 'branch' (allowed: default_excludes, exclude, git"),
    ({"repositories": [{"name": "a"}]},
     "repository #1: give exactly one of `path` (a local tree) and `git` (to clone)"),
    ({"repositories": [{"path": "a", "git": "b"}]}, "give exactly one of"),
    ({"repositories": [{"path": "a", "name": "has space"}]},
     "repository #1: name 'has space' must be letters, digits, '_', '.' or '-'"),
    ({"repositories": [{"path": "a"}, {"path": "b", "name": "a"}]},
     "repository #2: duplicate name 'a' (also #1)"),
    ({"repositories": [{"path": "a"}, {"path": "./x/../a", "name": "b"}]},
     "repository #2 (b): duplicate source /m/a (also #1)"),
    ({"repositories": [{"git": "https://h/r.git", "ref": "v1"},
                       {"git": "https://h/r.git/", "ref": "v1", "name": "r2"}]},
     "repository #2 (r2): duplicate source https://h/r.git at ref v1 (also #1)"),
    ({"repositories": [{"path": "a", "history": {"max_commits": 0}}]},
     "repository #1 (a): `history.max_commits` must be a positive integer"),
    ({"repositories": [{"path": "a", "history": {"since": "last week"}}]},
     "`history.since` must be a date"),
    ({"repositories": [{"path": "a", "history": {"until": "2024-01-01"}}]},
     "unknown key in repository #1 (a): `history`: 'until'"),
    ({"repositories": [{"path": "a", "include": "src/**", "exclude": [3]}]},
     "repository #1 (a): `exclude` must be a list of glob strings"),
    ({"repositories": [{"path": "a"}], "defaults": {"path": "b"}},
     "unknown key in `defaults`: 'path'"),
])
def test_bad_manifests_are_refused_with_the_entry_and_key(data: object, message: str) -> None:
    assert message in _error(data)


def test_same_repository_at_two_refs_is_two_entries() -> None:
    m = parse_manifest({"repositories": [{"git": "https://h/r.git", "ref": "v1", "name": "r1"},
                                         {"git": "https://h/r.git", "ref": "v2", "name": "r2"}]},
                       base=Path("/m"))
    assert [r.ref for r in m.repositories] == ["v1", "v2"]


def test_unreadable_or_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="cannot read the manifest"):
        load_manifest(tmp_path / "missing.toml")
    (tmp_path / "m.json").write_text("{}")
    with pytest.raises(ManifestError, match=r"must end in \.toml, \.yaml or \.yml"):
        load_manifest(tmp_path / "m.json")
    (tmp_path / "bad.toml").write_text("[[repositories]\n")
    with pytest.raises(ManifestError, match="invalid TOML"):
        load_manifest(tmp_path / "bad.toml")
