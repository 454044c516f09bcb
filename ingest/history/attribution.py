"""Which symbols each commit touched, and which symbols a commit renamed or moved.

A commit's diff hunks (no context lines) are intersected with the symbol spans of the two
revisions of each file: every changed line belongs to the innermost definition holding it
(lines outside every definition belong to the module), so editing a method touches the
method, not its class. A symbol that disappears in a commit while a body-similar one of the
same kind appears (a rename, a move to another file, a file rename) is linked new -> old.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from rapidfuzz.fuzz import ratio

from ingest.extract import SymbolRow
from ingest.frames import module_short_name
from ingest.history.blobs import BlobSymbols
from ingest.history.gitlog import Change, CommitRow
from schema import MODULE_QUALNAME, SymbolKind, symbol_id

__all__ = ["Attribution", "Lineage", "Touch", "attribute_commit"]

#: Body similarity (0..1, names masked, indentation ignored) from which a vanished and a new
#: symbol of one commit are taken to be the same symbol renamed or moved.
SIMILARITY = 0.8
#: Bodies shorter than this (characters, after masking) are too generic to pair by content
#: alone; they still pair when they keep their name (a move).
_MIN_BODY = 60
#: Above this many candidate pairs in one commit, only same-name pairs are compared.
_MAX_PAIRS = 4000


@dataclass(frozen=True, slots=True)
class Touch:
    sha: str
    symbol: str
    kind: str  # added | modified | deleted | renamed
    lines: int


@dataclass(frozen=True, slots=True)
class Lineage:
    new: str
    old: str
    reason: str  # renamed | moved | moved and renamed
    similarity: float
    sha: str

    def evidence(self) -> str:
        return json.dumps({"similarity": round(self.similarity, 3), "commit": self.sha})


@dataclass(frozen=True, slots=True)
class Version:
    """A symbol as one revision defines it."""

    path: str
    row: SymbolRow
    language: str
    blob: str


@dataclass
class Attribution:
    """Accumulated over commits, oldest first."""

    repo: str
    touches: list[Touch] = field(default_factory=list)
    lineage: list[Lineage] = field(default_factory=list)
    #: symbol id -> alive after the last commit seen
    alive: dict[str, bool] = field(default_factory=dict)
    #: symbol id -> its last version, for symbols that vanished (to keep them as nodes)
    last: dict[str, Version] = field(default_factory=dict)
    #: symbol id -> commit time it first appeared (added, or renamed into being)
    born: dict[str, datetime] = field(default_factory=dict)
    #: symbol id -> commit time it last vanished
    died: dict[str, datetime] = field(default_factory=dict)
    unattributed: int = 0  # changes whose blobs could not be parsed


@dataclass
class _Side:
    path: str
    blob: str
    language: str
    rows: dict[str, SymbolRow]
    loc: int


BodyReader = Callable[[str, int, int], str]


def attribute_commit(acc: Attribution, commit: CommitRow, changes: Iterable[Change],
                     symbols: Callable[[str], BlobSymbols], body: BodyReader) -> None:
    """Add the TOUCHED and lineage facts of one (non-merge) commit to ``acc``."""
    added: dict[str, Version] = {}
    deleted: dict[str, Version] = {}
    touched: dict[str, tuple[str, int]] = {}
    direct: list[tuple[str, str, str, float]] = []
    for change in changes:
        if not change.language:
            continue
        old = _side(change.old_path or change.path, change.old_blob, change, symbols)
        new = _side(change.path, change.new_blob, change, symbols)
        if old is None or new is None:
            acc.unattributed += 1
            continue
        direct.extend(_diff_file(acc.repo, old, new, change, added, deleted, touched, body))
    matched = {p[0] for p in direct} | {p[1] for p in direct}
    pairs = direct + _pair({k: v for k, v in added.items() if k not in matched},
                           {k: v for k, v in deleted.items() if k not in matched}, body)
    for new_id, old_id, reason, score in pairs:
        acc.lineage.append(Lineage(new_id, old_id, reason, score, commit.sha))
        touched[new_id] = ("renamed", touched.get(new_id, ("", 0))[1])
        touched[old_id] = ("renamed", touched.get(old_id, ("", 0))[1])
    when = commit.committed_at
    for sid, (kind, lines) in sorted(touched.items()):
        acc.touches.append(Touch(commit.sha, sid, kind, lines))
        if sid in added:
            acc.alive[sid] = True
            acc.born.setdefault(sid, when)
            acc.last.pop(sid, None)
        elif sid in deleted:
            acc.alive[sid] = False
            acc.died[sid] = when
            acc.last[sid] = deleted[sid]


def _side(path: str, blob: str, change: Change,
          symbols: Callable[[str], BlobSymbols]) -> _Side | None:
    language = change.language or ""
    if not blob:
        return _Side(path, "", language, {}, 0)
    parsed = symbols(blob)
    if parsed.error:
        return None
    rows = {r.qualname: r for r in parsed.symbols}
    rows[MODULE_QUALNAME] = SymbolRow(MODULE_QUALNAME, module_short_name(path),
                                      SymbolKind.MODULE.value, 1, max(parsed.loc, 1))
    return _Side(path, blob, language, rows, parsed.loc)


def _diff_file(repo: str, old: _Side, new: _Side, change: Change,
               added: dict[str, Version], deleted: dict[str, Version],
               touched: dict[str, tuple[str, int]],
               body: BodyReader) -> list[tuple[str, str, str, float]]:
    """Record one file's added, deleted and modified symbols; returns the pairs that need no
    similarity test (the module of a renamed file: git already matched the files)."""
    hunks = change.hunks
    old_lines = _owned_lines(old, [(h.old_start, h.old_lines) for h in hunks], body)
    new_lines = _owned_lines(new, [(h.new_start, h.new_lines) for h in hunks], body)
    moved = old.path != new.path
    for q, row in new.rows.items():
        sid = symbol_id(repo, new.path, q)
        if q not in old.rows:
            added[sid] = Version(new.path, row, new.language, new.blob)
            touched[sid] = ("added", row.end_line - row.start_line + 1)
            continue
        lines = new_lines.get(q, 0) + old_lines.get(q, 0)
        if moved:
            old_id = symbol_id(repo, old.path, q)
            deleted[old_id] = Version(old.path, old.rows[q], old.language, old.blob)
            added[sid] = Version(new.path, row, new.language, new.blob)
            touched[sid] = ("added", lines)
            touched[old_id] = ("deleted", 0)
        elif lines:
            touched[sid] = ("modified", lines)
    for q, row in old.rows.items():
        if q not in new.rows:
            sid = symbol_id(repo, old.path, q)
            deleted[sid] = Version(old.path, row, old.language, old.blob)
            touched[sid] = ("deleted", row.end_line - row.start_line + 1)
    if moved and old.blob and new.blob:
        return [(symbol_id(repo, new.path, MODULE_QUALNAME),
                 symbol_id(repo, old.path, MODULE_QUALNAME), "moved", change.similarity / 100)]
    return []


def _owned_lines(side: _Side, ranges: list[tuple[int, int]],
                 body: BodyReader) -> dict[str, int]:
    """Changed lines per innermost owning definition. Lines outside every definition belong
    to the module, unless blank (removing a function also removes the blank lines around it;
    that is not a change to the module)."""
    ranges = [(start, count) for start, count in ranges if count > 0]
    if not ranges or not side.rows:
        return {}
    size = max(side.loc, max(s + c - 1 for s, c in ranges)) + 1
    owner: list[str] = [MODULE_QUALNAME] * size
    # outer definitions first, so inner ones paint over them (slice assignment: C speed)
    for row in sorted(side.rows.values(), key=lambda r: (r.start_line, -r.end_line)):
        if row.qualname == MODULE_QUALNAME:
            continue
        lo, hi = row.start_line, min(row.end_line, size - 1)
        if lo <= hi:
            owner[lo:hi + 1] = [row.qualname] * (hi - lo + 1)
    counts: dict[str, int] = {}
    for start, count in ranges:
        for line, q in enumerate(owner[start:start + count], start):
            if q == MODULE_QUALNAME and not body(side.blob, line, line).strip():
                continue
            counts[q] = counts.get(q, 0) + 1
    return counts


def _pair(added: dict[str, Version], deleted: dict[str, Version],
          body: BodyReader) -> list[tuple[str, str, str, float]]:
    """One-to-one pairs (new id, old id, reason, similarity), best similarity first."""
    if not added or not deleted:
        return []
    cands = [(a, d) for a, va in added.items() for d, vd in deleted.items()
             if va.row.kind == vd.row.kind and (va.row.name == vd.row.name
                                                or va.path == vd.path)]
    if len(cands) > _MAX_PAIRS:
        cands = [(a, d) for a, d in cands if added[a].row.name == deleted[d].row.name]
    texts: dict[str, str] = {}

    def text(sid: str, v: Version) -> str:
        if sid not in texts:
            texts[sid] = _normalized(body(v.blob, v.row.start_line, v.row.end_line), v.row.name)
        return texts[sid]

    scored = []
    for a, d in cands:
        va, vd = added[a], deleted[d]
        same_name = va.row.name == vd.row.name
        ta, td = text(a, va), text(d, vd)
        if not same_name and min(len(ta), len(td)) < _MIN_BODY:
            continue
        score = ratio(ta, td) / 100.0
        if score >= SIMILARITY:
            scored.append((score, a, d))
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    used: set[str] = set()
    out = []
    for score, a, d in scored:
        if a in used or d in used:
            continue
        used.update((a, d))
        va, vd = added[a], deleted[d]
        moved, renamed = va.path != vd.path, va.row.qualname != vd.row.qualname
        reason = "moved and renamed" if moved and renamed else "moved" if moved else "renamed"
        out.append((a, d, reason, score))
    return out


def _normalized(text: str, name: str) -> str:
    """Body text with its own name masked and indentation dropped, so a rename or a move
    into a class keeps a similarity of 1.0."""
    masked = re.sub(rf"\b{re.escape(name)}\b", "\0", text) if name else text
    return "\n".join(line.strip() for line in masked.splitlines())
