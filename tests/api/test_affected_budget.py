"""The CLI, GraphQL and MCP select the same tests for the same change: all spread by the test
budget (a chain of small private helpers longer than the former fixed depth 5 still reaches
its test), and all take a fixed depth when asked for one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from api.graphql import Settings
from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from tests.api.serving import serving_app
from tests.api.test_graphql import run
from tests.api.test_mcp import _call, _http
from tests.gitrepo import GitRepo
from tests.helpers import run_vgdb

# a parser's chain of private helpers, eight calls from the changed one to the test's entry
CHAIN = "\n\n".join(
    ["def _step0(text):\n    return text.strip()"]
    + [f"def _step{i}(text):\n    return _step{i - 1}(text)" for i in range(1, 8)]
    + ["def parse(text):\n    return _step7(text)"]) + "\n"
FILES = {
    "pkg/__init__.py": "",
    "pkg/parser.py": CHAIN,
    "tests/__init__.py": "",
    "tests/test_parser.py": ("from pkg.parser import parse\n\n\n"
                             "def test_parse():\n    assert parse(' a ') == 'a'\n"),
    "tests/test_step.py": ("from pkg.parser import _step0\n\n\n"
                           "def test_step0():\n    assert _step0(' b ') == 'b'\n"),
}
BOTH = ["tests/test_parser.py::test_parse", "tests/test_step.py::test_step0"]
NEAR = ["tests/test_step.py::test_step0"]


def _graphql(url: str, depth: int | None) -> list[str]:
    arg = f", depth: {depth}" if depth is not None else ""
    answer = run(url, f'{{ affectedTests(repo: "proj", base: "HEAD"{arg}) {{ nodeIds }} }}')
    return answer["affectedTests"]["nodeIds"]


def _mcp(url: str, depth: int | None) -> list[str]:
    async def go() -> list[str]:
        async with _http(url) as client:
            more: dict[str, Any] = {"depth": depth} if depth is not None else {}
            error, found = await _call(client, "affected_tests", repo="proj", base="HEAD",
                                       **more)
            assert not error, found
            return sorted(t["test"] for t in found["tests"])

    return anyio.run(go)


def _cli(db: Path, depth: int | None) -> list[str]:
    more = ["--depth", str(depth)] if depth is not None else []
    done = run_vgdb("affected-tests", "--db", str(db), "--repo", "proj", "--base", "HEAD",
                    "--format", "json", *more)
    assert done.returncode == 0, done.stderr
    return sorted(t["node_id"] for t in json.loads(done.stdout)["tests"])


def test_cli_graphql_and_mcp_share_the_budgeted_selection(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "proj")
    repo.commit("init", FILES)
    repo.write({"pkg/parser.py": CHAIN.replace("text.strip()", "text.strip(' ')")})
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
    cli = {depth: _cli(db, depth) for depth in (None, 5)}
    with Store.open(db) as store, serving_app(store, Settings(allow_anonymous=True)) as url:
        graphql = {depth: _graphql(url, depth) for depth in (None, 5)}
        mcp = {depth: _mcp(url, depth) for depth in (None, 5)}
    assert cli == graphql == mcp == {None: BOTH, 5: NEAR}
