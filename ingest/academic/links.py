"""Papers met while ingesting a repository: its bibliography files (``*.bib``,
``CITATION.cff``, ``codemeta.json``) and the references found in its code and text (DOIs,
arXiv ids, RFCs, links, "References" sections), in commit messages and in decision texts.

Source files are scanned directly (comments are not stored in the graph); a reference is
attached to the innermost current symbol whose span holds its line (so a docstring's
reference belongs to its function), else to the file. Commit messages give REFERENCES from
the commit, entries REFERENCES from the entry, and decisions BASED_ON. Each run deletes the
edges of the previous run (``source = inferred``) that it does not find again and adds the
new ones, so re-ingest of an unchanged tree writes nothing.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pathspec
import polars as pl

from graphdb import Store
from graphdb.academic import (
    ReferenceLoad,
    delete_references,
    read_paper_index,
    read_papers,
    read_references,
    write_papers,
    write_references,
)
from ingest.academic.identity import normalize_rfc, parse_identifier, rfc_doi
from ingest.academic.merge import merge_records
from ingest.academic.records import Issue, PaperRecord
from ingest.academic.scan import CODE_SUFFIXES, DOC_SUFFIXES, TextScan, scan_text
from ingest.academic.sources import is_bibliography, parse_bibliography
from ingest.names import is_utf8_name, shown_name
from ingest.walk import DEFAULT_EXCLUDES, TextListing, exclude_spec, gitignore_spec
from schema import (
    BASED_ON,
    COMMIT,
    ENTRY,
    FILE,
    PAPER,
    REFERENCES,
    SYMBOL,
    Source,
    current_code_files,
)
from schema.ids import file_id, symbol_id

__all__ = ["LinkSummary", "link_repository", "text_kind", "text_record"]

Progress = Callable[[str, int, int], None]
#: text files scanned besides the code files (documentation)
_DOC_SUFFIXES = DOC_SUFFIXES  # the text files the workers scan are the ones read here
_CODE_SUFFIXES = CODE_SUFFIXES
_MAX_TEXT = 2_000_000
#: confidence of a reference by what it names
_CONFIDENCE = {"doi": 1.0, "arxiv": 1.0, "rfc": 1.0, "url": 0.8, "citation": 0.7}


@dataclass
class LinkSummary:
    bibliographies: list[str] = field(default_factory=list)
    scanned: int = 0
    references: int = 0
    unkeyed: int = 0
    written: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    seconds: float = 0.0
    #: nothing it reads changed since its last run (files by size and mtime, the graph by
    #: version): nothing was read or written
    unchanged: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"unchanged": self.unchanged,
                "bibliographies": self.bibliographies, "scanned_files": self.scanned,
                "references": self.references, "unkeyed_references": self.unkeyed,
                "papers": self.counts, "written": dict(sorted(self.written.items())),
                "issues": [i.to_dict() for i in self.issues],
                "seconds": round(self.seconds, 3)}


def text_record(ref: Any, source: str) -> PaperRecord | None:
    """A stub record for a reference found in text (``FoundReference`` of
    :mod:`ingest.academic.references`), or None when it names nothing to key on."""
    scheme, value = ref.scheme, ref.value
    common = {"format": "text", "source": source, "stub": True, "title": ref.title or "",
              "year": ref.year}
    if scheme == "rfc":
        number = normalize_rfc(str(value))
        return PaperRecord(kind="rfc", doi=rfc_doi(number), **common) if number else None
    if scheme in ("doi", "arxiv", "url"):
        found = parse_identifier(str(value))
        if found is not None:
            kind = "rfc" if found[1].startswith("10.17487/rfc") else "paper"
            return PaperRecord(kind=kind, **{found[0]: found[1]}, **common)
        if scheme == "url":
            # a link with no identifier is keyed by its address, taken as its title
            return PaperRecord(kind="doc", url=str(value), **{**common,
                                                              "title": ref.title or str(value)})
        return None
    if ref.title:
        return PaperRecord(kind="paper", **common)
    return None


def text_kind(rel: str) -> str | None:
    """What the step reads a file of the tree as: "bib" (a bibliography), "text" (code
    or documentation scanned for references) or None (not read)."""
    if is_bibliography(rel):
        return "bib"
    return "text" if rel.rsplit("/", 1)[-1].lower().endswith(_DOC_SUFFIXES + _CODE_SUFFIXES) \
        else None


def _files(root: Path, *, excludes: tuple[str, ...] = (), default_excludes: bool = True,
           gitignore: bool = True, max_file_size: int = _MAX_TEXT,
           issues: list[Issue] | None = None) -> tuple[list[str], list[str]]:
    """(bibliography files, text and code files) under ``root``, relative, sorted; what
    cannot be read (a directory, a name that is not UTF-8) goes to ``issues``.

    The same rules as the code walk (ingest.walk): default excludes and .gitignore files at
    every level, symlinks not followed, only regular files (a FIFO would block a read),
    files over ``max_file_size`` left out. Its own walk because ingest.walk keeps only
    files with a grammar.
    """
    base = exclude_spec([*(DEFAULT_EXCLUDES if default_excludes else ()), *excludes])
    bibs: list[str] = []
    texts: list[str] = []
    stack: list[tuple[str, pathspec.PathSpec]] = []
    found = issues if issues is not None else []

    def ignored(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        return base.match_file(probe) or any(
            rel.startswith(prefix) and spec.match_file(probe[len(prefix):])
            for prefix, spec in stack)

    def visit(directory: Path, rel_dir: str) -> None:
        pushed = False
        if gitignore:
            try:
                lines = (directory / ".gitignore").read_text(
                    encoding="utf-8", errors="replace").splitlines()
                stack.append((rel_dir, gitignore_spec(lines)))
                pushed = True
            except OSError:  # none, or not readable: the listing below reports the latter
                pass
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            found.append(Issue(rel_dir.rstrip("/") or ".", 0,
                               f"unreadable directory: {exc.strerror or exc}"))
            entries = []
        for entry in entries:
            rel = rel_dir + entry.name
            if not is_utf8_name(entry.name):
                if not ignored(rel, entry.is_dir(follow_symlinks=False)):
                    found.append(Issue(shown_name(rel), 0, "name is not valid UTF-8 (shown "
                                                           "with \\x escapes): not read"))
                continue
            try:
                if entry.is_symlink():
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if not ignored(rel, True):
                    visit(Path(entry.path), rel + "/")
            elif stat.S_ISREG(st.st_mode) and st.st_size <= max_file_size and \
                    not ignored(rel, False):
                kind = text_kind(rel)
                if kind == "bib":
                    bibs.append(rel)
                elif kind == "text":
                    texts.append(rel)
        if pushed:
            stack.pop()

    visit(root, "")
    return bibs, texts


def link_repository(store: Store, root: Path, repo: str, *, excludes: tuple[str, ...] = (),
                    default_excludes: bool = True, gitignore: bool = True,
                    max_file_size: int = _MAX_TEXT, progress: Progress | None = None,
                    changed: set[str] | None = None,
                    listing: TextListing | None = None,
                    scans: Mapping[str, TextScan] | None = None) -> LinkSummary:
    """Load the repository's bibliographies and link its code, commits and entries to the
    papers they reference, in one transaction (the tree is walked with the options of the
    code walk).

    ``listing``: the files to read as the code walk found them (with the same options);
    else the tree is walked here.

    ``changed``: the code files the code ingest just added, modified or removed. Then the
    other code files the graph holds are neither read again nor have their edges touched
    (an update stays proportional to the change); documentation, bibliographies, commit
    messages and entries are read too, unless they are as the last run left them (stamped:
    files by path, size and mtime, commits and entries by count) and the changed files
    reference no paper, before or after (:func:`_code_only`): then only those are read.
    None, or a repository never linked before, reads everything.

    ``scans``: texts already scanned, by path (the parse workers scan each file they read:
    :mod:`ingest.academic.scan`); those files are not read again.
    """
    from ingest.academic.references import find_references

    started = time.perf_counter()
    summary = LinkSummary()
    if listing is not None:  # the code walk listed them (ingest.walk.TextListing)
        bibs, texts = list(listing.bibs), list(listing.texts)
        summary.issues += [Issue(path, 0, message) for path, message in listing.problems]
    else:
        bibs, texts = _files(root, excludes=excludes, default_excludes=default_excludes,
                             gitignore=gitignore, max_file_size=max_file_size,
                             issues=summary.issues)
    marker = f"papers-linked:{repo}"
    # a run that would read the same files and the same graph as the last one stops here
    counts = _graph_counts(store, repo)
    sources = _sources_stamp(counts, root, bibs, texts)
    linked = store.meta(marker)
    if changed is not None and not changed and linked and \
            store.meta(_sources_key(repo)) == sources:
        summary.unchanged = True
        summary.bibliographies = list(bibs)  # found, as unchanged as the rest: not read
        summary.seconds = time.perf_counter() - started
        return summary
    # documents are File nodes too (ingest/extract/document.py), but are always read
    code = {p for p in _code_files(store, repo) if not p.lower().endswith(_DOC_SUFFIXES)}
    # what is read whatever changed: bibliographies, documents, untracked text files,
    # commits and entries
    others = _sources_stamp(counts, root, bibs, [rel for rel in texts if rel not in code])
    kept: set[str] = set()  # tracked code files left as they are
    if changed is not None and linked:
        read = _code_only(store, root, repo, changed, [rel for rel in texts if rel in changed]) \
            if store.meta(_others_key(repo)) == others else None
        if read is not None:
            with store.write() as tx:  # the next run compares with what is there now
                store.set_meta(tx, _sources_key(repo), sources)
            summary.bibliographies = list(bibs)  # found, unchanged: not read again
            summary.scanned = read
            summary.seconds = time.perf_counter() - started
            return summary
        kept = code - changed
        texts = [rel for rel in texts if rel not in kept]
    files = _existing_files(store, repo)
    records: list[PaperRecord] = []
    for rel in bibs:
        try:
            parsed = parse_bibliography((root / rel).read_bytes(), path=f"{repo}/{rel}")
        except OSError as exc:
            summary.issues.append(Issue(rel, 0, f"unreadable: {exc.strerror or exc}"))
            continue
        records += parsed.records
        summary.issues += parsed.issues
        summary.bibliographies.append(rel)
    n_bib = len(records)
    # (table, node id, location, found reference) for each text record, in records order
    origins: list[tuple[str, str, str, Any]] = []
    # only the files read below need their symbols' spans (an update reads a few)
    spans = _symbol_spans(store, repo, texts if kept else None)
    for n, rel in enumerate(texts, start=1):
        scan = scans.get(rel) if scans else None
        if scan is None:
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            scan = scan_text(text, rel)
        summary.scanned += 1
        if scan.error:  # one file's text never aborts the ingest
            summary.issues.append(Issue(rel, 0, scan.error))
            continue
        assigned = scan.assigned
        for ref in scan.found:
            record = text_record(ref, f"text:{repo}/{rel}:{ref.line}")
            if record is None:
                summary.unkeyed += 1
                continue
            owner = _doc_owner(assigned, spans.get(rel, ()), repo, rel, ref.line) or \
                _owner(spans.get(rel, ()), ref.line)
            table, node = (SYMBOL.name, owner) if owner else (FILE.name, files.get(rel, ""))
            records.append(record)
            origins.append((table, node, f"{rel}:{ref.line}", ref))
        if progress and n % 200 == 0:
            progress("papers", n, len(texts))
    for table, query in (
            (COMMIT.name, f"MATCH (n:{COMMIT.name}) WHERE n.repo = $r "
                          "RETURN n.id AS id, n.sha AS name, n.message AS text, '' AS kind"),
            (ENTRY.name, f"MATCH (n:{ENTRY.name}) WHERE n.repo = $r OR n.repo IS NULL "
                         "OR n.repo = '' RETURN n.id AS id, n.display_id AS name, "
                         "coalesce(n.title, '') + '\n' + coalesce(n.content, '') AS text, "
                         "n.kind AS kind")):
        for node, name, text, kind in store.cypher(query, {"r": repo}).rows():
            try:
                found = find_references(text or "", path=None)
            except Exception as exc:  # one message never aborts the ingest
                summary.issues.append(Issue(str(name or node), 0,
                                            f"reference extraction failed: {exc!r}"))
                continue
            for ref in found:
                where = f"{name or node}:{ref.line}" if table == ENTRY.name else \
                    f"commit:{name}"
                record = text_record(ref, f"text:{where}")
                if record is None:
                    summary.unkeyed += 1
                    continue
                records.append(record)
                origins.append((table if kind != "decision" else "BASED_ON", node, where, ref))
    summary.references = len(origins)
    now = datetime.now(UTC).replace(tzinfo=None)
    source = Source.INFERRED.value
    stored = read_references(store, repo=repo, source=source)
    load = ReferenceLoad(now=now)
    rows: dict[str, list[dict]] = {}
    with store.write() as tx:
        tx.touch(repo)
        result = merge_records(records, read_paper_index(tx),
                               lambda ids: read_papers(tx, ids), now=now)
        for i, (table, node, where, ref) in enumerate(origins):
            pid = result.record_ids[n_bib + i]
            if not pid or not node:
                continue
            rows.setdefault(table, []).append({
                "from": node, "to": pid, "kind": ref.kind, "location": where,
                "evidence": ref.raw[:500], "source": source,
                "confidence": _CONFIDENCE.get(ref.scheme, 0.7)})
        # edges of the previous run that this one does not make again (moved lines, removed
        # citations): deleted first, before any write (see delete_references)
        wanted = {(REFERENCES.name if t != "BASED_ON" else BASED_ON.name, r["from"], r["to"],
                   r["kind"] if t != "BASED_ON" else "", r["location"])
                  for t, rs in rows.items() for r in rs}
        stale = stored.filter(~pl.Series([
            (rel, a, b, k or "", loc) in wanted or (loc or "").rsplit(":", 1)[0] in kept
            for rel, a, b, k, loc in stored.select(
                "rel", "from", "to", "kind", "location").iter_rows()], dtype=pl.Boolean))
        summary.counts = {**result.counts, "stale_references": stale.height}
        delete_references(tx, stale, source=source)
        summary.written = write_papers(tx, result.load)
        based = rows.pop("BASED_ON", [])
        load.references = {t: pl.DataFrame(r) for t, r in rows.items()}
        if based:
            load.based_on = pl.DataFrame(based).drop("kind")
        for key, value in write_references(tx, load).items():
            summary.written[key] = summary.written.get(key, 0) + value
        store.set_meta(tx, marker, now.isoformat())
        store.set_meta(tx, _sources_key(repo), sources)
        store.set_meta(tx, _others_key(repo), others)
    summary.seconds = time.perf_counter() - started
    return summary


def _code_only(store: Store, root: Path, repo: str, changed: set[str],
               texts: list[str]) -> int | None:
    """How many files were read, when an update whose other sources are as the last run
    left them (the caller compared their stamp) can stop after reading its changed code
    files ``texts``: none of them references a paper now, and no edge of the last run comes
    from one of the ``changed`` files (a symbol or the file itself); else None. Then a full
    run would find the same references and write nothing: an edit of a function body reads
    one file here instead of every document, commit message and stored reference."""
    from ingest.academic.references import find_references

    for rel in texts:
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        try:
            if find_references(text, path=rel):
                return None
        except Exception:  # the full run reports it as an issue
            return None
    ids = [file_id(repo, rel) for rel in sorted(changed)]
    for table, key in ((SYMBOL, "file"), (FILE, "id")):
        found = store.cypher(
            f"MATCH (n:{table.name})-[e:{REFERENCES.name}]->(:{PAPER.name}) WHERE "
            f"n.repo = $r AND n.{key} IN $ids AND e.source = $s RETURN count(*)",
            {"r": repo, "ids": ids, "s": Source.INFERRED.value}).item()
        if found:
            return None
    return len(texts)


def _sources_key(repo: str) -> str:
    return f"papers-sources:{repo}"


def _others_key(repo: str) -> str:
    return f"papers-others:{repo}"


def _graph_counts(store: Store, repo: str) -> str:
    """The number of the repository's commits and of the entries (part of every stamp)."""
    out = ""
    for query in (f"MATCH (n:{COMMIT.name}) WHERE n.repo = $r RETURN count(*)",
                  f"MATCH (n:{ENTRY.name}) WHERE n.repo = $r OR n.repo IS NULL OR "
                  "n.repo = '' RETURN count(*)"):
        out += f"{store.cypher(query, {'r': repo}).item()}\n"
    return out


def _sources_stamp(counts: str, root: Path, bibs: list[str], texts: list[str]) -> str:
    """A digest of what the step reads: the paths, sizes and mtimes of its files, and the
    number of the repository's commits and of the entries (``counts``; code files that
    changed are passed to it as ``changed``)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(counts.encode())
    for rel in (*bibs, *texts):
        try:
            st = (root / rel).stat()
        except OSError:
            continue
        digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _symbol_spans(store: Store, repo: str,
                  paths: list[str] | None = None) -> dict[str, list[tuple[int, int, str]]]:
    """Per file path (of ``paths`` only, when given): (start, end, id) of its current
    symbols, innermost last for a line."""
    if paths is not None and not paths:
        return {}
    only = "" if paths is None else " AND f.path IN $paths"
    rows = store.cypher(
        f"MATCH (f:{FILE.name}), (s:{SYMBOL.name}) WHERE s.repo = $r AND s.valid_to IS NULL "
        f"AND s.kind <> 'module' AND f.id = s.file{only} "
        "RETURN f.path, s.start_line, s.end_line, s.id",
        {"r": repo, **({} if paths is None else {"paths": paths})})
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for path, start, end, sid in rows.rows():
        spans.setdefault(path, []).append((start or 0, end or 0, sid))
    return spans


def _doc_owner(assigned: list[tuple[int, int, str]], spans: Any, repo: str, rel: str,
               line: int) -> str:
    """The symbol whose ``__doc__`` is assigned a string holding ``line``, if the graph
    has it (``f.__doc__ = f\"\"\"...\"\"\"`` documents ``f``, not the file)."""
    for first, last, name in assigned:
        if first <= line <= last:
            sid = symbol_id(repo, rel, name)
            if any(sid == known for _s, _e, known in spans):
                return sid
    return ""


def _owner(spans: Any, line: int) -> str:
    best: tuple[int, str] | None = None
    for start, end, sid in spans:
        if start <= line <= end and (best is None or end - start < best[0]):
            best = (end - start, sid)
    return best[1] if best else ""


def _code_files(store: Store, repo: str) -> set[str]:
    """Paths of the files the code ingest tracks (not docs known only from git history)."""
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE {current_code_files()} RETURN f.path",
                        {"r": repo})
    return {path for (path,) in rows.rows()}


def _existing_files(store: Store, repo: str) -> dict[str, str]:
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.repo = $r AND f.valid_to IS NULL "
                        "RETURN f.path, f.id", {"r": repo})
    return dict(rows.rows())
