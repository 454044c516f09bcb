"""The impact of targets or of a change set: seeds, traversal, tests, communities and the
entries and papers about the impacted code, put together (see :mod:`queries.impact`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from graphdb import Store, deadline
from queries.evidence import (
    executed_by,
)
from queries.impact.changes import changed_symbols
from queries.impact.model import (
    DEFAULT_IMPACT,
    EDGE_KINDS,
    MAX_DEPTH,
    NEVER_EXECUTED,
    ChangedCode,
    ChangeSetLike,
    ImpactOptions,
    ImpactResult,
    TestToRun,
    rank_nodes,
)
from queries.impact.selection_coverage import (
    coverage_tests,
    import_time_files,
    importers_of,
    module_users,
    sampled_users,
    unrecorded_tests,
)
from queries.impact.selection_static import rule_tests, static_tests
from queries.impact.traverse import (
    Budget,
    Reached,
    communities_touched,
    describe_nodes,
    impacted_files,
    impacted_nodes,
    resolve_targets,
    seed_ids,
    traverse,
)
from queries.impact_context import (
    TimeFilter,
    entries_about,
    papers_about,
)
from schema import (
    MODULE_QUALNAME,
    SYMBOL,
    NodeNotFoundError,
    QueryError,
)

__all__ = ["impact"]


# ------------------------------------------------------------------------------------ results
def impact(store: Store, targets: Sequence[str] | ChangeSetLike, *, depth: int = 3,
           edge_kinds: Sequence[str] | None = None, as_of: datetime | None = None,
           limit: int = 500, options: ImpactOptions = DEFAULT_IMPACT,
           repo: str | None = None, coverage: bool = True,
           never_executed: str = "unrecorded", budget: float | None = None,
           min_score: float = 0.0) -> ImpactResult:
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
    budget
        Stop spreading once more than this share (0-1) of the repositories' test functions
        is reached, instead of at ``depth`` alone (``affected-tests`` passes ``depth``
        :data:`MAX_DEPTH` with a budget): a chain of certain helpers is followed far, a hub
        stops early.
    min_score
        With ``budget``: a path scoring below this (confidences x weights x decay per hop)
        is not followed.

    Returns
    -------
    ImpactResult
    """
    if depth < 0:
        raise QueryError(f"depth must be >= 0, got {depth}")
    if never_executed not in NEVER_EXECUTED:
        raise QueryError(f"never_executed must be one of {', '.join(NEVER_EXECUTED)}, got "
                         f"{never_executed!r}")
    notes: list[str] = []
    if depth > MAX_DEPTH:
        notes.append(f"depth {depth} capped at {MAX_DEPTH}")
        depth = MAX_DEPTH
    if edge_kinds is not None:
        unknown = sorted(set(edge_kinds) - set(EDGE_KINDS))
        if unknown:
            raise QueryError(f"unknown edge kinds {unknown}; choose from {list(EDGE_KINDS)}")
        options = replace(options, weights=tuple((k, w) for k, w in options.weights
                                                 if k in edge_kinds))
    flt = TimeFilter(as_of)
    changes: ChangedCode | None = None
    if isinstance(targets, (list, tuple)):
        ids = resolve_targets(store, [str(t) for t in targets])
    else:
        changes = changed_symbols(store, targets, repo=repo)
        notes.extend(changes.notes)
        ids = list(changes.seeds)
    seeds = seed_ids(store, ids, flt)
    nodes = describe_nodes(store, seeds)
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
        nodes.update(describe_nodes(store, module_seeds))
        seeds.update({m: t for m, t in module_seeds.items() if m in nodes})
    limits = _budget(store, nodes, seeds, budget, min_score)
    best, spreading = traverse(store, seeds, nodes, depth=depth, options=options, flt=flt,
                                notes=notes, budget=limits)
    deadline.check()
    impacted = [impacted_nodes(nid, nodes[nid], b) for nid, b in best.items()]
    symbols = sorted((n for n in impacted if n.table == SYMBOL.name), key=rank_nodes)
    files = impacted_files(store, impacted, nodes)
    found = executed_by(store, seeds, nodes, valid=flt.valid("e"), params=flt.params()) \
        if coverage else None
    extra: list[TestToRun] = []
    if found is not None and found.states:
        extra += coverage_tests(found, seeds, notes)
        extra += module_users(store, import_time_files(found, seeds, nodes), seeds, flt)
        extra += sampled_users(store, found.covered | (
            found.never if never_executed != "skip" else frozenset()), seeds, nodes, flt)
    if changes is not None and not isinstance(targets, (list, tuple)):
        extra += rule_tests(store, targets, changes.repo, notes)
    never = found.never if found is not None and never_executed != "static" else frozenset()
    if never and never_executed == "skip":
        notes.append(f"{len(never)} changed definition(s) ran in no test when coverage was "
                     f"recorded and select none: {', '.join(sorted(never)[:5])}")
    elif never:
        # code the recording holds but nothing executed: its tests ran without reaching it,
        # so only a short static reach is worth running (with a budget; measured on click:
        # the same recall as depth 10 at 1.04x testmon's selection instead of 1.45x)
        extra += unrecorded_tests(store, {s: seeds[s] for s in never}, nodes,
                                   depth=depth if limits is None else min(depth, 3),
                                   options=options, flt=flt, notes=notes, budget=limits)
    if found is not None and (found.covered or never):
        # tests of covered seeds come from coverage: the static graph selects only for the
        # others, and for the modules whose import ran a covered seed (their importers)
        static = {s: t for s, t in seeds.items() if s not in never and (
            s not in found.covered or s in found.also_static)}
        static.update(importers_of(store, found, seeds, nodes))
        if static:
            best_s, spreading_s = traverse(store, static, nodes, depth=depth,
                                            options=options, flt=flt, notes=[], budget=limits)
            reached = [impacted_nodes(nid, nodes[nid], b) for nid, b in best_s.items()]
        else:
            reached, spreading_s = [], {}
        tests = static_tests(store, reached, nodes, spreading_s, extra)
    else:
        tests = static_tests(store, impacted, nodes, spreading, extra)
    all_ids = [n.id for n in (*symbols, *files)]
    scores = {n.id: n.score for n in (*symbols, *files)}
    truncated = len(symbols) > limit or len(files) > limit
    if truncated:
        notes.append(f"showing the best {limit} of {len(symbols)} symbols and "
                     f"{len(files)} files (limit)")
    return ImpactResult(
        targets=tuple(ids), depth=depth, symbols=tuple(symbols[:limit]),
        files=tuple(files[:limit]), tests=tests,
        communities=communities_touched(store, all_ids, scores),
        entries=entries_about(store, all_ids, scores, flt),
        papers=papers_about(store, all_ids, scores, flt),
        changes=changes, notes=tuple(notes), truncated=truncated,
        symbols_omitted=max(0, len(symbols) - limit), files_omitted=max(0, len(files) - limit))


def _budget(store: Store, nodes: dict[str, Reached], seeds: dict[str, str],
            share: float | None, min_score: float) -> Budget | None:
    """The test budget: ``share`` of the seeds' repositories' test functions, and never
    fewer than :data:`MIN_BUDGET_TESTS` (a small suite is cheap to run)."""
    if share is None:
        return None
    if not 0 < share <= 1:
        raise QueryError(f"budget must be a share of the tests in (0, 1], got {share}")
    repos = sorted({nodes[s].repo for s in seeds})
    rows = store.cypher(
        f"MATCH (t:{SYMBOL.name}) WHERE t.repo IN $repos AND t.is_test AND t.valid_to IS NULL "
        "AND t.kind IN ['function', 'method'] RETURN count(*)", {"repos": repos})
    total = int(rows.item()) if not rows.is_empty() else 0
    return Budget(tests=max(MIN_BUDGET_TESTS, int(total * share)), min_score=min_score)


#: the least test budget: below it, spreading stops only by ``depth`` and ``min_score``
MIN_BUDGET_TESTS = 20
