"""The ``briefing`` root field: :func:`queries.briefing.briefing` over GraphQL, conditional
on ``ifChangedSince`` like the other agent-facing reads (:mod:`api.graphql.conditional`)."""

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from api.graphql.conditional import IfChangedSince, not_modified
from api.graphql.context import Context
from api.graphql.derive import from_result, object_type
from queries.briefing import Briefing, briefing, briefing_repo

__all__ = ["BriefingTier", "BriefingType", "resolve_briefing"]

BriefingType = object_type(Briefing, name="Briefing")


@strawberry.enum(description="How much a briefing says: about 60, 500 or 2,000 tokens.")
class BriefingTier(Enum):
    MICRO = "micro"
    STANDARD = "standard"
    FULL = "full"


def _arg(description: str) -> strawberry.argument:
    return strawberry.argument(description=description)


async def resolve_briefing(
        info: strawberry.Info,
        files: Annotated[list[str] | None, _arg("paths or file ids")] = None,
        symbols: Annotated[list[str] | None, _arg("path#qualname or symbol ids")] = None,
        globs: Annotated[list[str] | None, _arg("path globs (graphdb/**)")] = None,
        task: Annotated[str | None, _arg(
            "what you are about to do; without targets, search finds the code")] = None,
        tier: BriefingTier = BriefingTier.STANDARD,
        max_tokens: Annotated[int | None, _arg(
            "the budget in cl100k_base tokens of `text`, instead of the tier's")] = None,
        as_of: datetime | None = None,
        session: Annotated[str | None, _arg(
            "your session: its own intents are not reported")] = None,
        if_changed_since: IfChangedSince = None) -> BriefingType | None:
    """What to know before changing some code, packed to a token budget by priority."""
    context: Context = info.context
    targets = {"files": files or (), "symbols": symbols or (), "globs": globs or ()}
    if await not_modified(info, if_changed_since,
                          repo_of=lambda store: briefing_repo(store, **targets, task=task)):
        return None
    result = await context.run(briefing, **targets, task=task, tier=tier.value,
                               max_tokens=max_tokens, as_of=as_of, session=session)
    return from_result(result)
