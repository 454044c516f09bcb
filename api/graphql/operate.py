"""The operations API over GraphQL: ``status`` (read scope), and the admin mutations
``backup``, ``exportGraph`` and ``removeRepository`` that let the CLI reach a database a
running server owns (:mod:`api.operate`).

A copy (backup, export) runs under the server's write lock: its readers go on answering, its
writes wait until the copy is done, so the copy is one consistent state. On a read-only
server nothing writes at all, and the copy runs beside the readers.
"""

from typing import Any

import strawberry
from strawberry.scalars import JSON

from api.graphql.context import Context
from api.graphql.derive import from_result, object_type
from api.operate import tree_files
from graphdb.backup import backup_database
from graphdb.export import export_graph
from ingest.remove import remove_repository
from queries.status import DatabaseStatus, status

__all__ = ["StatusType", "backup", "export", "remove", "resolve_status"]

StatusType = object_type(DatabaseStatus, name="Status",
                         description="How current the graph is (`vgdb status`).")


async def resolve_status(info: strawberry.Info, repo: str | None,
                         exclude: list[str] | None) -> Any:
    context: Context = info.context
    excludes = tuple(exclude or ())
    return from_result(await context.run(status, repo,
                                         walk=lambda root: tree_files(root, excludes)))


async def _copy(info: strawberry.Info, fn: Any, directory: str) -> dict[str, Any]:
    context: Context = info.context
    context.require("admin")
    if context.store.read_only:  # nothing in this process writes: no lock to take
        result = await context.run(fn, directory)
    else:
        result = await context.write(lambda store: fn(store, directory))
    return result.to_dict()


async def backup(info: strawberry.Info, directory: str) -> JSON:
    return await _copy(info, backup_database, directory)


async def export(info: strawberry.Info, directory: str) -> JSON:
    return await _copy(info, export_graph, directory)


async def remove(info: strawberry.Info, name: str) -> JSON:
    context: Context = info.context
    context.require("admin")
    result = await context.write(lambda store: remove_repository(store, name))
    return result.to_dict()
