"""Module boundaries from Leiden community detection.

A repository's dependencies become a weighted undirected graph, at file level (IMPORTS, CALLS
and INHERITS between files, plus CO_CHANGED when its history was ingested) or at symbol level
(CALLS, INHERITS, IMPORTS of a symbol by a module, and CONTAINS). Leiden partitions the graph
(seeded, so a run is reproducible), large communities are split again to give levels, and
each community is named, measured and stored as a ``Community`` node whose number survives
re-runs (new communities take the number of the old one they overlap most). A small change
is followed in place, without Leiden, until its drift calls for a detection.

One module per concern:

- ``graph``: the weighted file or symbol graph of a repository (igraph);
- ``partition``: Leiden and the hierarchy of levels (igraph, leidenalg);
- ``matching``: stable community numbers across detections;
- ``summary`` and ``naming``: sizes, weights, dependencies and names of the communities;
- ``writing``: a detection as the frames ``graphdb.communities`` stores;
- ``detection``: all of the above, end to end (``detect_communities``, ``detect_scopes``);
- ``incremental``: a small change followed in place (no igraph);
- ``stored``: reading the stored communities back (no igraph);
- ``results``: the dataclasses returned.

The names below are imported from their module on first use, so reading stored communities
(``from queries.communities import communities``) never imports igraph: only a detection
does (~0.3-0.5 s).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "DEFAULT_WEIGHTS", "DEPENDENCY_KINDS", "OBJECTIVES", "SCOPES", "SYMBOL_WEIGHTS", "Backend",
    "Community", "CommunityGraph", "Dependency", "Detection", "Level", "Matched", "Moved",
    "Objective", "Scope", "communities", "community_graph", "detect_communities",
    "detect_scopes", "file_graph", "hierarchy", "leiden", "match_communities", "members",
]

#: public name -> the module of this package that defines it
_HOMES = {
    "Backend": "results", "Community": "results", "Dependency": "results",
    "Detection": "results", "Level": "results", "Moved": "results", "Objective": "results",
    "Scope": "results", "SCOPES": "results", "OBJECTIVES": "results",
    "CommunityGraph": "graph", "DEFAULT_WEIGHTS": "graph", "DEPENDENCY_KINDS": "graph",
    "SYMBOL_WEIGHTS": "graph", "community_graph": "graph", "file_graph": "graph",
    "hierarchy": "partition", "leiden": "partition",
    "Matched": "matching", "match_communities": "matching",
    "detect_communities": "detection", "detect_scopes": "detection",
    "communities": "stored", "members": "stored",
}


def __getattr__(name: str) -> Any:
    """Import ``name``'s module on first use (PEP 562), so igraph loads only for a
    detection."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


if TYPE_CHECKING:
    from queries.communities.detection import detect_communities, detect_scopes
    from queries.communities.graph import (
        DEFAULT_WEIGHTS,
        DEPENDENCY_KINDS,
        SYMBOL_WEIGHTS,
        CommunityGraph,
        community_graph,
        file_graph,
    )
    from queries.communities.matching import Matched, match_communities
    from queries.communities.partition import hierarchy, leiden
    from queries.communities.results import (
        OBJECTIVES,
        SCOPES,
        Backend,
        Community,
        Dependency,
        Detection,
        Level,
        Moved,
        Objective,
        Scope,
    )
    from queries.communities.stored import communities, members
