"""The query API shared by the CLI, GraphQL and notebooks: plain functions over a Store,
returning frozen dataclasses (with ``to_dict``) or polars frames."""

from queries.cypher import run_cypher
from queries.overview import Overview, RankedSymbol, repositories, repository_overview
from queries.sessions import (
    EntryView,
    FailureGroup,
    SupersessionChain,
    failure_groups,
    get_entry,
    list_entries,
    supersession_chain,
)

__all__ = ["Overview", "RankedSymbol", "repositories", "repository_overview", "run_cypher"]
__all__ += ["EntryView", "FailureGroup", "SupersessionChain", "failure_groups", "get_entry",
            "list_entries", "supersession_chain"]
from queries.provenance import (  # noqa: E402
    CommitFact,
    EntryFact,
    LineageFact,
    PaperFact,
    Provenance,
    SessionFact,
    provenance,
    resolve_node,
)

__all__ += ["CommitFact", "EntryFact", "LineageFact", "PaperFact", "Provenance", "SessionFact",
            "provenance", "resolve_node"]
