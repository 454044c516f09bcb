"""The query API shared by the CLI, GraphQL and notebooks: plain functions over a Store,
returning frozen dataclasses (with ``to_dict``) or polars frames.

The names load from their module on first use (PEP 562): a command that needs one
subpackage (``vgdb ingest`` updating ``queries.communities``) does not import impact,
briefing, sessions and papers (~50 ms). ``impact``, ``briefing``, ``provenance`` and
``supersession`` name both a function and a submodule; as before, the package's attribute
is the function: importing the submodule does not replace it (:class:`_Package`).
"""

from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import Any

_NAMES: dict[str, tuple[str, ...]] = {
    "queries.cypher": ("run_cypher",),
    "queries.overview": ("Overview", "RankedSymbol", "repositories", "repository_overview"),
    "queries.sessions": ("EntryView", "FailureGroup", "SupersessionChain", "failure_groups",
                         "get_entry", "list_entries", "supersession_chain"),
    "queries.provenance": ("CommitFact", "EntryFact", "LineageFact", "PaperFact", "Provenance",
                           "SessionFact", "provenance", "resolve_node"),
    "queries.academic": ("CitationNeighbour", "CodeLink", "PaperLink", "citations",
                         "decisions_based_on", "paper_code", "referenced_papers",
                         "resolve_paper"),
    "queries.impact": ("DEFAULT_IMPACT", "ChangedCode", "ChangedSymbol", "CommunityHit",
                       "EntryHit", "ImpactEdge", "ImpactedNode", "ImpactOptions", "ImpactResult",
                       "PaperHit", "TestToRun", "changed_symbols", "impact"),
    "queries.supersession": ("Supersession", "SupersessionEdge", "Version", "supersession"),
    "queries.briefing": ("TIERS", "Briefing", "BriefingItem", "BriefingSection", "briefing"),
}
_LAZY = {name: module for module, names in _NAMES.items() for name in names}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'queries' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """The import system sets a submodule as an attribute of its package once imported; a
    function of the same name (``queries.impact``) stays the package's attribute."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
