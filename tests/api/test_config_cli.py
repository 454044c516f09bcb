"""The config file: found beside the analysed tree, validated with clear errors, the defaults
of `vgdb ingest`'s options (a flag still wins), and `vgdb config` says where each came from."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from graphdb import Store
from ingest.config import ConfigError, find_config
from tests.gitrepo import GitRepo
from tests.helpers import vgdb_in_process

PYPROJECT = """\
[project]
name = "demo"

[tool.vgdb]
exclude = ["vendor/**"]
languages = ["python"]
communities = false
embed = false

[tool.vgdb.history]
max-commits = 2
since = 2020-01-31
"""


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "demo")
    repo.commit("one", {"app.py": "def run():\n    return 1\n",
                        "vendor/lib.py": "def vendored():\n    pass\n",
                        "web/main.js": "function go() { return 1; }\n"})
    repo.commit("two", {"app.py": "def run():\n    return 2\n"})
    repo.commit("three", {"pyproject.toml": PYPROJECT})
    return repo


def test_config_shows_each_setting_and_its_source(repo: GitRepo, capsys) -> None:
    run = vgdb_in_process(capsys, "config", str(repo.root / "web"), "--max-commits", "9",
                          "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["file"] == str(repo.root / "pyproject.toml")  # found from a subdirectory
    got = {s["key"]: (s["value"], s["source"], s["where"]) for s in data["settings"]}
    assert got == {
        "exclude": (["vendor/**"], "file", "pyproject.toml: tool.vgdb.exclude"),
        "languages": (["python"], "file", "pyproject.toml: tool.vgdb.languages"),
        "max-file-size": (2_000_000, "default", ""),
        "default-excludes": (True, "default", ""),
        "gitignore": (True, "default", ""),
        "embed": (False, "file", "pyproject.toml: tool.vgdb.embed"),
        "papers": (True, "default", ""),
        "communities": (False, "file", "pyproject.toml: tool.vgdb.communities"),
        "workers": (None, "default", ""),
        "history.enabled": (True, "default", ""),
        "history.since": ("2020-01-31T00:00:00", "file",
                          "pyproject.toml: tool.vgdb.history.since"),
        "history.max-commits": (9, "flag", "--max-commits"),
        "impact.depth": (3, "default", ""),
        "impact.limit": (500, "default", ""),
    }


def test_ingest_takes_its_defaults_from_the_file_and_flags_win(repo: GitRepo, tmp_path: Path,
                                                               capsys) -> None:
    db = str(tmp_path / "db")
    run = vgdb_in_process(capsys, "ingest", str(repo.root), "--db", db, "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert "communities" not in data  # communities = false
    with Store.open(db, read_only=True) as store:
        symbols = sorted(r[0] for r in store.cypher("MATCH (s:Symbol) RETURN s.id").rows())
        commits = store.cypher("MATCH (c:Commit) RETURN count(c)").rows()[0][0]
    assert symbols == ["sym:demo/app.py#<module>", "sym:demo/app.py#run"]  # no vendor/, no JS
    assert commits == 2  # history.max-commits
    db2 = str(tmp_path / "db2")
    run = vgdb_in_process(capsys, "ingest", str(repo.root), "--db", db2, "--json",
                          "--language", "javascript", "--max-commits", "3")
    assert run.returncode == 0, run.stderr
    with Store.open(db2, read_only=True) as store:
        symbols = sorted(r[0] for r in store.cypher("MATCH (s:Symbol) RETURN s.id").rows())
        commits = store.cypher("MATCH (c:Commit) RETURN count(c)").rows()[0][0]
    assert (symbols, commits) == (["sym:demo/web/main.js#<module>", "sym:demo/web/main.js#go"], 3)


@pytest.mark.parametrize(("text", "message", "hint"), [
    ("max-file-sise = 10\n", "unknown setting 'max-file-sise'", "did you mean 'max-file-size'?"),
    ("[history]\nmax-comits = 10\n", "unknown setting 'history.max-comits'",
     "did you mean 'history.max-commits'?"),
    ("embed = 'no'\n", "embed must be true or false, not 'no'", ""),
    ("max-file-size = 0\n", "max-file-size must be at least 1, not 0", ""),
    ("languages = ['pyhton']\n", "languages: unknown language 'pyhton'", "did you mean 'python'?"),
    ("exclude = 'vendor'\n", "exclude must be a list of strings, not 'vendor'", ""),
    ("embed = \n", "is not valid TOML", ""),
])
def test_bad_config_is_exit_2_naming_the_key(tmp_path: Path, capsys, text: str, message: str,
                                             hint: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "vgdb.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        find_config(tmp_path)
    assert message in str(caught.value)
    assert caught.value.suggestion.startswith(hint)
    run = vgdb_in_process(capsys, "ingest", str(tmp_path), "--db", str(tmp_path / "db"))
    assert run.returncode == 2
    assert message in " ".join(run.stderr.split())
    assert not (tmp_path / "db").exists()  # refused before the database was made


def test_two_config_files_in_one_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "vgdb.toml").write_text("embed = false\n")
    (tmp_path / "pyproject.toml").write_text("[tool.vgdb]\nembed = true\n")
    with pytest.raises(ConfigError, match="two config files"):
        find_config(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no [tool.vgdb]
    found = find_config(tmp_path)
    assert found is not None and found.path.name == "vgdb.toml"
    assert dict(found.values) == {"embed": False}


def test_no_config_file_above_the_repository_top(tmp_path: Path) -> None:
    (tmp_path / "vgdb.toml").write_text("embed = false\n")  # outside the repository
    inner = tmp_path / "repo"
    (inner / ".git").mkdir(parents=True)
    assert find_config(inner) is None


def test_batch_entries_take_what_they_leave_out_from_the_repository_config(repo: GitRepo,
                                                                           tmp_path: Path) -> None:
    from ingest.batch import load_manifest

    manifest = tmp_path / "batch.toml"
    manifest.write_text(f'[[repositories]]\npath = "{repo.root}"\n\n'
                        f'[[repositories]]\npath = "{repo.root / "web"}"\nname = "other"\n'
                        'exclude = ["web/**"]\nhistory = {{ max_commits = 1 }}\n'
                        .replace("{{", "{").replace("}}", "}"))
    first, second = load_manifest(manifest).repositories
    assert (first.exclude, first.history.max_commits, first.history.since) == (
        ("vendor/**",), 2, datetime(2020, 1, 31))
    assert (second.exclude, second.history.max_commits, second.history.since) == (
        ("web/**",), 1, datetime(2020, 1, 31))  # the entry wins, key by key
