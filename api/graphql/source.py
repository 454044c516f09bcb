"""``sourceText``: the code of a symbol or file (:mod:`queries.source`), for the web
explorer's node page and any client that wants the text behind a span."""

from typing import Annotated, Any

import strawberry

from api.graphql.context import Context
from api.graphql.derive import from_result, object_type
from queries.source import MAX_LINES, SourceText, source_text

__all__ = ["SourceTextType", "resolve_source_text"]

SourceTextType = object_type(
    SourceText, name="SourceText",
    description="Lines of a symbol (or a whole file), read from the tree it was ingested "
                "from; matchesGraph is false when the file changed on disk since.")


async def resolve_source_text(
        info: strawberry.Info,
        node: Annotated[str, strawberry.argument(description="a symbol or file id")],
        max_lines: Annotated[int, strawberry.argument(
            description="at most this many lines (truncated says if more)")] = MAX_LINES,
) -> Any:
    context: Context = info.context
    found = await context.run(source_text, node, max_lines=max_lines)
    return None if found is None else from_result(found)
