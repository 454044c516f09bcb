"""How impact spreads: level-synchronous, batched reverse-dependency traversal from the seeds
(one statement per hop for the symbol frontier, two for the file frontier, or the in-memory
adjacency of :mod:`queries.impact.adjacency` when a server keeps one), and the descriptions
of the nodes reached."""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphdb import Store, deadline
from queries.batch import PROBE_MAX, by_ids, lookup_template
from queries.impact import adjacency
from queries.impact.hops import (
    FILE_COLUMNS,
    NODE_COLUMNS,
    Reached,
    hop_rows,
    hop_statements,
    node_of,
)
from queries.impact.model import (
    MAX_NODES,
    CommunityHit,
    ImpactEdge,
    ImpactedNode,
    ImpactOptions,
    rank_nodes,
)
from queries.impact_context import (
    TimeFilter,
    by_code_ids,
    has_nodes,
)
from queries.provenance import resolve_node
from schema import (
    CALLS,
    COMMUNITY,
    CONTAINS,
    EXTERNAL,
    FILE,
    IN_COMMUNITY,
    INHERITS,
    SYMBOL,
    NodeNotFoundError,
    QueryError,
    Resolution,
)

__all__ = [
    "BestPath", "Budget", "Reached", "communities_touched", "describe_nodes", "impacted_files",
    "impacted_nodes", "resolve_targets", "seed_ids", "traverse",
]


# ---------------------------------------------------------------------------------- traversal
@dataclass(slots=True)
class BestPath:
    score: float
    target: str
    via: tuple[ImpactEdge, ...]


def _hop(store: Store, frontier: dict[str, list[str]], kinds: set[str], flt: TimeFilter,
         nodes: dict[str, Reached]) -> list[tuple[str, ImpactEdge, bool]]:
    """Every edge of ``kinds`` into the frontier, as (frontier node, edge, whether its source
    file spreads): from the in-memory adjacency when one is current
    (:mod:`queries.impact.adjacency`), else one statement for the symbol frontier and two
    for the file frontier; the sources' descriptions go into ``nodes``."""
    cached = adjacency.current(store, flt)
    if cached is not None:
        return cached.hop(frontier, kinds, nodes)
    rows: list[dict[str, Any]] = []
    for table, text, alias in hop_statements(kinds, flt):
        if frontier.get(table):
            rows += by_ids(store, frontier[table], lookup_template(text, alias),
                           flt.params()).iter_rows(named=True)
    return hop_rows(rows, nodes)


def describe_nodes(store: Store, ids: Iterable[str]) -> dict[str, Reached]:
    """Symbol and File nodes by id (ids the graph does not hold are left out)."""
    out: dict[str, Reached] = {}
    wanted = sorted(set(ids))
    for table, prefix in ((SYMBOL.name, "sym:"), (FILE.name, "file:")):
        some = [i for i in wanted if i.startswith(prefix)]
        if not some:
            continue
        columns = FILE_COLUMNS if table == FILE.name else NODE_COLUMNS.replace(
            "a.path AS path", "'' AS path")
        text = f"MATCH (a:{table}{{B}}) WHERE {{IN}} RETURN a.id AS src, {columns}"
        for row in by_ids(store, some, lookup_template(text, "a")).iter_rows(named=True):
            out[row["src"]] = node_of(row)
    return out


def seed_ids(store: Store, targets: Sequence[str], flt: TimeFilter) -> dict[str, str]:
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


def traverse(store: Store, seeds: dict[str, str], nodes: dict[str, Reached], *, depth: int,
              options: ImpactOptions, flt: TimeFilter, notes: list[str],
              budget: Budget | None = None) -> tuple[dict[str, BestPath], dict[str, BestPath]]:
    """Best path per reached node, and the files whose import-time state changed (within
    ``budget``, when given: see :class:`Budget`)."""
    best = {s: BestPath(1.0, t, ()) for s, t in seeds.items()}
    # files whose import-time state changed, with the best path that says so (which may
    # score below the file's best path overall, e.g. one through an ordinary import)
    spread = {s: best[s] for s in seeds if nodes[s].table == FILE.name}
    frontier = {s for s in seeds if not nodes[s].is_test or s in spread}
    for hop in range(1, depth + 1):
        deadline.check()  # once per hop: the request's deadline (no-op outside a request)
        if not frontier:
            break
        by_table: dict[str, list[str]] = defaultdict(list)
        for nid in sorted(frontier):
            by_table[nodes[nid].table].append(nid)
        kinds = {k for k in options.kinds() if hop <= options.limit(k, depth)}
        nxt: set[str] = set()
        # in a fixed order: of two equally good paths the first one is kept, and the engine
        # returns rows in an order that depends on its thread count
        hop_edges = sorted(_hop(store, by_table, kinds, flt, nodes), key=_edge_order)
        for at, edge, spreads in hop_edges:
            parent = spread[at] if nodes[at].table == FILE.name else best[at]
            if budget is not None and _through_class_only(at, edge, nodes):
                continue
            score = parent.score * edge.confidence * \
                options.edge_weight(edge.kind, edge.resolution) * options.decay
            path = BestPath(score, parent.target, (*parent.via, edge))
            if budget is not None and score < budget.min_score:
                continue
            current = best.get(edge.src)
            if current is None or score > current.score + 1e-12:
                best[edge.src] = path
                nxt.add(edge.src)
            spreads = spreads and not _constructs_only(parent, nodes)
            if spreads and (edge.src not in spread or score > spread[edge.src].score + 1e-12):
                spread[edge.src] = path
                nxt.add(edge.src)
        frontier = {n for n in nxt if (nodes[n].table == SYMBOL.name and not nodes[n].is_test)
                    or n in spread}
        if len(best) > MAX_NODES:
            notes.append(f"stopped after {hop} hops: more than {MAX_NODES} nodes impacted")
            break
        if budget is not None and budget.spent(best, nodes):
            if frontier:
                notes.append(f"stopped after {hop} hops: more than {budget.tests} tests "
                             "reached (the test budget)")
            break
    return best, spread


#: the methods calling a class runs (constructing an instance)
_CONSTRUCTION = frozenset({"__init__", "__new__", "__post_init__", "__attrs_post_init__",
                           "__init_subclass__", "__set_name__", "__class_getitem__"})


def _method_name(node_id: str) -> str:
    return node_id.rpartition("#")[2].rpartition(".")[2].split("~", 1)[0]


def _through_class_only(at: str, edge: ImpactEdge, nodes: dict[str, Reached]) -> bool:
    """Spreading by a budget, a method called by name (not a dunder the runtime calls
    implicitly, nor one constructing an instance) is reached through its callers and not
    through its class: every constructor of a hub class (``Context``, ``Command``) would
    otherwise run with it (measured on click: 48% of the suite selected for mutants failing
    3 tests; benchmarks/RESULTS.md). Unresolved calls in tests have ``candidate`` edges."""
    if edge.kind != CONTAINS.name or nodes[edge.src].kind != "class" or \
            nodes[at].kind != "method":
        return False
    name = _method_name(at)
    return name not in _CONSTRUCTION and not (name.startswith("__") and name.endswith("__"))


def _constructs_only(path: BestPath, nodes: dict[str, Reached]) -> bool:
    """The path reaches a module's code through a class the module only hands on as a value
    (a function handed on at import is a callback registered: whoever holds it may call it
    in any importer), or through a class the module calls, impacted only by a
    method constructing it does not run (``cli = Group()`` at module level runs
    ``Group.__init__``, not ``Group.resolve_command``): the module's import-time state is
    the same, so its importers are not run whole (the module itself stays impacted: it may
    use the instance later)."""
    via = path.via
    if via and via[-1].kind == CALLS.name and via[-1].resolution == Resolution.VALUE and \
            getattr(nodes.get(via[-1].dst), "kind", "") == "class":
        return True  # a class handed on (``TypeVar(bound=Group)``, a registry) is not built
    if len(via) < 2 or via[-1].kind != CALLS.name:
        return False
    i = len(via) - 2
    while i >= 0 and via[i].kind == INHERITS.name:  # ``Sub()`` of a base holding the method
        i -= 1
    holder = nodes.get(via[i].src) if i >= 0 else None
    if holder is None or via[i].kind != CONTAINS.name or holder.kind != "class":
        return False
    method = _method_name(via[i].dst)
    return bool(method) and method not in _CONSTRUCTION


@dataclass(frozen=True, slots=True)
class Budget:
    """Where spreading stops instead of a fixed path length: a path whose score (the product
    of its edges' confidences, weights and the decay per hop) falls below ``min_score`` is not
    followed, and no further hop is taken once more than ``tests`` test functions are
    reached (a long chain of small, certain helpers is followed to its end; a hub stops)."""

    tests: int
    min_score: float

    def spent(self, best: dict[str, BestPath], nodes: dict[str, Reached]) -> bool:
        reached = sum(1 for nid in best if nodes[nid].is_test and nodes[nid].kind != "class"
                      and nodes[nid].table == SYMBOL.name and not _by_candidate(best[nid]))
        return reached > self.tests


def _by_candidate(path: BestPath) -> bool:
    """A test reached by one of its ``candidate`` calls: selected, but a guess that spreads
    no further does not spend the budget (it would stop the paths that are known)."""
    return bool(path.via) and path.via[-1].resolution == Resolution.CANDIDATE


def resolve_targets(store: Store, refs: list[str]) -> list[str]:
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
        known = set(describe_nodes(store, out))
        bad += [nid for nid in out if nid not in known]
    if bad:
        raise NodeNotFoundError(f"unknown targets: {', '.join(bad)}", node_id=bad[0],
                                suggestion="pass ids (sym:<repo>/<path>#<qualname>, "
                                           "file:<repo>/<path>) or their ends (pkg/mod.py#f)")
    return out


def impacted_nodes(nid: str, n: Reached, b: BestPath) -> ImpactedNode:
    return ImpactedNode(id=nid, table=n.table, name=n.name, kind=n.kind, path=n.path,
                        repo=n.repo, language=n.language, is_test=n.is_test,
                        distance=len(b.via), score=round(b.score, 6), target=b.target,
                        via=b.via)


def impacted_files(store: Store, impacted: list[ImpactedNode],
           nodes: dict[str, Reached]) -> list[ImpactedNode]:
    """Files reached as nodes, and the files of impacted symbols (their best symbol's score
    and path)."""
    best: dict[str, ImpactedNode] = {n.id: n for n in impacted if n.table == FILE.name}
    by_file: dict[str, ImpactedNode] = {}
    for n in impacted:
        if n.table == SYMBOL.name:
            fid = nodes[n.id].file
            if fid not in by_file or rank_nodes(n) < rank_nodes(by_file[fid]):
                by_file[fid] = n
    missing = [f for f in by_file if f not in nodes]
    nodes.update(describe_nodes(store, missing))
    for fid, sym in by_file.items():
        if fid in best and rank_nodes(best[fid]) <= rank_nodes(sym):
            continue
        f = nodes[fid]
        best[fid] = ImpactedNode(id=fid, table=FILE.name, name=f.path, kind="file", path=f.path,
                                 repo=f.repo, language=f.language, is_test=f.is_test,
                                 distance=sym.distance, score=sym.score, target=sym.target,
                                 via=sym.via)
    return sorted(best.values(), key=rank_nodes)


def communities_touched(store: Store, ids: list[str], scores: dict[str, float]
                 ) -> tuple[CommunityHit, ...]:
    if not ids or not has_nodes(store, COMMUNITY.name):
        return ()
    memberships = _memberships(store, large=len(ids) > PROBE_MAX)
    if memberships is not None:
        rows = [{"c": c, "name": name, "level": level, "i": i}
                for i in ids for c, name, level in memberships.get(i, ())]
    else:
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


#: per store: (graph version, node id -> its communities (id, name, level))
_MEMBERSHIPS: weakref.WeakKeyDictionary[
    Store, tuple[int, dict[str, list[tuple[str, str, int]]]]] = weakref.WeakKeyDictionary()


def _memberships(store: Store, *, large: bool) -> dict[str, list[tuple[str, str, int]]] | None:
    """Every code node's communities, read once per graph version when a large impact asks
    (looking up thousands of ids scans the table each time: ~0.2 s for a hub such as
    ``posixpath.join``; reading every membership once costs about one such lookup, and a
    server answers the next questions from memory); None for a small one before that (a
    few index probes are cheaper than the first read)."""
    version = store.graph_version()
    cached = _MEMBERSHIPS.get(store)
    if cached is not None and cached[0] == version:
        return cached[1]
    if not large:
        return None
    found: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for table in (SYMBOL.name, FILE.name):
        rows = store.cypher(f"MATCH (n:{table})-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name}) "
                            "RETURN n.id, c.id, c.name, c.level")
        for node, cid, name, level in rows.iter_rows():
            found[node].append((cid, name or "", int(level or 0)))
    _MEMBERSHIPS[store] = (version, dict(found))
    return _MEMBERSHIPS[store][1]


def _edge_order(item: tuple[str, ImpactEdge, bool]
                ) -> tuple[str, str, str, str, str, str, float, bool]:
    """A total order on a hop's rows: the engine, and the in-memory adjacency, return them
    in orders of their own."""
    at, edge, spreads = item
    return (edge.src, edge.kind, edge.resolution, edge.dst, at, edge.source,
            -edge.confidence, spreads)
