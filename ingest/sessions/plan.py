"""The rules of session events, applied in one place: events + graph context -> rows.

The batch loader and the one-at-a-time write API both run :func:`plan_events` (the API with a
batch of one), so dedup, conflict and supersession, failure signatures and reference
resolution have exactly one implementation. Planning is pure: it reads a
:class:`~graphdb.sessions.SessionContext` and never raises for one bad event; each problem
becomes an :class:`~ingest.sessions.format.Issue` with the event's line.

Rules (docs/sessions.md):

- dedup (kinds in :data:`DEDUP_KINDS`): same kind, category and repository as a current
  entry and the same normalized hash or trigram similarity >= 0.9 -> the existing entry's id,
  ``merged``, and an IN_SESSION edge (merged=true) from it to the new session;
- conflict (kinds in :data:`CONFLICT_KINDS`, non-empty category): a current entry of the same
  kind, category and repository whose scope overlaps, and that the event does not declare in
  ``supersedes`` -> the event is rejected, naming the active entries;
- supersession: the target must exist, be of the same kind, be current (else the error names
  the head of its chain) and not start after the new entry; the old entry gets
  ``valid_to`` = the new one's ``valid_from`` and status ``superseded``, and a SUPERSEDES
  edge new -> old records reason, evidence, time and author.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import polars as pl

from graphdb.sessions import (
    RepoPaths,
    SessionContext,
    SessionNeeds,
    SessionWrite,
    StoredEntry,
    scopes_overlap,
)
from ingest.academic.identity import paper_id, parse_identifier
from ingest.sessions.dedup import DedupIndex, entry_hash, entry_key, trigram_mask
from ingest.sessions.format import (
    ENTRY_KINDS,
    FORMAT_VERSION,
    CommitEvent,
    EntryEvent,
    Event,
    Issue,
    OutcomeEvent,
    SessionEnd,
    SessionStart,
    TouchEvent,
)
from ingest.sessions.signature import failure_signature, normalize_path
from schema import (
    ABOUT,
    AGENT,
    BASED_ON,
    BY,
    COMMIT,
    ENTRY,
    FILE,
    IN_SESSION,
    PAPER,
    PERSON,
    REFERENCES,
    RESOLVES,
    SESSION,
    SUPERSEDES,
    SYMBOL,
    NodeTable,
    RelTable,
    Source,
    agent_id,
    entry_id,
    file_id,
    frame_schema,
    normalize_email,
    person_id,
    session_id,
    symbol_id,
)

__all__ = [
    "CONFLICT_KINDS", "DEDUP_KINDS", "Plan", "Recorded", "collect_needs", "event_entry_id",
    "paper_ref", "plan_events", "session_key",
]

#: Kinds merged with a near-duplicate current entry instead of stored twice. Failures and
#: resolutions are occurrences, not knowledge: failures group by signature instead.
DEDUP_KINDS = frozenset({"decision", "pattern", "insight", "intent", "note"})
#: Kinds that may contradict each other: a new one must supersede what it overlaps.
CONFLICT_KINDS = frozenset({"decision", "pattern"})

_NS = uuid.UUID("5f0c2b8e-8a51-4d0e-9c57-2f3b7d1e6a90")
_NS_BYTES = _NS.bytes
_DISPLAY = re.compile("^(?:" + "|".join(ENTRY_KINDS.values()) + r")-\d+$")
_SHA = re.compile(r"^[0-9a-f]{4,40}$")


@dataclass(frozen=True, slots=True)
class Recorded:
    """What became of one entry or outcome event."""

    kind: str
    id: str
    display_id: str
    #: a near-duplicate of the existing entry ``id`` (nothing new was created)
    merged: bool = False
    #: the same event was loaded before (same session and id): nothing changed
    already: bool = False
    similarity: float = 1.0
    file: str = ""
    line: int = 0
    unresolved: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "display_id": self.display_id,
                "merged": self.merged, "already": self.already, "file": self.file,
                "line": self.line, "unresolved": list(self.unresolved)}


@dataclass
class Plan:
    write: SessionWrite
    recorded: list[Recorded]
    issues: list[Issue]
    counts: dict[str, int]


def session_key(name: str) -> str:
    """A session's node id from the name written in a log (``session:`` prefix optional)."""
    return session_id(name.removeprefix("session:"))


def event_entry_id(session: str, key: str, event: EntryEvent | None = None) -> str:
    """Deterministic id of an entry event, so loading a log again changes nothing: from the
    session and the event's own id, or (without one) from its kind, time and text."""
    if key:
        return _keyed_entry_id(session, key)
    assert event is not None
    name = "\x1f".join((session, event.kind, event.ts.isoformat(), event.title,
                        event.content, event.error))
    return entry_id(_uuid5(name))


@lru_cache(maxsize=65536)
def _keyed_entry_id(session: str, key: str) -> str:
    """The id of the entry ``key`` of ``session`` (asked for again by every reference)."""
    return entry_id(_uuid5(f"{session}\x1f{key}"))


def _uuid5(name: str) -> str:
    """``str(uuid.uuid5(_NS, name))``, without building a UUID object."""
    h = bytearray(hashlib.sha1(_NS_BYTES + name.encode("utf-8")).digest()[:16])
    h[6] = (h[6] & 0x0F) | 0x50  # version 5
    h[8] = (h[8] & 0x3F) | 0x80  # RFC 4122 variant
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def paper_ref(ref: Mapping[str, str] | str) -> tuple[str, dict[str, str]] | None:
    """A paper reference (DOI or arXiv id, as text or ``{doi|arxiv, title, kind, location}``)
    -> (paper id, properties), or None when it names no identifier we can key on."""
    if isinstance(ref, str) and ref.strip().startswith("paper:"):  # a key, as the API takes
        scheme, _, value = ref.strip().removeprefix("paper:").partition(":")
        if scheme == "title":
            return ref.strip(), {"doi": "", "arxiv": ""}
        ref = {"doi": value} if scheme == "doi" else {"arxiv": value}
    props = dict(ref) if isinstance(ref, Mapping) else {}
    text = (props.get("doi") or props.get("arxiv") or props.get("url") or "") if props else ref
    text = str(text).strip()
    if props.get("arxiv") and not text.lower().startswith(("arxiv:", "http")):
        text = f"arXiv:{text}"
    # the academic domain's identity rules, so a session's paper is the same node as the
    # one met in a BibTeX file or a docstring (DOIs in any form, arXiv ids, RFCs)
    found = parse_identifier(text)
    if found is None:
        return None
    scheme, value = found
    if scheme == "doi":
        return paper_id(doi=value), {**props, "doi": value, "arxiv": ""}
    return paper_id(arxiv=value), {**props, "arxiv": value, "doi": ""}


def _commit_ref(ref: str) -> str | None:
    sha = ref.strip().lower().removeprefix("commit:")
    return sha if _SHA.match(sha) else None


def _symbol_ref(ref: str) -> tuple[str, str] | str:
    """``sym:...`` -> that id; ``path#qualname`` -> (path, qualname)."""
    if ref.startswith("sym:"):
        return ref
    path, _, qualname = ref.partition("#")
    return normalize_path(path), qualname


def collect_needs(events: Iterable[Event]) -> SessionNeeds:
    """What the events refer to, so the context is read in a few queries."""
    needs = SessionNeeds()
    for ev in events:
        sid = session_key(ev.session)
        needs.sessions.add(sid)
        if isinstance(ev, SessionStart):
            if ev.parent:
                needs.sessions.add(session_key(ev.parent))
            if ev.repo:
                needs.repos.add(ev.repo)
            if ev.agent:
                needs.agents.add(agent_id(ev.agent))
            if ev.user_email:
                needs.persons.add(person_id(ev.user_email))
        elif isinstance(ev, EntryEvent):
            needs.entry_ids.add(event_entry_id(sid, ev.key, ev))
            for ref in (*ev.supersedes, *ev.resolves):
                _need_entry(needs, sid, ref)
            if ev.kind in DEDUP_KINDS:
                needs.groups.add((ev.kind, ev.category))
            if ev.kind in CONFLICT_KINDS and ev.category:
                needs.scoped = True
            if ev.repo:
                needs.repos.add(ev.repo)
            if ev.author:
                (needs.persons if "@" in ev.author else needs.agents).add(_author_id(ev.author))
            needs.paths.update(normalize_path(p) for p in (*ev.files, ev.path) if p)
            _need_symbols(needs, ev.symbols)
            needs.commits.update(c for c in map(_commit_ref, ev.commits) if c)
            needs.papers.update(p[0] for p in map(paper_ref, (*ev.papers, *ev.based_on)) if p)
        elif isinstance(ev, OutcomeEvent):
            _need_entry(needs, sid, ev.resolution)
        elif isinstance(ev, TouchEvent):
            needs.paths.update(normalize_path(p) for p in ev.paths)
            _need_symbols(needs, ev.symbols)
        elif isinstance(ev, CommitEvent) and (sha := _commit_ref(ev.sha)):
            needs.commits.add(sha)
    return needs


def _need_entry(needs: SessionNeeds, sid: str, ref: str) -> None:
    if ref.startswith("entry:"):
        needs.entry_ids.add(ref)
    elif _DISPLAY.match(ref):
        needs.display_ids.add(ref)
    else:
        needs.entry_ids.add(event_entry_id(sid, ref))


def _need_symbols(needs: SessionNeeds, refs: Iterable[str]) -> None:
    for ref in refs:
        parsed = _symbol_ref(ref)
        if isinstance(parsed, str):
            needs.symbol_ids.add(parsed)
        else:
            needs.qualnames.add(parsed[1])
            needs.paths.add(parsed[0])


def _author_id(author: str) -> str:
    return person_id(author) if "@" in author else agent_id(author)


@dataclass
class _Known:
    """An entry as the rules track it through the batch (stored or new)."""

    id: str
    display_id: str
    kind: str
    category: str
    repo: str
    scope: tuple[str, ...]
    title: str
    valid_from: datetime | None
    active: bool
    new: bool
    sessions: set[str] = field(default_factory=set)
    resolves: list[str] = field(default_factory=list)
    expires_at: datetime | None = None
    #: successor in this batch, or the stored head of its chain
    next: str = ""
    head: tuple[str, str] | None = None

    @classmethod
    def stored(cls, e: StoredEntry) -> _Known:
        return cls(e.id, e.display_id, e.kind, e.category, e.repo, e.scope, e.title,
                   e.valid_from, e.current, False, set(e.sessions), list(e.resolves),
                   e.expires_at, head=e.head)

    def ref(self) -> dict[str, str]:
        return {"id": self.id, "display_id": self.display_id, "title": self.title}


@dataclass
class _Session:
    id: str
    repo: str
    by: list[tuple[NodeTable, str]]
    new: bool


class _Reject(Exception):
    """The event is rejected: an error issue, nothing written."""

    def __init__(self, message: str, code: str = "invalid",
                 active: tuple[dict[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.message, self.code, self.active = message, code, active


class _Planner:
    def __init__(self, ctx: SessionContext, events: list[Event], *, now: datetime,
                 source: str) -> None:
        self.ctx, self.now, self.source = ctx, now, source
        self.known = {e.id: _Known.stored(e) for e in ctx.entries.values()}
        self.display = dict(ctx.display)
        self.counters = dict(ctx.counters)
        self.starts: dict[str, SessionStart] = {}
        self.ends: dict[str, SessionEnd] = {}
        self.batch_sessions: set[str] = set()
        for ev in events:
            sid = session_key(ev.session)
            self.batch_sessions.add(sid)
            if isinstance(ev, SessionStart):
                self.starts.setdefault(sid, ev)
            elif isinstance(ev, SessionEnd):
                self.ends[sid] = ev
        self.sessions: dict[str, _Session] = {}
        self.nodes: dict[str, list[dict]] = defaultdict(list)
        self.new_nodes: set[str] = set()
        self.entry_rows: dict[str, dict] = {}
        #: (rel, from, to) names -> rows; tables are hashed by name (frozen dataclasses hash
        #: every field, which showed in profiles)
        self.rels: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
        self.rel_tables: dict[tuple[str, str, str], tuple[RelTable, NodeTable, NodeTable]] = {}
        self.superseded: list[dict] = []
        self.ended: list[dict] = []
        self.active: dict[tuple[str, str, str], dict[str, _Known]] = defaultdict(dict)
        self.repo_paths = {repo: RepoPaths(p) for repo, p in ctx.repo_paths.items()}
        self.tokens: dict[str, int] = {}
        #: entry -> its trigram mask, from the dedup search to the index (the same text)
        self.masks: dict[str, int] = {}
        self.dedup: dict[tuple[str, str, str], DedupIndex] = defaultdict(DedupIndex)
        for e in ctx.entries.values():
            if e.current:
                group = (e.kind, e.repo, e.category)
                self.active[group][e.id] = self.known[e.id]
                if e.kind in DEDUP_KINDS:
                    self.dedup[group].add(e.id, e.hash or entry_hash(
                        e.kind, e.category, e.title, e.content),
                        self.trigrams(f"{e.title}\n{e.content}"))
        self.alias: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.about = set(ctx.session_about)
        self.commit_sessions = set(ctx.commit_sessions)
        self.outcomes = set(ctx.outcomes)
        self.in_session: set[tuple[str, str]] = set()
        self.pending_resolves: list[tuple[EntryEvent, str]] = []
        self.pending_outcomes: list[OutcomeEvent] = []
        self.issues: list[Issue] = []
        self.recorded: list[Recorded] = []
        self.counts: dict[str, int] = defaultdict(int)

    # -- helpers --------------------------------------------------------------------------
    def warn(self, ev: Event, message: str, code: str = "unresolved", ref: str = "") -> None:
        self.issues.append(Issue(ev.file, ev.line, "warning", message, code=code, ref=ref))

    def stamp(self, row: dict, valid_from: datetime) -> dict:
        row["source"] = self.source
        row["confidence"] = 1.0
        row["recorded_at"] = self.now
        row["valid_from"] = valid_from
        return row

    def trigrams(self, text: str) -> int:
        """The trigrams of ``text``, as a bitmask (:func:`~ingest.sessions.dedup.trigram_mask`)."""
        found = self.tokens.get(text)
        if found is None:
            found = self.tokens[text] = trigram_mask(text)
        return found

    def rel(self, rel: RelTable, src: NodeTable, dst: NodeTable, a: str, b: str,
            valid_from: datetime, **props: Any) -> None:
        key = (rel.name, src.name, dst.name)
        if key not in self.rel_tables:
            self.rel_tables[key] = (rel, src, dst)
        self.rels[key].append(self.stamp({"from": a, "to": b, **props}, valid_from))

    def node(self, table: NodeTable, row: dict, valid_from: datetime) -> None:
        if row["id"] not in self.new_nodes:
            self.new_nodes.add(row["id"])
            self.nodes[table.name].append(self.stamp(row, valid_from))

    def ensure_agent(self, name: str, model: str, kind: str, ts: datetime) -> str:
        aid = agent_id(name)
        if aid not in self.ctx.agents:
            self.node(AGENT, {"id": aid, "name": name, "model": model, "kind": kind or "agent"},
                      ts)
        return aid

    def ensure_person(self, email: str, name: str, ts: datetime) -> str:
        pid = person_id(email)
        if pid not in self.ctx.persons:
            self.node(PERSON, {"id": pid, "name": name, "email": normalize_email(email),
                               "aliases": []}, ts)
        return pid

    # -- sessions -------------------------------------------------------------------------
    def session(self, ev: Event) -> _Session:
        sid = session_key(ev.session)
        if (found := self.sessions.get(sid)) is not None:
            return found
        stored = self.ctx.sessions.get(sid)
        if stored is not None:
            by = [(AGENT if t == AGENT.name else PERSON, i) for t, i in stored["by"]]
            by.sort(key=lambda x: x[0] is not AGENT)
            found = _Session(sid, stored["repo"], by, new=False)
            end = self.ends.get(sid)
            if end is not None and stored["ended_at"] is None:
                self.ended.append({"id": sid, "ended_at": end.ts, "summary": end.summary,
                                   "outcome": end.outcome})
        else:
            found = self._new_session(sid, ev)
        self.sessions[sid] = found
        return found

    def _new_session(self, sid: str, ev: Event) -> _Session:
        start, end = self.starts.get(sid), self.ends.get(sid)
        if start is None:
            self.warn(ev, f"session {ev.session!r} has no session_start; created from this "
                          "event", code="order")
        first = start or ev
        by: list[tuple[NodeTable, str]] = []
        if start is not None and start.agent:
            by.append((AGENT, self.ensure_agent(start.agent, start.model, start.agent_kind,
                                                first.ts)))
        if start is not None and start.user_email:
            by.append((PERSON, self.ensure_person(start.user_email, start.user_name, first.ts)))
        parent = session_key(start.parent) if start is not None and start.parent else ""
        row = {"id": sid, "title": start.title if start else "", "started_at": first.ts,
               "ended_at": end.ts if end else None, "agent": start.agent if start else "",
               "model": start.model if start else "", "parent": parent,
               "repo": start.repo if start else "", "summary": end.summary if end else "",
               "outcome": end.outcome if end else "", "file": first.file,
               "format_version": FORMAT_VERSION}
        self.node(SESSION, row, first.ts)
        self.counts["sessions"] += 1
        for table, target in by:
            self.rel(BY, SESSION, table, sid, target, first.ts)
        if parent:
            if parent in self.ctx.sessions or parent in self.batch_sessions:
                self.rel(IN_SESSION, SESSION, SESSION, sid, parent, first.ts, merged=False)
            else:
                self.warn(first, f"parent session {start.parent!r} is not in the graph; kept "
                                 "as the session's parent property only")
        return _Session(sid, row["repo"], by, new=True)

    # -- references -----------------------------------------------------------------------
    def file(self, repo: str, path: str) -> str | None:
        path = normalize_path(path)
        found = self.ctx.files.get(path, [])
        if repo:
            fid = file_id(repo, path)
            return fid if any(f[1] == fid for f in found) else None
        current = [f[1] for f in found if f[2]] or [f[1] for f in found]
        return current[0] if len(set(current)) == 1 else None

    def symbol(self, repo: str, ref: str) -> str | None:
        parsed = _symbol_ref(ref)
        if isinstance(parsed, str):
            return parsed if parsed in self.ctx.symbols else None
        path, qualname = parsed
        if repo:
            sid = symbol_id(repo, path, qualname)
            return sid if sid in self.ctx.symbols else None
        hits = {s for s in self.ctx.symbols if s.endswith(f"/{path}#{qualname}")}
        return hits.pop() if len(hits) == 1 else None

    def commit(self, ref: str) -> str | None:
        sha = _commit_ref(ref)
        hits = self.ctx.commits.get(sha or "", [])
        return hits[0] if len(hits) == 1 else None

    def entry(self, ref: str, sid: str) -> _Known | None:
        if ref.startswith("entry:"):
            eid = ref
        elif _DISPLAY.match(ref):
            eid = self.display.get(ref, "")
        else:
            eid = event_entry_id(sid, ref)
        return self.known.get(self.alias.get(eid, eid))

    def head(self, k: _Known) -> _Known | tuple[str, str]:
        seen = set()
        while k.id not in seen:
            seen.add(k.id)
            if k.next:
                k = self.known[k.next]
            elif k.head is not None and not k.active:
                nxt = self.known.get(k.head[0])
                if nxt is None:
                    return k.head
                k = nxt
            else:
                break
        return k

    # -- events ---------------------------------------------------------------------------
    def apply(self, ev: Event) -> None:
        try:
            if isinstance(ev, EntryEvent):
                self.entry_event(ev)
            elif isinstance(ev, OutcomeEvent):
                self.session(ev)
                self.pending_outcomes.append(ev)
            elif isinstance(ev, TouchEvent):
                self.touch(ev)
            elif isinstance(ev, CommitEvent):
                self.commit_event(ev)
            else:
                self.session(ev)
        except _Reject as exc:
            self.counts["rejected"] += 1
            self.issues.append(Issue(ev.file, ev.line, "error", exc.message,
                                     active=exc.active, code=exc.code))

    def touch(self, ev: TouchEvent) -> None:
        sess = self.session(ev)
        repo = ev.repo or sess.repo
        for path in ev.paths:
            target = self.file(repo, path)
            if target is None:
                self.warn(ev, f"file_{ev.kind}: no file {path!r}"
                              f"{f' in repository {repo!r}' if repo else ''}", ref=f"file:{path}")
            else:
                self.session_about(ev, sess, FILE, target)
        for ref in ev.symbols:
            target = self.symbol(repo, ref)
            if target is None:
                self.warn(ev, f"file_{ev.kind}: no symbol {ref!r}", ref=f"symbol:{ref}")
            else:
                self.session_about(ev, sess, SYMBOL, target)

    def session_about(self, ev: TouchEvent, sess: _Session, table: NodeTable,
                      target: str) -> None:
        key = (sess.id, target, ev.kind)
        if key not in self.about:
            self.about.add(key)
            self.rel(ABOUT, SESSION, table, sess.id, target, ev.ts, kind=ev.kind)

    def commit_event(self, ev: CommitEvent) -> None:
        sess = self.session(ev)
        target = self.commit(ev.sha)
        if target is None:
            self.warn(ev, f"commit: no commit {ev.sha!r} (or the prefix is ambiguous)",
                      ref=f"commit:{ev.sha}")
        else:
            self.link_commit(ev, sess, target)

    def link_commit(self, ev: Event, sess: _Session, commit: str) -> None:
        if (commit, sess.id) not in self.commit_sessions:
            self.commit_sessions.add((commit, sess.id))
            self.rel(IN_SESSION, COMMIT, SESSION, commit, sess.id, ev.ts, merged=False)

    def author(self, ev: EntryEvent, sess: _Session) -> tuple[NodeTable, str] | None:
        if ev.author:
            if "@" in ev.author:
                return PERSON, self.ensure_person(ev.author, "", ev.ts)
            return AGENT, self.ensure_agent(ev.author, "", "", ev.ts)
        return sess.by[0] if sess.by else None

    def entry_event(self, ev: EntryEvent) -> None:
        sess = self.session(ev)
        eid = event_entry_id(sess.id, ev.key, ev)
        if eid in self.ctx.entries:
            k = self.known[eid]
            self.counts["already"] += 1
            self.recorded.append(Recorded(ev.kind, eid, k.display_id, already=True,
                                          file=ev.file, line=ev.line))
            return
        if eid in self.known or eid in self.alias:
            raise _Reject(f"{ev.kind}: same id as line {self.lines.get(eid, 0)} of this "
                          f"session{f' (id {ev.key!r})' if ev.key else ''}; skipped")
        repo = ev.repo or sess.repo
        by = self.author(ev, sess)
        unresolved: list[str] = []
        targets = self.supersede_targets(ev, sess, unresolved)
        exclude = frozenset(t.id for t in targets)
        group = (ev.kind, repo, ev.category)
        if ev.kind in DEDUP_KINDS:
            hash_, mask = entry_key(ev.kind, ev.category, ev.title, ev.content)
            self.masks[eid] = mask
            hit = self.dedup[group].find(hash_, mask, exclude=exclude)
            if hit is not None and not self._lapsed(self.known[hit[0]], ev.ts):
                self.merge(ev, sess, eid, self.known[hit[0]], hit[1])
                return
        else:
            hash_ = entry_hash(ev.kind, ev.category, ev.title, ev.content)
        if ev.kind in CONFLICT_KINDS and ev.category:
            paths = self.repo_paths.get(repo, ())
            clash = [k for k in self.active[group].values()
                     if k.id not in exclude and scopes_overlap(k.scope, ev.scope, paths)]
            if clash:
                names = ", ".join(f"{k.display_id} {k.title!r}" for k in clash)
                raise _Reject(
                    f"{ev.kind} {ev.title!r} conflicts with active {names} ({ev.kind}, "
                    f"category {ev.category!r}, overlapping scope): declare supersedes "
                    f"{clash[0].display_id}, narrow the scope, or abort",
                    code="conflict", active=tuple(k.ref() for k in clash))
        self.create(ev, sess, eid, repo, by, hash_, targets, unresolved)

    def _lapsed(self, k: _Known, ts: datetime) -> bool:
        return k.expires_at is not None and k.expires_at <= ts

    def supersede_targets(self, ev: EntryEvent, sess: _Session,
                          unresolved: list[str]) -> list[_Known]:
        targets = []
        for ref in ev.supersedes:
            t = self.entry(ref, sess.id)
            if t is None:
                unresolved.append(f"supersedes:{ref}")
                self.warn(ev, f"{ev.kind}: supersedes {ref!r}, which names no entry",
                          ref=f"supersedes:{ref}")
                continue
            if t.kind != ev.kind:
                raise _Reject(f"{ev.kind} cannot supersede {t.display_id}, a {t.kind}")
            if not t.active:
                head = self.head(t)
                hid, hdisplay = (head.id, head.display_id) if isinstance(head, _Known) else head
                title = head.title if isinstance(head, _Known) else ""
                raise _Reject(
                    f"{t.display_id} is no longer active: it was superseded; the current head "
                    f"of its chain is {hdisplay} ({hid}); supersede {hdisplay} instead",
                    code="superseded",
                    active=({"id": hid, "display_id": hdisplay, "title": title},))
            if t.valid_from is not None and t.valid_from > ev.ts:
                raise _Reject(f"{ev.kind} at {ev.ts.isoformat()} cannot supersede "
                              f"{t.display_id}, valid only from {t.valid_from.isoformat()}")
            targets.append(t)
        return targets

    def merge(self, ev: EntryEvent, sess: _Session, eid: str, k: _Known,
              score: float) -> None:
        self.alias[eid] = k.id
        self.lines[eid] = ev.line
        self.masks.pop(eid, None)
        if sess.id not in k.sessions:
            k.sessions.add(sess.id)
            self.rel(IN_SESSION, ENTRY, SESSION, k.id, sess.id, ev.ts, merged=True)
        self.counts["merged"] += 1
        self.recorded.append(Recorded(ev.kind, k.id, k.display_id, merged=True,
                                      similarity=round(score, 3), file=ev.file, line=ev.line))

    def next_display(self, kind: str) -> str:
        prefix = ENTRY_KINDS[kind]
        self.counters[prefix] = self.counters.get(prefix, 0) + 1
        return f"{prefix}-{self.counters[prefix]}"

    def create(self, ev: EntryEvent, sess: _Session, eid: str, repo: str,
               by: tuple[NodeTable, str] | None, hash_: str, targets: list[_Known],
               unresolved: list[str]) -> None:
        display = self.next_display(ev.kind)
        row = {"id": eid, "display_id": display, "kind": ev.kind, "title": ev.title,
               "content": ev.content, "scope": list(ev.scope), "status": "active",
               "category": ev.category, "outcome": ev.outcome or None,
               "signature": (failure_signature(ev.error, ev.category, ev.path)
                             if ev.kind == "failure" else None),
               "error": ev.error or None, "approach": ev.approach or None,
               "context": ev.context or None, "repo": repo, "hash": hash_,
               "expires_at": ev.expires_at, "unresolved": unresolved}
        self.node(ENTRY, row, ev.ts)
        self.entry_rows[eid] = row
        k = _Known(eid, display, ev.kind, ev.category, repo, ev.scope, ev.title, ev.ts, True,
                   True, {sess.id}, expires_at=ev.expires_at)
        self.known[eid] = k
        self.display[display] = eid
        self.lines[eid] = ev.line
        group = (ev.kind, repo, ev.category)
        self.active[group][eid] = k
        if ev.kind in DEDUP_KINDS:
            self.dedup[group].add(eid, hash_, self.masks.pop(eid))
        self.rel(IN_SESSION, ENTRY, SESSION, eid, sess.id, ev.ts, merged=False)
        if by is not None:
            self.rel(BY, ENTRY, by[0], eid, by[1], ev.ts)
        for t in targets:
            self.supersede(ev, k, t, by)
        self.references(ev, sess, eid, repo, unresolved)
        if ev.kind == "resolution":
            self.pending_resolves.append((ev, eid))
        self.counts["entries"] += 1
        self.recorded.append(Recorded(ev.kind, eid, display, file=ev.file, line=ev.line,
                                      unresolved=tuple(unresolved)))

    def supersede(self, ev: EntryEvent, new: _Known, old: _Known,
                  by: tuple[NodeTable, str] | None) -> None:
        if old.new:
            self.entry_rows[old.id].update(valid_to=ev.ts, status="superseded")
        else:
            self.superseded.append({"id": old.id, "valid_to": ev.ts})
        old.active, old.next = False, new.id
        group = (old.kind, old.repo, old.category)
        self.active[group].pop(old.id, None)
        self.dedup[group].remove(old.id)
        self.rel(SUPERSEDES, ENTRY, ENTRY, new.id, old.id, ev.ts, reason=ev.reason,
                 evidence=ev.evidence, at=ev.ts, by=by[1] if by else "")
        self.counts["superseded"] += 1

    def references(self, ev: EntryEvent, sess: _Session, eid: str, repo: str,
                   unresolved: list[str]) -> None:
        where = f"{repo!r}" if repo else "any repository"
        for path in dict.fromkeys(p for p in (ev.path, *ev.files) if p):
            target = self.file(repo, path)
            if target is None:
                unresolved.append(f"file:{path}")
                self.warn(ev, f"{ev.kind}: no file {path!r} in {where}; kept as unresolved",
                          ref=f"file:{path}")
            else:
                self.rel(ABOUT, ENTRY, FILE, eid, target, ev.ts, kind="about")
        for ref in ev.symbols:
            target = self.symbol(repo, ref)
            if target is None:
                unresolved.append(f"symbol:{ref}")
                self.warn(ev, f"{ev.kind}: no symbol {ref!r} in {where}; kept as unresolved",
                          ref=f"symbol:{ref}")
            else:
                self.rel(ABOUT, ENTRY, SYMBOL, eid, target, ev.ts, kind="about")
        for ref in ev.commits:
            target = self.commit(ref)
            if target is None:
                unresolved.append(f"commit:{ref}")
                self.warn(ev, f"{ev.kind}: no commit {ref!r} (or the prefix is ambiguous); "
                              "kept as unresolved", ref=f"commit:{ref}")
            else:
                self.rel(ABOUT, ENTRY, COMMIT, eid, target, ev.ts, kind="about")
                self.link_commit(ev, sess, target)
        location = f"{ev.file}:{ev.line}" if ev.file else sess.id
        for refs, rel in ((ev.papers, REFERENCES), (ev.based_on, BASED_ON)):
            for ref in refs:
                found = paper_ref(ref)
                if found is None:
                    unresolved.append(f"paper:{ref if isinstance(ref, str) else dict(ref)}")
                    self.warn(ev, f"{ev.kind}: paper reference {ref!r} has no DOI or arXiv id; "
                                  "kept as unresolved", ref=f"paper:{ref}")
                    continue
                pid, props = found
                if pid.startswith("paper:title:") and pid not in self.ctx.papers:
                    unresolved.append(f"paper:{ref}")
                    self.warn(ev, f"{ev.kind}: no paper {pid!r}; kept as unresolved",
                              ref=f"paper:{ref}")
                    continue
                if pid not in self.ctx.papers:
                    self.node(PAPER, {"id": pid, "kind": props.get("kind") or "paper",
                                      "doi": props["doi"], "arxiv": props["arxiv"],
                                      "title": props.get("title", ""),
                                      "url": props.get("url", ""), "resolved": False}, ev.ts)
                if rel is REFERENCES:
                    self.rel(REFERENCES, ENTRY, PAPER, eid, pid, ev.ts,
                             kind=props.get("reference") or "cites",
                             location=props.get("location") or location)
                else:
                    self.rel(BASED_ON, ENTRY, PAPER, eid, pid, ev.ts)

    # -- deferred: what may point forward in time ------------------------------------------
    def finish(self) -> None:
        for ev, eid in self.pending_resolves:
            row, k = self.entry_rows[eid], self.known[eid]
            for ref in ev.resolves:
                target = self.entry(ref, session_key(ev.session))
                if target is None or target.kind != "failure":
                    what = "names no entry" if target is None else f"is a {target.kind}"
                    row["unresolved"].append(f"resolves:{ref}")
                    self.warn(ev, f"resolution: resolves {ref!r}, which {what}; kept as "
                                  "unresolved", ref=f"resolves:{ref}")
                    continue
                k.resolves.append(target.id)
                self.outcomes.add((eid, target.id, ev.outcome, ev.ts))
                self.rel(RESOLVES, ENTRY, ENTRY, eid, target.id, ev.ts, outcome=ev.outcome)
        for ev in self.pending_outcomes:
            try:
                self.outcome(ev)
            except _Reject as exc:
                self.counts["rejected"] += 1
                self.issues.append(Issue(ev.file, ev.line, "error", exc.message, code=exc.code))

    def outcome(self, ev: OutcomeEvent) -> None:
        res = self.entry(ev.resolution, session_key(ev.session))
        if res is None:
            raise _Reject(f"outcome: resolution {ev.resolution!r} names no entry; outcome not "
                          "recorded", code="not_found")
        if res.kind != "resolution":
            raise _Reject(f"outcome: {res.display_id} is a {res.kind}, not a resolution")
        if not res.resolves:
            raise _Reject(f"outcome: {res.display_id} resolves no failure in the graph; "
                          "outcome not recorded", code="not_found")
        fresh = False
        for failure in res.resolves:
            key = (res.id, failure, ev.outcome, ev.ts)
            if key not in self.outcomes:
                self.outcomes.add(key)
                self.rel(RESOLVES, ENTRY, ENTRY, res.id, failure, ev.ts, outcome=ev.outcome)
                fresh = True
        self.counts["outcomes" if fresh else "already"] += 1
        self.recorded.append(Recorded("outcome", res.id, res.display_id, already=not fresh,
                                      file=ev.file, line=ev.line))

    def build(self) -> SessionWrite:
        write = SessionWrite()
        for table in (AGENT, PERSON, PAPER, SESSION, ENTRY):
            rows = self.nodes.get(table.name)
            if rows:
                write.nodes.append((table, _frame(table, rows)))
        for key, rows in self.rels.items():
            rel, src, dst = self.rel_tables[key]
            write.rels.append((rel, src, dst, _frame(rel, rows)))
        if self.superseded:
            write.superseded = pl.DataFrame(self.superseded, schema={
                "id": pl.Utf8(), "valid_to": pl.Datetime("us")})
        if self.ended:
            write.ended = pl.DataFrame(self.ended, schema={
                "id": pl.Utf8(), "ended_at": pl.Datetime("us"), "summary": pl.Utf8(),
                "outcome": pl.Utf8()})
        write.counters = {p: n for p, n in self.counters.items()
                          if n != self.ctx.counters.get(p)}
        return write


def _frame(table: NodeTable | RelTable, rows: list[dict]) -> pl.DataFrame:
    return pl.from_dicts(rows, schema=frame_schema(table))


def plan_events(events: list[Event], ctx: SessionContext, *, now: datetime,
                source: str = Source.SESSION) -> Plan:
    """Apply the rules to ``events`` (already in the order they happened) against ``ctx``."""
    planner = _Planner(ctx, events, now=now, source=str(source))
    for ev in events:
        planner.apply(ev)
    planner.finish()
    return Plan(planner.build(), planner.recorded, planner.issues, dict(planner.counts))
