"""Working sessions of agents and people: the event format, its reader and the write API.

- :mod:`~ingest.sessions.format` — the JSON-lines event format (docs/sessions.md), pure;
- :mod:`~ingest.sessions.signature`, :mod:`~ingest.sessions.dedup` — failure signatures and
  near-duplicate detection, pure;
- :mod:`~ingest.sessions.plan` — the rules (dedup, conflict, supersession, references),
  applied to events against what the graph holds;
- :mod:`~ingest.sessions.load` — batch load of session logs (``vgdb ingest-session``);
- :mod:`~ingest.sessions.record` — the one-at-a-time write API (:class:`Recorder`).
"""

from __future__ import annotations

from ingest.sessions.format import FORMAT_VERSION, Issue, parse_lines
from ingest.sessions.load import SessionLoadSummary, apply_events, load_sessions
from ingest.sessions.plan import Recorded
from ingest.sessions.record import Recorder, RecordResult

__all__ = [
    "FORMAT_VERSION", "Issue", "RecordResult", "Recorded", "Recorder", "SessionLoadSummary",
    "apply_events", "load_sessions", "parse_lines",
]
