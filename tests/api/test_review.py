"""`vgdb review` on a real branch of a real git repository with recorded decisions, a failure
and another session's intent: the Markdown section by section, JSON, the size cap; and the
GitHub Action's steps run as written in action.yml against a local HTTP server standing in
for GitHub's REST API (one comment, posted once, then updated)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from api.review_cli import MARKER
from api.steps import communities_after_ingest
from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.sessions.record import Recorder
from tests.gitrepo import BASE_TIME, GitRepo
from tests.helpers import ROOT, vgdb_in_process

ACTION = ROOT / ".github" / "actions" / "vgdb-review"
CORE = '"""Core."""\n\n\ndef helper():\n    return 1\n\n\ndef legacy():\n    return 0\n'
API = ("from pkg.core import helper, legacy\n\n\ndef serve():\n    return helper() + 1\n\n\n"
       "def old():\n    return legacy()\n")
TEST = "from pkg.api import serve\n\n\ndef test_serve():\n    assert serve() == 2\n"


def _at(hours: float) -> datetime:
    return datetime.fromtimestamp(BASE_TIME + hours * 3600, UTC).replace(tzinfo=None)


@pytest.fixture(scope="module")
def branch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GitRepo, Path, dict]]:
    """main with knowledge recorded about it; branch `feature` changes helper and deletes
    legacy (and its caller); the graph holds the feature checkout."""
    tmp = tmp_path_factory.mktemp("review")
    repo = GitRepo(tmp / "demo")
    ids = {"base": repo.commit("core and api", {
        "pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/api.py": API,
        "tests/test_api.py": TEST})}
    db = tmp / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="demo", workers=1))
        me = Recorder(store, session="me", agent="claude", repo="demo")
        ids["pure"] = me.record_decision("helper stays pure", "no I/O in helper",
                                         files=["pkg/core.py"], at=_at(0.5)).display_id
        ids["legacy"] = me.record_decision("keep legacy for v1 clients",
                                           symbols=["pkg/core.py#legacy"],
                                           at=_at(0.5)).display_id
        ids["failure"] = me.record_failure("AssertionError: serve() == 2",
                                           file="pkg/core.py").display_id
        other = Recorder(store, session="other", agent="codex", repo="demo")
        ids["intent"] = other.record_intent("rename helper", scope=["pkg/core.py"]).display_id
    repo.git("checkout", "-q", "-b", "feature")
    ids["head"] = repo.commit("helper returns 2, legacy goes", {
        "pkg/core.py": CORE.replace("return 1", "return 2").replace(
            "\n\ndef legacy():\n    return 0\n", "\n"),
        "pkg/api.py": API.replace("helper, legacy", "helper").replace(
            "\n\n\ndef old():\n    return legacy()\n", "\n")})
    with Store.open(db) as store:
        data = ingest_repository(store, repo.root,
                                 options=IngestOptions(name="demo", workers=1)).to_dict()
        assert communities_after_ingest(store, data)["status"] == "detected"
    yield repo, db, ids


def _sections(markdown: str) -> dict[str, list[str]]:
    """### title -> its non-empty lines; the part before the first ### under ''."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    for line in markdown.splitlines():
        if line.startswith("### "):
            current = line[4:]
            out[current] = []
        elif line.strip():
            out[current].append(line)
    return out


def test_review_markdown_section_by_section(branch, capsys) -> None:
    _, db, ids = branch
    run = vgdb_in_process(capsys, "review", "--base", "main", "--db", str(db))
    assert run.returncode == 0, run.stderr
    s = _sections(run.stdout)
    assert s[""] == [
        MARKER, f"## vgdb review: `{ids['base'][:10]}..working tree` (demo)",
        "**5 changed symbols** in 2 files · **1 test to run** · 5 impacted symbols, 3 files "
        "(depth 3)"]
    fail = ids["failure"]
    assert s["Changed symbols by risk"] == [
        "| risk | symbol | change | fan-in | tests | why |",
        "|---:|---|---|---:|---|---|",
        f"| 4.50 | `core.py#legacy` | deleted | 0 | none (0) | no test reaches it; failures "
        f"here: {fail}; deleted |",
        f"| 3.58 | `core.py#helper` | modified | 2 | static (1) | 2 callers/importers; "
        f"failures here: {fail}; impact crosses 2 communities |",
        f"| 3.50 | `core.py#<module>` | modified | 0 | none (0) | no test reaches it; failures "
        f"here: {fail} |",
        "| 3.00 | `api.py#old` | deleted | 0 | none (0) | no test reaches it; deleted |",
        "| 0.00 | `api.py#<module>` | modified | 0 | rule (1) | - |"]
    assert s["Tests to run"] == [
        "<details><summary>1 test (1 by rule)</summary>",
        "| test | evidence | why |", "|---|---|---|",
        "| `tests/test_api.py` | rule | imports a module whose import-time state changed "
        "(pkg/api.py#<module>) |",
        "</details>"]
    assert s["Decisions and patterns it touches"] == [
        f"- **{ids['pure']}** (decision, about): helper stays pure"]
    assert s["At odds with"] == [
        f"- ⚠ **{ids['legacy']}** (decision): keep legacy for v1 clients — deletes code it is "
        "about: sym:demo/pkg/core.py#legacy",
        f"- ⚠ {ids['intent']} by codex: rename helper (scope pkg/core.py) — another session's "
        "open intent on this code"]
    assert s["Stale decisions (code changed since they were decided)"] == [
        f"- {ids['pure']} (decided 2023-11-14): pkg/core.py changed by {ids['head'][:10]} "
        "2023-11-15 \"helper returns 2, legacy goes\""]
    assert s["Failures recorded here"] == [
        f"- **{fail}** (open): AssertionError: serve() == 2"]
    assert s["Papers"] == ["_None._"]
    assert s["Notes"] == ["> diffing the working tree; the graph of demo is assumed to hold it "
                          "(ingest again after editing)"]


def test_review_json_and_the_size_cap(branch, capsys) -> None:
    _, db, ids = branch
    data = json.loads(vgdb_in_process(capsys, "review", "--base", "main", "--head", "HEAD",
                                      "--db", str(db), "--format", "json").stdout)
    assert data["repo"] == "demo" and data["head"] == ids["head"]
    assert [(c["qualname"], c["change"], c["risk"]) for c in data["changed"]] == [
        ("legacy", "deleted", 4.5), ("helper", "modified", 3.585), ("<module>", "modified", 3.5),
        ("old", "deleted", 3.0), ("<module>", "modified", 0.0)]
    helper = data["changed"][1]
    assert (helper["fan_in"], helper["tests"], helper["evidence"], helper["communities"]) == (
        2, 1, "static", 2)
    assert data["files"] == [["pkg/api.py", "modified"], ["pkg/core.py", "modified"]]
    small = vgdb_in_process(capsys, "review", "--base", "main", "--db", str(db),
                            "--max-chars", "1500").stdout
    assert len(small) <= 1500
    assert small.startswith(MARKER + "\n")
    assert small.rstrip().endswith(
        "> trimmed to fit a comment; `vgdb review --format json` has everything")
    assert "_… and" in small  # a shortened list says how many more there are
    bad = vgdb_in_process(capsys, "review", "--base", "no-such-ref", "--db", str(db))
    assert bad.returncode == 2 and "no-such-ref" in bad.stderr


def test_review_depth_defaults_to_the_repository_config(branch, capsys,
                                                        monkeypatch) -> None:
    repo, db, _ = branch
    config = repo.root / "vgdb.toml"
    config.write_text("[impact]\ndepth = 0\n")
    monkeypatch.chdir(repo.root)
    try:
        zero = json.loads(vgdb_in_process(capsys, "review", "--base", "main", "--db", str(db),
                                          "--json").stdout)
        flag = json.loads(vgdb_in_process(capsys, "review", "--base", "main", "--db", str(db),
                                          "--json", "--depth", "2").stdout)
    finally:
        config.unlink()
    assert (zero["depth"], flag["depth"]) == (0, 2)


# --------------------------------------------------------------- the action, end to end
class FakeGitHub(BaseHTTPRequestHandler):
    """GitHub's issue-comment endpoints, in memory: a real HTTP server on loopback."""

    comments: list[dict[str, Any]]
    requests: list[tuple[str, str, str]]

    def _reply(self, status: int, data: Any) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _authorized(self) -> bool:
        self.requests.append((self.command, self.path, self.headers["Authorization"]))
        if self.headers["Authorization"] != "Bearer t0ken":
            self._reply(401, {"message": "Bad credentials"})
            return False
        return True

    def do_GET(self) -> None:
        if not self._authorized():
            return
        m = re.fullmatch(r"/repos/acme/demo/issues/7/comments\?per_page=(\d+)&page=(\d+)",
                         self.path)
        if not m:
            self._reply(404, {"message": "Not Found"})
            return
        per, page = int(m[1]), int(m[2])
        self._reply(200, self.comments[(page - 1) * per:page * per])

    def _body(self) -> str:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))["body"]

    def do_POST(self) -> None:
        if self._authorized() and self.path == "/repos/acme/demo/issues/7/comments":
            comment = {"id": 1000 + len(self.comments), "body": self._body(),
                       "html_url": "http://example.invalid/c"}
            self.comments.append(comment)
            self._reply(201, comment)

    def do_PATCH(self) -> None:
        if not self._authorized():
            return
        m = re.fullmatch(r"/repos/acme/demo/issues/comments/(\d+)", self.path)
        comment = next((c for c in self.comments if m and c["id"] == int(m[1])), None)
        if comment is None:
            self._reply(404, {"message": "Not Found"})
            return
        comment["body"] = self._body()
        self._reply(200, comment)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def github() -> Iterator[tuple[str, type[FakeGitHub]]]:
    handler = type("Handler", (FakeGitHub,), {"comments": [], "requests": []})
    # 150 unrelated comments: the marker's comment is on the second page
    handler.comments.extend({"id": i, "body": f"looks good {i}"} for i in range(150))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def _run_action(repo: GitRepo, tmp: Path, inputs: dict[str, str]) -> dict[str, str]:
    """Run action.yml's steps as a runner would: inputs (with their defaults) and the
    ``github`` context substituted into ``env``, ``if`` and ``run``; bash in the checkout."""
    action = yaml.safe_load((ACTION / "action.yml").read_text())
    values = {name: inputs.get(name, spec.get("default", ""))
              for name, spec in action["inputs"].items()}
    github = {"action_path": str(ACTION)}

    def expand(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            scope, _, name = m[1].strip().partition(".")
            return {"inputs": values, "github": github}[scope][name]
        return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))

    output = tmp / "github_output"
    output.write_text("")
    for step in action["runs"]["steps"]:
        cond = step.get("if")
        if cond:
            name, want = re.fullmatch(r"inputs\.([\w-]+) == '(.*)'", cond).groups()
            if values[name] != want:
                continue
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RUNNER_TEMP": str(tmp),
               "GITHUB_OUTPUT": str(output),
               **{k: expand(v) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "-e", "-c", expand(step["run"])], cwd=repo.root,
                              env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, (step["name"], done.stdout, done.stderr)
    return dict(line.split("=", 1) for line in output.read_text().splitlines())


def test_the_action_posts_one_comment_then_updates_it(branch, github, tmp_path) -> None:
    """(Last of the tests on ``branch``: it commits to the branch and ingests it again.)"""
    repo, db, ids = branch
    url, handler = github
    inputs = {"base": "main", "db": str(db), "vgdb": f"{sys.executable} -m api.cli",
              "pr": "7", "repository": "acme/demo", "api-url": url, "token": "t0ken",
              "ingest": "true", "name": "demo"}
    first = _run_action(repo, tmp_path, inputs)
    posted = [c for c in handler.comments if MARKER in c["body"]]
    assert len(posted) == 1 and first == {"comment-id": str(posted[0]["id"])}
    assert posted[0]["body"].startswith(
        f"{MARKER}\n## vgdb review: `{ids['base'][:10]}..{ids['head'][:10]}` (demo)\n")
    assert "### Changed symbols by risk" in posted[0]["body"]
    # a new push: the same comment is updated, no second one is posted
    repo.commit("helper returns 3", {"pkg/core.py": CORE.replace("return 1", "return 3")})
    second = _run_action(repo, tmp_path, inputs)
    marked = [c for c in handler.comments if MARKER in c["body"]]
    assert second == first and len(marked) == 1 and len(handler.comments) == 151
    head = repo.git("rev-parse", "HEAD")
    assert f"..{head[:10]}` (demo)" in marked[0]["body"]
    assert {r[0] for r in handler.requests} == {"GET", "POST", "PATCH"}
    assert all(r[2] == "Bearer t0ken" for r in handler.requests)


def test_the_post_script_reports_a_refusal(tmp_path, github) -> None:
    url, handler = github
    body = tmp_path / "r.md"
    body.write_text(f"{MARKER}\nhello\n")
    script = [sys.executable, str(ACTION / "post_comment.py"), "--api", url, "--repository",
              "acme/demo", "--pr", "7", "--file", str(body)]
    bad = subprocess.run(script, env={**os.environ, "GITHUB_TOKEN": "wrong"},
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "HTTP 401" in bad.stderr and "Bad credentials" in bad.stderr
    body.write_text("no marker\n")
    none = subprocess.run(script, env={**os.environ, "GITHUB_TOKEN": "t0ken"},
                          capture_output=True, text=True, check=False)
    assert none.returncode == 2 and "does not hold the marker" in none.stderr
    assert not [c for c in handler.comments if MARKER in c["body"]]
