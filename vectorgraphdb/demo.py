"""The analysis database the notebooks (and their test) use: a clone of a real git
repository — by default this one — ingested with its history, plus the example working
session and the bibliography shipped in ``datasets/``.

Cloning (``git clone --no-local``) gives a tree with exactly the committed history and none of
the work in progress, and a working copy that change-impact analyses can diff against.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from graphdb import Store
from ingest import IngestOptions, IngestSummary, ingest_repository
from ingest.academic import ingest_papers
from ingest.history.pipeline import HistoryOptions
from ingest.sessions import load_sessions
from queries.communities import detect_communities
from schema import IngestError

__all__ = ["DemoDatabase", "build_demo", "demo_paths"]

#: the checkout this package lives in (an editable install / a clone of the project)
PROJECT = Path(__file__).resolve().parent.parent
SESSIONS = (PROJECT / "datasets" / "sessions" / "example-session.jsonl",)
PAPERS = (PROJECT / "datasets" / "academic" / "papers.jsonl",
          PROJECT / "datasets" / "academic" / "platform.bib")


@dataclass(frozen=True)
class DemoDatabase:
    """Where the demo database and the clone it was ingested from are."""

    db: Path
    checkout: Path
    repo: str
    summary: IngestSummary | None = None


def demo_paths() -> tuple[Path, Path, Path]:
    """(database, clone, source repository) from ``VGDB_NOTEBOOK_DB``,
    ``VGDB_NOTEBOOK_CHECKOUT`` and ``VGDB_NOTEBOOK_SOURCE`` (defaults: ``.vgdb-notebooks``
    and ``.vgdb-notebooks.src`` in the project, this project as the source)."""
    db = Path(os.environ.get("VGDB_NOTEBOOK_DB", PROJECT / ".vgdb-notebooks"))
    checkout = Path(os.environ.get("VGDB_NOTEBOOK_CHECKOUT", f"{db}.src"))
    source = Path(os.environ.get("VGDB_NOTEBOOK_SOURCE", PROJECT))
    return db, checkout, source


def build_demo(db: str | os.PathLike[str], *, source: str | os.PathLike[str] = PROJECT,
               checkout: str | os.PathLike[str] | None = None, repo: str = "vectorgraphdb",
               history: bool = True, max_commits: int | None = None, workers: int | None = None,
               sessions: tuple[Path, ...] = SESSIONS,
               papers: tuple[Path, ...] = PAPERS) -> DemoDatabase:
    """Clone ``source`` (a git repository; its committed HEAD) to ``checkout``, ingest it into
    ``db`` as ``repo`` (with its history unless told not to), detect its file and symbol
    communities (seed 0), then load ``sessions`` and ``papers``. An existing ``db`` or
    ``checkout`` is replaced."""
    db = Path(db)
    checkout = Path(checkout) if checkout is not None else Path(f"{db}.src")
    for path in (db, checkout):
        if path.exists():
            shutil.rmtree(path)
    checkout.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["git", "clone", "--quiet", "--no-local", str(source), str(checkout)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise IngestError(f"cannot clone {source}: {done.stderr.strip()}",
                          suggestion="VGDB_NOTEBOOK_SOURCE must name a git repository")
    options = IngestOptions(name=repo, workers=workers,
                            history=HistoryOptions(enabled=history, max_commits=max_commits))
    with Store.open(db) as store:
        summary = ingest_repository(store, checkout, options=options)
        for scope in ("file", "symbol"):  # as `vgdb ingest` does after the load
            detect_communities(store, repo, scope=scope, seed=0)
        if sessions:
            load_sessions(store, list(sessions))
        if papers:
            ingest_papers(store, list(papers))
    return DemoDatabase(db, checkout, repo, summary)
