"""A change's review: its changed symbols ranked by risk, the tests to run and why, and the
knowledge it meets — decisions and patterns it touches or is at odds with, decisions made stale
by changes since they were decided, failures recorded there, papers.

Built on :func:`queries.impact.impact` over the change set (the same traversal, test selection
and entries as ``vgdb impact --base``) and on :func:`queries.briefing.briefing` of the changed
files (stale decisions, others' open intents), so a reviewer's follow-up query gives the same
facts. ``vgdb review`` renders it as Markdown for a pull-request comment.

Risk of a changed symbol (higher first; each term is a reason shown to the reviewer)::

    log2(1 + fan-in)                 callers, importers and subclasses in the graph
    + 2    if no test reaches it     (coverage, static path or rule: none)
    + 1.5  per failure recorded about it or its file
    + 0.5  per community its impact crosses beyond its own
    + 1    if it is deleted (its users may break)
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from graphdb import Store
from queries.batch import by_ids, lookup_template
from queries.briefing import briefing
from queries.impact import ChangeSetLike, ImpactResult, TestToRun, impact
from queries.impact_context import EntryHit, PaperHit
from schema import (
    ABOUT,
    CALLS,
    ENTRY,
    FILE,
    IMPORTS,
    INHERITS,
    SYMBOL,
    QueryError,
    VgdbError,
)

__all__ = ["AtOdds", "ChangedRisk", "Review", "StaleDecision", "review"]

_DISPLAY = re.compile(r"^[A-Z]+-\d+ ")
# Lookups by id go through the primary-key index (queries/batch.py): the engine answers
# ``WHERE s.id IN $ids`` by comparing every row of the table with the list.
_DEPENDED_ON = f"{CALLS.name}|{IMPORTS.name}|{INHERITS.name}"
_FAN_IN = lookup_template(
    f"MATCH (x)-[r:{_DEPENDED_ON}]->(s:{SYMBOL.name}{{B}}) WHERE {{IN}} AND r.valid_to IS NULL "
    "AND x.id <> s.id RETURN s.id, count(DISTINCT x.id)", "s")
_TEST_FILES = lookup_template(
    f"MATCH (f:{FILE.name}{{B}}) WHERE {{IN}} AND f.is_test RETURN f.id AS id", "f")
_TEST_SYMBOLS = lookup_template(
    f"MATCH (s:{SYMBOL.name}{{B}}) WHERE {{IN}} AND s.is_test RETURN s.id AS id", "s")
_ID_PREFIX = {SYMBOL.name: "sym:", FILE.name: "file:"}
#: per table of the target: its current callers, importers and subclasses
_DEPENDENTS = {table: lookup_template(
    f"MATCH (x)-[r:{_DEPENDED_ON}]->(y:{table}{{B}}) WHERE {{IN}} AND r.valid_to IS NULL "
    "AND x.valid_to IS NULL RETURN y.id, x.id, x.is_test", "y") for table in _ID_PREFIX}
_IN_FORCE_ABOUT = lookup_template(
    f"MATCH (x:{ENTRY.name})-[:{ABOUT.name}]->(s:{SYMBOL.name}{{B}}) WHERE {{IN}} "
    "AND x.valid_to IS NULL AND x.expired_at IS NULL AND x.kind IN ['decision', 'pattern'] "
    "RETURN x.id, x.display_id, x.kind, x.title, s.id", "s")
#: nodes the search for tests reaching a change visits at most
_REACH_MAX = 50_000
#: weights of the risk terms (module docstring)
UNTESTED = 2.0
PER_FAILURE = 1.5
PER_COMMUNITY = 0.5
DELETED = 1.0


@dataclass(frozen=True, slots=True)
class ChangedRisk:
    """A changed symbol and why it is risky: ``tests`` selected for it, or test files the graph
    reaches it from (``evidence`` the strongest: coverage > static > rule; ``test code`` for a
    change to tests themselves; else none), ``failures`` (display ids), ``communities`` its
    impact reaches."""

    id: str
    path: str
    qualname: str
    change: str
    lines: int
    fan_in: int
    tests: int
    evidence: str
    failures: tuple[str, ...]
    communities: int
    dependents: int
    risk: float
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AtOdds:
    """A decision, pattern or someone else's open intent the change may go against."""

    id: str
    display_id: str
    kind: str
    title: str
    reason: str


@dataclass(frozen=True, slots=True)
class StaleDecision:
    """A decision or pattern in force about changed code that a commit changed after it was
    decided (the briefing's ``stale`` section)."""

    id: str
    text: str
    evidence: str


@dataclass(frozen=True, slots=True)
class Review:
    """What ``vgdb review`` reports (``to_dict`` is its JSON)."""

    repo: str
    base: str
    head: str
    files: tuple[tuple[str, str], ...]
    changed: tuple[ChangedRisk, ...]
    tests: tuple[TestToRun, ...]
    decisions: tuple[EntryHit, ...]
    at_odds: tuple[AtOdds, ...]
    stale: tuple[StaleDecision, ...]
    failures: tuple[EntryHit, ...]
    papers: tuple[PaperHit, ...]
    impacted_symbols: int
    impacted_files: int
    depth: int
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def review(store: Store, changes: ChangeSetLike, *, depth: int = 3, limit: int = 500,
           repo: str | None = None) -> Review:
    """Review the change set ``changes`` (``ingest.history.diff.diff_changes``) against the
    graph, which holds its head side (ingest the checkout first).

    Parameters
    ----------
    depth, limit
        As :func:`queries.impact.impact` (hops followed; dependents listed at most).
    repo
        The repository the change belongs to (default: the one ingested from its root).
    """
    result = impact(store, changes, depth=depth, limit=limit, repo=repo)
    code = result.changes
    if code is None:  # impact reports the change set it was given; node ids are not one
        raise QueryError("review takes a change set (ingest.history.diff.diff_changes)")
    entries = result.entries
    changed = _ranked(store, result, code.symbols, entries)
    notes = list(result.notes)
    stale, intents = _briefed(store, code.repo, [p for p, s in code.files if s != "deleted"],
                              notes)
    return Review(
        repo=code.repo, base=code.base, head=code.head, files=code.files, changed=changed,
        tests=result.tests,
        decisions=tuple(e for e in entries if e.kind in ("decision", "pattern") and e.current),
        at_odds=_at_odds(store, code.symbols, intents), stale=stale,
        failures=tuple(e for e in entries if e.kind == "failure"), papers=result.papers,
        impacted_symbols=len(result.symbols), impacted_files=len(result.files),
        depth=result.depth, notes=tuple(notes))


def _ranked(store: Store, result: ImpactResult, symbols: Sequence[Any],
            entries: Sequence[EntryHit]) -> tuple[ChangedRisk, ...]:
    ids = [s.id for s in symbols if s.in_graph]
    fan_in = _fan_in(store, ids)
    reaching, test_code = _tests_reaching(store, ids, result.depth)
    tests: dict[str, list[TestToRun]] = defaultdict(list)
    for t in result.tests:
        tests[t.target].append(t)
    # a rule that runs every test (a changed configuration file) covers every change
    everything = [t for t in result.tests if t.node_id in (".", "./")]
    reached: dict[str, set[str]] = defaultdict(set)
    for n in (*result.symbols, *result.files):
        reached[n.target].add(n.id)
    community_of: dict[str, set[str]] = defaultdict(set)
    for c in result.communities:
        for m in c.members:
            community_of[m].add(c.id)
    out = []
    for s in symbols:
        file = _file_id(s.id)
        failures = tuple(sorted({e.display_id or e.id for e in entries if e.kind == "failure"
                                 and (s.id in e.about or file in e.about)}))
        own = [t for key in (s.id, file) for t in tests.get(key, ())]
        # a test reached from it may be listed under another target (a file-level rule test
        # holds the test functions of its file), or cut by the impact's limit: the tests the
        # graph reaches from it count too
        static = reaching.get(s.id, 0)
        evidence = _strongest(own) if own else "static" if static else \
            "test code" if s.id in test_code else "rule" if everything else "none"
        own = own or everything
        crossed = _crossed(community_of, reached.get(s.id, set()))
        fans = fan_in.get(s.id, 0)
        risk, reasons = math.log2(1 + fans), []
        if fans:
            reasons.append(f"{fans} caller{'s' if fans != 1 else ''}/importers")
        if evidence == "none":
            risk += UNTESTED
            reasons.append("no test reaches it")
        if failures:
            risk += PER_FAILURE * len(failures)
            reasons.append("failures here: " + ", ".join(failures))
        if len(crossed) > 1:
            risk += PER_COMMUNITY * (len(crossed) - 1)
            reasons.append(f"impact crosses {len(crossed)} communities")
        if s.change == "deleted":
            risk += DELETED
            reasons.append("deleted")
        out.append(ChangedRisk(
            id=s.id, path=s.path, qualname=s.qualname, change=s.change, lines=s.lines,
            fan_in=fans, tests=max(len(own), static), evidence=evidence, failures=failures,
            communities=len(crossed), dependents=max(0, len(reached.get(s.id, ())) - 1),
            risk=round(risk, 3), reasons=tuple(reasons)))
    return tuple(sorted(out, key=lambda r: (-r.risk, r.path, r.qualname)))


def _fan_in(store: Store, ids: list[str]) -> dict[str, int]:
    """Distinct current callers, importers and subclasses of each symbol."""
    if not ids:
        return {}
    rows = by_ids(store, ids, _FAN_IN)
    return {sid: int(n) for sid, n in rows.rows()}


def _tests_reaching(store: Store, ids: list[str], depth: int,
                    ) -> tuple[dict[str, int], set[str]]:
    """Per symbol, how many test files reach it (by a test function or the file itself)
    within ``depth`` calls, imports or inheritances; and the symbols that are test code."""
    if not ids:
        return {}, set()
    file_of = {i: _file_id(i) for i in ids}
    test_files = set(by_ids(store, sorted(set(file_of.values())), _TEST_FILES)["id"])
    test_code = {i for i, f in file_of.items() if f in test_files} | set(
        by_ids(store, ids, _TEST_SYMBOLS)["id"])
    reached: dict[str, set[str]] = {i: {i} for i in ids}  # node -> the changes it reaches
    frontier: dict[str, set[str]] = {i: {i} for i in ids}
    found: dict[str, set[str]] = defaultdict(set)
    for _ in range(max(depth, 1)):
        if not frontier or len(reached) > _REACH_MAX:
            break
        rows = _dependents(store, list(frontier))
        following: dict[str, set[str]] = defaultdict(set)
        for target, source, is_test in rows:
            new = frontier[target] - reached.setdefault(source, set())
            if is_test:  # counted by test file: a file's test functions are one suite
                for origin in frontier[target]:
                    found[origin].add(_file_id(source) if source.startswith("sym:") else source)
            if new:
                reached[source] |= new
                following[source] |= new
        frontier = following
    return {i: len(found[i]) for i in ids if found[i]}, test_code


def _dependents(store: Store, ids: list[str]) -> list[tuple[str, str, bool]]:
    """(target, source, source is test) for the current callers, importers and subclasses
    of ``ids`` (symbols and files), each target looked up by primary key in its table."""
    rows: list[tuple[str, str, bool]] = []
    for table, template in _DEPENDENTS.items():
        some = [i for i in ids if i.startswith(_ID_PREFIX[table])]
        if some:
            rows += by_ids(store, some, template).rows()
    return rows


def _crossed(community_of: dict[str, set[str]], reached: set[str]) -> set[str]:
    """The communities of one scope (file or symbol: ``community:<repo>/<scope>/...``) that
    the nodes ``reached`` belong to, for the scope where they are the most."""
    by_scope: dict[str, set[str]] = defaultdict(set)
    for node in reached:
        for c in community_of.get(node, ()):
            by_scope[c.split("/")[1] if c.count("/") >= 3 else ""].add(c)
    return max(by_scope.values(), key=len, default=set())


def _file_id(symbol: str) -> str:
    return f"file:{symbol.removeprefix('sym:').split('#', 1)[0]}"


def _strongest(tests: Sequence[TestToRun]) -> str:
    for evidence in ("coverage", "static", "rule"):
        if any(t.evidence == evidence for t in tests):
            return evidence
    return "none"


def _briefed(store: Store, repo: str, paths: list[str], notes: list[str],
             ) -> tuple[tuple[StaleDecision, ...], tuple[Any, ...]]:
    """Stale decisions and others' open intents about the changed files, from a briefing."""
    wanted = [f"file:{repo}/{p}" for p in paths]
    files = sorted(by_ids(store, wanted, lookup_template(
        f"MATCH (f:{FILE.name}{{B}}) WHERE {{IN}} AND f.valid_to IS NULL RETURN f.id AS id",
        "f"))["id"].to_list()) if wanted else []
    if not files:
        return (), ()
    try:
        brief = briefing(store, files=files, tier="full")
    except VgdbError as exc:  # reported; the rest of the review stands
        notes.append(f"no briefing of the changed files: {exc}")
        return (), ()
    stale = brief.section("stale")
    intents = brief.section("intents")
    return (tuple(StaleDecision(i.id, i.text, i.relation) for i in stale.items) if stale
            else (), intents.items if intents else ())


def _at_odds(store: Store, symbols: Sequence[Any], intents: Sequence[Any],
             ) -> tuple[AtOdds, ...]:
    """Decisions and patterns in force about code the change deletes, and others' open
    intents on the changed files."""
    deleted = sorted({s.id for s in symbols if s.change == "deleted"})
    out = []
    if deleted:
        about: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)
        for eid, display, kind, title, sid in by_ids(store, deleted, _IN_FORCE_ABOUT).rows():
            about[(eid, display or "", kind, title or "")].add(sid)
        out += [AtOdds(*entry, "deletes code it is about: " + ", ".join(sorted(about[entry])))
                for entry in sorted(about)]
    out += [AtOdds(i.id, i.text.split(" ", 1)[0] if _DISPLAY.match(i.text) else "", "intent",
                   i.text, "another session's open intent on this code") for i in intents]
    return tuple(out)
