"""Per-repository status of batch runs, kept in ``<db>/batch/status.json`` beside the graph.

Written after every transition (temporary file, fsync, rename), so a batch killed at any
point leaves the last state of every repository: ``running`` for the one being loaded (its
load is one transaction, so the graph holds it entirely or not at all), ``done`` with the
fingerprint of what was ingested, or ``failed`` with why.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["BatchStatus"]

_VERSION = 1


class BatchStatus:
    """The status file of one database directory, keyed by repository name."""

    def __init__(self, db_dir: Path) -> None:
        self.path = db_dir / "batch" / "status.json"
        self.repos: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if data.get("version") == _VERSION:
                    self.repos = dict(data.get("repositories", {}))
            except (OSError, ValueError):
                self.repos = {}  # unreadable: every repository is simply ingested again

    def get(self, name: str) -> dict[str, Any] | None:
        return self.repos.get(name)

    def set(self, name: str, status: str, **fields: Any) -> None:
        """Record ``status`` (extracting, running, done, failed) and ``fields``; the
        previous fields are kept unless given again."""
        record = {**self.repos.get(name, {}), **fields, "status": status,
                  "updated_at": datetime.now(UTC).isoformat(timespec="seconds")}
        self.repos[name] = record
        self._save()

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"version": _VERSION, "repositories": self.repos}, handle, indent=1,
                      sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(self.path)
