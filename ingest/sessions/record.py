"""The one-at-a-time write API: record a decision, a failure, an outcome... as it happens.

Each call builds the same event a session log line would hold, validates it with the same
code (:func:`~ingest.sessions.format.event_from_dict`) and runs the same rules as the batch
loader on a batch of one (:func:`~ingest.sessions.load.apply_events`). Where the loader
reports a bad line and goes on, a call raises:

- :class:`~schema.ConflictError` (exit code 4) when the entry contradicts an active one, or
  supersedes one that is no longer active (``active`` names the head of its chain);
- :class:`~schema.NodeNotFoundError` when an outcome names no resolution;
- :class:`~schema.SessionFormatError` when the event is invalid.

Warnings (references that name nothing) do not raise; they are on the result.

    rec = Recorder(store, session="2026-11-03-ingest", agent="claude", model="opus-4")
    dec = rec.record_decision("COPY for bulk loads", "UNWIND CREATE for small deltas",
                              category="storage", scope=["graphdb/**"])
    dec.display_id  # 'DEC-1'
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphdb import Store
from ingest.sessions.format import Event, SessionStart, event_from_dict
from ingest.sessions.load import apply_events
from ingest.sessions.plan import Recorded, session_key
from schema import (
    SESSION,
    ConflictError,
    NodeNotFoundError,
    SessionFormatError,
    Source,
)

__all__ = ["RecordResult", "Recorder"]

PaperRef = Mapping[str, str] | str


@dataclass(frozen=True, slots=True)
class RecordResult:
    """The entry a call created or merged into: ``id``, ``display_id``, ``merged``."""

    kind: str
    id: str
    display_id: str
    merged: bool = False
    similarity: float = 1.0
    unresolved: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "display_id": self.display_id,
                "merged": self.merged, "unresolved": list(self.unresolved),
                "warnings": list(self.warnings)}


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _iso(ts: datetime | None) -> str:
    return (ts or _now()).isoformat()


class Recorder:
    """Records the events of one session through ``store`` (open read-write).

    The session is created with the recorder's agent, model, repository and user on the first
    call, unless it is already in the graph. Without ``session`` a fresh id is made up.
    """

    def __init__(self, store: Store, *, session: str | None = None, title: str = "",
                 agent: str = "", model: str = "", agent_kind: str = "", repo: str = "",
                 parent: str = "", user_name: str = "", user_email: str = "",
                 source: str | None = None) -> None:
        self.store = store
        self.session = session or f"api-{uuid.uuid4().hex[:12]}"
        self.source = source or (Source.USER if not agent else Source.SESSION)
        self._start = {"title": title, "agent": agent, "model": model,
                       "agent_kind": agent_kind, "repo": repo, "parent": parent,
                       "user": {"name": user_name, "email": user_email} if user_email else None}
        self._started = False

    # -- sessions -----------------------------------------------------------------------------
    def start_session(self, *, at: datetime | None = None) -> None:
        """Record the session's start now (otherwise the first record does)."""
        events = self._ensure_session(at)
        if events:  # not yet in the graph
            apply_events(self.store, events, source=self.source)

    def end_session(self, summary: str = "", outcome: str = "", *,
                    at: datetime | None = None) -> None:
        self._apply({"type": "session_end", "summary": summary, "outcome": outcome}, at)

    # -- entries ------------------------------------------------------------------------------
    def record_decision(self, title: str, content: str = "", *, category: str = "",
                        scope: Sequence[str] = (), supersedes: Sequence[str] | str = (),
                        reason: str = "", evidence: str = "", based_on: Sequence[PaperRef] = (),
                        at: datetime | None = None, **refs: Any) -> RecordResult:
        """A decision; ``supersedes`` (ids or display ids) replaces active ones it overlaps."""
        return self._entry("decision", at, title=title, content=content, category=category,
                           scope=list(scope), supersedes=_list(supersedes), reason=reason,
                           evidence=evidence, based_on=list(based_on), **refs)

    def record_pattern(self, title: str, content: str = "", *, category: str = "",
                       scope: Sequence[str] = (), supersedes: Sequence[str] | str = (),
                       reason: str = "", evidence: str = "", at: datetime | None = None,
                       **refs: Any) -> RecordResult:
        return self._entry("pattern", at, title=title, content=content, category=category,
                           scope=list(scope), supersedes=_list(supersedes), reason=reason,
                           evidence=evidence, **refs)

    def record_failure(self, error: str, *, title: str = "", approach: str = "",
                       context: str = "", file: str = "", category: str = "",
                       at: datetime | None = None, **refs: Any) -> RecordResult:
        """A failure; its signature groups it with the same failure from other sessions."""
        return self._entry("failure", at, error=error, title=title, approach=approach,
                           context=context, file=file, category=category, **refs)

    def record_resolution(self, failure: str, title: str, content: str = "", *,
                          approach: str = "", outcome: str = "pending",
                          at: datetime | None = None, **refs: Any) -> RecordResult:
        """What was done about ``failure`` (id or display id), with a first outcome."""
        return self._entry("resolution", at, resolves=[failure], title=title, content=content,
                           approach=approach, outcome=outcome, **refs)

    def record_outcome(self, resolution: str, outcome: str, *,
                       at: datetime | None = None) -> RecordResult:
        """A later outcome of ``resolution``: a new RESOLVES edge, never an edit."""
        return self._one(self._apply({"type": "outcome", "resolution": resolution,
                                      "outcome": outcome}, at))

    def record_insight(self, title: str, content: str = "", *, category: str = "",
                       scope: Sequence[str] = (), at: datetime | None = None,
                       **refs: Any) -> RecordResult:
        return self._entry("insight", at, title=title, content=content, category=category,
                           scope=list(scope), **refs)

    def record_intent(self, title: str, content: str = "", *, scope: Sequence[str] = (),
                      expires_at: datetime | None = None, at: datetime | None = None,
                      **refs: Any) -> RecordResult:
        """What the session means to change (paths or APIs in ``scope``), until
        ``expires_at``."""
        return self._entry("intent", at, title=title, content=content, scope=list(scope),
                           expires_at=expires_at.isoformat() if expires_at else None, **refs)

    def record_note(self, title: str, content: str = "", *, at: datetime | None = None,
                    **refs: Any) -> RecordResult:
        return self._entry("note", at, title=title, content=content, **refs)

    def record_files(self, paths: Sequence[str], *, modified: bool = False,
                     at: datetime | None = None) -> list[str]:
        """Files the session read (or modified); returns warnings for unknown files."""
        issues = self._apply({"type": "file_modified" if modified else "file_read",
                              "paths": list(paths)}, at)[1]
        return [i.message for i in issues]

    def record_commit(self, sha: str, *, at: datetime | None = None) -> list[str]:
        """A commit the session made (full or abbreviated sha)."""
        return [i.message for i in self._apply({"type": "commit", "sha": sha}, at)[1]]

    # -- internals ----------------------------------------------------------------------------
    def _entry(self, kind: str, at: datetime | None, **fields: Any) -> RecordResult:
        return self._one(self._apply({"type": kind, **fields}, at))

    def _event(self, data: dict[str, Any], at: datetime | None) -> Event:
        data = {k: v for k, v in data.items() if v not in (None, "", [], ())}
        data.update(session=self.session, ts=_iso(at), v=1)
        try:
            return event_from_dict(data)[0]
        except (ValueError, TypeError) as exc:
            raise SessionFormatError(f"invalid {data.get('type')} event: {exc}") from exc

    def _ensure_session(self, at: datetime | None) -> list[Event]:
        if self._started:
            return []
        self._started = True
        found = self.store.cypher(f"MATCH (s:{SESSION.name}) WHERE s.id = $id RETURN s.id",
                                  {"id": session_key(self.session)})
        if not found.is_empty():
            return []
        start = self._event({"type": "session_start", **self._start}, at)
        assert isinstance(start, SessionStart)
        return [start]

    def _apply(self, data: dict[str, Any], at: datetime | None,
               ) -> tuple[list[Recorded], list[Any]]:
        event = self._event(data, at)
        events = [*self._ensure_session(at), event]
        plan, _ = apply_events(self.store, events, source=self.source)
        errors = [i for i in plan.issues if i.severity == "error"]
        if errors:
            issue = errors[0]
            if issue.code in ("conflict", "superseded"):
                raise ConflictError(issue.message, active=list(issue.active))
            if issue.code == "not_found":
                raise NodeNotFoundError(issue.message, node_id=data.get("resolution", ""))
            raise SessionFormatError(issue.message)
        return plan.recorded, [i for i in plan.issues
                               if i.severity == "warning" and i.code != "order"]

    def _one(self, result: tuple[list[Recorded], list[Any]]) -> RecordResult:
        recorded, warnings = result
        r = recorded[-1]
        return RecordResult(r.kind, r.id, r.display_id, merged=r.merged,
                            similarity=r.similarity, unresolved=r.unresolved,
                            warnings=tuple(w.message for w in warnings))


def _list(value: Sequence[str] | str) -> list[str]:
    return [value] if isinstance(value, str) else list(value)
