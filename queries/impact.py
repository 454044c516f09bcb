"""What a change impacts: the code that depends on it (ranked, each with the path that
explains it), the tests to run, the communities touched, and the decisions, failures,
patterns, intents and papers about the impacted code.

Targets are node ids or names (see :func:`queries.provenance.resolve_node`), or a change set
from a git diff (``ingest.history.diff.diff_changes``) whose changed lines are first mapped
to the symbols holding them (:func:`changed_symbols`).

How impact spreads (reverse dependencies: "who depends on what changed"):

==========  ===========================================================================
edge kind   a node X is impacted when an impacted node Y ...
==========  ===========================================================================
CALLS       is called by X (X -CALLS-> Y)
INHERITS    is a base class of X (X -INHERITS-> Y)
TESTS       is tested by the test X (X -TESTS-> Y)
IMPORTS     is a file or symbol that the file X imports (X -IMPORTS-> Y)
CONTAINS    is a member of the class or function X (X -CONTAINS-> Y), or is the module
            symbol (module-level code) of the file X: a changed method changes its class,
            so whoever constructs the class is impacted; changed module-level code changes
            the module, so its importers are impacted
==========  ===========================================================================

A *target* stands for its whole definition: a file target seeds every symbol of the file, a
class target its methods (nested definitions), at distance 0. Impact never spreads out of a
test (tests are what is run, nothing depends on them), and a file reached only because one of
its symbols is impacted is listed among the impacted files but does not itself spread to its
importers (only files reached as targets, through IMPORTS, or through their module symbol do).

Scores: a path's score is the product, over its edges, of the edge's confidence (1.0 where the
graph stores none) times its kind's weight, times ``decay`` per hop. Each node keeps its best
path only (no path enumeration). The expansion is level-synchronous and batched, never one
query per node: each hop is one statement for the whole symbol frontier (all edge kinds
together, ``label(e)`` tells them apart) and two for the file frontier, the frontier looked up
through the primary-key index (``queries.batch``); a node whose best score improves at a later
hop (a longer path can beat a shorter, low-confidence one) is expanded again.

``depth`` bounds a path's length; per-kind limits (``ImpactOptions.max_depth``) stop an edge
kind from being followed beyond that many hops from the target. Depths above
:data:`MAX_DEPTH` are capped, with a note.

Tests to run combine three kinds of evidence (:mod:`queries.evidence`): recorded coverage
(a changed function or method that tests executed selects exactly those tests), the static
paths above (for code without coverage), and conservative rules (module-level code, conftest
hooks, data and configuration files). Each :class:`TestToRun` says which (``evidence``,
``reason``, ``why``).

Unknown targets raise :class:`schema.NodeNotFoundError` naming every unknown one (a CI job
with a typo must fail, not report that nothing is affected). Files of a change set that the
graph does not hold as code (README.md, data, binaries, deleted files) are reported in
``notes`` and ``changes``, never an error.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

import polars as pl

from graphdb import Store, deadline
from queries.batch import by_ids, lookup_template
from queries.evidence import (
    CoverageEvidence,
    Execution,
    classify_file,
    executed_by,
    file_users,
    nearest_test_dir,
    recorded_tests,
    sampled_tests,
    tests_under,
)
from queries.impact_context import (
    EntryHit,
    PaperHit,
    TimeFilter,
    by_code_ids,
    entries_about,
    has_nodes,
    papers_about,
)
from queries.provenance import resolve_node
from schema import (
    CALLS,
    COMMUNITY,
    CONTAINS,
    EXECUTES,
    EXTERNAL,
    FILE,
    IMPORTS,
    IN_COMMUNITY,
    INHERITS,
    MODULE_QUALNAME,
    REPOSITORY,
    SYMBOL,
    TESTS,
    NodeNotFoundError,
    QueryError,
    Source,
)

__all__ = [
    "DEFAULT_IMPACT", "MAX_DEPTH", "ChangeSetLike", "ChangedCode", "ChangedSymbol",
    "CommunityHit", "EntryHit", "ImpactEdge", "ImpactOptions", "ImpactResult", "ImpactedNode",
    "PaperHit", "TestToRun", "changed_symbols", "impact",
]

#: Depths above this are capped (with a note): beyond it nearly everything is "impacted".
MAX_DEPTH = 10
#: what a changed function the recording held but nothing executed selects (``impact``)
_NEVER_EXECUTED = ("unrecorded", "static", "skip")
#: Stop expanding once this many nodes are reached (a note says so).
MAX_NODES = 200_000
_EDGE_KINDS = (CALLS.name, INHERITS.name, TESTS.name, IMPORTS.name, CONTAINS.name)


@dataclass(frozen=True, slots=True)
class ImpactOptions:
    """How impact spreads: ``weights`` per edge kind, ``decay`` per hop, and ``max_depth``
    per kind (an edge of that kind is followed only within that many hops of a target; a
    kind missing from it is limited by ``depth`` alone). Vary with ``dataclasses.replace``."""

    weights: tuple[tuple[str, float], ...] = (
        (CALLS.name, 1.0), (INHERITS.name, 1.0), (TESTS.name, 1.0), (IMPORTS.name, 0.9),
        (CONTAINS.name, 0.9))
    decay: float = 0.8
    max_depth: tuple[tuple[str, int], ...] = ()

    def weight(self, kind: str) -> float:
        return dict(self.weights).get(kind, 0.0)

    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k, w in self.weights if w > 0)

    def limit(self, kind: str, depth: int) -> int:
        return min(depth, dict(self.max_depth).get(kind, depth))


#: The default: every dependency kind, imports and containment slightly weaker than calls.
DEFAULT_IMPACT = ImpactOptions()


class ChangeSetLike(Protocol):
    """The shape of ``ingest.history.diff.ChangeSet`` (queries do not import ingest)."""

    root: str
    base: str
    head: str
    head_ref: str
    files: tuple[Any, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ImpactEdge:
    """One edge of an explaining path, as stored (``src -kind-> dst``)."""

    src: str
    dst: str
    kind: str
    resolution: str  # CALLS/IMPORTS/INHERITS: how it was resolved; TESTS: calls | naming
    source: str
    confidence: float


@dataclass(frozen=True, slots=True)
class ImpactedNode:
    """A symbol or file the change impacts. ``path`` is the file's path in its repository;
    ``via`` the edges from ``target`` to this node (empty for a target itself)."""

    id: str
    table: str  # Symbol | File
    name: str  # qualname, or the file path
    kind: str  # symbol kind, or 'file'
    path: str
    repo: str
    language: str
    is_test: bool
    distance: int
    score: float
    target: str
    via: tuple[ImpactEdge, ...]

    def explain(self) -> str:
        """``seed <-CALLS- a <-TESTS- this``: each hop names the edge kind followed (the seed
        is the target, or a definition nested in it)."""
        if not self.via:
            return self.id
        return " ".join([self.via[0].dst, *(f"<-{e.kind}- {e.src}" for e in self.via)])


@dataclass(frozen=True, slots=True)
class TestToRun:
    """A test (or test file) to run. ``node_id`` is what to pass to the runner: a pytest node
    id (``tests/test_x.py::TestC::test_m``) for Python, else the test file's path, relative to
    the repository's ingested root.

    ``evidence`` says what selected it: ``coverage`` (the test executed a changed symbol when
    coverage was recorded; ``via`` is that EXECUTES edge), ``static`` (a path of graph edges
    reaches the test) or ``rule`` (a conservative rule: import-time state, a conftest or
    helper file, a data or configuration file). ``reason`` is the finer kind: executed,
    reached, module, file, conftest, data, config. ``why`` says it in one line."""

    node_id: str
    id: str
    repo: str
    path: str
    language: str
    score: float
    reason: str
    via: tuple[ImpactEdge, ...]
    target: str
    evidence: str = "static"
    why: str = ""


@dataclass(frozen=True, slots=True)
class CommunityHit:
    id: str
    name: str
    level: int
    score: float  # best score of its impacted members
    members: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChangedSymbol:
    """A symbol a change touched: ``change`` added | modified | deleted (the id is the base
    side's for deleted ones); ``in_graph`` whether the graph holds the node."""

    id: str
    path: str
    qualname: str
    change: str
    lines: int
    in_graph: bool


@dataclass(frozen=True, slots=True)
class ChangedCode:
    """What :func:`changed_symbols` made of a change set."""

    repo: str
    base: str
    head: str
    symbols: tuple[ChangedSymbol, ...]
    files: tuple[tuple[str, str], ...]  # (path, status) of every changed file
    seeds: tuple[str, ...]  # the ids impact starts from
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ImpactResult:
    """Impacted symbols and files (best score first), tests to run, communities touched,
    entries and papers about the impacted code. ``truncated``: ``limit`` cut the symbol or
    file list (tests are never cut)."""

    targets: tuple[str, ...]
    depth: int
    symbols: tuple[ImpactedNode, ...]
    files: tuple[ImpactedNode, ...]
    tests: tuple[TestToRun, ...]
    communities: tuple[CommunityHit, ...]
    entries: tuple[EntryHit, ...]
    papers: tuple[PaperHit, ...]
    changes: ChangedCode | None = None
    notes: tuple[str, ...] = field(default=())
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_polars(self) -> pl.DataFrame:
        """One row per impacted symbol and file, best first, with the explaining path."""
        rows = [{"id": n.id, "table": n.table, "name": n.name, "kind": n.kind, "path": n.path,
                 "is_test": n.is_test, "distance": n.distance, "score": n.score,
                 "target": n.target, "via": n.explain()}
                for n in sorted((*self.symbols, *self.files), key=_rank)]
        schema = {"id": pl.Utf8, "table": pl.Utf8, "name": pl.Utf8, "kind": pl.Utf8,
                  "path": pl.Utf8, "is_test": pl.Boolean, "distance": pl.Int64,
                  "score": pl.Float64, "target": pl.Utf8, "via": pl.Utf8}
        return pl.DataFrame(rows, schema=schema)

    def test_ids(self) -> tuple[str, ...]:
        """What to pass to the test runner, sorted."""
        return tuple(sorted({t.node_id for t in self.tests}))


def _rank(n: ImpactedNode) -> tuple[float, int, str]:
    return (-n.score, n.distance, n.id)


# ---------------------------------------------------------------------------------- traversal
@dataclass(slots=True)
class _Best:
    score: float
    target: str
    via: tuple[ImpactEdge, ...]


_NODE_COLUMNS = ("label(a) AS tbl, a.qualname AS qualname, a.kind AS skind, a.file AS file, "
                 "a.path AS path, a.repo AS repo, a.language AS language, a.is_test AS is_test")
#: the same columns when ``a`` can only be a File
_FILE_COLUMNS = _NODE_COLUMNS.replace(
    "a.qualname AS qualname, a.kind AS skind, a.file AS file",
    "'' AS qualname, 'file' AS skind, a.id AS file")


def _node_of(row: dict[str, Any]) -> _Node:
    """A node described by :data:`_NODE_COLUMNS` (Symbol or File)."""
    repo = row["repo"] or ""
    if row["tbl"] == FILE.name:
        path = row["path"] or ""
        return _Node(FILE.name, path, "file", path, repo, row["language"] or "",
                     bool(row["is_test"]), row["src"])
    fid = row["file"] or ""
    return _Node(SYMBOL.name, row["qualname"] or "", row["skind"] or "",
                 fid[len(f"file:{repo}/"):], repo, row["language"] or "",
                 bool(row["is_test"]), fid)


def _resolution(kinds: Sequence[str]) -> str:
    """How an edge was found: CALLS/INHERITS/IMPORTS ``resolution``, TESTS ``method``."""
    props = [p for p, ks in (("e.resolution", (CALLS.name, INHERITS.name, IMPORTS.name)),
                             ("e.method", (TESTS.name,))) if set(ks) & set(kinds)]
    return f"coalesce({', '.join(props)}, '')" if props else "''"


def _hop(store: Store, frontier: dict[str, list[str]], kinds: set[str], flt: TimeFilter,
         nodes: dict[str, _Node]) -> list[tuple[str, ImpactEdge, bool]]:
    """Every edge of ``kinds`` into the frontier, as (frontier node, edge, whether its source
    file spreads): one statement for the symbol frontier, one for the file frontier; the
    sources' descriptions come back with them into ``nodes``."""
    out: list[tuple[str, ImpactEdge, bool]] = []
    valid = f"{flt.valid('a')} AND {flt.valid('e')}"
    ret = ("RETURN {ALIAS}.id AS at, a.id AS src, b.id AS dst, label(e) AS kind, "
           "e.source AS source, e.confidence AS confidence, ")
    ret_file = ret + _FILE_COLUMNS
    ret += _NODE_COLUMNS
    sym_kinds = [k for k in (CALLS.name, INHERITS.name, TESTS.name, CONTAINS.name,
                             IMPORTS.name) if k in kinds]
    frames = []
    if frontier.get(SYMBOL.name) and sym_kinds:
        text = (f"MATCH (a:{FILE.name}:{SYMBOL.name})-[e:{'|'.join(sym_kinds)}]->"
                f"(b:{SYMBOL.name}{{B}}) WHERE {{IN}} AND {valid} AND (label(e) <> "
                f"'{CONTAINS.name}' OR label(a) = '{SYMBOL.name}' OR b.qualname = "
                f"'{MODULE_QUALNAME}') {ret}, {_resolution(sym_kinds)} AS res")
        frames.append(by_ids(store, frontier[SYMBOL.name], lookup_template(text, "b"),
                              flt.params()))
    if frontier.get(FILE.name) and IMPORTS.name in kinds:
        direct = (f"MATCH (a:{FILE.name})-[e:{IMPORTS.name}]->(b:{FILE.name}{{B}}) "
                  f"WHERE {{IN}} AND {valid} {lookup_template(ret_file, 'b')}, e.resolution AS res")
        names = (f"MATCH (f:{FILE.name}{{B}})-[:{CONTAINS.name}]->(b:{SYMBOL.name})"
                 f"<-[e:{IMPORTS.name}]-(a:{FILE.name}) WHERE {{IN}} AND {valid} "
                 f"{lookup_template(ret_file, 'f')}, e.resolution AS res")
        frames.append(by_ids(store, frontier[FILE.name], lookup_template(direct, "b"),
                              flt.params()))
        frames.append(by_ids(store, frontier[FILE.name], lookup_template(names, "f"),
                              flt.params()))
    for frame in frames:
        for row in frame.iter_rows(named=True):
            if row["src"] not in nodes:
                nodes[row["src"]] = _node_of(row)
            kind = row["kind"]
            spreads = (kind == IMPORTS.name and row["at"].startswith("file:")) or (
                kind == CONTAINS.name and row["tbl"] == FILE.name)
            out.append((row["at"], ImpactEdge(
                row["src"], row["dst"], kind, row["res"] or "", row["source"] or "",
                1.0 if row["confidence"] is None else float(row["confidence"])), spreads))
    return out


@dataclass(slots=True)
class _Node:
    table: str
    name: str
    kind: str
    path: str
    repo: str
    language: str
    is_test: bool
    file: str


def _describe(store: Store, ids: Iterable[str]) -> dict[str, _Node]:
    """Symbol and File nodes by id (ids the graph does not hold are left out)."""
    out: dict[str, _Node] = {}
    wanted = sorted(set(ids))
    for table, prefix in ((SYMBOL.name, "sym:"), (FILE.name, "file:")):
        some = [i for i in wanted if i.startswith(prefix)]
        if not some:
            continue
        columns = _FILE_COLUMNS if table == FILE.name else _NODE_COLUMNS.replace(
            "a.path AS path", "'' AS path")
        text = f"MATCH (a:{table}{{B}}) WHERE {{IN}} RETURN a.id AS src, {columns}"
        for row in by_ids(store, some, lookup_template(text, "a")).iter_rows(named=True):
            out[row["src"]] = _node_of(row)
    return out


def _seeds(store: Store, targets: Sequence[str], flt: TimeFilter) -> dict[str, str]:
    """Seed id -> the target it stands for: each target and its nested definitions (one
    statement per nesting level; most targets have none)."""
    seeds = {t: t for t in targets}
    frontier = [t for t in targets if t.startswith(("sym:", "file:"))]
    while frontier:
        deadline.check()
        # one lookup per table: a probe through a multi-table pattern costs ~8x more here
        rows = by_code_ids(store, frontier, f"MATCH (n:{{T}}{{B}})-[:{CONTAINS.name}]->"
                                             f"(x:{SYMBOL.name}) WHERE {{IN}} AND "
                                             f"{flt.valid('x')} RETURN n.id AS t, x.id AS x",
                            flt.params())
        frontier = []
        for parent, child in sorted((r["t"], r["x"]) for r in rows):
            if child not in seeds:
                seeds[child] = seeds[parent]
                frontier.append(child)
    return seeds


def _traverse(store: Store, seeds: dict[str, str], nodes: dict[str, _Node], *, depth: int,
              options: ImpactOptions, flt: TimeFilter,
              notes: list[str]) -> tuple[dict[str, _Best], dict[str, _Best]]:
    """Best path per reached node, and the files whose import-time state changed."""
    best = {s: _Best(1.0, t, ()) for s, t in seeds.items()}
    # files whose import-time state changed, with the best path that says so (which may
    # score below the file's best path overall, e.g. one through an ordinary import)
    spread = {s: best[s] for s in seeds if nodes[s].table == FILE.name}
    frontier = {s for s in seeds if not nodes[s].is_test or s in spread}
    for hop in range(1, depth + 1):
        deadline.check()
        if not frontier:
            break
        by_table: dict[str, list[str]] = defaultdict(list)
        for nid in sorted(frontier):
            by_table[nodes[nid].table].append(nid)
        kinds = {k for k in options.kinds() if hop <= options.limit(k, depth)}
        nxt: set[str] = set()
        for at, edge, spreads in _hop(store, by_table, kinds, flt, nodes):
            parent = spread[at] if nodes[at].table == FILE.name else best[at]
            score = parent.score * edge.confidence * options.weight(edge.kind) * options.decay
            path = _Best(score, parent.target, (*parent.via, edge))
            current = best.get(edge.src)
            if current is None or score > current.score + 1e-12:
                best[edge.src] = path
                nxt.add(edge.src)
            if spreads and (edge.src not in spread or score > spread[edge.src].score + 1e-12):
                spread[edge.src] = path
                nxt.add(edge.src)
        frontier = {n for n in nxt if (nodes[n].table == SYMBOL.name and not nodes[n].is_test)
                    or n in spread}
        if len(best) > MAX_NODES:
            notes.append(f"stopped after {hop} hops: more than {MAX_NODES} nodes impacted")
            break
    return best, spread


# ------------------------------------------------------------------------------------ results
def impact(store: Store, targets: Sequence[str] | ChangeSetLike, *, depth: int = 3,
           edge_kinds: Sequence[str] | None = None, as_of: datetime | None = None,
           limit: int = 500, options: ImpactOptions = DEFAULT_IMPACT,
           repo: str | None = None, coverage: bool = True,
           never_executed: str = "unrecorded") -> ImpactResult:
    """What depends on ``targets``, ranked, with tests to run and the knowledge around it.

    Parameters
    ----------
    targets
        Node ids or names (``sym:...``, ``file:...``, ``pkg/mod.py#f``, ``pkg/mod.py``), or a
        change set from ``ingest.history.diff.diff_changes``.
    depth
        Longest explaining path, in edges (0: the targets only). Capped at :data:`MAX_DEPTH`.
    edge_kinds
        Follow only these kinds (default: every kind with a weight in ``options``).
    as_of
        Use the graph as valid at this time (default: current nodes and edges).
    limit
        At most this many symbols and this many files (tests are never cut).
    options
        Edge weights, decay and per-kind depth limits (:data:`DEFAULT_IMPACT`).
    repo
        For a change set: the repository it belongs to (default: the one ingested from the
        change set's root, or the only one).
    coverage
        Use recorded coverage (``vgdb ingest-coverage``) where the changed code has it: a
        changed function or method selects exactly the tests that executed it; without it
        (False, or no coverage) every test comes from the static graph and the rules
        (:mod:`queries.evidence`).
    never_executed
        A changed function the graph already held when coverage was stored, which nothing
        executed: ``unrecorded`` (default) selects the tests the static graph reaches from
        it that the recording does not hold (new tests, tests that ran no measured code);
        ``static`` every test the static graph reaches, as for code added since; ``skip``
        trusts the coverage and selects no test for it (a note names them).

    Returns
    -------
    ImpactResult
    """
    if depth < 0:
        raise QueryError(f"depth must be >= 0, got {depth}")
    if never_executed not in _NEVER_EXECUTED:
        raise QueryError(f"never_executed must be one of {', '.join(_NEVER_EXECUTED)}, got "
                         f"{never_executed!r}")
    notes: list[str] = []
    if depth > MAX_DEPTH:
        notes.append(f"depth {depth} capped at {MAX_DEPTH}")
        depth = MAX_DEPTH
    if edge_kinds is not None:
        unknown = sorted(set(edge_kinds) - set(_EDGE_KINDS))
        if unknown:
            raise QueryError(f"unknown edge kinds {unknown}; choose from {list(_EDGE_KINDS)}")
        options = replace(options, weights=tuple((k, w) for k, w in options.weights
                                                 if k in edge_kinds))
    flt = TimeFilter(as_of)
    changes: ChangedCode | None = None
    if isinstance(targets, (list, tuple)):
        ids = _resolve_all(store, [str(t) for t in targets])
    else:
        changes = changed_symbols(store, targets, repo=repo)
        notes.extend(changes.notes)
        ids = list(changes.seeds)
    seeds = _seeds(store, ids, flt)
    nodes = _describe(store, seeds)
    missing = [s for s in ids if s not in nodes]
    if missing:
        raise NodeNotFoundError(
            f"not in the graph{' at ' + str(as_of) if as_of else ''}: {', '.join(missing)}",
            node_id=missing[0], suggestion="check the ids (vgdb cypher can list them)")
    for s in [s for s in seeds if s not in nodes]:
        del seeds[s]
    # a top-level variable or constant is module-level code: it runs at import, and its
    # readers are no call edges; the module symbol's import rule stands for it
    module_seeds = {f"{nodes[s].file.replace('file:', 'sym:', 1)}#{MODULE_QUALNAME}": t
                    for s, t in seeds.items()
                    if nodes[s].table == SYMBOL.name and "." not in nodes[s].name
                    and nodes[s].kind in ("variable", "constant")}
    module_seeds = {m: t for m, t in module_seeds.items() if m not in seeds}
    if module_seeds:
        nodes.update(_describe(store, module_seeds))
        seeds.update({m: t for m, t in module_seeds.items() if m in nodes})
    best, spreading = _traverse(store, seeds, nodes, depth=depth, options=options, flt=flt,
                                notes=notes)
    deadline.check()
    impacted = [_impacted(nid, nodes[nid], b) for nid, b in best.items()]
    symbols = sorted((n for n in impacted if n.table == SYMBOL.name), key=_rank)
    files = _files(store, impacted, nodes)
    found = executed_by(store, seeds, nodes, valid=flt.valid("e"), params=flt.params()) \
        if coverage else None
    extra: list[TestToRun] = []
    if found is not None and found.states:
        extra += _coverage_tests(found, seeds, notes)
        extra += _module_users(store, _import_time_files(found, seeds, nodes), seeds, flt)
        extra += _sampled_users(store, found.covered | (
            found.never if never_executed != "skip" else frozenset()), seeds, nodes, flt)
    if changes is not None and not isinstance(targets, (list, tuple)):
        extra += _rule_tests(store, targets, changes.repo, notes)
    never = found.never if found is not None and never_executed != "static" else frozenset()
    if never and never_executed == "skip":
        notes.append(f"{len(never)} changed definition(s) ran in no test when coverage was "
                     f"recorded and select none: {', '.join(sorted(never)[:5])}")
    elif never:
        extra += _unrecorded_tests(store, {s: seeds[s] for s in never}, nodes, depth=depth,
                                   options=options, flt=flt, notes=notes)
    if found is not None and (found.covered or never):
        # tests of covered seeds come from coverage: the static graph selects only for the
        # others, and for the modules whose import ran a covered seed (their importers)
        static = {s: t for s, t in seeds.items() if s not in never and (
            s not in found.covered or s in found.also_static)}
        static.update(_importers(store, found, seeds, nodes))
        if static:
            best_s, spreading_s = _traverse(store, static, nodes, depth=depth,
                                            options=options, flt=flt, notes=[])
            reached = [_impacted(nid, nodes[nid], b) for nid, b in best_s.items()]
        else:
            reached, spreading_s = [], {}
        tests = _tests(store, reached, nodes, spreading_s, extra)
    else:
        tests = _tests(store, impacted, nodes, spreading, extra)
    all_ids = [n.id for n in (*symbols, *files)]
    scores = {n.id: n.score for n in (*symbols, *files)}
    truncated = len(symbols) > limit or len(files) > limit
    if truncated:
        notes.append(f"showing the best {limit} of {len(symbols)} symbols and "
                     f"{len(files)} files (limit)")
    return ImpactResult(
        targets=tuple(ids), depth=depth, symbols=tuple(symbols[:limit]),
        files=tuple(files[:limit]), tests=tests,
        communities=_communities(store, all_ids, scores),
        entries=entries_about(store, all_ids, scores, flt),
        papers=papers_about(store, all_ids, scores, flt),
        changes=changes, notes=tuple(notes), truncated=truncated)


def _coverage_tests(found: CoverageEvidence, seeds: dict[str, str],
                    notes: list[str]) -> list[TestToRun]:
    """The tests (or the parametrized cases of them) that executed a covered seed, a test
    module itself when it ran the seed while it was imported, each with the EXECUTES edge
    that says so. What other modules' imports ran is left to :func:`_importers`."""
    out: dict[str, TestToRun] = {}
    for ex in found.executions:
        if ex.at_import:
            continue
        how = "while the test module was imported" if ex.phases == "collect" else \
            f"lines {ex.lines}"
        for test in _executed(ex, seeds[ex.seed], f"executed {_short_id(ex.seed)} ({how})"):
            out.setdefault(test.node_id, test)
    for repo, state in sorted(found.states.items()):
        mine = [s for s in seeds if s.startswith((f"sym:{repo}/", f"file:{repo}/"))]
        covered = [s for s in mine if s in found.covered]
        commit = str(state.get("commit") or "")[:12] or "an unknown commit"
        notes.append(f"coverage of {repo} recorded at {commit}: "
                     f"{len(covered)} of {len(mine)} changed definitions select the tests that "
                     "executed them; the others (new, never executed, module-level code, "
                     "class bodies) use the static graph")
    return list(out.values())


def _executed(ex: Execution, target: str, what: str) -> list[TestToRun]:
    """The runner ids an execution selects (the test, its parametrized cases, or a test
    module run whole), each with the EXECUTES edge that says so."""
    if ex.qualname == MODULE_QUALNAME or ex.language != "python":
        keys = [ex.path]
    else:
        key = _pytest_id(ex.path, ex.qualname)
        keys = [f"{key}[{c}]" for c in ex.cases] if ex.cases else [key]
    edge = ImpactEdge(ex.test, ex.seed, EXECUTES.name, "coverage", Source.COVERAGE.value, 1.0)
    why = f"{what} when coverage was recorded at {ex.commit[:12] or 'an unknown commit'}"
    return [TestToRun(k, ex.test, ex.repo, ex.path, ex.language, 1.0, "executed", (edge,),
                      target, "coverage", why) for k in keys]


def _import_time_files(found: CoverageEvidence, seeds: dict[str, str],
                       nodes: dict[str, _Node]) -> dict[str, tuple[str, str]]:
    """Files whose import-time state a seed changes (file id -> (the seed, how)): the module
    whose import ran a covered seed, and the file of a changed module level or class body
    (in a repository with a recording)."""
    out: dict[str, tuple[str, str]] = {}
    for ex in found.executions:
        if ex.at_import:
            out.setdefault("file:" + ex.test.removeprefix("sym:").split("#", 1)[0],
                           (ex.seed, f"whose import ran {_short_id(ex.seed)}"))
    for s in sorted(seeds):
        n = nodes.get(s)
        if n is not None and n.table == SYMBOL.name and n.repo in found.states and (
                n.name == MODULE_QUALNAME or n.kind == "class"):
            out.setdefault(n.file, (s, f"whose import-time state changed ({_short_id(s)})"))
    return out


def _module_users(store: Store, files: dict[str, tuple[str, str]], seeds: dict[str, str],
                  flt: TimeFilter) -> list[TestToRun]:
    """The tests that executed code of modules whose import-time state changed, by coverage:
    they need that state, however they imported the module (``importlib`` at run time has
    no import edge). The static import rule adds the modules importing it
    (:func:`_importers`, and the module seeds of the traversal)."""
    out: list[TestToRun] = []
    for ex in file_users(store, files, valid=flt.valid("e"), params=flt.params()):
        seed, how = files[ex.seed]  # ex.seed: the module's file, whose code the test ran
        out += _executed(ex, seeds[seed], f"ran code of {_short_id(ex.seed)}, {how},")
    return out


def _sampled_users(store: Store, changed: frozenset[str], seeds: dict[str, str],
                   nodes: dict[str, _Node], flt: TimeFilter) -> list[TestToRun]:
    """For changed functions the recording knows (covered, or held but never executed): the
    property-based tests (hypothesis) that ran any code of their file. Their recorded
    coverage is one sample of their examples; the next run draws others, which may reach the
    function: a file is the grain their coverage can vouch for."""
    by_file: dict[str, str] = {}
    for s in sorted(changed):
        by_file.setdefault(nodes[s].file, s)
    sampled = sampled_tests(store, {nodes[s].repo for s in changed}) if by_file else ()
    if not sampled:
        return []
    out: list[TestToRun] = []
    for ex in file_users(store, by_file, valid=flt.valid("e"), params=flt.params(),
                         tests=sampled):
        seed = by_file[ex.seed]
        out += _executed(ex, seeds[seed], f"a property-based test (hypothesis: its examples "
                                          f"vary between runs) ran code of {_short_id(ex.seed)}")
    return out


def _importers(store: Store, found: CoverageEvidence, seeds: dict[str, str],
               nodes: dict[str, _Node]) -> dict[str, str]:
    """Module symbols whose import ran a covered seed, as static seeds (module symbol ->
    the seed's target): the import rule selects the test files importing them."""
    modules = {ex.test: seeds[ex.seed] for ex in found.executions if ex.at_import}
    nodes.update(_describe(store, [m for m in modules if m not in nodes]))
    return {m: t for m, t in modules.items() if m in nodes and m not in seeds}


def _unrecorded_tests(store: Store, never: dict[str, str], nodes: dict[str, _Node], *,
                      depth: int, options: ImpactOptions, flt: TimeFilter,
                      notes: list[str]) -> list[TestToRun]:
    """For code the recording held but nothing executed: the tests the static graph
    reaches from it that the recording does not hold. A test file or class reached whole is
    narrowed to its tests outside the recording; a directory (a conftest.py's) and files of
    other languages stay whole."""
    best, spreading = _traverse(store, never, nodes, depth=depth, options=options, flt=flt,
                                notes=[])
    reached = _tests(store, [_impacted(nid, nodes[nid], b) for nid, b in best.items()],
                     nodes, spreading)
    recorded: dict[str, frozenset[str]] = {
        r: recorded_tests(store, r, valid=flt.valid("e"), params=flt.params())
        for r in sorted({t.repo for t in reached})}
    members = _test_functions(store, sorted({nodes[t.id].file for t in reached
                                             if t.id in nodes}))
    out: list[TestToRun] = []
    dropped = 0
    for t in reached:
        node = nodes.get(t.id)
        if t.node_id.endswith("/") or t.language != "python" or node is None:
            out.append(t)
            continue
        if node.table == FILE.name:
            inside = members.get(t.id, [])
        elif node.kind == "class":
            inside = [(sid, qn) for sid, qn in members.get(node.file, [])
                      if qn.startswith(node.name + ".")]
        else:
            inside = [(t.id, node.name)]
        kept = [(sid, qn) for sid, qn in inside if sid not in recorded[t.repo]]
        dropped += len(inside) - len(kept)
        out += [replace(t, node_id=_pytest_id(t.path, qn), id=sid,
                        why=f"{t.why}; the recording holds no run of this test")
                for sid, qn in kept]
    if dropped:
        notes.append(f"{len(never)} changed definition(s) ran in no test when coverage was "
                     f"recorded: {dropped} test(s) the static graph reaches from them ran "
                     "without reaching them and are not selected")
    return out


def _test_functions(store: Store, files: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Test file id -> its test functions and methods (id, qualname)."""
    rows = store.cypher(
        f"MATCH (t:{SYMBOL.name}) WHERE t.file IN $files AND t.is_test AND t.valid_to IS NULL "
        "AND t.kind IN ['function', 'method'] RETURN t.file AS file, t.id AS id, "
        "t.qualname AS qualname ORDER BY id", {"files": files}) if files else None
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for file, sid, qualname in (rows.iter_rows() if rows is not None else ()):
        out[file].append((sid, qualname))
    return out


def _rule_tests(store: Store, changes: ChangeSetLike, repo: str,
                notes: list[str]) -> list[TestToRun]:
    """Conservative selections for changed files the graph cannot follow: configuration
    (every test) and data files (the tests of the nearest directory holding tests)."""
    out: list[TestToRun] = []
    test_files: list[str] | None = None
    for f in changes.files:
        path = f.path
        kind = classify_file(path)
        if kind == "docs":
            continue
        fid = f"file:{repo}/{path}"
        if kind == "config":
            out.append(TestToRun("./", fid, repo, path, "", 1.0, "config", (), fid,
                                 "rule", f"configuration file {path} changed: every test runs"))
            notes.append(f"{path} is configuration: every test is selected")
            continue
        if not (f.binary or f.language is None):
            continue  # code: the graph follows it
        if test_files is None:
            test_files = tests_under(store, repo)
        where = nearest_test_dir(path, test_files)
        out.append(TestToRun(where, fid, repo, path, "", 1.0, "data", (), fid, "rule",
                             f"data file {path} changed: the tests under {where} run"))
        notes.append(f"{path} is a data file: the tests under {where} are selected")
    return out


def _resolve_all(store: Store, refs: list[str]) -> list[str]:
    """Every ref resolved; one error naming all that are unknown."""
    out: list[str] = []
    bad: list[str] = []
    for ref in refs:
        if ref.startswith("ext:"):
            found = store.cypher(f"MATCH (x:{EXTERNAL.name}) WHERE x.id = $r RETURN x.id",
                                 {"r": ref})
            if found.is_empty():
                bad.append(ref)
            else:
                raise QueryError(f"{ref} is outside the repository: impact starts from "
                                 "symbols and files of the graph")
            continue
        try:
            nid = resolve_node(store, ref)
        except NodeNotFoundError as exc:
            bad.append(f"{ref} ({exc.message})" if "ambiguous" in exc.message else ref)
            continue
        if not nid.startswith(("sym:", "file:")):
            raise QueryError(f"{ref} is not code: impact starts from symbols and files",
                             suggestion="for an entry, use `vgdb provenance` or "
                                        "`vgdb supersession`")
        if nid not in out:
            out.append(nid)
    if out:  # ids given in full are not checked by resolve_node
        known = set(_describe(store, out))
        bad += [nid for nid in out if nid not in known]
    if bad:
        raise NodeNotFoundError(f"unknown targets: {', '.join(bad)}", node_id=bad[0],
                                suggestion="pass ids (sym:<repo>/<path>#<qualname>, "
                                           "file:<repo>/<path>) or their ends (pkg/mod.py#f)")
    return out


def _impacted(nid: str, n: _Node, b: _Best) -> ImpactedNode:
    return ImpactedNode(id=nid, table=n.table, name=n.name, kind=n.kind, path=n.path,
                        repo=n.repo, language=n.language, is_test=n.is_test,
                        distance=len(b.via), score=round(b.score, 6), target=b.target,
                        via=b.via)


def _files(store: Store, impacted: list[ImpactedNode],
           nodes: dict[str, _Node]) -> list[ImpactedNode]:
    """Files reached as nodes, and the files of impacted symbols (their best symbol's score
    and path)."""
    best: dict[str, ImpactedNode] = {n.id: n for n in impacted if n.table == FILE.name}
    by_file: dict[str, ImpactedNode] = {}
    for n in impacted:
        if n.table == SYMBOL.name:
            fid = nodes[n.id].file
            if fid not in by_file or _rank(n) < _rank(by_file[fid]):
                by_file[fid] = n
    missing = [f for f in by_file if f not in nodes]
    nodes.update(_describe(store, missing))
    for fid, sym in by_file.items():
        if fid in best and _rank(best[fid]) <= _rank(sym):
            continue
        f = nodes[fid]
        best[fid] = ImpactedNode(id=fid, table=FILE.name, name=f.path, kind="file", path=f.path,
                                 repo=f.repo, language=f.language, is_test=f.is_test,
                                 distance=sym.distance, score=sym.score, target=sym.target,
                                 via=sym.via)
    return sorted(best.values(), key=_rank)


def _short_id(node_id: str) -> str:
    """``sym:repo/pkg/mod.py#f`` -> ``pkg/mod.py#f`` (for one-line explanations)."""
    for prefix in ("sym:", "file:"):
        if node_id.startswith(prefix):
            rest = node_id[len(prefix):]
            return rest.split("/", 1)[1] if "/" in rest else rest
    return node_id


def _pytest_id(path: str, qualname: str) -> str:
    return "::".join([path, *qualname.split(".")])


def _tests(store: Store, impacted: list[ImpactedNode], nodes: dict[str, _Node],
           spreading: dict[str, _Best], extra: Sequence[TestToRun] = ()
           ) -> tuple[TestToRun, ...]:
    """Reached test symbols as runner ids (a reached test class covers its methods; other
    languages run by file). A test file is run whole (reason ``module``) when it imports a
    module whose import-time state changed, and (reason ``file``) when it was reached
    through an import or a helper/fixture in it but none of its tests were."""
    reached_files: dict[str, ImpactedNode] = {}
    tests: dict[str, TestToRun] = {}
    in_conftest: list[ImpactedNode] = []
    for n in sorted(impacted, key=_rank):
        node = nodes[n.id]
        if n.table == FILE.name:
            # a conftest.py merely importing what changed: its fixtures' calls say more
            if node.is_test and not (_is_conftest(n) and n.id not in spreading):
                reached_files.setdefault(n.id, n)
            continue
        if not node.is_test and _is_conftest(n):
            in_conftest.append(n)
            continue
        file_node = nodes.get(node.file)
        if not (node.is_test or (file_node is not None and file_node.is_test)):
            continue
        if not node.is_test:  # a helper or fixture of a test file
            reached_files.setdefault(node.file, n)
            continue
        key = _pytest_id(node.path, node.name) if node.language == "python" else node.path
        if key not in tests:
            tests[key] = TestToRun(key, n.id, n.repo, node.path, node.language, n.score,
                                   "reached", n.via, n.target, "static",
                                   f"static path from {_short_id(n.target)} "
                                   f"({len(n.via)} edges)")
    # a conftest.py helper or fixture with callers passes the impact on to them (tests request
    # fixtures by name: CALLS of resolution ``fixture``); one without (an autouse fixture, a
    # hook, the module's own code) may serve any test of its directory
    called = _called(store, [n.id for n in in_conftest])
    for n in in_conftest:
        if n.id not in called:
            reached_files.setdefault(nodes[n.id].file, n)
    nodes.update(_describe(store, [f for f in reached_files if f not in nodes]))
    covered = {t.path for t in tests.values()}
    for fid, n in reached_files.items():
        f = nodes[fid]
        why = spreading.get(fid)
        if why is not None:  # explained by the path that changed its import-time state
            # a conftest.py importing it serves (and is collected with) its directory
            run = _conftest_dir(f.path) if f.language == "python" else f.path
            tests[run] = TestToRun(run, fid, f.repo, f.path, f.language,
                                      round(why.score, 6), "module", why.via, why.target,
                                      "rule", "imports a module whose import-time state "
                                      f"changed ({_short_id(why.target)})")
        elif f.path not in covered:
            # pytest collects no test from a conftest.py named alone: its fixtures serve the
            # tests of its directory, so that directory is what runs
            run = _conftest_dir(f.path) if f.language == "python" else f.path
            tests[run] = TestToRun(run, fid, f.repo, f.path, f.language, n.score,
                                   "file", n.via, n.target, "rule",
                                   "a helper, fixture or import of this file is impacted "
                                   f"({_short_id(n.target)}): the whole "
                                   f"{'directory' if run.endswith('/') else 'file'} runs")
    # coverage and rules first: a test both select keeps its first evidence
    merged = {t.node_id: t for t in reversed(extra)}
    for key, test in tests.items():
        merged.setdefault(key, test)
    tests = merged
    # a directory, file, class or test selected whole covers the ids (and cases) under it
    keys = set(tests)
    dirs = [o for o in keys if o.endswith("/")]
    kept = [t for k, t in tests.items() if not _covered_by(k, keys, dirs)]
    return tuple(sorted(kept, key=lambda t: (-t.score, t.node_id)))


def _is_conftest(node: ImpactedNode) -> bool:
    return node.language == "python" and node.path.rpartition("/")[2] == "conftest.py"


def _called(store: Store, ids: list[str]) -> set[str]:
    """The symbols among ``ids`` that some symbol calls."""
    if not ids:
        return set()
    text = (f"MATCH (a:{SYMBOL.name})-[:{CALLS.name}]->(b:{SYMBOL.name}{{B}}) WHERE {{IN}} "
            "RETURN DISTINCT b.id AS id")
    return set(by_ids(store, ids, lookup_template(text, "b"))["id"].to_list())


def _covered_by(key: str, keys: set[str], dirs: list[str]) -> bool:
    """Another selected id runs ``key``: its test without the case, an enclosing class or
    file, or a directory above it."""
    base = key.split("[", 1)[0]
    if base != key and base in keys:
        return True
    parts = base.split("::")
    if any("::".join(parts[:k]) in keys for k in range(1, len(parts))):
        return True
    return any(key != d and _under(key, d) for d in dirs)


def _under(key: str, directory: str) -> bool:
    """``key`` is a test inside ``directory`` (a key ending in ``/``) that runs whole."""
    return directory.endswith("/") and (directory == "./" or key.startswith(directory))


def _conftest_dir(path: str) -> str:
    """``tests/conftest.py`` -> ``tests/`` (``./`` at the root); other paths unchanged."""
    directory, _, name = path.rpartition("/")
    if name != "conftest.py":
        return path
    return f"{directory}/" if directory else "./"


def _communities(store: Store, ids: list[str], scores: dict[str, float]
                 ) -> tuple[CommunityHit, ...]:
    if not ids or not has_nodes(store, COMMUNITY.name):
        return ()
    rows = by_code_ids(store, ids, f"MATCH (n:{{T}}{{B}})-[:{IN_COMMUNITY.name}]->"
                                    f"(c:{COMMUNITY.name}) WHERE {{IN}} RETURN c.id AS c, "
                                    "c.name AS name, c.level AS level, n.id AS i")
    groups: dict[str, tuple[str, int, list[str]]] = {}
    for cid, name, level, member in (r.values() for r in rows):
        groups.setdefault(cid, (name or "", int(level or 0), []))[2].append(member)
    hits = [CommunityHit(cid, name, level, max(scores[m] for m in members),
                         tuple(sorted(members)))
            for cid, (name, level, members) in groups.items()]
    return tuple(sorted(hits, key=lambda h: (h.level, -h.score, -len(h.members), h.id)))


# ------------------------------------------------------------------------ change set -> code
def _repository(store: Store, changes: ChangeSetLike, repo: str | None,
                notes: list[str]) -> tuple[str, str]:
    """(name, head at ingest) of the repository the change set belongs to."""
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name, r.root, r.head "
                        "ORDER BY r.name").rows()
    if repo is not None:
        match = [r for r in rows if r[0] == repo]
        if not match:
            raise NodeNotFoundError(f"no repository {repo!r} in the graph", node_id=repo,
                                    suggestion="vgdb overview lists the repositories")
    else:
        root = os.path.realpath(changes.root)
        match = [r for r in rows if r[1] and os.path.realpath(r[1]) == root]
        if not match and len(rows) == 1:
            match = rows
            notes.append(f"the diffed tree {changes.root} is not where repository {rows[0][0]} "
                         f"was ingested from ({rows[0][1]}); using it anyway")
        if not match:
            raise NodeNotFoundError(
                f"no repository in the graph was ingested from {changes.root}",
                node_id=changes.root, suggestion="pass --repo NAME, or ingest the tree first")
    name, _, head = match[0]
    return name, head or ""


def changed_symbols(store: Store, changes: ChangeSetLike, *,
                    repo: str | None = None) -> ChangedCode:
    """The symbols a change set touched, as graph ids, and the ids impact starts from.

    The graph is assumed to hold the change set's **head** side: it is ingested from the
    working tree, so diff the working tree (``head=None``), or a ``head`` equal to the commit
    the graph was ingested at. A different ingested head is reported in ``notes``, as are
    changed files whose size on disk differs from the graph's (ingest again to fix both).

    - Added or changed lines (head side) belong to the innermost current symbol whose span
      holds them in the graph, else to the file's module symbol (``<module>``).
    - Removed lines (base side) belong to the innermost definition of the base revision; if
      the head still has that qualname, it is modified; else it was deleted: the deleted
      symbol is listed (with its base id) and impact starts from its enclosing definition at
      head (for a top-level one: the module symbol, whose importers may have used it).
    - A deleted file starts impact from its own node when the graph still holds it (history
      keeps deleted files), else it is only listed; a renamed file is handled at its new
      path (its removed lines are read at the old one).
    - Binary files and files without a grammar are listed and start nothing, with a note.
    """
    notes: list[str] = list(changes.notes)
    name, ingested_head = _repository(store, changes, repo, notes)
    if changes.head and ingested_head and changes.head != ingested_head:
        notes.append(f"the graph of {name} was ingested at {ingested_head[:12]} but the diff's "
                     f"head is {changes.head[:12]}: symbol spans may not match; ingest that "
                     "revision first")
    if not changes.head and ingested_head:
        notes.append(f"diffing the working tree; the graph of {name} is assumed to hold it "
                     "(ingest again after editing)")
    prefix = f"sym:{name}/"
    symbols: dict[str, ChangedSymbol] = {}
    seeds: list[str] = []
    files: list[tuple[str, str]] = []
    skipped: list[str] = []
    paths = [f.path for f in changes.files]
    spans = _spans(store, name, paths)
    graph_files = _graph_files(store, name, paths)
    for f in changes.files:
        files.append((f.path, f.status))
        fid = f"file:{name}/{f.path}"
        if f.binary or f.language is None:
            skipped.append(f.path)
            continue
        if f.status == "deleted":
            for q in f.removed_owners() or (MODULE_QUALNAME,):
                sid = f"{prefix}{f.path}#{q}"
                symbols[sid] = ChangedSymbol(sid, f.path, q, "deleted", 0, False)
            if fid in graph_files:
                seeds.append(fid)
            else:
                notes.append(f"deleted file {f.path} is not in the graph: its importers are "
                             "not known")
            continue
        if fid not in graph_files:
            notes.append(f"{f.path} is not in the graph as code (excluded or not ingested "
                         "yet): ingest again")
            continue
        size = graph_files[fid]
        if not changes.head and size is not None:
            try:
                on_disk = os.path.getsize(os.path.join(changes.root, f.path))
            except OSError:
                on_disk = None
            if on_disk is not None and on_disk != size:
                notes.append(f"{f.path} changed since it was ingested ({size} bytes in the "
                             f"graph, {on_disk} on disk): ingest again for exact spans")
        if f.status == "renamed":  # its module name changed: importers of the old one break
            seeds.append(fid)
        file_spans = spans.get(f.path, [])
        counts: dict[str, int] = defaultdict(int)
        for line in f.added_lines:
            counts[_owner(file_spans, line)] += 1
        head_names = {q for q, _, _ in file_spans}
        base_q = {d.qualname for d in f.base_definitions}
        for q in f.removed_owners():
            if q in head_names or q == MODULE_QUALNAME:
                counts[q] += 1
            else:
                old = f.old_path or f.path
                sid = f"{prefix}{old}#{q}"
                symbols[sid] = ChangedSymbol(sid, old, q, "deleted", 0, False)
                enclosing = _enclosing_at_head(q, head_names)
                counts[enclosing] += 0
        if f.status == "added":
            for q in (MODULE_QUALNAME, *head_names):
                counts.setdefault(q, 0)
        for q, n in counts.items():
            sid = f"{prefix}{f.path}#{q}"
            change = "added" if (f.status == "added" or (base_q and q not in base_q
                                                          and q != MODULE_QUALNAME)) \
                else "modified"
            symbols.setdefault(sid, ChangedSymbol(sid, f.path, q, change, n, True))
            seeds.append(sid)
    if skipped:
        notes.append(f"{len(skipped)} changed file(s) are binary or not code and start no "
                     f"impact: {', '.join(skipped[:10])}{' ...' if len(skipped) > 10 else ''}")
    if not seeds:
        notes.append("the change touches no code in the graph")
    deleted_ids = [s.id for s in symbols.values() if s.change == "deleted"]
    if deleted_ids:
        for sid in _describe(store, deleted_ids):
            symbols[sid] = replace(symbols[sid], in_graph=True)
    ordered = dict.fromkeys(seeds)
    return ChangedCode(repo=name, base=changes.base, head=changes.head,
                       symbols=tuple(sorted(symbols.values(), key=lambda s: s.id)),
                       files=tuple(files), seeds=tuple(ordered), notes=tuple(notes))


def _enclosing_at_head(qualname: str, head_names: set[str]) -> str:
    """The nearest enclosing definition of a deleted qualname that the head still has."""
    parts = qualname.split(".")
    while len(parts) > 1:
        parts.pop()
        if ".".join(parts) in head_names:
            return ".".join(parts)
    return MODULE_QUALNAME


def _owner(spans: list[tuple[str, int, int]], line: int) -> str:
    """Innermost span holding ``line`` (spans sorted by start, outer first)."""
    owner = MODULE_QUALNAME
    for q, start, end in spans:
        if start > line:
            break
        if end >= line:
            owner = q
    return owner


def _spans(store: Store, repo: str, paths: list[str]) -> dict[str, list[tuple[str, int, int]]]:
    if not paths:
        return {}
    # one scan of the Symbol table by its file property (queries.batch: why not probes)
    rows = store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $ids AND s.valid_to IS NULL AND "
        "s.qualname <> $module RETURN s.file, s.qualname, s.start_line, s.end_line",
        {"ids": [f"file:{repo}/{p}" for p in paths], "module": MODULE_QUALNAME})
    out: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    cut = len(f"file:{repo}/")
    for fid, q, start, end in rows.iter_rows():
        out[fid[cut:]].append((q, int(start or 0), int(end or 0)))
    for spans in out.values():
        spans.sort(key=lambda s: (s[1], -s[2], s[0]))
    return out


def _graph_files(store: Store, repo: str, paths: list[str]) -> dict[str, int | None]:
    """File id -> size, for the files of ``paths`` the graph holds (code, or kept by history
    for deleted files)."""
    if not paths:
        return {}
    rows = by_ids(store, [f"file:{repo}/{p}" for p in paths],
                   lookup_template(f"MATCH (f:{FILE.name}{{B}}) WHERE {{IN}} RETURN f.id AS id, "
                             "f.size AS size, f.valid_to AS valid_to, f.source AS source",
                             "f"))
    return {fid: size for fid, size, valid_to, source in rows.iter_rows()
            if valid_to is not None or source != "git"}
