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
from queries.academic import (  # noqa: E402
    CitationNeighbour,
    CodeLink,
    PaperLink,
    citations,
    decisions_based_on,
    paper_code,
    referenced_papers,
    resolve_paper,
)

__all__ += ["CitationNeighbour", "CodeLink", "PaperLink", "citations", "decisions_based_on",
            "paper_code", "referenced_papers", "resolve_paper"]
from queries.impact import (  # noqa: E402
    DEFAULT_IMPACT,
    ChangedCode,
    ChangedSymbol,
    CommunityHit,
    EntryHit,
    ImpactEdge,
    ImpactedNode,
    ImpactOptions,
    ImpactResult,
    PaperHit,
    TestToRun,
    changed_symbols,
    impact,
)
from queries.supersession import (  # noqa: E402
    Supersession,
    SupersessionEdge,
    Version,
    supersession,
)

__all__ += ["DEFAULT_IMPACT", "ChangedCode", "ChangedSymbol", "CommunityHit", "EntryHit",
            "ImpactEdge", "ImpactOptions", "ImpactResult", "ImpactedNode", "PaperHit",
            "TestToRun", "changed_symbols", "impact"]
__all__ += ["Supersession", "SupersessionEdge", "Version", "supersession"]
from queries.briefing import (  # noqa: E402
    TIERS,
    Briefing,
    BriefingItem,
    BriefingSection,
    briefing,
)

__all__ += ["TIERS", "Briefing", "BriefingItem", "BriefingSection", "briefing"]
