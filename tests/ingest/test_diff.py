"""ingest.history.diff on real git repositories: base..head and working-tree diffs with
modified, added, deleted, renamed, binary and non-code files, base-side definitions, merge
bases, subdirectories and bad refs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.history.diff import BaseDefinition, RefNotFoundError, diff_changes
from ingest.history.gitlog import Hunk, NotARepository
from tests.gitrepo import GitRepo

MOD = ("class C:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n"
       "\n\ndef f():\n    return 3\n")


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    r = GitRepo(tmp_path / "proj")
    r.commit("init", {"pkg/mod.py": MOD, "pkg/old.py": "def g():\n    return 1\n",
                      "pkg/gone.py": "def h():\n    return 1\n", "README.md": "hi\n",
                      "img.png": b"\x89PNG\x00\x00\x01"})
    return r


def test_base_head_kinds_lines_and_base_definitions(repo: GitRepo) -> None:
    base = repo.git("rev-parse", "HEAD")
    new = MOD.replace("return 1", "return 10").replace(
        "    def n(self):\n        return 2\n\n", "")
    repo.write({"pkg/mod.py": new, "README.md": "hello\n", "img.png": b"\x89PNG\x00\x00\x02",
                "pkg/new.py": "import os\n\nVALUE = os.sep.join(['a', 'b'])\n"})
    repo.remove("pkg/gone.py")
    repo.move("pkg/old.py", "pkg/renamed.py")
    head = repo.commit("change")
    cs = diff_changes(repo.root, base=base, head="HEAD")
    assert (cs.base, cs.head, cs.base_ref, cs.head_ref, cs.prefix, cs.notes) == (
        base, head, base, "HEAD", "", ())
    assert [(f.path, f.old_path, f.status, f.binary, f.language) for f in cs.files] == [
        ("README.md", "", "modified", False, None),
        ("img.png", "", "modified", True, None),
        ("pkg/gone.py", "", "deleted", False, "python"),
        ("pkg/mod.py", "", "modified", False, "python"),
        ("pkg/new.py", "", "added", False, "python"),
        ("pkg/renamed.py", "pkg/old.py", "renamed", False, "python"),
    ]
    mod = cs.files[3]
    assert mod.hunks == (Hunk(3, 4, 3, 1),)
    assert (mod.added_lines, mod.removed_lines) == ((3,), (3, 5, 6))  # blank line 4 skipped
    assert mod.base_definitions == (
        BaseDefinition("C", "class", 1, 6), BaseDefinition("C.m", "method", 2, 3),
        BaseDefinition("C.n", "method", 5, 6), BaseDefinition("f", "function", 9, 10))
    assert mod.removed_owners() == ("C.m", "C.n")
    gone = cs.files[2]
    assert (gone.removed_lines, gone.removed_owners()) == ((1, 2), ("h",))
    assert cs.files[4].base_definitions == ()  # nothing on the base side of an added file
    assert cs.files[1].hunks == () and cs.files[1].added_lines == ()


def test_working_tree_includes_untracked_and_uses_the_merge_base(repo: GitRepo) -> None:
    base = repo.git("rev-parse", "HEAD")
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("feature", {"pkg/mod.py": MOD.replace("return 3", "return 30")})
    repo.git("checkout", "-q", "main")
    main2 = repo.commit("main moves on", {"README.md": "main\n"})
    repo.git("checkout", "-q", "feature")
    (repo.root / "scratch.py").write_text("x = 1\n", encoding="utf-8")
    (repo.root / "pkg" / "old.py").write_text("def g():\n    return 2\n", encoding="utf-8")
    cs = diff_changes(repo.root, base="main")
    # README.md changed on main only: not part of the feature's changes
    assert [(f.path, f.status) for f in cs.files] == [
        ("pkg/mod.py", "modified"), ("pkg/old.py", "modified"), ("scratch.py", "added")]
    assert cs.base == base and cs.head == ""
    assert cs.notes == (f"diffing from the merge base {base[:12]} of main and HEAD "
                        "(as git diff main...)",)
    two_dot = diff_changes(repo.root, base="main", merge_base=False)
    assert ("README.md", "modified") in [(f.path, f.status) for f in two_dot.files]
    assert two_dot.base == main2
    tracked = diff_changes(repo.root, base="main", untracked=False)
    assert "scratch.py" not in [f.path for f in tracked.files]


def test_subdirectory_tree_sees_only_its_files(repo: GitRepo) -> None:
    base = repo.git("rev-parse", "HEAD")
    repo.commit("c", {"pkg/mod.py": MOD.replace("return 3", "return 4"), "README.md": "x\n"})
    cs = diff_changes(repo.root / "pkg", base=base, head="HEAD")
    assert cs.prefix == "pkg"
    assert [f.path for f in cs.files] == ["mod.py"]
    assert cs.files[0].removed_owners() == ("f",)


def test_bad_input(repo: GitRepo, tmp_path: Path) -> None:
    with pytest.raises(RefNotFoundError, match="git revision 'nope' not found") as err:
        diff_changes(repo.root, base="nope")
    assert (err.value.ref, err.value.exit_code) == ("nope", 2)
    with pytest.raises(RefNotFoundError, match="'HEAD~5'"):
        diff_changes(repo.root, base="HEAD", head="HEAD~5")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotARepository):
        diff_changes(plain)
    empty = GitRepo(tmp_path / "empty")
    with pytest.raises(RefNotFoundError, match="has no commits"):
        diff_changes(empty.root)
    assert diff_changes(repo.root).files == ()  # a clean working tree
