"""The one-at-a-time write API: record a decision, a failure, an outcome... as it happens.

Each call builds the same event a session log line would hold, validates it with the same
code (:func:`~ingest.sessions.format.event_from_dict`) and runs the same rules as the batch
loader on a batch of one (:func:`~ingest.sessions.load.apply_events`). Where the loader
reports a bad line and goes on, a call raises:

- :class:`~schema.ConflictError` (exit code 4) when the entry contradicts an active one, or
  supersedes one that is no longer active (``active`` names the head of its chain);
- :class:`~schema.NodeNotFoundError` when an outcome names no resolution;
- :class:`~schema.SessionFormatError` when the event is invalid.

Warnings (references that name nothing) do not raise; they are on the result — unless the
recorder is ``strict`` (the GraphQL API's), where a link to nothing raises
:class:`~schema.NodeNotFoundError` naming the reference and its closest matches, and nothing
is written. :meth:`Recorder.record_batch` writes several records in one transaction, all or
nothing.

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
from ingest.secrets import redact_values
from ingest.sessions.format import Event, Issue, SessionStart, event_from_dict
from ingest.sessions.links import closest, normalize_links
from ingest.sessions.load import apply_events
from ingest.sessions.plan import Plan, Recorded, session_key
from schema import (
    SESSION,
    ConflictError,
    NodeNotFoundError,
    SessionFormatError,
    Source,
)

__all__ = ["ENTRY_TYPES", "RecordResult", "Recorder"]

#: Record types a batch may hold (the session format's, but session start and end).
ENTRY_TYPES = ("decision", "pattern", "failure", "resolution", "insight", "intent", "note",
               "outcome", "file_read", "file_modified", "commit")

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
    #: when it happened (the event's time, naive UTC)
    at: datetime | None = None
    #: touches and commits: what was linked (file, symbol and commit ids)
    linked: tuple[str, ...] = ()

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
                 source: str | None = None, strict: bool = False) -> None:
        self.store = store
        self.session = session or f"api-{uuid.uuid4().hex[:12]}"
        self._source = source
        self.source = source or (Source.USER if not agent else Source.SESSION)
        self.strict = strict
        self._at: datetime | None = None
        self._start = {"title": title, "agent": agent, "model": model,
                       "agent_kind": agent_kind, "repo": repo, "parent": parent,
                       "user": {"name": user_name, "email": user_email} if user_email else None}
        self._started = False
        #: secrets taken out of the texts of the call being applied (ingest/secrets.py)
        self._redacted: list[Issue] = []

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

    def record_batch(self, records: Sequence[Mapping[str, Any]]) -> list[RecordResult]:
        """Several records in one transaction, all or nothing, in order (a later one may
        name an earlier one by its ``id``: a resolution of a failure just recorded).

        Each record is a session-log event without ``session`` and ``ts``: ``type`` (one of
        :data:`ENTRY_TYPES`), its fields, and optionally ``at`` (a datetime). A refusal
        raises as the single calls do, with ``index``: which record (0-based).
        """
        events: list[Event] = []
        for index, record in enumerate(records):
            data = dict(record)
            if data.get("type") not in ENTRY_TYPES:
                raise _indexed(SessionFormatError(
                    f"record {index}: type must be one of {', '.join(ENTRY_TYPES)}, got "
                    f"{data.get('type')!r}"), index)
            at = data.pop("at", None)
            try:
                events.append(self._event(data, at, line=index + 1))
            except SessionFormatError as exc:
                raise _indexed(exc, index) from None
        if not events:
            return []
        return self._results(events, *self._apply_events(events))

    # -- internals ----------------------------------------------------------------------------
    def _entry(self, kind: str, at: datetime | None, **fields: Any) -> RecordResult:
        return self._one(self._apply({"type": kind, **fields}, at))

    def _event(self, data: dict[str, Any], at: datetime | None, *, line: int = 0) -> Event:
        data = {k: v for k, v in data.items() if v not in (None, "", [], ())}
        if self.strict:
            data = normalize_links(self.store, data)
        data.update(session=self.session, ts=_iso(at), v=1)
        data, redactions = redact_values(data, where="")
        self._redacted += [Issue("", line, "warning", f"redacted a secret ({r.detector}) in "
                                 f"{r.where.strip()}", code="redacted") for r in redactions]
        try:
            return event_from_dict(data, line=line)[0]
        except (ValueError, TypeError) as exc:
            raise SessionFormatError(f"invalid {data.get('type')} event: {exc}") from exc

    def _ensure_session(self, at: datetime | None) -> list[Event]:
        if self._started:
            return []
        self._started = True
        found = self.store.cypher(f"MATCH (s:{SESSION.name}) WHERE s.id = $id RETURN s.agent",
                                  {"id": session_key(self.session)})
        if not found.is_empty():
            if self._source is None and found["s.agent"][0]:  # an agent's session
                self.source = Source.SESSION
            return []
        start = self._event({"type": "session_start", **self._start}, at)
        assert isinstance(start, SessionStart)
        return [start]

    def _apply(self, data: dict[str, Any], at: datetime | None,
               ) -> tuple[list[Recorded], list[Issue]]:
        return self._apply_events([self._event(data, at, line=1)])

    def _apply_events(self, batch: list[Event]) -> tuple[list[Recorded], list[Issue]]:
        self._at = batch[-1].ts
        events = [*self._ensure_session(batch[0].ts), *batch]
        redacted, self._redacted = self._redacted, []
        try:
            plan, _ = apply_events(self.store, events, source=self.source, check=self._check)
        except _Refused as refused:
            raise self._error(refused.issue) from None
        return plan.recorded, redacted + [i for i in plan.issues
                                          if i.severity == "warning" and i.code != "order"]

    def _check(self, plan: Plan) -> None:
        """Refuse the whole batch (nothing is written) on an error, or, when strict, on a
        link to nothing."""
        for issue in plan.issues:
            if issue.severity == "error" or (self.strict and issue.code == "unresolved"
                                             and issue.ref):
                raise _Refused(issue)

    def _error(self, issue: Issue) -> Exception:
        index = max(issue.line - 1, 0)
        if issue.code in ("conflict", "superseded"):
            return _indexed(ConflictError(issue.message, active=list(issue.active)), index)
        if issue.code == "not_found":
            return _indexed(NodeNotFoundError(issue.message, node_id=""), index)
        if issue.code == "unresolved":
            kind, _, value = issue.ref.partition(":")
            near = closest(self.store, issue.ref)
            return _indexed(NodeNotFoundError(
                issue.message.replace("; kept as unresolved", "") + "; nothing was written",
                node_id=value, closest=near,
                suggestion=(f"did you mean {', '.join(near)}?" if near else
                            f"check the {kind} reference (ingest the code or papers first?)")),
                index)
        return _indexed(SessionFormatError(issue.message), index)

    def _results(self, events: list[Event], recorded: list[Recorded],
                 warnings: list[Issue]) -> list[RecordResult]:
        """One result per record, in order: entries and outcomes as the plan recorded them,
        touches and commits (which make no entry) by their type."""
        by_line: dict[int, Recorded] = {r.line: r for r in recorded}
        out = []
        for ev in events:
            said = tuple(w.message for w in warnings if w.line == ev.line)
            r = by_line.get(ev.line)
            if r is None:
                out.append(RecordResult(ev.type, "", "", warnings=said, at=ev.ts))
            else:
                out.append(RecordResult(r.kind, r.id, r.display_id, merged=r.merged,
                                        similarity=r.similarity, unresolved=r.unresolved,
                                        warnings=said, at=ev.ts))
        return out

    def _one(self, result: tuple[list[Recorded], list[Any]]) -> RecordResult:
        recorded, warnings = result
        r = recorded[-1]
        return RecordResult(r.kind, r.id, r.display_id, merged=r.merged,
                            similarity=r.similarity, unresolved=r.unresolved,
                            warnings=tuple(w.message for w in warnings), at=self._at)


class _Refused(Exception):
    """Raised inside the write transaction to roll it back (never leaves this module)."""

    def __init__(self, issue: Issue) -> None:
        super().__init__(issue.message)
        self.issue = issue


def _indexed(exc: Exception, index: int) -> Exception:
    exc.index = index  # type: ignore[attr-defined]  # which record of a batch
    return exc


def _list(value: Sequence[str] | str) -> list[str]:
    return [value] if isinstance(value, str) else list(value)
