"""``--json`` everywhere (issue 25): every command that reports something takes it, and the
shapes of the ones added last (token revoke, migrate, serve, pytest-plugin, impact and
affected-tests) are exactly as docs/cli.md says."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import click
import httpx
import pytest

from api.cli import COMMANDS, cli
from graphdb import Store
from graphdb.tokens import TokenStore
from ingest import ingest_repository
from tests.api.test_cli import TREE, vgdb
from tests.helpers import ROOT, VGDB, write_tree
from tests.ops.server import wait_healthy

#: the commands without --json, and why (docs/cli.md says the same)
NO_JSON = {
    "mcp": "stdout is the MCP protocol (JSON-RPC); --print-config prints JSON already",
    "hooks run": "hidden: what a git hook runs; it prints nothing of its own",
}


def _leaves(name: str, command: click.Command) -> list[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        return [leaf for sub in command.list_commands(ctx)
                for leaf in _leaves(f"{name} {sub}", command.get_command(ctx, sub))]
    return [(name, command)]


def test_every_command_takes_json() -> None:
    ctx = click.Context(cli)
    leaves = [leaf for name in sorted(COMMANDS) for leaf in _leaves(name, cli.get_command(
        ctx, name))]
    assert len(leaves) == len(COMMANDS) + 4  # hooks: 3 leaves, token: 3
    without = sorted(name for name, command in leaves
                     if "--json" not in {o for p in command.params for o in p.opts})
    assert without == sorted(NO_JSON)


def test_token_revoke_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    made, _ = TokenStore(tmp_path).create("ci", scope="write")
    code, out, err = vgdb(capsys, "token", "revoke", made.id, "--db", tmp_path, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data.pop("revoked_at")[:2] == "20"
    assert data == {"id": made.id, "name": "ci", "scope": "write",
                    "created_at": made.created_at, "expires_at": None, "max_cost": None,
                    "timeout": None, "state": "revoked"}


def test_migrate_json_on_a_current_database(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    Store.open(tmp_path / "db").close()
    code, out, _ = vgdb(capsys, "migrate", "--db", tmp_path / "db", "--json")
    assert code == 0
    assert json.loads(out) == {"db": str((tmp_path / "db").absolute()), "migrated": False,
                               "backup": None}


def test_pytest_plugin_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = vgdb(capsys, "pytest-plugin", "--json")
    data = json.loads(out)
    assert code == 0 and data == {"path": data["path"], "module": "pytest_vgdb"}
    assert Path(data["path"]).name == "pytest_vgdb.py" and Path(data["path"]).is_file()


def test_impact_and_affected_tests_json_equal_format_json(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    project = write_tree(tmp_path / "proj", TREE)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, project)
    for command in ("impact", "affected-tests"):
        args = (command, "b.py#g", "--db", tmp_path / "db")
        code, by_format, _ = vgdb(capsys, *args, "--format", "json")
        code2, by_flag, _ = vgdb(capsys, *args, "--json")
        assert (code, code2) == (0, 0)
        assert json.loads(by_flag) == json.loads(by_format)
    code, out, _ = vgdb(capsys, "impact", "b.py#g", "--db", tmp_path / "db", "--json")
    ids = [s["id"] for s in json.loads(out)["symbols"]]
    assert ids[0] == "sym:proj/b.py#g" and "sym:proj/a.py#f" in ids  # g, then its caller


def test_serve_json_prints_one_line_once_listening(tmp_path: Path) -> None:
    Store.open(tmp_path / "db").close()
    server = subprocess.Popen(
        [*VGDB, "serve", "--db", str(tmp_path / "db"), "--port", "0", "--anonymous", "--json"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        data = json.loads(line)
        url = data["url"]
        assert url.startswith("http://127.0.0.1:") and int(url.rsplit(":", 1)[1]) > 0
        assert data == {"url": url, "graphql": f"{url}/graphql", "mcp": f"{url}/mcp",
                        "explorer": f"{url}/", "pid": server.pid,
                        "db": str((tmp_path / "db").absolute()), "mode": "read-only",
                        "anonymous": True}
        wait_healthy(url)  # it answers at the address it printed
        assert httpx.post(data["graphql"], json={"query": "{ __typename }"},
                          timeout=10).json()["data"] == {"__typename": "Query"}
        record = json.loads((tmp_path / "db" / "server.json").read_text())
        assert (record["url"], record["pid"]) == (url, server.pid)
    finally:
        server.send_signal(signal.SIGINT)
        rest = server.communicate(timeout=30)[0]
    assert rest == ""  # one line, nothing else on stdout
