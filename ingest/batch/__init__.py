"""Batch ingest of many repositories into one graph (``vgdb ingest-batch``): a manifest,
sources cloned and checked out, extraction on an executor, one writer, resumable status.

Names load on first use (PEP 562): an extraction worker unpickling
``ingest.batch.jobs.extract_job`` imports this package, and must not pay for the database
layer the runner needs.
"""

from importlib import import_module
from typing import Any

_NAMES = {
    "HistoryBounds": "manifest", "Manifest": "manifest", "ManifestError": "manifest",
    "RepoEntry": "manifest", "load_manifest": "manifest",
    "BatchSummary": "run", "RepoOutcome": "run", "run_batch": "run",
    "SourceError": "sources",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        value = getattr(import_module(f"ingest.batch.{_NAMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ingest.batch' has no attribute {name!r}")
