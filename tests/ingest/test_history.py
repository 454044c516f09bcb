"""Git history ingest on real repositories built with git: commits, people, file changes,
symbol attribution, lineage, co-change, incremental reads and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphdb import Store
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, ingest_repository
from schema import CHANGED, CO_CHANGED, COMMIT, PARENT, PERSON, SUPERSEDES, SYMBOL, TOUCHED
from tests.gitrepo import GitRepo
from tests.helpers import ROOT, VGDB, run_vgdb


def _at(repo: GitRepo, tick: int) -> datetime:
    return datetime.fromtimestamp(repo.time_of(tick), UTC).replace(tzinfo=None)


def _touches(store: Store) -> set[tuple[str, str, str]]:
    rows = store.cypher(f"MATCH (c:{COMMIT.name})-[t:{TOUCHED.name}]->(s:{SYMBOL.name}) "
                        "RETURN c.summary AS commit, s.qualname AS symbol, t.kind AS kind")
    return set(rows.iter_rows())


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "proj")


def test_commits_people_parents_and_file_changes(store: Store, repo: GitRepo) -> None:
    first = repo.commit("first", {"a.py": "def f():\n    return 1\n", "README.md": "hi\n"})
    second = repo.commit("second", {"a.py": "def f():\n    return 2\n\n\ndef g():\n    pass\n"},
                         author="Ann Bee <ANN@Example.org>", committer="Bob <bob@example.org>")
    repo.remove("README.md")
    third = repo.commit("third: drop readme", author="Bob <bob@example.org>")
    summary = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert summary.history is not None and summary.history.commits == 3

    commits = store.cypher(f"MATCH (c:{COMMIT.name}) RETURN c.sha, c.summary, c.is_merge, "
                           "c.files_changed, c.additions, c.deletions, c.valid_from "
                           "ORDER BY c.committed_at").rows()
    assert commits == [
        (first, "first", False, 2, 3, 0, _at(repo, 1)),
        (second, "second", False, 1, 5, 1, _at(repo, 2)),
        (third, "third: drop readme", False, 1, 0, 1, _at(repo, 3)),
    ]
    parents = store.cypher(f"MATCH (a:{COMMIT.name})-[p:{PARENT.name}]->(b:{COMMIT.name}) "
                           "RETURN a.sha, b.sha, p.ordinal ORDER BY a.committed_at").rows()
    assert parents == [(second, first, 0), (third, second, 0)]
    people = store.cypher(f"MATCH (p:{PERSON.name}) RETURN p.id, p.name, p.aliases "
                          "ORDER BY p.id").rows()
    assert people == [("person:ann@example.org", "Ann Bee", ["Ann Author"]),
                      ("person:bob@example.org", "Bob", [])]
    authored = store.cypher(f"MATCH (p:{PERSON.name})-[a]->(c:{COMMIT.name}) "
                            "RETURN p.name, a.role, c.summary ORDER BY c.summary, a.role").rows()
    assert authored == [("Ann Bee", "author", "first"), ("Ann Bee", "author", "second"),
                        ("Bob", "committer", "second"), ("Bob", "author", "third: drop readme")]
    changed = store.cypher(f"MATCH (c:{COMMIT.name})-[e:{CHANGED.name}]->(f) RETURN c.summary, "
                           "f.path, e.kind, e.additions, e.deletions ORDER BY c.summary, f.path"
                           ).rows()
    assert changed == [("first", "README.md", "added", 1, 0), ("first", "a.py", "added", 2, 0),
                       ("second", "a.py", "modified", 5, 1),
                       ("third: drop readme", "README.md", "deleted", 0, 1)]
    readme = store.cypher("MATCH (f:File) WHERE f.path = 'README.md' "
                          "RETURN f.source, f.valid_to").rows()
    assert readme == [("git", _at(repo, 3))]


def test_symbol_attribution_follows_the_innermost_definition(store: Store,
                                                             repo: GitRepo) -> None:
    repo.commit("add", {"m.py": """
        class C:
            def keep(self):
                return 1

            def edit(self):
                return 1


        def gone():
            return 0
        """})
    repo.commit("edit method", {"m.py": """
        class C:
            def keep(self):
                return 1

            def edit(self):
                return 2


        def gone():
            return 0
        """})
    repo.commit("drop function", {"m.py": """
        class C:
            def keep(self):
                return 1

            def edit(self):
                return 2
        """})
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert _touches(store) == {
        ("add", "<module>", "added"), ("add", "C", "added"), ("add", "C.keep", "added"),
        ("add", "C.edit", "added"), ("add", "gone", "added"),
        ("edit method", "C.edit", "modified"),
        ("drop function", "gone", "deleted"),
    }
    gone = store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.qualname = 'gone' RETURN s.id, "
                        "s.source, s.valid_from, s.valid_to, s.kind").rows()
    assert gone == [("sym:proj/m.py#gone", "git", _at(repo, 1), _at(repo, 3), "function")]
    current = store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.qualname = 'C.edit' "
                           "RETURN s.source, s.valid_from, s.valid_to").rows()
    assert current == [("ast", _at(repo, 1), None)]


def test_rename_and_move_are_linked_new_to_old(store: Store, repo: GitRepo) -> None:
    body = "    total = 0\n    for item in items:\n        total += item * weight\n" \
           "    return total\n"
    repo.commit("add", {"a.py": f"def weigh(items, weight):\n{body}",
                        "b.py": "def other():\n    return 1\n"})
    repo.commit("rename", {"a.py": f"def weighted_sum(items, weight):\n{body}"})
    repo.move("b.py", "c.py")
    repo.commit("move file")
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    links = store.cypher(
        f"MATCH (n:{SYMBOL.name})-[e:{SUPERSEDES.name}]->(o:{SYMBOL.name}) RETURN n.id, o.id, "
        "e.reason, e.confidence, e.by, o.valid_to IS NOT NULL ORDER BY n.id").rows()
    assert links == [
        ("sym:proj/a.py#weighted_sum", "sym:proj/a.py#weigh", "renamed", 1.0,
         "person:ann@example.org", True),
        ("sym:proj/c.py#<module>", "sym:proj/b.py#<module>", "moved", 1.0,
         "person:ann@example.org", True),
        ("sym:proj/c.py#other", "sym:proj/b.py#other", "moved", 1.0,
         "person:ann@example.org", True),
    ]
    evidence = store.cypher(f"MATCH ()-[e:{SUPERSEDES.name}]->(o) WHERE o.name = 'weigh' "
                            "RETURN e.evidence").item()
    rename_sha = repo.git("rev-parse", "HEAD~1")
    assert evidence == f'{{"similarity": 1.0, "commit": "{rename_sha}"}}'
    moved = store.cypher(f"MATCH (c)-[e:{CHANGED.name}]->(f) WHERE c.summary = 'move file' "
                         "RETURN f.path, e.kind, e.old_path").rows()
    assert moved == [("c.py", "renamed", "b.py")]
    assert ("rename", "weigh", "renamed") in _touches(store)


def test_co_change_counts_pairs_and_ignores_huge_commits(store: Store, repo: GitRepo) -> None:
    for i in range(3):
        repo.commit(f"pair {i}", {"x.py": f"X = {i}\n", "y.py": f"Y = {i}\n"})
    repo.commit("x alone", {"x.py": "X = 9\n"})
    repo.commit("huge", {f"gen/f{i}.py": "Z = 1\n" for i in range(60)} | {"y.py": "Y = 9\n",
                                                                           "x.py": "X = 10\n"})
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    pairs = store.cypher(f"MATCH (a)-[e:{CO_CHANGED.name}]->(b) RETURN a.path, b.path, e.count, "
                         "e.weight").rows()
    # x.py changed in 5 commits, y.py in 4 (the huge one counts for neither pair nor share)
    assert pairs == [("x.py", "y.py", 3, pytest.approx(3 / (5 + 4 - 3)))]


def test_reingest_reads_only_new_commits(store: Store, repo: GitRepo) -> None:
    repo.commit("one", {"a.py": "def f():\n    return 1\n"})
    repo.commit("two", {"a.py": "def f():\n    return 2\n"})
    first = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    again = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    repo.commit("three", {"a.py": "def f():\n    return 3\n"})
    third = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert (first.history.commits, again.history.status, third.history.commits) == (
        2, "up to date", 1)
    assert store.cypher(f"MATCH (c:{COMMIT.name}) RETURN count(*)").item() == 3
    assert store.cypher(f"MATCH ()-[t:{TOUCHED.name}]->(s) WHERE s.qualname = 'f' "
                        "RETURN t.kind ORDER BY t.valid_from").rows() == [
        ("added",), ("modified",), ("modified",)]
    head = store.cypher("MATCH (r:Repository) RETURN r.head").item()
    assert head == repo.git("rev-parse", "HEAD")


def test_max_commits_and_since_bound_the_history(store: Store, repo: GitRepo) -> None:
    for i in range(5):
        repo.commit(f"c{i}", {"a.py": f"A = {i}\n"})
    ingest_repository(store, repo.root, options=IngestOptions(
        name="proj", history=HistoryOptions(max_commits=2)))
    assert store.cypher(f"MATCH (c:{COMMIT.name}) RETURN c.summary ORDER BY c.summary"
                        ).rows() == [("c3",), ("c4",)]
    # the parent of the oldest ingested commit is outside the range: no dangling edge
    assert store.cypher(f"MATCH ()-[p:{PARENT.name}]->() RETURN count(*)").item() == 1


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata", "America/St_Johns"])
def test_since_keeps_commits_from_that_time(store: Store, repo: GitRepo, zone: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A naive ``since`` is UTC whatever the machine's time zone is."""
    for i in range(4):
        repo.commit(f"c{i}", {"a.py": f"A = {i}\n"})
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        ingest_repository(store, repo.root, options=IngestOptions(
            name="proj", history=HistoryOptions(since=_at(repo, 3))))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert store.cypher(f"MATCH (c:{COMMIT.name}) RETURN c.summary ORDER BY c.summary"
                        ).rows() == [("c2",), ("c3",)]


# -------------------------------------------------------------------------------- bad input
def test_a_tree_outside_git_ingests_code_and_skips_history(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    pass\n", encoding="utf-8")
    summary = ingest_repository(store, root)
    assert summary.nodes["File"] == 1
    assert summary.history.status == "skipped"
    assert "not inside a git repository" in summary.history.reason


def test_a_repository_without_commits_is_skipped_with_a_reason(store: Store,
                                                               repo: GitRepo) -> None:
    repo.write({"a.py": "X = 1\n"})
    summary = ingest_repository(store, repo.root)
    assert summary.nodes["File"] == 1
    assert (summary.history.status, summary.history.reason) == (
        "skipped", "the repository has no commits yet")


def test_merge_commits_have_two_parents_and_no_diff(store: Store, repo: GitRepo) -> None:
    repo.commit("base", {"a.py": "A = 1\n"})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("topic work", {"b.py": "B = 1\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("main work", {"c.py": "C = 1\n"})
    repo.git("merge", "-q", "--no-ff", "-m", "merge topic", "topic",
             env={"GIT_AUTHOR_DATE": f"{repo.time_of(9)} +0000",
                  "GIT_COMMITTER_DATE": f"{repo.time_of(9)} +0000",
                  "GIT_AUTHOR_NAME": "M", "GIT_AUTHOR_EMAIL": "m@example.org",
                  "GIT_COMMITTER_NAME": "M", "GIT_COMMITTER_EMAIL": "m@example.org"})
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    merge = store.cypher(f"MATCH (c:{COMMIT.name}) WHERE c.is_merge RETURN c.summary, "
                         "c.files_changed").rows()
    assert merge == [("merge topic", 0)]
    parents = store.cypher(f"MATCH (c:{COMMIT.name})-[p:{PARENT.name}]->(q) WHERE c.is_merge "
                           "RETURN q.summary, p.ordinal ORDER BY p.ordinal").rows()
    assert parents == [("main work", 0), ("topic work", 1)]
    assert store.cypher(f"MATCH (c:{COMMIT.name})-[:{CHANGED.name}]->() WHERE c.is_merge "
                        "RETURN count(*)").item() == 0


def test_binary_changes_and_bad_message_encodings(store: Store, repo: GitRepo) -> None:
    repo.commit("add binary", {"logo.png": b"\x89PNG\r\n\x1a\n\0\0\0" + bytes(range(256))})
    (repo.root / "msg.txt").write_bytes(b"caf\xe9 cr\xe8me\n")
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")
    repo.commit("placeholder", {"a.py": "A = 1\n"}, extra=("-F", "msg.txt"))
    (repo.root / "msg.txt").unlink()
    repo.git("config", "--unset", "i18n.commitEncoding")
    repo.raw_commit(b"broken \xff\xfe bytes\n", {"b.py": "B = 1\n"})
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    binary = store.cypher(f"MATCH ()-[e:{CHANGED.name}]->(f) WHERE f.path = 'logo.png' "
                          "RETURN e.binary, e.additions, e.deletions").rows()
    assert binary == [(True, 0, 0)]
    messages = store.cypher(f"MATCH (c:{COMMIT.name}) RETURN c.summary ORDER BY c.committed_at"
                            )["c.summary"].to_list()
    assert messages[1:] == ["café crème", "broken \ufffd\ufffd bytes"]


def test_shallow_clone_does_not_attribute_the_grafted_commit(store: Store, repo: GitRepo,
                                                            tmp_path: Path) -> None:
    for i in range(4):
        repo.commit(f"c{i}", {"a.py": f"def f():\n    return {i}\n"})
    clone = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone))
    summary = ingest_repository(store, clone, options=IngestOptions(name="proj"))
    assert summary.history.commits == 2
    assert any("shallow clone" in n for n in summary.history.notes)
    touched = store.cypher(f"MATCH (c:{COMMIT.name})-[t:{TOUCHED.name}]->(s) "
                           "RETURN c.summary, s.qualname, t.kind").rows()
    assert touched == [("c3", "f", "modified")]


def test_detached_head_reads_the_history_behind_it(store: Store, repo: GitRepo) -> None:
    repo.commit("one", {"a.py": "A = 1\n"})
    repo.commit("two", {"a.py": "A = 2\n"})
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    summary = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert summary.history.commits == 1
    assert summary.history.head == repo.git("rev-parse", "HEAD")


def test_a_subdirectory_gets_the_history_of_its_own_files(store: Store, repo: GitRepo) -> None:
    repo.commit("lib", {"lib/x.py": "X = 1\n", "docs/a.md": "a\n"})
    repo.commit("docs only", {"docs/a.md": "b\n"})
    repo.commit("lib again", {"lib/x.py": "X = 2\n"})
    ingest_repository(store, repo.root / "lib", options=IngestOptions(name="lib"))
    changed = store.cypher(f"MATCH (c)-[:{CHANGED.name}]->(f) RETURN c.summary, f.id "
                           "ORDER BY c.summary").rows()
    assert changed == [("lib", "file:lib/x.py"), ("lib again", "file:lib/x.py")]


def test_files_known_only_from_history_survive_a_code_reingest(store: Store,
                                                               repo: GitRepo) -> None:
    repo.commit("one", {"a.py": "A = 1\n", "notes.txt": "n\n"})
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    again = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert again.removed == 0
    notes = store.cypher("MATCH (f:File) WHERE f.path = 'notes.txt' "
                         "RETURN f.source, f.valid_to").rows()
    assert notes == [("git", None)]


# ------------------------------------------------------------------------------ crash, CLI
@pytest.mark.parametrize("phase", ["mid-copy", "before-commit"])
def test_kill_during_history_load_keeps_the_graph_and_a_rerun_finishes(
        repo: GitRepo, tmp_path: Path, phase: str) -> None:
    repo.commit("one", {"a.py": "def f():\n    return 1\n"})
    repo.commit("two", {"a.py": "def f():\n    return 2\n"})
    db = tmp_path / "db"
    assert run_vgdb("ingest", str(repo.root), "--db", str(db), "--no-history").returncode == 0
    out = tmp_path / "killed.out"
    with out.open("w") as sink:  # a file, not a pipe: pool workers may outlive the kill
        killed = subprocess.run([*VGDB, "ingest", str(repo.root), "--db", str(db)], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT),
                                     "VGDB_FAILPOINT": phase},
                                stdout=sink, stderr=sink, timeout=120, check=False)
    assert killed.returncode == -signal.SIGKILL
    with Store.open(db, read_only=True) as store:
        assert store.cypher(f"MATCH (c:{COMMIT.name}) RETURN count(*)").item() == 0
        assert store.cypher(f"MATCH (s:{SYMBOL.name}) RETURN count(*)").item() == 2
    rerun = run_vgdb("ingest", str(repo.root), "--db", str(db), "--json")
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["history"]["commits"] == 2
    with Store.open(db, read_only=True) as store:
        assert _touches(store) == {("one", "<module>", "added"), ("one", "f", "added"),
                                   ("two", "f", "modified")}


def test_cli_reports_history_and_honours_no_history(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("one", {"a.py": "A = 1\n"})
    skipped = run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db1"),
                       "--no-history", "--json")
    assert skipped.returncode == 0, skipped.stderr
    assert json.loads(skipped.stdout)["history"] is None
    shown = run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db2"))
    assert shown.returncode == 0, shown.stderr
    assert "history: 1 new commits to" in shown.stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "x.py").write_text("X = 1\n", encoding="utf-8")
    outside = run_vgdb("ingest", str(plain), "--db", str(tmp_path / "db3"))
    assert outside.returncode == 0, outside.stderr
    assert "history: skipped:" in outside.stdout
    assert "not inside a git repository" in outside.stdout


def test_file_changes_agree_with_git_log_numstat(store: Store, repo: GitRepo) -> None:
    """Per commit, files changed and lines added/removed equal `git log --numstat -M` on a
    history with renames (also edited), deletions, a binary file and a merge."""
    lines = "".join(f"line {i}\n" for i in range(40))
    repo.commit("base", {"a.py": "def f():\n    return 1\n", "notes.md": lines,
                         "img.bin": b"\0\1\2" * 50})
    repo.move("notes.md", "docs/notes.md")
    repo.commit("move and edit", {"docs/notes.md": lines.replace("line 3\n", "line three\n")})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side", {"b.py": "B = 1\n", "img.bin": b"\0\3" * 70})
    repo.git("checkout", "-q", "main")
    repo.remove("a.py")
    repo.commit("drop a")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    ours = {sha: (n, add, rem) for sha, n, add, rem in store.cypher(
        f"MATCH (c:{COMMIT.name}) RETURN c.sha, c.files_changed, c.additions, c.deletions"
    ).iter_rows()}
    theirs: dict[str, tuple[int, int, int]] = {}
    sha = ""
    for line in repo.git("log", "--numstat", "-M", "--format=%H").splitlines():
        if len(line) == 40 and "\t" not in line:
            sha = line
            theirs[sha] = (0, 0, 0)
        elif line:
            add, rem, _ = line.split("\t", 2)
            n, a, r = theirs[sha]
            theirs[sha] = (n + 1, a + (0 if add == "-" else int(add)),
                           r + (0 if rem == "-" else int(rem)))
    assert ours == theirs
    assert len(ours) == 5


def test_uncommitted_code_is_marked_worktree_until_committed(store: Store,
                                                             repo: GitRepo) -> None:
    repo.commit("one", {"a.py": "def f():\n    return 1\n", "c.py": "C = 1\n"})
    repo.write({"a.py": "def f():\n    return 2\n", "b.py": "def g():\n    pass\n"})

    def sources() -> list[tuple[str, str]]:
        return store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.valid_to IS NULL "
                            "RETURN s.id, s.source ORDER BY s.id").rows()

    summary = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert summary.uncommitted == 2
    assert sources() == [("sym:proj/a.py#<module>", "worktree"), ("sym:proj/a.py#f", "worktree"),
                         ("sym:proj/b.py#<module>", "worktree"), ("sym:proj/b.py#g", "worktree"),
                         ("sym:proj/c.py#<module>", "ast"), ("sym:proj/c.py#C", "ast")]
    repo.commit("two")
    again = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert (again.parsed, again.uncommitted) == (0, 0)
    assert {source for _, source in sources()} == {"ast"}


def test_a_tree_ignored_by_its_enclosing_repository_has_no_history(store: Store,
                                                                   repo: GitRepo) -> None:
    """Like a standard library inside a version manager's checkout (versions/ ignored)."""
    repo.commit("one", {".gitignore": "versions/\n", "tool.py": "T = 1\n"})
    lib = repo.root / "versions" / "lib"
    lib.mkdir(parents=True)
    (lib / "mod.py").write_text("def f():\n    pass\n", encoding="utf-8")
    summary = ingest_repository(store, lib)
    assert summary.nodes["File"] == 1
    assert summary.history.status == "skipped"
    assert "is ignored by the git repository at" in summary.history.reason


def test_a_damaged_repository_fails_the_history_clearly_and_keeps_the_code(
        store: Store, repo: GitRepo) -> None:
    repo.commit("one", {"a.py": "def f():\n    return 1\n"})
    repo.commit("two", {"a.py": "def f():\n    return 2\n"})
    blob = repo.git("rev-parse", "HEAD~1:a.py")
    (repo.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # a lost object
    summary = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert summary.nodes["File"] == 1
    assert summary.history.status == "failed"
    assert "git could not read the repository" in summary.history.reason
    assert store.cypher(f"MATCH (c:{COMMIT.name}) RETURN count(*)").item() == 0
    (repo.root / ".git" / "HEAD").write_text("garbage\n", encoding="ascii")
    again = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert again.history.status == "failed"
    assert "HEAD" in again.history.reason


def test_two_repositories_sharing_commits(tmp_path: Path) -> None:
    """The same history under two names (or two subdirectories of one git repository): the
    commits are stored once, each repository's files get their CHANGED edges, and ingesting
    again adds nothing."""
    repo = GitRepo(tmp_path / "shared")
    repo.commit("one", {"a.py": "def f():\n    return 1\n"})
    repo.commit("two", {"a.py": "def f():\n    return 2\n"})
    with Store.open(tmp_path / "db") as store:
        first = ingest_repository(store, repo.root, options=IngestOptions(name="x"))
        second = ingest_repository(store, repo.root, options=IngestOptions(name="y"))
        again = ingest_repository(store, repo.root, options=IngestOptions(name="y"))
        commits = store.cypher("MATCH (c:Commit) RETURN count(*) AS n")["n"][0]
        changed = store.cypher("MATCH (c:Commit)-[e:CHANGED]->(f:File) RETURN f.repo AS repo, "
                               "count(*) AS n ORDER BY repo").rows()
        parents = store.cypher("MATCH ()-[e:PARENT]->() RETURN count(*) AS n")["n"][0]
    assert (first.history.status, second.history.status) == ("ingested", "ingested")
    assert again.history.status == "up to date"
    assert (commits, parents) == (2, 1)
    assert changed == [("x", 2), ("y", 2)]


def test_commits_that_change_no_file(store: Store, repo: GitRepo) -> None:
    """A history whose new commits change no file (an empty first commit) is ingested (it
    stopped the ingest with an internal error: no CHANGED rows, no columns)."""
    empty = repo.commit("empty start")
    repo.write({"a.py": "def f():\n    return 1\n"})
    summary = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert summary.history is not None
    assert (summary.history.status, summary.history.commits, summary.history.changes) == \
        ("ingested", 1, 0)
    second = repo.commit("add a")
    summary = ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    assert summary.history is not None and summary.history.commits == 1
    assert store.cypher(f"MATCH (c:{COMMIT.name}) RETURN c.sha ORDER BY c.committed_at"
                        ).rows() == [(empty,), (second,)]
    assert store.cypher(f"MATCH (c:{COMMIT.name})-[e:{CHANGED.name}]->(f) "
                        "RETURN c.sha, f.path, e.kind").rows() == [(second, "a.py", "added")]
