"""The source text of a symbol or file, read from the tree it was ingested from.

The graph keeps where code is (file, first and last line), not the code; the web explorer's
node page and any client that wants the text ask here. The file is read from the repository's
``root`` as recorded at ingest, and its content hash is compared with the one the graph
holds, so a client can tell when the text on disk has moved on since the ingest
(``matches_graph``). Paths never leave the repository's root.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from graphdb import Store
from schema import FILE, REPOSITORY, SYMBOL, QueryError

__all__ = ["SourceText", "source_text"]

MAX_LINES = 400


@dataclass(frozen=True)
class SourceText:
    node: str
    repo: str
    path: str
    start_line: int
    end_line: int
    text: str
    matches_graph: bool
    truncated: bool
    notes: tuple[str, ...]


def source_text(store: Store, node: str, *, max_lines: int = MAX_LINES) -> SourceText | None:
    """Lines ``start_line..end_line`` of a symbol (a whole file for a file id), at most
    ``max_lines`` of them; None when no such symbol or file is in the graph."""
    if max_lines < 1:
        raise QueryError("maxLines must be positive")
    found = _locate(store, node)
    if found is None:
        return None
    repo, root, path, sha, start, end = found
    file = (Path(root) / path).resolve()
    if not root or not file.is_relative_to(Path(root).resolve()):
        return SourceText(node, repo, path, start, end, "", False, False,
                          (f"{path} is not under the repository root {root!r}",))
    try:
        data = file.read_bytes()
    except OSError as exc:
        return SourceText(node, repo, path, start, end, "", False, False,
                          (f"cannot read {file}: {exc.strerror or exc}",))
    lines = data.decode("utf-8", errors="replace").splitlines()
    end = end or len(lines)
    last = min(end, start + max_lines - 1)
    notes = [] if _content_hash(data) == sha else [
        f"{path} changed on disk since it was ingested: the lines may have moved"]
    return SourceText(node, repo, path, start, end, "\n".join(lines[start - 1:last]),
                      not notes, last < end, tuple(notes))


def _content_hash(data: bytes) -> str:
    """The hash File.sha holds (``ingest.worker.content_hash``; queries may not import
    ingest, and a test ties the two together)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _locate(store: Store, node: str) -> tuple[str, str, str, str, int, int] | None:
    if node.startswith("file:"):
        rows = store.cypher(
            f"MATCH (f:{FILE.name} {{id: $id}}) MATCH (r:{REPOSITORY.name} {{name: f.repo}}) "
            "RETURN f.repo AS repo, r.root AS root, f.path AS path, f.sha AS sha", {"id": node})
        return next(((repo, root or "", path, sha or "", 1, 0)
                     for repo, root, path, sha in rows.rows()), None)
    rows = store.cypher(
        f"MATCH (s:{SYMBOL.name} {{id: $id}}) MATCH (f:{FILE.name} {{id: s.file}}) "
        f"MATCH (r:{REPOSITORY.name} {{name: s.repo}}) RETURN s.repo AS repo, r.root AS root, "
        "f.path AS path, f.sha AS sha, s.start_line AS first, s.end_line AS last", {"id": node})
    return next(((repo, root or "", path, sha or "", start or 1, end or 0)
                 for repo, root, path, sha, start, end in rows.rows()), None)
