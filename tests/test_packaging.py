"""The built wheel holds every module and data file a user's install needs.

An editable install (``make install``) reads the source tree, so a package missing from
pyproject.toml goes unnoticed until someone installs the wheel: queries.impact,
queries.briefing and api.web once were. This builds the wheel offline, as a release would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOTS = ("api", "graphdb", "ingest", "queries", "schema", "vectorgraphdb")
#: tracked files under the package roots that are documentation, not run-time files
NOT_SHIPPED = {"api/schema.graphql", "api/graphql/examples.graphql"}


def _tracked() -> set[str]:
    out = subprocess.run(["git", "ls-files", "--", *ROOTS, "pytest_vgdb.py"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return set(out.split()) - NOT_SHIPPED


def _export(dest: Path) -> None:
    """The tracked files as they are in the working tree (what a source release holds),
    without the checkout's .venv and databases, which package discovery would walk."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                         capture_output=True).stdout
    for name in filter(None, out.decode().split("\0")):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)


@pytest.mark.slow
def test_the_wheel_ships_every_tracked_module_and_data_file(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.fail("the packaging test needs the git checkout (it compares with git ls-files)")
    source, out = tmp_path / "src", tmp_path / "dist"
    _export(source)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-cache-dir", "-q", "-w", str(out), str(source)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    assert "absent from the `packages` configuration" not in build.stderr
    [wheel] = out.glob("vectorgraphdb-*.whl")
    with zipfile.ZipFile(wheel) as z:
        shipped = {n for n in z.namelist() if ".dist-info/" not in n}
    assert sorted(shipped - _tracked()) == []  # nothing untracked (caches, local files)
    assert sorted(_tracked() - shipped) == []  # nothing a user's install would miss
