"""`vgdb hooks install|uninstall` on a real git repository: the hooks fire on commit and
checkout, keep existing hooks intact, and uninstall restores every hook byte for byte."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from graphdb import Store
from ingest.hooks import HOOKS
from tests.gitrepo import GitRepo
from tests.helpers import ROOT, run_vgdb

#: the user's own hook, without a final newline: it must survive install + uninstall
OWN_HOOK = "#!/bin/bash\necho \"own post-commit ran\" >> \"$(git rev-parse --git-dir)/own.log\""


def _hooks(repo: GitRepo) -> dict[str, bytes]:
    directory = repo.root / ".git" / "hooks"
    return {p.name: p.read_bytes() for p in directory.iterdir() if not p.name.endswith(".sample")}


def _graph(db: Path, query: str) -> list:
    with Store.open(db, read_only=True) as store:
        return store.cypher(query).rows()


def test_hooks_fire_and_uninstall_byte_identical(tmp_path: Path, alib: GitRepo) -> None:
    own = alib.root / ".git" / "hooks" / "post-commit"
    own.write_text(OWN_HOOK, encoding="utf-8")
    own.chmod(0o755)
    before = _hooks(alib)
    db = tmp_path / "db"
    env = {"PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    assert run_vgdb("ingest", str(alib.root), "--db", str(db)).returncode == 0
    done = run_vgdb("hooks", "install", str(alib.root), "--db", str(db), "--json", env=env)
    assert done.returncode == 0, done.stderr
    actions = {c["hook"]: c["action"] for c in json.loads(done.stdout)}
    assert actions == {"post-commit": "appended", "post-merge": "created",
                       "post-checkout": "created", "post-rewrite": "created"}
    installed = _hooks(alib)
    assert installed["post-commit"].startswith(OWN_HOOK.encode() + b"\n# >>> vgdb hooks")
    again = run_vgdb("hooks", "install", str(alib.root), "--db", str(db), env=env)
    assert again.returncode == 0 and _hooks(alib) == installed  # idempotent

    sha = alib.commit("add util", {"alib/util.py": "def twice(x):\n    return 2 * x\n"})
    assert (alib.root / ".git" / "own.log").read_text() == "own post-commit ran\n"
    assert _graph(db, f"MATCH (c:Commit) WHERE c.sha = '{sha}' RETURN c.summary") == [
        ("add util",)]
    assert _graph(db, "MATCH (s:Symbol) WHERE s.name = 'twice' RETURN s.id") == [
        ("sym:alib/alib/util.py#twice",)]

    alib.git("checkout", "-q", "-b", "topic")
    alib.commit("topic", {"alib/topic.py": "def topical():\n    return 1\n"})
    commits = _graph(db, "MATCH (c:Commit) RETURN c.sha ORDER BY c.sha")
    alib.git("checkout", "-q", "main")  # a branch switch: code follows, history stays
    assert _graph(db, "MATCH (s:Symbol) WHERE s.name = 'topical' AND s.valid_to IS NULL "
                      "RETURN s.id") == []
    assert _graph(db, "MATCH (c:Commit) RETURN c.sha ORDER BY c.sha") == commits
    alib.git("checkout", "-q", "topic")
    assert _graph(db, "MATCH (s:Symbol) WHERE s.name = 'topical' AND s.valid_to IS NULL "
                      "RETURN s.id") == [("sym:alib/alib/topic.py#topical",)]

    gone = run_vgdb("hooks", "uninstall", str(alib.root), "--json")
    assert gone.returncode == 0, gone.stderr
    assert {c["hook"]: c["action"] for c in json.loads(gone.stdout)} == {
        "post-commit": "restored", "post-merge": "removed", "post-checkout": "removed",
        "post-rewrite": "removed"}
    assert _hooks(alib) == before
    assert stat.S_IMODE(own.stat().st_mode) == 0o755
    alib.commit("after uninstall", {"alib/late.py": "L = 1\n"})
    assert _graph(db, "MATCH (s:Symbol) WHERE s.file = 'file:alib/alib/late.py' "
                      "RETURN s.id") == []


@pytest.mark.parametrize(("content", "mode", "why"), [
    ("#!/usr/bin/env python3\nprint('mine')\n", 0o755, "python3 script"),
    ("#!/bin/sh\necho disabled\n", 0o644, "not executable"),
])
def test_install_refuses_hooks_it_would_break(tmp_path: Path, alib: GitRepo, content: str,
                                              mode: int, why: str) -> None:
    hook = alib.root / ".git" / "hooks" / "post-merge"
    hook.write_text(content, encoding="utf-8")
    hook.chmod(mode)
    before = _hooks(alib)
    run = run_vgdb("hooks", "install", str(alib.root), "--db", str(tmp_path / "db"))
    assert run.returncode == 2 and why in " ".join(run.stderr.split())
    assert _hooks(alib) == before  # nothing changed, not even the other hooks
    assert set(HOOKS) - set(before) == {"post-commit", "post-checkout", "post-rewrite"}


def test_install_outside_git(tmp_path: Path) -> None:
    run = run_vgdb("hooks", "install", str(tmp_path))
    assert run.returncode == 2 and "not a git repository" in run.stderr
