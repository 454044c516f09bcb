"""Trust (0-100) and freshness (0-1) of a hit, by table, kind, source and age; they scale the
fused score (docs/search.md, "Trust", "Freshness")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from schema import ENTRY, PAPER, SYMBOL

__all__ = ["age_days", "freshness_of", "trust_of"]


def trust_of(table: str, m: dict[str, Any], age_days: float | None) -> int:
    """Code 100; RFCs, standards, official docs 70; papers and books 60; history entries
    80/60/40 by age (< 7 d, < 30 d, older); blogs 30; unverified (inferred facts, paper
    stubs known only from a reference) 20."""
    if m.get("source") == "inferred" or not m.get("resolved", True):
        return 20
    if table == SYMBOL.name:
        return 100
    if table == ENTRY.name:
        if age_days is None or age_days >= 30:
            return 40
        return 80 if age_days < 7 else 60
    kind = (m.get("kind") or "").lower()
    if kind in ("rfc", "standard", "doc", "software"):
        return 70
    if kind == "blog":
        return 30
    return 60


def freshness_of(table: str, age_days: float | None) -> float:
    """Code 1; history from 1 down linearly to 0.2 at 180 days; papers to 0.3 at a year."""
    if table == SYMBOL.name:
        return 1.0
    if age_days is None:
        return 0.2 if table == ENTRY.name else 0.3
    if table == ENTRY.name:
        return round(max(0.2, 1.0 - 0.8 * age_days / 180.0), 4)
    return round(max(0.3, 1.0 - 0.7 * age_days / 365.0), 4)


def age_days(table: str, m: dict[str, Any], now: datetime) -> float | None:
    """Days from a hit's start (a paper's year, else ``valid_from`` or ``recorded_at``) to
    ``now``; None when unknown."""
    if table == PAPER.name:
        year = m.get("year")
        if not year:
            return None
        born = datetime(int(year), 7, 1)  # a year only: count from its middle
    else:
        born = m.get("valid_from") or m.get("recorded_at")
        if born is None:
            return None
        if born.tzinfo is not None:
            born = born.astimezone(UTC).replace(tzinfo=None)
    return max(0.0, (now - born).total_seconds() / 86400.0)
