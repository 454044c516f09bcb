"""Helpers for tests: write real source trees, run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

__all__ = ["ROOT", "STDLIB", "VGDB", "run_vgdb", "write_tree"]

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
