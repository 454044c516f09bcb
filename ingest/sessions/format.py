"""The session event format, version 1 (docs/sessions.md): JSON lines in, typed events out.

:func:`parse_lines` never raises for a bad line: every line that is not a valid event becomes
an :class:`Issue` with its line number (severity ``error``: the line is skipped) and every
other line an event, so one bad line never costs the good ones. Lines written in a newer
format version are reported and skipped, never guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ingest.secrets import redact_values

__all__ = [
    "ENTRY_KINDS", "EVENT_TYPES", "FORMAT_VERSION", "OUTCOMES", "SESSION_OUTCOMES", "CommitEvent",
    "EntryEvent", "Event", "Issue", "OutcomeEvent", "Parsed", "SessionEnd", "SessionStart",
    "TouchEvent", "event_from_dict", "parse_lines", "parse_time",
]

#: The version this reader understands; a line with a larger ``v`` is skipped.
FORMAT_VERSION = 1

#: Entry kinds, with the prefix of their display ids (DEC-12).
ENTRY_KINDS: dict[str, str] = {
    "decision": "DEC", "failure": "FAIL", "resolution": "RES", "pattern": "PAT",
    "insight": "INS", "intent": "INT", "note": "NOTE",
}
#: Outcomes of a resolution, best first (the order resolutions are ranked in).
OUTCOMES: tuple[str, ...] = ("success", "partial", "pending", "failed", "worsened")
SESSION_OUTCOMES: tuple[str, ...] = ("success", "partial", "failed", "abandoned")


@dataclass(frozen=True, slots=True)
class Issue:
    """A problem with one line: ``error`` (the line was skipped) or ``warning`` (kept)."""

    file: str
    line: int
    severity: str
    message: str
    #: for conflicts: the active entries the line collided with ({id, display_id, title})
    active: tuple[dict[str, str], ...] = ()
    #: what kind of problem: invalid | conflict | superseded | not_found | unresolved | order |
    #: redacted (a secret was taken out of the line: which detector, which field)
    code: str = "invalid"
    #: for unresolved references: what was named (``symbol:<ref>``, ``file:<path>``, ...)
    ref: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {"file": self.file, "line": self.line, "severity": self.severity,
               "code": self.code, "message": self.message}
        if self.active:
            out["active"] = list(self.active)
        return out


@dataclass(frozen=True, slots=True)
class Event:
    """What every event has: where it came from, when, and in which session."""

    session: str
    ts: datetime
    file: str = ""
    line: int = 0

    @property
    def type(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class SessionStart(Event):
    title: str = ""
    agent: str = ""
    model: str = ""
    agent_kind: str = ""
    parent: str = ""
    repo: str = ""
    user_name: str = ""
    user_email: str = ""

    @property
    def type(self) -> str:
        return "session_start"


@dataclass(frozen=True, slots=True)
class SessionEnd(Event):
    summary: str = ""
    outcome: str = ""

    @property
    def type(self) -> str:
        return "session_end"


@dataclass(frozen=True, slots=True)
class EntryEvent(Event):
    """A decision, failure, resolution, pattern, insight, intent or note."""

    kind: str = "note"
    key: str = ""  # the event's own id, unique in its session ("id" in the file)
    title: str = ""
    content: str = ""
    category: str = ""
    scope: tuple[str, ...] = ()
    repo: str = ""
    author: str = ""
    supersedes: tuple[str, ...] = ()
    reason: str = ""
    evidence: str = ""
    files: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    commits: tuple[str, ...] = ()
    papers: tuple[Mapping[str, str] | str, ...] = ()
    based_on: tuple[Mapping[str, str] | str, ...] = ()
    error: str = ""
    approach: str = ""
    context: str = ""
    path: str = ""  # failures: the file it happened in ("file" in the event)
    resolves: tuple[str, ...] = ()
    outcome: str = ""
    expires_at: datetime | None = None

    @property
    def type(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class OutcomeEvent(Event):
    """A new outcome for an earlier resolution (appended, never edited in place)."""

    resolution: str = ""
    outcome: str = "pending"

    @property
    def type(self) -> str:
        return "outcome"


@dataclass(frozen=True, slots=True)
class TouchEvent(Event):
    """Files (and symbols) the session read or modified."""

    kind: str = "read"  # read | modified
    paths: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    repo: str = ""

    @property
    def type(self) -> str:
        return f"file_{self.kind}"


@dataclass(frozen=True, slots=True)
class CommitEvent(Event):
    sha: str = ""
    repo: str = ""

    @property
    def type(self) -> str:
        return "commit"


# -------------------------------------------------------------------------- field validation
_STR, _STRS, _TIME, _REFS, _SHA = "string", "list of strings", "timestamp", "references", "sha"

_COMMON = {"v": "int", "type": _STR, "ts": _TIME, "session": _STR}
_ENTRY = {"id": _STR, "title": _STR, "content": _STR, "category": _STR, "scope": _STRS,
          "repo": _STR, "author": _STR, "supersedes": _STRS, "reason": _STR, "evidence": _STR,
          "files": _STRS, "symbols": _STRS, "commits": _STRS, "papers": _REFS}
_TOUCH = {"paths": _STRS, "path": _STR, "symbols": _STRS, "repo": _STR}

#: event type -> {field: type}; required fields are listed in _REQUIRED.
EVENT_TYPES: dict[str, dict[str, str]] = {
    "session_start": {"title": _STR, "agent": _STR, "model": _STR, "agent_kind": _STR,
                      "parent": _STR, "repo": _STR, "user": "user"},
    "session_end": {"summary": _STR, "outcome": _STR},
    "decision": {**_ENTRY, "based_on": _REFS},
    "failure": {**_ENTRY, "error": _STR, "approach": _STR, "context": _STR, "file": _STR},
    "resolution": {**_ENTRY, "resolves": _STRS, "approach": _STR, "outcome": _STR},
    "outcome": {"resolution": _STR, "outcome": _STR},
    "pattern": dict(_ENTRY),
    "insight": dict(_ENTRY),
    "intent": {**_ENTRY, "expires_at": _TIME},
    "note": dict(_ENTRY),
    "file_read": dict(_TOUCH),
    "file_modified": dict(_TOUCH),
    "commit": {"sha": _SHA, "repo": _STR},
}
#: event type -> every field it may carry (the common ones first) -> its type
_FIELDS: dict[str, dict[str, str]] = {k: {**spec, **_COMMON} for k, spec in EVENT_TYPES.items()}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "decision": ("title",), "failure": ("error",), "resolution": ("title", "resolves"),
    "outcome": ("resolution", "outcome"), "pattern": ("title",), "insight": ("title",),
    "intent": ("title",), "note": ("title",), "commit": ("sha",),
}


class _Bad(ValueError):
    """A reason the line is not a valid event."""


def parse_time(value: Any) -> datetime:
    """ISO 8601 text -> naive UTC datetime (text without an offset is taken as UTC)."""
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"expected an ISO 8601 timestamp, got {value!r}")
    try:
        ts = datetime.fromisoformat(value.strip())
    except ValueError:
        raise _Bad(f"not an ISO 8601 timestamp: {value!r}") from None
    return ts.astimezone(UTC).replace(tzinfo=None) if ts.tzinfo else ts


def _check(name: str, kind: str, value: Any) -> Any:
    if kind == _STR:
        if not isinstance(value, str):
            raise _Bad(f"field {name!r} must be a string")
        return value.strip()
    if kind == _SHA:
        if not isinstance(value, str) or not value.strip():
            raise _Bad(f"field {name!r} must be a commit sha")
        return value.strip().lower()
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise _Bad(f"field {name!r} must be a positive integer")
        return value
    if kind == _TIME:
        return parse_time(value)
    if kind == _STRS:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Bad(f"field {name!r} must be a string or a list of strings")
        return tuple(dict.fromkeys(v.strip() for v in value if v.strip()))
    if kind == _REFS:
        if isinstance(value, (str, dict)):
            value = [value]
        if not isinstance(value, list) or not all(
                isinstance(v, str) or (isinstance(v, dict)
                                       and all(isinstance(x, str) for x in v.values()))
                for v in value):
            raise _Bad(f"field {name!r} must be a list of strings or objects of strings")
        return tuple(value)
    if kind == "user":
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise _Bad(f"field {name!r} must be an object with name and email")
        return value
    raise AssertionError(kind)  # pragma: no cover


def _enum(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value and value not in allowed:
        raise _Bad(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def event_from_dict(data: Mapping[str, Any], *, file: str = "", line: int = 0,
                    ) -> tuple[Event, list[str]]:
    """One decoded JSON object -> (event, warnings). Raises ValueError if it is not valid."""
    if not isinstance(data, Mapping):
        raise _Bad("a line must hold a JSON object")
    version = data.get("v", FORMAT_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        raise _Bad(f"format version {version} is newer than this reader understands "
                   f"({FORMAT_VERSION}); line skipped (upgrade vectorgraphdb)")
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        raise _Bad("missing event type (field 'type')")
    spec = EVENT_TYPES.get(kind)
    if spec is None:
        raise _Bad(f"unknown event type {kind!r} (known: {', '.join(EVENT_TYPES)})")
    for name in ("ts", "session", *_REQUIRED.get(kind, ())):
        if data.get(name) in (None, "", []):
            raise _Bad(f"{kind}: missing required field {name!r}")
    values: dict[str, Any] = {}
    warnings: list[str] = []
    fields = _FIELDS[kind]
    for name, value in data.items():
        expected = fields.get(name)
        if expected is None:
            warnings.append(f"{kind}: unknown field {name!r} ignored")
        elif value.__class__ is str and expected is _STR:  # the common case, inlined
            values[name] = value.strip()
        elif value is not None:
            values[name] = _check(name, expected, value)
    if not values["session"]:
        raise _Bad(f"{kind}: missing required field 'session'")
    base = {"session": values["session"], "ts": values["ts"], "file": file, "line": line}
    get = values.get
    if kind == "session_start":
        user = get("user") or {}
        return SessionStart(**base, title=get("title", ""), agent=get("agent", ""),
                            model=get("model", ""), agent_kind=get("agent_kind", ""),
                            parent=get("parent", ""), repo=get("repo", ""),
                            user_name=user.get("name", "").strip(),
                            user_email=user.get("email", "").strip()), warnings
    if kind == "session_end":
        return SessionEnd(**base, summary=get("summary", ""),
                          outcome=_enum("outcome", get("outcome", ""), SESSION_OUTCOMES)
                          ), warnings
    if kind == "outcome":
        return OutcomeEvent(**base, resolution=values["resolution"],
                            outcome=_enum("outcome", values["outcome"], OUTCOMES)), warnings
    if kind in ("file_read", "file_modified"):
        paths = tuple(dict.fromkeys((*get("paths", ()), *((get("path"),) if get("path") else ()))))
        if not paths and not get("symbols"):
            raise _Bad(f"{kind}: missing required field 'paths'")
        return TouchEvent(**base, kind=kind.removeprefix("file_"), paths=paths,
                          symbols=get("symbols", ()), repo=get("repo", "")), warnings
    if kind == "commit":
        return CommitEvent(**base, sha=values["sha"], repo=get("repo", "")), warnings
    title = get("title", "")
    if kind == "failure" and not title:
        lines = values["error"].strip().splitlines() or ["failure"]
        title = lines[-1].strip()[:200]
    return EntryEvent(
        **base, kind=kind, key=get("id", ""), title=title, content=get("content", ""),
        category=get("category", "").lower(), scope=get("scope", ()), repo=get("repo", ""),
        author=get("author", ""), supersedes=get("supersedes", ()), reason=get("reason", ""),
        evidence=get("evidence", ""), files=get("files", ()), symbols=get("symbols", ()),
        commits=get("commits", ()), papers=get("papers", ()), based_on=get("based_on", ()),
        error=get("error", ""), approach=get("approach", ""), context=get("context", ""),
        path=get("file", ""), resolves=get("resolves", ()),
        outcome=_enum("outcome", get("outcome", ""), OUTCOMES) or (
            "pending" if kind == "resolution" else ""),
        expires_at=get("expires_at"),
    ), warnings


@dataclass
class Parsed:
    """Events of one file in file order, and the issues of its lines."""

    events: list[Event] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    lines: int = 0


def _lone_surrogate(data: object) -> bool:
    """JSON may escape half a UTF-16 pair; such a string cannot become UTF-8 (ids, Kuzu)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def parse_lines(lines: Iterable[str | bytes], *, file: str = "") -> Parsed:
    """Decode and validate JSON lines; never raises for a bad line."""
    out = Parsed()
    loads = json.loads
    for number, raw in enumerate(lines, start=1):
        out.lines = number
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                out.issues.append(Issue(file, number, "error", f"not UTF-8: {exc.reason}"))
                continue
        if not raw.strip():
            continue
        try:
            data = loads(raw)
            if ("\\ud" in raw or "\\uD" in raw) and _lone_surrogate(data):
                out.issues.append(Issue(file, number, "error",
                                        "a string holds a lone surrogate (\\ud800-\\udfff "
                                        "escape without its pair): not encodable text"))
                continue
            data, redactions = redact_values(data, where=f"{file}:{number}")
            out.issues.extend(Issue(file, number, "warning",
                                    f"redacted a secret ({r.detector}) in "
                                    f"{r.where.removeprefix(f'{file}:{number} ')}",
                                    code="redacted")
                              for r in redactions)
            event, warnings = event_from_dict(data, file=file, line=number)
        except RecursionError:  # json (and repr) recurse per level of nesting
            out.issues.append(Issue(file, number, "error", "nested too deeply (arrays or "
                                                           "objects inside each other)"))
            continue
        except (_Bad, TypeError) as exc:
            out.issues.append(Issue(file, number, "error", str(exc)))
            continue
        except ValueError as exc:
            out.issues.append(Issue(file, number, "error", f"not valid JSON: {exc}"))
            continue
        out.events.append(event)
        out.issues.extend(Issue(file, number, "warning", w) for w in warnings)
    return out
