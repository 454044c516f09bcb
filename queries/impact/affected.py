"""The tests to run for a change, spread the way every interface spreads it: by a test budget
and a score floor (a chain of certain private helpers is followed far, a hub stops early),
or by a fixed path length when a caller asks for one. The CLI, GraphQL and MCP all call
:func:`affected_tests`, so they select the same tests for the same change."""

from __future__ import annotations

from typing import Any

from graphdb import Store
from queries.impact.analysis import impact
from queries.impact.model import MAX_DEPTH, ImpactResult

__all__ = ["DEFAULT_MIN_SCORE", "DEFAULT_TEST_BUDGET", "affected_tests"]

#: stop spreading once this share of the repository's tests is reached (measured on click,
#: itsdangerous and attrs with benchmarks/impact_mutation.py: benchmarks/RESULTS.md)
DEFAULT_TEST_BUDGET = 0.25
#: do not follow a path scoring below this (edge confidences x 0.8 a hop: a real chain from
#: a test through ``CliRunner.invoke`` to a parameter type's ``convert`` is 10 hops long)
DEFAULT_MIN_SCORE = 0.01


def affected_tests(store: Store, what: Any, *, depth: int | None = None,
                   budget: float = DEFAULT_TEST_BUDGET, min_score: float = DEFAULT_MIN_SCORE,
                   **options: Any) -> ImpactResult:
    """:func:`queries.impact.impact` of ``what`` (targets or a change set) for its tests:
    without ``depth``, spread up to :data:`MAX_DEPTH` hops under ``budget`` and
    ``min_score``; with it, by that fixed path length alone. ``options``: impact's others
    (``repo``, ``coverage``, ``never_executed``, ``edge_kinds``, ``as_of``)."""
    spread: dict[str, Any] = {"depth": depth} if depth is not None else {
        "depth": MAX_DEPTH, "budget": budget, "min_score": min_score}
    return impact(store, what, **spread, **options)
