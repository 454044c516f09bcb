"""Helpers for tests: write real source trees, run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import pytest

__all__ = ["ROOT", "STDLIB", "VGDB", "CliRun", "run_vgdb", "vgdb_in_process", "write_tree"]

#: The real standard library of the running interpreter: small real packages for tests.
STDLIB = Path(sysconfig.get_paths()["stdlib"])
VGDB = [sys.executable, "-m", "api.cli"]
ROOT = Path(__file__).resolve().parent.parent


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``; text is dedented."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


def run_vgdb(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real ``vgdb`` CLI in a subprocess."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    return subprocess.run([*VGDB, *args], cwd=cwd or ROOT, env=full_env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def run_on(db: Path, args: tuple[str, ...], cwd: Path, **env: str) -> tuple[int, str, str]:
    """``vgdb ARGS --db DB`` from ``cwd``: its exit code, stdout and stderr."""
    done = run_vgdb(*args, "--db", str(db), cwd=cwd, env=env)
    return done.returncode, done.stdout, done.stderr


class CliRun(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def vgdb_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> CliRun:
    """The CLI in-process (``api.cli.main``: the same error presenter as the command),
    faster than :func:`run_vgdb` where no separate process is needed."""
    from api.cli import main

    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return CliRun(code, out.out, out.err)


def commit_into_wal(db: Path, statement: str) -> None:
    """Commit ``statement`` in another process that then exits without closing the database,
    as a killed (or fast-exiting) CLI does: the write lives in the WAL only."""
    code = ("import os, sys; from graphdb import Store\n"
            "s = Store.open(sys.argv[1])\n"
            "with s.write() as tx:\n"
            "    tx.execute(sys.argv[2])\n"
            "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", code, str(db), statement], check=True, cwd=ROOT)
