"""Parse workers import our packages, never same-named ones from the working directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import write_tree


def test_a_project_with_its_own_ingest_package_is_not_imported(tmp_path) -> None:
    """Python 3.11's fork server imports its preload modules with the working directory
    first on ``sys.path``: run from a project holding an ``ingest/`` package, the workers
    ran that package (found: a base checkout's workers imported this checkout's code)."""
    project = tmp_path / "project"
    marker = tmp_path / "imported"
    write_tree(project, {
        "ingest/__init__.py": f"open({str(marker)!r}, 'w').write('x')\n"
                              "raise RuntimeError('not the ingest of vgdb')\n",
        **{f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(30)},
    })
    vgdb = Path(sys.executable).parent / "vgdb"
    done = subprocess.run([str(vgdb), "ingest", "src", "--db", str(tmp_path / "db"), "--json",
                           "--no-history", "--workers", "2"], cwd=project,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "RuntimeError" not in done.stderr and "cannot start" not in done.stderr
    summary = json.loads(done.stdout)
    # 30 module symbols and 30 functions
    assert summary["files"]["parsed"] == 30 and summary["nodes"]["Symbol"] == 60
