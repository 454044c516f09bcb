"""Conditional reads over GraphQL: ``extensions.graphVersion`` on every response, and
``ifChangedSince`` answered with ``null`` plus ``extensions.notModified``.

Shape (docs/api.md, "Conditional reads"): a field asked with ``ifChangedSince: N`` whose
answer would read nothing written after version ``N`` resolves to ``null`` and its response
key is listed in ``extensions.notModified`` — the whole answer is then about 20 tokens::

    {"data":{"briefing":null},"extensions":{"graphVersion":42,"notModified":["briefing"]}}

A null result plus a flag (rather than a ``Briefing | NotModified`` union) keeps one shape
for every conditional field — briefing, impact, provenance, search and the entry lists —
and keeps existing queries of those fields valid. Queries report the version read before
they ran (a write during the request makes the next poll see a change: never a missed one);
mutations the version after they committed.
"""

from collections.abc import Iterator
from typing import Annotated, Any

import strawberry
from strawberry.extensions import SchemaExtension

from queries.versions import unchanged_since

__all__ = ["GraphVersion", "IfChangedSince", "not_modified"]

IfChangedSince = Annotated[int | None, strawberry.argument(
    description="a graphVersion from an earlier response: if nothing this field reads was "
                "written since, it answers null and extensions.notModified names it")]


class GraphVersion(SchemaExtension):
    """Puts ``graphVersion`` (and ``notModified``) in every response's extensions."""

    def on_execute(self) -> Iterator[None]:
        context = self.execution_context.context
        mutation = self.execution_context.operation_type.value == "mutation"
        if not mutation:
            context.graph_version = context.store.graph_version()
        yield
        if mutation:
            context.graph_version = context.store.graph_version()

    def get_results(self) -> dict[str, Any]:
        context = self.execution_context.context
        version = getattr(context, "graph_version", None)
        if version is None:
            version = context.store.graph_version()
        found: dict[str, Any] = {"graphVersion": version}
        if getattr(context, "not_modified", None):
            found["notModified"] = list(context.not_modified)
        return found


async def not_modified(info: strawberry.Info, since: int | None, *,
                       repo: str | None = None, repo_of: Any = None) -> bool:
    """True (and the field's response key noted) when the field need not answer: nothing
    it reads changed after ``since``. ``repo``, or ``repo_of(store)`` (run off the event
    loop), names the one repository the answer is about; None means the whole graph."""
    if since is None:
        return False
    context = info.context
    if repo is None and repo_of is not None:
        repo = await context.run(repo_of)
    if not await context.run(unchanged_since, since, repo=repo):
        return False
    context.not_modified.append(info.path.key)
    return True
