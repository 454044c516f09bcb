"""What a briefing may say about some code, gathered whole and ranked, before packing.

Each gatherer returns the items of one section, best first; :mod:`queries.briefing.pack`
then decides how many of them the budget holds. The sections reuse the queries that answer
them on their own — entries by ABOUT edge or scope glob (:mod:`queries.impact_context`),
intents (:mod:`queries.intents`), failure groups (:mod:`queries.sessions`), dependents and
covering tests (:func:`queries.impact.impact`) — so a follow-up call gives the same facts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphdb import Store, deadline
from graphdb.sessions import scope_matches
from queries.batch import by_ids, lookup_template
from queries.briefing.model import BriefingItem
from queries.impact import ImpactResult, impact
from queries.impact_context import EntryHit, TimeFilter, entries_about, papers_about
from queries.intents import overlapping_intents
from queries.sessions import failure_groups
from schema import (
    AUTHORED,
    CALLS,
    CHANGED,
    COMMIT,
    COMMUNITY,
    ENTRY,
    FILE,
    IMPORTS,
    IN_COMMUNITY,
    INHERITS,
    PERSON,
    SUPERSEDES,
    SYMBOL,
    TOUCHED,
    session_id,
)

__all__ = ["Code", "gather"]

#: most files a glob target expands to (a note says when it was cut)
MAX_GLOB_FILES = 200
#: commits, dependents ... read per section before packing (packing shows fewer)
_READ = 60


@dataclass
class Code:
    """The targets: code ids (files and symbols), their files' paths, the globs given, and
    the symbols the target files contain (decisions about those apply to the file too)."""

    ids: list[str]
    paths: dict[str, tuple[str, str]]  # id -> (repo, path)
    globs: list[str]
    inner: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def repos(self) -> list[str]:
        return sorted({r for r, _ in self.paths.values() if r})

    def label(self, node: str) -> str:
        """A short name for a node that follow-up calls accept (path, path#qualname)."""
        repo, path = self.paths.get(node, ("", ""))
        if node.startswith("sym:"):
            return node.removeprefix(f"sym:{repo}/") if repo else node
        if node.startswith("file:"):
            return path or node
        return node


def _short(node: str) -> str:
    """``sym:r/a/b.py#f`` -> ``a/b.py#f``; ``file:r/a.py`` -> ``a.py``."""
    for prefix in ("sym:", "file:"):
        deadline.check()
        if node.startswith(prefix):
            rest = node.removeprefix(prefix)
            return rest.split("/", 1)[1] if "/" in rest else rest
    return node


def _day(t: datetime | None) -> str:
    return t.strftime("%Y-%m-%d") if t else "?"


# ------------------------------------------------------------------------------- sections
@dataclass
class Gathered:
    """Every section's items, best first, and the impact result they share."""

    sections: dict[str, list[BriefingItem]]
    follow_up: dict[str, str]
    notes: list[str]


def gather(store: Store, code: Code, *, as_of: datetime | None,
           session: str | None) -> Gathered:
    flt = TimeFilter(as_of)
    ids = code.ids + [i for i in code.inner if i not in code.ids]
    scores = {i: 1.0 for i in code.ids} | {i: 0.9 for i in code.inner if i not in code.ids}
    hits = entries_about(store, ids, scores, flt)
    meta = _entry_meta(store, [h.id for h in hits] + [i for h in hits for i in h.superseded_by])
    found: dict[str, list[BriefingItem]] = {}
    found["decisions"] = _decisions(hits, meta, code)
    found["stale"] = _stale(store, hits, meta, code, as_of)
    found["failures"] = _failures(store, hits, meta, code, as_of)
    found["intents"] = _intents(store, code, as_of, session)
    result = _impact(store, code, as_of)
    found["tests"] = _tests(result)
    found["dependents"] = _dependents(result, code)
    found["commits"] = _commits(store, code, as_of)
    found["papers"] = [
        BriefingItem(p.id, f"{p.title} ({p.relation}, {', '.join(map(code.label, p.about[:2]))})",
                     relation=p.relation)
        for p in papers_about(store, ids, scores, flt)]
    found["dependencies"] = _dependencies(store, code, flt)
    found["community"] = _community(store, code)
    first = code.label(code.ids[0]) if code.ids else ""
    many = f"[{', '.join(repr(code.label(i)) for i in code.ids[:3])}]"
    follow = {
        "decisions": f"provenance({first!r})", "stale": f"provenance({first!r})",
        "failures": "failures(scopeMatches: <path>)",
        "intents": "intents(scopeMatches: <path>)", "tests": f"impact({many}).tests",
        "dependents": f"impact({many})", "commits": f"provenance({first!r}).commits",
        "papers": f"provenance({first!r}).papers", "dependencies": "briefing(tier: FULL)",
        "community": "communities(repo)"}
    return Gathered(found, follow, [*code.notes, *result.notes[:2]])


def _entry_meta(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Entry id -> display id, kind, valid_from, recorded_at, and what it supersedes."""
    if not ids:
        return {}
    rows = by_ids(store, sorted(set(ids)), lookup_template(
        f"MATCH (e:{ENTRY.name}{{B}}) WHERE {{IN}} RETURN e.id AS id, "
        "e.display_id AS display_id, e.valid_from AS valid_from, "
        "e.recorded_at AS recorded_at, e.signature AS signature", "e")).to_dicts()
    out = {r["id"]: {**r, "replaces": []} for r in rows}
    older = by_ids(store, sorted(out), lookup_template(  # ordered per entry
        f"MATCH (n:{ENTRY.name}{{B}})-[:{SUPERSEDES.name}]->(o:{ENTRY.name}) "
        "WHERE {IN} RETURN n.id, o.display_id ORDER BY o.display_id", "n"))
    for new, old in older.iter_rows():
        out[new]["replaces"].append(old or "?")
    return out


def _relation(h: EntryHit, code: Code) -> str:
    if h.relation != "about":
        return h.relation
    named = [a for a in h.about if a in code.ids] or list(h.about)
    return "about" if all(a in code.ids for a in h.about) else f"about {_short(named[0])}"


def _decisions(hits: Sequence[EntryHit], meta: dict[str, dict[str, Any]],
               code: Code) -> list[BriefingItem]:
    """Decisions and patterns in force (ABOUT before scope, then newest), then superseded
    ones whose replacement is not about this code."""
    mine = {h.id for h in hits}
    rows: list[tuple[tuple[Any, ...], BriefingItem]] = []
    for h in hits:
        if h.kind not in ("decision", "pattern"):
            continue
        m = meta.get(h.id, {})
        display = h.display_id or h.id
        if h.current:
            status = h.status or "active"
            replaces = m.get("replaces") or []
            extra = f"; replaces {', '.join(replaces)}" if replaces else ""
        else:
            if any(n in mine for n in h.superseded_by):
                continue  # its replacement is listed
            newer = [meta.get(n, {}).get("display_id") or n for n in h.superseded_by]
            status = "superseded"
            extra = f" by {', '.join(newer)}" if newer else ""
        relation = _relation(h, code)
        text = f"{display} [{relation}] {h.title} ({status}{extra})"
        at = m.get("valid_from")
        rows.append(((not h.current, h.relation != "about", -(at.timestamp() if at else 0),
                      display), BriefingItem(h.id, text, relation, status, at)))
    return [item for _, item in sorted(rows, key=lambda r: r[0])]


def _changes_since(store: Store, about: Sequence[str], since: datetime,
                   as_of: datetime | None) -> tuple[str, str, datetime, str] | None:
    """The latest commit that changed ``about`` (files: CHANGED, symbols: TOUCHED) after
    ``since``: (sha, summary, time, what it changed)."""
    best: tuple[str, str, datetime, str] | None = None
    until = "" if as_of is None else " AND c.committed_at <= $as_of"
    for table, rel in ((FILE, CHANGED), (SYMBOL, TOUCHED)):
        deadline.check()
        some = [a for a in about if a.startswith("file:" if table is FILE else "sym:")]
        if not some:
            continue
        rows = by_ids(store, some, lookup_template(  # each node's latest, then the latest
            f"MATCH (c:{COMMIT.name})-[:{rel.name}]->(n:{table.name}{{B}}) WHERE {{IN}} AND "
            f"c.committed_at > $since{until} RETURN c.sha AS sha, c.summary AS s, "
            "c.committed_at AS t, n.id AS n ORDER BY t DESC, sha LIMIT 1", "n"),
            {"since": since, **({"as_of": as_of} if as_of else {})})
        if rows.height:
            sha, summary, t, node = rows.sort(["t", "sha"], descending=[True, False]).row(0)
            if best is None or t > best[2]:
                best = (sha, summary or "", t, node)
    return best


def _stale(store: Store, hits: Sequence[EntryHit], meta: dict[str, dict[str, Any]],
           code: Code, as_of: datetime | None) -> list[BriefingItem]:
    """Decisions and patterns in force about code a commit changed after they were
    decided: they may no longer hold. Scoped ones count the targets under their glob."""
    out: list[tuple[datetime, BriefingItem]] = []
    for h in hits:
        if h.kind not in ("decision", "pattern") or not h.current:
            continue
        m = meta.get(h.id, {})
        since = m.get("valid_from") or m.get("recorded_at")
        if since is None:
            continue
        changed = _changes_since(store, h.about, since, as_of)
        if changed is None:
            continue
        sha, summary, t, node = changed
        text = (f"{h.display_id or h.id} (decided {_day(since)}): {_short(node)} changed by "
                f"{sha[:10]} {_day(t)} \"{summary}\"")
        out.append((t, BriefingItem(h.id, text, f"changed by commit:{sha}", "stale", t)))
    return [item for _, item in sorted(out, key=lambda r: r[0], reverse=True)]


def _failures(store: Store, hits: Sequence[EntryHit], meta: dict[str, dict[str, Any]],
              code: Code, as_of: datetime | None) -> list[BriefingItem]:
    """Failures about the code (or whose signature names its file), open ones first, each
    with the resolutions tried for failures of the same signature and their outcomes."""
    about = {h.id: h for h in hits if h.kind == "failure"}
    paths = {p for _, p in code.paths.values() if p}
    groups = []
    for repo in code.repos or [None]:
        deadline.check()
        groups += [g for g in failure_groups(store, repo=repo, as_of=as_of)
                   if g.file in paths or set(g.failures) & set(about)]
    seen: set[str] = set()
    rows: list[tuple[tuple[Any, ...], BriefingItem]] = []
    for g in groups:
        mine = [f for f in g.failures if f in about] or list(g.failures)
        fid = mine[0]
        if fid in seen:
            continue
        seen.update(g.failures)
        h = about.get(fid)
        display = h.display_id if h else _display(store, fid)
        title = h.title if h else g.signature
        fixed = [r for r in g.resolutions if r.outcome == "success"]
        status = "resolved" if fixed else "open"
        tried = "; ".join(f"{r.display_id} {r.outcome}: {r.title}" for r in g.resolutions[:2])
        times = f" x{len(g.failures)}" if len(g.failures) > 1 else ""
        text = f"{display} {status}{times}: {title}" + (f" - tried {tried}" if tried else "")
        rows.append(((status != "open", -(g.last_seen.timestamp() if g.last_seen else 0),
                      display), BriefingItem(fid, text, "failure", status, g.last_seen)))
    for fid, h in about.items():  # failures without a group (no signature)
        if fid not in seen:
            rows.append(((False, 0, h.display_id), BriefingItem(
                fid, f"{h.display_id} open: {h.title}", _relation(h, code), "open")))
    return [item for _, item in sorted(rows, key=lambda r: r[0])]


def _display(store: Store, entry: str) -> str:
    rows = store.cypher(f"MATCH (e:{ENTRY.name}) WHERE e.id = $i RETURN e.display_id",
                        {"i": entry})
    return (rows.item() if rows.height else "") or entry


def _intents(store: Store, code: Code, as_of: datetime | None,
             session: str | None) -> list[BriefingItem]:
    scope = sorted({p for _, p in code.paths.values() if p} | set(code.globs))
    repo = code.repos[0] if len(code.repos) == 1 else None
    mine = session_id(session.removeprefix("session:")) if session else None
    found = overlapping_intents(store, scope, session=mine, repo=repo, at=as_of)
    return [BriefingItem(i.id, f"{i.display_id} by {i.agent or i.session}: {i.title} "
                               f"(scope {', '.join(i.scope) or 'whole repository'}"
                               + (f"; until {_day(i.expires_at)})" if i.expires_at else ")"),
                         "overlaps", "active", i.valid_from)
            for i in found]


def _impact(store: Store, code: Code, as_of: datetime | None) -> ImpactResult:
    if not code.ids:
        return ImpactResult((), 0, (), (), (), (), (), ())
    return impact(store, code.ids, depth=3, as_of=as_of, limit=_READ)


def _tests(result: ImpactResult) -> list[BriefingItem]:
    """Coverage first (tests that ran the code), then the static graph's, best first."""
    order = {"coverage": 0, "static": 1, "rule": 2}
    tests = sorted(result.tests, key=lambda t: (order.get(t.evidence, 3), -t.score, t.node_id))
    return [BriefingItem(t.id, f"{t.node_id} ({t.evidence})", t.evidence) for t in tests]


def _dependents(result: ImpactResult, code: Code) -> list[BriefingItem]:
    """Code that depends on the targets (callers, importers, subclasses), nearest first:
    not the targets' own definitions, not tests (they have their section)."""
    own = set(code.ids) | set(code.inner)
    out = []
    for n in (*result.symbols, *result.files):
        if n.id in own or n.is_test or n.distance == 0:
            continue
        how = n.via[-1].kind.lower() if n.via else ""
        out.append((n.distance, -n.score, n.id, BriefingItem(
            n.id, f"{_short(n.id)} ({how}, {n.distance} hop{'s' if n.distance > 1 else ''})",
            how)))
    return [item for *_, item in sorted(out, key=lambda r: r[:3])]


def _commits(store: Store, code: Code, as_of: datetime | None) -> list[BriefingItem]:
    """Recent commits that changed the target files or touched the target symbols."""
    until = "" if as_of is None else " AND c.committed_at <= $as_of"
    extra = {"as_of": as_of} if as_of else {}
    found: dict[str, dict[str, Any]] = {}
    for table, rel, prefix in ((FILE, CHANGED, "file:"), (SYMBOL, TOUCHED, "sym:")):
        some = [i for i in code.ids if i.startswith(prefix)]
        if not some:
            continue
        lines = "e.additions AS plus, e.deletions AS minus" if rel is CHANGED else \
            "e.lines AS plus, 0 AS minus"
        rows = by_ids(store, some, lookup_template(  # each node's latest, then the latest
            f"MATCH (c:{COMMIT.name})-[e:{rel.name}]->(n:{table.name}{{B}}) WHERE {{IN}}"
            f"{until} RETURN c.id AS id, c.sha AS sha, c.summary AS summary, "
            f"c.committed_at AS at, e.kind AS kind, {lines} ORDER BY at DESC, sha LIMIT {_READ}",
            "n"), extra).sort(["at", "sha"], descending=[True, False]).head(_READ).to_dicts()
        for r in rows:
            found.setdefault(r["id"], r)
    if not found:
        return []
    who = dict(by_ids(store, sorted(found), lookup_template(
        f"MATCH (p:{PERSON.name})-[a:{AUTHORED.name}]->(c:{COMMIT.name}{{B}}) WHERE {{IN}} "
        "AND a.role = 'author' RETURN c.id, p.name", "c")).iter_rows())
    rows = sorted(found.values(), key=lambda r: (r["at"] or datetime.min, r["sha"]),
                  reverse=True)
    return [BriefingItem(r["id"], f"{r['sha'][:10]} {_day(r['at'])} {who.get(r['id']) or '?'}: "
                                  f"{r['summary']} ({r['kind']} +{r['plus'] or 0}/-"
                                  f"{r['minus'] or 0})", r["kind"] or "", at=r["at"])
            for r in rows]


def _dependencies(store: Store, code: Code, flt: TimeFilter) -> list[BriefingItem]:
    """What the targets use: files and symbols the target files import, and what the
    target symbols (or the files' definitions) call or inherit from, outside themselves."""
    own = set(code.ids) | set(code.inner)
    files = [i for i in code.ids if i.startswith("file:")]
    symbols = [i for i in own if i.startswith("sym:")]
    counts: dict[str, list[Any]] = defaultdict(lambda: [0, ""])
    if files:
        rows = by_ids(store, files, lookup_template(
            f"MATCH (f:{FILE.name}{{B}})-[e:{IMPORTS.name}]->(x) WHERE {{IN}} AND "
            f"{flt.valid('e')} AND (label(x) = 'File' OR label(x) = 'Symbol') RETURN x.id",
            "f"), flt.params())
        for (x,) in rows.iter_rows():
            counts[x][0] += 1
            counts[x][1] = counts[x][1] or "imports"
    if symbols:
        for rel in (CALLS, INHERITS):
            rows = by_ids(store, symbols, lookup_template(
                f"MATCH (s:{SYMBOL.name}{{B}})-[e:{rel.name}]->(x:{SYMBOL.name}) WHERE {{IN}} "
                f"AND {flt.valid('e')} RETURN x.id", "s"), flt.params())
            for (x,) in rows.iter_rows():
                counts[x][0] += 1
                counts[x][1] = counts[x][1] or rel.name.lower()
    ranked = sorted(((n, how, x) for x, (n, how) in counts.items() if x not in own),
                    key=lambda r: (-r[0], r[2]))
    return [BriefingItem(x, f"{_short(x)} ({how}{f' x{n}' if n > 1 else ''})", how)
            for n, how, x in ranked]


def _community(store: Store, code: Code) -> list[BriefingItem]:
    """The top-level file communities the target files belong to."""
    files = sorted({i if i.startswith("file:") else f"file:{r}/{p}"
                    for i, (r, p) in code.paths.items() if p})
    if not files:
        return []
    rows = by_ids(store, files, lookup_template(
        f"MATCH (f:{FILE.name}{{B}})-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) WHERE {{IN}} "
        "AND c.scope = 'file' RETURN DISTINCT c.id AS id, c.name AS name, c.size AS size, "
        "c.level AS level", "f")).unique("id").sort(["level", "size", "id"],
                                                    descending=[False, True, False])
    return [BriefingItem(cid, f"{cid.removeprefix('community:')} {name} ({size} files)",
                         "member")
            for cid, name, size, _ in rows.iter_rows()]


# --------------------------------------------------------------------------------- targets
def contained(store: Store, files: Sequence[str]) -> list[str]:
    """The current symbols the files define (nested ones included)."""
    if not files:
        return []
    rows = store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $ids AND s.valid_to IS NULL "
                        "RETURN s.id ORDER BY s.id", {"ids": list(files)})
    return [i for (i,) in rows.iter_rows()]


def expand_globs(store: Store, globs: Sequence[str]) -> tuple[list[str], list[str]]:
    """Current code files any glob covers (all repositories), and notes."""
    if not globs:
        return [], []
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.valid_to IS NULL AND f.source <> 'git' "
                        "RETURN f.id, f.path ORDER BY f.id")
    found = [fid for fid, path in rows.iter_rows()
             if any(scope_matches(g, path) for g in globs)]
    notes = []
    if len(found) > MAX_GLOB_FILES:
        notes.append(f"{len(found)} files match {', '.join(globs)}: the first "
                     f"{MAX_GLOB_FILES} are briefed")
        found = found[:MAX_GLOB_FILES]
    return found, notes

