"""Take text out of the graph for good: ``vgdb redact PATTERN|ID``.

History is append-only, so a secret or a name that must go cannot wait for a newer fact to
supersede it: redaction is the one edit of past facts. It keeps their structure — the node,
its id, times, edges and supersession chain stay — and replaces the text by a tombstone that
says when and why (``[redacted 2026-11-26: leaked key]``). The text goes from

- the graph: the free-text properties of entries, commits, sessions and papers
  (:data:`TEXT_FIELDS`), current or not;
- the keyword index: the tables touched are rebuilt (tantivy keeps a replaced document in its
  segment files until a merge);
- the vectors: every stored row of the nodes touched, live or dead (a dead row keeps an old
  text's vector for reuse), is dropped, then the redacted text is embedded.

Not covered: the engine's file keeps a replaced string's old bytes in freed pages (no query
returns them; rewriting the file, by export and import, purges them), edge properties, and
copies outside the database directory.

An ``ID`` (``entry:...``, ``DEC-3``, ``commit:<sha>``, ``session:...``, ``paper:...``) blanks
every text field of that node; a ``PATTERN`` (a Python regular expression) replaces each match
in every text field of every node of those tables.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from graphdb import Store
from graphdb.keyword import KEYWORD_FIELDS, pending, rebuild
from graphdb.vectors import EMBEDDED_TABLES, embed_nodes, forget_vectors
from queries.provenance import resolve_node
from schema import COMMIT, ENTRY, PAPER, SESSION, QueryError

__all__ = ["TEXT_FIELDS", "RedactResult", "Redacted", "redact"]

#: the free-text properties redaction rewrites, per node table
TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    ENTRY.name: ("title", "content", "error", "approach", "context"),
    COMMIT.name: ("summary", "message"),
    SESSION.name: ("title", "summary"),
    PAPER.name: ("title", "abstract"),
}
_PREFIXES = {"entry:": ENTRY.name, "commit:": COMMIT.name, "session:": SESSION.name,
             "paper:": PAPER.name}
_DISPLAY_ID = re.compile(r"^[A-Z]+-\d+$")


@dataclass(frozen=True, slots=True)
class Redacted:
    """A node whose text was redacted, and which of its fields changed."""

    id: str
    table: str
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RedactResult:
    """What :func:`redact` changed. ``matches``: pattern matches replaced (or fields blanked);
    ``keyword``: documents per rebuilt table; ``vectors``: stored rows dropped per table."""

    mode: str  # id | pattern
    reason: str
    at: datetime
    tombstone: str
    nodes: tuple[Redacted, ...]
    matches: int
    keyword: dict[str, int]
    vectors: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def redact(store: Store, target: str, *, reason: str, pattern: bool | None = None,
           at: datetime | None = None, dry_run: bool = False) -> RedactResult:
    """Redact the node ``target`` names, or every match of the regular expression ``target``.

    Parameters
    ----------
    target
        A node id or display id (``pattern=None`` decides by its shape), or a pattern.
    reason
        Why; it is written into the tombstone (keep secrets out of it).
    pattern
        True: ``target`` is a pattern even if it looks like an id; False: it must be a node.
    at
        The redaction's time (default now, UTC).
    dry_run
        Say what would change; write nothing.
    """
    if not reason.strip():
        raise QueryError("a redaction needs a reason (it is written into the tombstone)")
    at = (at or datetime.now(UTC)).replace(tzinfo=None, microsecond=0)
    tombstone = f"[redacted {at:%Y-%m-%d}: {' '.join(reason.split())}]"
    by_id = _looks_like_id(target) if pattern is None else not pattern
    if by_id:
        changes, matches = _blank(store, target, tombstone)
    else:
        try:
            regex = re.compile(target)
        except re.error as exc:
            raise QueryError(f"not a valid regular expression: {exc}", query=target) from exc
        if regex.search(""):
            raise QueryError("the pattern matches empty text: it would redact everything",
                             query=target)
        changes, matches = _matches(store, regex, tombstone)
    nodes = tuple(Redacted(i, t, tuple(sorted(f))) for t, i, f in changes)
    mode = "id" if by_id else "pattern"
    if dry_run:
        return RedactResult(mode, reason, at, tombstone, nodes, matches, {}, {})
    tables = sorted({t for t, _, _ in changes})
    indexed = [t for t in tables if t in KEYWORD_FIELDS]
    with pending(store, indexed) as token:  # a kill before the rebuild leaves them to sync
        try:
            _write(store, changes)
        except BaseException:
            token.graph_unchanged = True
            raise
        keyword = {t: v["docs"] for t, v in rebuild(store, indexed).items()}
    vectors = {}
    embedded = {t.name for t in EMBEDDED_TABLES}
    for table in tables:
        if table in embedded:
            ids = [i for t, i, _ in changes if t == table]
            vectors[table] = forget_vectors(store, table, ids)
            embed_nodes(store, table, ids)
    return RedactResult(mode, reason, at, tombstone, nodes, matches, keyword, vectors)


def _looks_like_id(target: str) -> bool:
    return target.startswith(tuple(_PREFIXES)) or bool(_DISPLAY_ID.match(target))


def _blank(store: Store, target: str, tombstone: str,
           ) -> tuple[list[tuple[str, str, dict[str, str]]], int]:
    node = resolve_node(store, target)
    table = next((t for p, t in _PREFIXES.items() if node.startswith(p)), None)
    if table is None:
        raise QueryError(f"{node} has no free text to redact (entries, commits, sessions "
                         "and papers have)", query=target)
    fields = TEXT_FIELDS[table]
    rows = store.cypher(f"MATCH (n:{table}) WHERE n.id = $id RETURN "
                        + ", ".join(f"n.{f}" for f in fields), {"id": node}).rows()
    if not rows:
        raise QueryError(f"no node {node} in the graph", query=target)
    changed = {f: tombstone for f, v in zip(fields, rows[0], strict=True) if v}
    return ([(table, node, changed)] if changed else []), len(changed)


def _matches(store: Store, regex: re.Pattern[str], tombstone: str,
             ) -> tuple[list[tuple[str, str, dict[str, str]]], int]:
    out, total = [], 0
    for table, fields in TEXT_FIELDS.items():
        rows = store.cypher(f"MATCH (n:{table}) RETURN n.id, "
                            + ", ".join(f"n.{f}" for f in fields) + " ORDER BY n.id").rows()
        for node, *values in rows:
            changed = {}
            for name, value in zip(fields, values, strict=True):
                if value:
                    new, count = regex.subn(lambda _: tombstone, value)
                    if count:
                        changed[name] = new
                        total += count
            if changed:
                out.append((table, node, changed))
    return out, total


def _write(store: Store, changes: list[tuple[str, str, dict[str, str]]]) -> None:
    """One transaction: every field of every node, or nothing."""
    if not changes:
        return
    with store.write() as tx:
        for table, node, fields in changes:
            sets = ", ".join(f"n.{f} = ${f}" for f in fields)
            tx.execute(f"MATCH (n:{table}) WHERE n.id = $id SET {sets}", {"id": node, **fields})
