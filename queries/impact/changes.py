"""A change set (a git diff) mapped onto the graph: the symbols whose lines changed."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import replace

from graphdb import Store
from queries.batch import by_ids, lookup_template
from queries.impact.model import ChangedCode, ChangedSymbol, ChangeSetLike
from queries.impact.traverse import describe_nodes
from schema import (
    FILE,
    MODULE_QUALNAME,
    REPOSITORY,
    SYMBOL,
    NodeNotFoundError,
)

__all__ = ["changed_symbols"]


# ------------------------------------------------------------------------ change set -> code
def _repository(store: Store, changes: ChangeSetLike, repo: str | None,
                notes: list[str]) -> tuple[str, str]:
    """(name, head at ingest) of the repository the change set belongs to."""
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name, r.root, r.head "
                        "ORDER BY r.name").rows()
    if repo is not None:
        match = [r for r in rows if r[0] == repo]
        if not match:
            raise NodeNotFoundError(f"no repository {repo!r} in the graph", node_id=repo,
                                    suggestion="vgdb overview lists the repositories")
    else:
        root = os.path.realpath(changes.root)
        match = [r for r in rows if r[1] and os.path.realpath(r[1]) == root]
        if not match and len(rows) == 1:
            match = rows
            notes.append(f"the diffed tree {changes.root} is not where repository {rows[0][0]} "
                         f"was ingested from ({rows[0][1]}); using it anyway")
        if not match:
            raise NodeNotFoundError(
                f"no repository in the graph was ingested from {changes.root}",
                node_id=changes.root, suggestion="pass --repo NAME, or ingest the tree first")
    name, _, head = match[0]
    return name, head or ""


def changed_symbols(store: Store, changes: ChangeSetLike, *,
                    repo: str | None = None) -> ChangedCode:
    """The symbols a change set touched, as graph ids, and the ids impact starts from.

    The graph is assumed to hold the change set's **head** side: it is ingested from the
    working tree, so diff the working tree (``head=None``), or a ``head`` equal to the commit
    the graph was ingested at. A different ingested head is reported in ``notes``, as are
    changed files whose size on disk differs from the graph's (ingest again to fix both).

    - Added or changed lines (head side) belong to the innermost current symbol whose span
      holds them in the graph, else to the file's module symbol (``<module>``).
    - Removed lines (base side) belong to the innermost definition of the base revision; if
      the head still has that qualname, it is modified; else it was deleted: the deleted
      symbol is listed (with its base id) and impact starts from its enclosing definition at
      head (for a top-level one: the module symbol, whose importers may have used it).
    - A deleted file starts impact from its own node when the graph still holds it (history
      keeps deleted files), else it is only listed; a renamed file is handled at its new
      path (its removed lines are read at the old one).
    - Binary files and files without a grammar are listed and start nothing, with a note.
    """
    notes: list[str] = list(changes.notes)
    name, ingested_head = _repository(store, changes, repo, notes)
    if changes.head and ingested_head and changes.head != ingested_head:
        notes.append(f"the graph of {name} was ingested at {ingested_head[:12]} but the diff's "
                     f"head is {changes.head[:12]}: symbol spans may not match; ingest that "
                     "revision first")
    if not changes.head and ingested_head:
        notes.append(f"diffing the working tree; the graph of {name} is assumed to hold it "
                     "(ingest again after editing)")
    prefix = f"sym:{name}/"
    symbols: dict[str, ChangedSymbol] = {}
    seeds: list[str] = []
    files: list[tuple[str, str]] = []
    skipped: list[str] = []
    paths = [f.path for f in changes.files]
    spans = _spans(store, name, paths)
    graph_files = _graph_files(store, name, paths)
    for f in changes.files:
        files.append((f.path, f.status))
        fid = f"file:{name}/{f.path}"
        if f.binary or f.language is None:
            skipped.append(f.path)
            continue
        if f.status == "deleted":
            for q in f.removed_owners() or (MODULE_QUALNAME,):
                sid = f"{prefix}{f.path}#{q}"
                symbols[sid] = ChangedSymbol(sid, f.path, q, "deleted", 0, False)
            if fid in graph_files:
                seeds.append(fid)
            else:
                notes.append(f"deleted file {f.path} is not in the graph: its importers are "
                             "not known")
            continue
        if fid not in graph_files:
            notes.append(f"{f.path} is not in the graph as code (excluded or not ingested "
                         "yet): ingest again")
            continue
        size = graph_files[fid]
        if not changes.head and size is not None:
            try:
                on_disk = os.path.getsize(os.path.join(changes.root, f.path))
            except OSError:
                on_disk = None
            if on_disk is not None and on_disk != size:
                notes.append(f"{f.path} changed since it was ingested ({size} bytes in the "
                             f"graph, {on_disk} on disk): ingest again for exact spans")
        if f.status == "renamed":  # its module name changed: importers of the old one break
            seeds.append(fid)
        file_spans = spans.get(f.path, [])
        counts: dict[str, int] = defaultdict(int)
        for line in f.added_lines:
            counts[_owner(file_spans, line)] += 1
        head_names = {q for q, _, _ in file_spans}
        base_q = {d.qualname for d in f.base_definitions}
        for q in f.removed_owners():
            if q in head_names or q == MODULE_QUALNAME:
                counts[q] += 1
            else:
                old = f.old_path or f.path
                sid = f"{prefix}{old}#{q}"
                symbols[sid] = ChangedSymbol(sid, old, q, "deleted", 0, False)
                enclosing = _enclosing_at_head(q, head_names)
                counts[enclosing] += 0
        if f.status == "added":
            for q in (MODULE_QUALNAME, *head_names):
                counts.setdefault(q, 0)
        for q, n in counts.items():
            sid = f"{prefix}{f.path}#{q}"
            change = "added" if (f.status == "added" or (base_q and q not in base_q
                                                          and q != MODULE_QUALNAME)) \
                else "modified"
            symbols.setdefault(sid, ChangedSymbol(sid, f.path, q, change, n, True))
            seeds.append(sid)
    if skipped:
        notes.append(f"{len(skipped)} changed file(s) are binary or not code and start no "
                     f"impact: {', '.join(skipped[:10])}{' ...' if len(skipped) > 10 else ''}")
    if not seeds:
        notes.append("the change touches no code in the graph")
    deleted_ids = [s.id for s in symbols.values() if s.change == "deleted"]
    if deleted_ids:
        for sid in describe_nodes(store, deleted_ids):
            symbols[sid] = replace(symbols[sid], in_graph=True)
    ordered = dict.fromkeys(seeds)
    return ChangedCode(repo=name, base=changes.base, head=changes.head,
                       symbols=tuple(sorted(symbols.values(), key=lambda s: s.id)),
                       files=tuple(files), seeds=tuple(ordered), notes=tuple(notes))


def _enclosing_at_head(qualname: str, head_names: set[str]) -> str:
    """The nearest enclosing definition of a deleted qualname that the head still has."""
    parts = qualname.split(".")
    while len(parts) > 1:
        parts.pop()
        if ".".join(parts) in head_names:
            return ".".join(parts)
    return MODULE_QUALNAME


def _owner(spans: list[tuple[str, int, int]], line: int) -> str:
    """Innermost span holding ``line`` (spans sorted by start, outer first)."""
    owner = MODULE_QUALNAME
    for q, start, end in spans:
        if start > line:
            break
        if end >= line:
            owner = q
    return owner


def _spans(store: Store, repo: str, paths: list[str]) -> dict[str, list[tuple[str, int, int]]]:
    if not paths:
        return {}
    # one scan of the Symbol table by its file property (queries.batch: why not probes)
    rows = store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.file IN $ids AND s.valid_to IS NULL AND "
        "s.qualname <> $module RETURN s.file, s.qualname, s.start_line, s.end_line",
        {"ids": [f"file:{repo}/{p}" for p in paths], "module": MODULE_QUALNAME})
    out: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    cut = len(f"file:{repo}/")
    for fid, q, start, end in rows.iter_rows():
        out[fid[cut:]].append((q, int(start or 0), int(end or 0)))
    for spans in out.values():
        spans.sort(key=lambda s: (s[1], -s[2], s[0]))
    return out


def _graph_files(store: Store, repo: str, paths: list[str]) -> dict[str, int | None]:
    """File id -> size, for the files of ``paths`` the graph holds (code, or kept by history
    for deleted files)."""
    if not paths:
        return {}
    rows = by_ids(store, [f"file:{repo}/{p}" for p in paths],
                   lookup_template(f"MATCH (f:{FILE.name}{{B}}) WHERE {{IN}} RETURN f.id AS id, "
                             "f.size AS size, f.valid_to AS valid_to, f.source AS source",
                             "f"))
    return {fid: size for fid, size, valid_to, source in rows.iter_rows()
            if valid_to is not None or source != "git"}
