"""The analyst notebooks run top to bottom against a real ingested repository, and are
committed without outputs.

One database per test session: a clone of this project's git repository (its committed HEAD,
the last 60 commits of history), ingested with communities, the example session and the
bibliography (``vectorgraphdb.demo.build_demo``). Each notebook then runs in a fresh kernel
of this very interpreter (a kernel spec written for the test, so a machine without Jupyter
kernels installed, or with another ``python3`` kernel, runs the same thing).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DOCS = ROOT / "docs" / "analyst.md"
IMG = ROOT / "docs" / "img"

os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core's own deprecation notice


def _figures(path: Path) -> list[str]:
    """Names passed to ``save(fig, "...")`` in a notebook: the PNGs it exports."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return re.findall(r'save\(fig, "([\w-]+)"\)', "".join("".join(c["source"]) for c in cells))


def test_there_are_three_notebooks() -> None:
    assert [p.name for p in NOTEBOOKS] == ["1-module-map.ipynb", "2-change-impact.ipynb",
                                           "3-knowledge-lineage.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebooks_have_no_outputs(path: Path) -> None:
    """Outputs (plots, tables, tracebacks, execution counts) never reach git."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} was executed"
    assert set(nb["metadata"]) <= {"kernelspec", "language_info"}, nb["metadata"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_docs_show_every_figure(path: Path) -> None:
    """docs/analyst.md shows each exported plot, and the PNG is committed."""
    text = DOCS.read_text(encoding="utf-8")
    figures = _figures(path)
    assert len(figures) >= 3, f"{path.name} exports only {figures}"
    for name in figures:
        assert (IMG / f"{name}.png").is_file(), f"docs/img/{name}.png is missing"
        assert f"img/{name}.png" in text, f"docs/analyst.md does not show {name}.png"


@pytest.fixture(scope="session")
def notebook_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vectorgraphdb.demo import build_demo

    base = tmp_path_factory.mktemp("notebooks")
    build_demo(base / "db", source=ROOT, checkout=base / "src", max_commits=60, workers=1)
    return base


@pytest.fixture(scope="session")
def jupyter_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding a kernel spec named ``python3`` that runs this interpreter (the
    project venv); on ``JUPYTER_PATH`` it comes before any user or system kernel."""
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "vgdb venv", "language": "python"}), encoding="utf-8")
    return base


@pytest.fixture
def notebook_env(notebook_db: Path, jupyter_path: Path, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The kernel inherits these: the database, the clone, and where to write figures."""
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter_path))
    monkeypatch.setenv("VGDB_NOTEBOOK_DB", str(notebook_db / "db"))
    monkeypatch.setenv("VGDB_NOTEBOOK_CHECKOUT", str(notebook_db / "src"))
    monkeypatch.setenv("VGDB_NOTEBOOK_IMG", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    yield tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path: Path, notebook_env: Path) -> None:
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    assert KernelSpecManager().get_kernel_spec("python3").argv[0] == sys.executable
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=120, allow_errors=False,
                            resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute()  # raises CellExecutionError (with the cell and traceback) if a cell fails
    written = sorted(p.stem for p in notebook_env.glob("*.png"))
    assert written == sorted(_figures(path))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
