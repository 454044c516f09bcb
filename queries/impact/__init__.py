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

from queries.impact.affected import DEFAULT_MIN_SCORE, DEFAULT_TEST_BUDGET, affected_tests
from queries.impact.analysis import impact
from queries.impact.changes import changed_symbols
from queries.impact.model import (
    DEFAULT_IMPACT,
    MAX_DEPTH,
    ChangedCode,
    ChangedSymbol,
    ChangeSetLike,
    CommunityHit,
    ImpactEdge,
    ImpactedNode,
    ImpactOptions,
    ImpactResult,
    TestToRun,
)
from queries.impact_context import EntryHit, PaperHit

__all__ = [
    "DEFAULT_IMPACT", "DEFAULT_MIN_SCORE", "DEFAULT_TEST_BUDGET", "MAX_DEPTH", "ChangeSetLike",
    "ChangedCode", "ChangedSymbol",
    "CommunityHit", "EntryHit", "ImpactEdge", "ImpactOptions", "ImpactResult", "ImpactedNode",
    "PaperHit", "TestToRun", "affected_tests", "changed_symbols", "impact",
]
