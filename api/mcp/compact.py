"""Compact answers for agents: the fields an agent acts on, ids kept for follow-up calls,
everything else (weights, per-signal ranks, repeated paths) left to GraphQL and the CLI's
``--json``. Then :func:`cap` cuts lists until the JSON fits the caller's token budget.

Why not ``to_dict()``: an impact answer for one symbol is ~40K characters as ``to_dict``
(every explaining path spelled out edge by edge); the compact form names the edge kind and
the node it came from, from which the path can be rebuilt.
"""

import json
from datetime import datetime
from typing import Any

from queries import ImpactResult, Provenance, Supersession
from queries.search import SearchResult

__all__ = ["CHARS_PER_TOKEN", "cap", "dumps", "impact_answer", "provenance_answer",
           "search_answer", "supersession_answer", "tests_answer"]

#: the estimate GraphQL's ``maxTokens`` uses too (api/graphql/budget.py)
CHARS_PER_TOKEN = 4
_TEXT = 240  # characters kept of a long text property (content, docstrings, abstracts)


def dumps(value: Any) -> str:
    return json.dumps(value, default=_default, separators=(",", ":"), ensure_ascii=False)


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        text = value.isoformat(timespec="seconds")
        return text if value.tzinfo else text + "Z"  # naive times are UTC (DESIGN §5)
    return str(value)


def _day(value: datetime | None) -> str | None:
    return value.strftime("%Y-%m-%d") if value else None


def _short(text: str | None, n: int = _TEXT) -> str:
    text = (text or "").strip()
    return text if len(text) <= n else text[: n - 1] + "…"


def cap(answer: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """``answer`` with its longest lists cut from the end until its JSON is about
    ``max_tokens`` tokens (4 characters a token); ``trimmed`` says how many items each
    list lost, so the agent can ask again with a larger budget or a narrower question."""
    lists = {k: list(v) for k, v in answer.items() if isinstance(v, list) and k != "notes"}
    dropped: dict[str, int] = {}
    current = answer
    while len(dumps(current)) > max_tokens * CHARS_PER_TOKEN:
        name = max((k for k in lists if lists[k]), key=lambda k: len(dumps(lists[k])),
                   default=None)
        if name is None:
            break
        cut = max(1, len(lists[name]) // 4)
        lists[name] = lists[name][:-cut]
        dropped[name] = dropped.get(name, 0) + cut
        current = {**answer, **lists, "trimmed": dropped}
    return current


def search_answer(result: SearchResult) -> dict[str, Any]:
    hits = []
    for h in result.hits:
        hit: dict[str, Any] = {"id": h.id, "kind": h.kind, "name": h.name,
                               "score": round(h.score, 3)}
        if h.location and h.location not in h.id:
            hit["at"] = h.location
        if h.superseded_by:
            hit["superseded_by"] = list(h.superseded_by)
        hits.append(hit)
    return {"hits": hits, "notes": list(result.notes)}


def impact_answer(result: ImpactResult) -> dict[str, Any]:
    def node(n: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"id": n.id, "d": n.distance, "score": round(n.score, 3)}
        if n.via:  # the last edge: its kind and the node it came from (also listed)
            out["via"] = f"{n.via[-1].kind} {n.via[-1].dst}"
        return out

    return {
        "symbols": [node(n) for n in result.symbols],
        "files": [node(n) for n in result.files],
        "tests": _tests(result.tests),
        "entries": [{"id": e.display_id or e.id, "kind": e.kind, "title": e.title,
                     "status": e.status if e.current else "superseded",
                     **({"superseded_by": list(e.superseded_by)} if e.superseded_by else {}),
                     "relation": e.relation} for e in result.entries],
        "papers": [{"id": p.id, "title": p.title, "relation": p.relation}
                   for p in result.papers],
        "communities": [{"id": c.id, "name": c.name} for c in result.communities],
        "truncated": result.truncated, "notes": list(result.notes)}


def _tests(tests: Any) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for t in tests:  # one line per runner id, its strongest evidence first
        seen.setdefault(t.node_id, {"test": t.node_id, "evidence": t.evidence,
                                    "why": t.why or t.reason})
    return list(seen.values())


def tests_answer(result: ImpactResult) -> dict[str, Any]:
    return {"tests": _tests(result.tests), "notes": list(result.notes)}


def provenance_answer(p: Provenance) -> dict[str, Any]:
    def commit(c: Any) -> dict[str, Any] | None:
        if c is None:
            return None
        return {"sha": c.sha[:12], "at": _day(c.at), "author": c.author, "kind": c.kind,
                "summary": _short(c.summary, 100),
                **({"path": c.path} if c.via != p.id else {})}

    return {
        "id": p.id, "table": p.table, "current": p.current,
        "introduced": commit(p.introduced), "last_modified": commit(p.last_modified),
        **({"deleted": commit(p.deleted)} if p.deleted else {}),
        "commits": [commit(c) for c in reversed(p.commits)],  # newest first
        "lineage": [{"other": x.other, "direction": x.direction, "reason": x.reason}
                    for x in p.lineage],
        "sessions": [{"id": s.id, "title": s.title, "relation": s.relation}
                     for s in p.sessions],
        "entries": [{"id": e.display_id or e.id, "kind": e.kind, "title": e.title,
                     "status": e.status if e.current else "superseded",
                     "relation": e.relation} for e in p.entries],
        "papers": [{"id": x.id, "title": x.title, "relation": x.relation} for x in p.papers]}


def supersession_answer(s: Supersession) -> dict[str, Any]:
    return {
        "node": s.node, "current": [v.id for v in s.versions if v.current],
        "versions": [{"id": v.id, "name": v.name, "display_id": v.display_id,
                      "status": v.status, "current": v.current,
                      "valid_from": v.valid_from, "valid_to": v.valid_to}
                     for v in s.versions],
        "edges": [{"newer": e.newer, "older": e.older, "reason": e.reason, "at": e.at}
                  for e in s.edges],
        "notes": list(getattr(s, "notes", ()))}


def node_answer(table: str, props: dict[str, Any], edges: dict[str, dict[str, int]],
                ) -> dict[str, Any]:
    """A node's non-empty properties (long texts shortened) and its edge counts by kind."""
    keep = {k: (_short(v) if isinstance(v, str) else v) for k, v in props.items()
            if v not in (None, "", [], {}) and k not in ("hash", "mtime_ns", "title_key")}
    return {"table": table, **keep, "edges": edges}
