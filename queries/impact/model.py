"""The results and options of :func:`queries.impact.impact`: frozen dataclasses, each carrying
its own score and the path that explains it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import polars as pl

from queries.impact_context import (
    EntryHit,
    PaperHit,
)
from schema import (
    CALLS,
    CONTAINS,
    IMPORTS,
    INHERITS,
    TESTS,
)

__all__ = [
    "DEFAULT_IMPACT", "EDGE_KINDS", "MAX_DEPTH", "MAX_NODES", "NEVER_EXECUTED", "ChangeSetLike",
    "ChangedCode", "ChangedSymbol", "CommunityHit", "ImpactEdge", "ImpactOptions",
    "ImpactResult", "ImpactedNode", "TestToRun", "rank_nodes",
]


#: Depths above this are capped (with a note): beyond it nearly everything is "impacted".
MAX_DEPTH = 10


#: what a changed function the recording held but nothing executed selects (``impact``)
NEVER_EXECUTED = ("unrecorded", "static", "skip")


#: Stop expanding once this many nodes are reached (a note says so).
MAX_NODES = 200_000


EDGE_KINDS = (CALLS.name, INHERITS.name, TESTS.name, IMPORTS.name, CONTAINS.name)


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
    #: a factor per edge resolution (``inheritance``, ``candidate``, ...) on top of the
    #: edge's confidence; none by default (measured in benchmarks/RESULTS.md, issue 22
    #: round 4: no factor brought click's static selection under 35% at recall >= 0.9)
    resolution_weights: tuple[tuple[str, float], ...] = ()

    def weight(self, kind: str) -> float:
        return dict(self.weights).get(kind, 0.0)

    def edge_weight(self, kind: str, resolution: str) -> float:
        """The kind's weight times the resolution's factor (1.0 when none is given)."""
        weight = dict(self.weights).get(kind, 0.0)
        if self.resolution_weights:
            weight *= dict(self.resolution_weights).get(resolution, 1.0)
        return weight

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
    file list (tests are never cut); ``symbols_omitted`` and ``files_omitted`` say exactly how
    many it cut, so a reader can say what it left out."""

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
    symbols_omitted: int = 0
    files_omitted: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_polars(self) -> pl.DataFrame:
        """One row per impacted symbol and file, best first, with the explaining path."""
        rows = [{"id": n.id, "table": n.table, "name": n.name, "kind": n.kind, "path": n.path,
                 "is_test": n.is_test, "distance": n.distance, "score": n.score,
                 "target": n.target, "via": n.explain()}
                for n in sorted((*self.symbols, *self.files), key=rank_nodes)]
        schema = {"id": pl.Utf8, "table": pl.Utf8, "name": pl.Utf8, "kind": pl.Utf8,
                  "path": pl.Utf8, "is_test": pl.Boolean, "distance": pl.Int64,
                  "score": pl.Float64, "target": pl.Utf8, "via": pl.Utf8}
        return pl.DataFrame(rows, schema=schema)

    def test_ids(self) -> tuple[str, ...]:
        """What to pass to the test runner, sorted."""
        return tuple(sorted({t.node_id for t in self.tests}))


def rank_nodes(n: ImpactedNode) -> tuple[float, int, str]:
    return (-n.score, n.distance, n.id)
