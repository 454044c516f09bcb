"""Ingest jobs started through GraphQL (admin only): run in a background thread under the
server's write lock, with their progress readable by query while they run.

Readers go on while a job writes: Kuzu commits the ingest as one transaction, so a query sees
the graph before it or after it, never half of it.
"""

import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import strawberry
from strawberry.scalars import JSON

from api.steps import communities_after_ingest
from api.write_lock import WriteLock
from graphdb import Store
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, check_root, ingest_repository
from schema import VgdbError

__all__ = ["IngestJob", "IngestJobs"]


@strawberry.type(description="An ingest started by the `ingest` mutation.")
class IngestJob:
    id: str
    path: str
    repo: str
    status: str = strawberry.field(description="queued | running | done | failed")
    phase: str = strawberry.field(description="what it is doing: parse, resolve, load, ...")
    done: int
    total: int
    started_at: datetime
    finished_at: datetime | None
    error: str | None
    summary: JSON | None = strawberry.field(
        description="the ingest's summary (as `vgdb ingest --json`), once done")


@dataclass
class _State:
    id: str
    path: str
    repo: str
    status: str = "queued"
    phase: str = ""
    done: int = 0
    total: int = 0
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    finished_at: datetime | None = None
    error: str | None = None
    summary: dict[str, Any] | None = None

    def view(self) -> IngestJob:
        return IngestJob(id=self.id, path=self.path, repo=self.repo, status=self.status,
                         phase=self.phase, done=self.done, total=self.total,
                         started_at=self.started_at, finished_at=self.finished_at,
                         error=self.error, summary=self.summary)


class IngestJobs:
    """The ingest jobs of one server (kept in memory, newest 50)."""

    def __init__(self, store: Store, write_lock: WriteLock) -> None:
        self.store = store
        self.write_lock = write_lock
        self._jobs: dict[str, _State] = {}
        self._guard = threading.Lock()

    def start(self, path: str, *, name: str | None, history: bool) -> IngestJob:
        root = check_root(path)  # a bad path is an error now, not a failed job later
        state = _State(uuid.uuid4().hex[:12], str(root), name or root.name)
        with self._guard:
            self._jobs[state.id] = state
            for old in list(self._jobs)[:-50]:
                del self._jobs[old]
        options = IngestOptions(name=name, history=HistoryOptions(enabled=history))
        threading.Thread(target=self._run, args=(state, root, options), daemon=True,
                         name=f"ingest-{state.id}").start()
        return state.view()

    def get(self, job_id: str) -> IngestJob | None:
        with self._guard:
            state = self._jobs.get(job_id)
            return state.view() if state else None

    def all(self) -> list[IngestJob]:
        with self._guard:
            return [s.view() for s in reversed(self._jobs.values())]

    def _run(self, state: _State, root: Path, options: IngestOptions) -> None:
        def progress(phase: str, done: int, total: int) -> None:
            state.phase, state.done, state.total = phase, done, total

        with self.write_lock.hold(f"ingest job {state.id} ({state.repo})"):
            state.status = "running"
            started = time.perf_counter()
            try:
                summary = ingest_repository(self.store, root, options=options,
                                            progress=progress)
                data = summary.to_dict()
                state.phase = "communities"
                data["communities"] = communities_after_ingest(self.store, data)
                data["seconds"]["total"] = round(time.perf_counter() - started, 3)
                state.phase = "checkpoint"  # deferred while readers were busy; fine if not yet
                data["checkpointed"] = self.store.checkpoint(timeout=2.0)
                state.summary, state.status = data, "done"
            except VgdbError as exc:
                state.error, state.status = exc.message, "failed"
            except Exception as exc:  # reported on the job; the server goes on
                state.error, state.status = f"{type(exc).__name__}: {exc}", "failed"
            finally:
                state.finished_at = datetime.now(UTC)
