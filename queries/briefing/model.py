"""The briefing's result types: sections of items, each item with the id to follow up on."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

__all__ = ["TIERS", "Briefing", "BriefingItem", "BriefingSection", "Tier"]


@dataclass(frozen=True, slots=True)
class Tier:
    """A named budget: ``tokens`` by default, and how many items a section may show before
    the rest is summed up as ``+N more`` (``per_section``)."""

    name: str
    tokens: int
    per_section: int
    #: longest line, in characters (longer item texts end with "...")
    width: int = 160


#: MICRO | STANDARD | FULL (defaults of about 60 / 500 / 2,000 tokens)
TIERS: dict[str, Tier] = {t.name: t for t in (
    Tier("micro", 60, 1, 64), Tier("standard", 500, 6, 160), Tier("full", 2000, 20, 240))}


@dataclass(frozen=True, slots=True)
class BriefingItem:
    """One fact: ``id`` is the node to ask about next (an entry's, commit's, symbol's ...);
    ``text`` the line shown; ``relation`` how it bears on the targets (``about``, ``in scope:
    <glob>``, ``calls``, ``coverage`` ...); ``status`` active | superseded | open |
    resolved | stale ... where it has one; ``at`` when it happened or was decided."""

    id: str
    text: str
    relation: str = ""
    status: str = ""
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class BriefingSection:
    """One kind of fact, best first. ``items`` are those the budget kept; ``omitted`` how
    many more there were (the section's cap or the budget cut them); ``follow_up`` the call
    that returns them all."""

    name: str
    items: tuple[BriefingItem, ...]
    omitted: int
    follow_up: str


@dataclass(frozen=True, slots=True)
class Briefing:
    """What to know before touching ``targets``, packed into ``max_tokens``.

    ``text`` is the packed answer (``tokens`` long, counted with ``tokenizer``); ``sections``
    hold the same items with their ids. ``left_out`` names the sections the budget dropped
    whole. ``graph_version`` is the global graph version the answer was read at: pass it as
    ``ifChangedSince`` to poll."""

    targets: tuple[str, ...]
    tier: str
    max_tokens: int
    tokens: int
    tokenizer: str
    graph_version: int
    text: str
    sections: tuple[BriefingSection, ...]
    left_out: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def section(self, name: str) -> BriefingSection | None:
        """The section called ``name`` (None when it was empty or left out)."""
        return next((s for s in self.sections if s.name == name), None)
