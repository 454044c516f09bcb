"""The web explorer (issue 27): a static page at ``/`` of ``vgdb serve`` that reads the graph
through the GraphQL API only (``/graphql``, with the same tokens), and its bundled scripts at
``/explorer/`` (Cytoscape.js is vendored, so the page works without internet)."""

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

__all__ = ["STATIC", "explorer_routes"]

STATIC = Path(__file__).resolve().parent / "static"


async def _index(request: Request) -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")


def explorer_routes() -> list[BaseRoute]:
    """``GET /`` (the page) and ``/explorer/...`` (its scripts, styles and vendored files)."""
    return [Route("/", _index), Mount("/explorer", StaticFiles(directory=STATIC))]
