"""One node per identity across sources: group records (and the papers the graph already
holds) by DOI, arXiv id, catalogue id and title + year, pick each field from the most
authoritative source, record the other values as conflicts, and plan the load.

Pure apart from the ``fetch`` callback that reads stored papers, so it runs inside the
load's own transaction (see :func:`ingest.academic.load.apply_records`).

Rules (docs/academic.md):

- DOI > arXiv id > normalized title + year. Records sharing a DOI, an arXiv id or a
  catalogue id are one paper. A title + year joins records only when it points at a
  single paper that has a DOI or arXiv id (or at none): two different papers with one
  title stay apart.
- Field values: the most authoritative non-empty value wins (:data:`records.AUTHORITY`;
  ties keep what the graph holds, then file order); the others go to ``conflicts``.
- Works only cited (references of a record, references found in text) become stub nodes
  (``resolved = false``); when their record arrives the same node is upgraded in place. A
  stub the graph keyed by title that turns out to have a DOI or arXiv id is merged into the
  node keyed by it: its edges move there, it stays as a non-current node (``status =
  merged``) with a SUPERSEDES edge from the new node.
- ``supersedes`` (RFC obsoletion, retraction) gives SUPERSEDES new -> old, and the old
  paper ``status`` obsoleted/retracted with ``valid_to`` = the new one's ``valid_from``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from graphdb.academic import PaperLoad
from ingest.academic.identity import normalize_title, paper_id, parse_identifier, title_key
from ingest.academic.records import Issue, PaperRecord
from schema import AUTHOR, PAPER, SUPERSEDES, TOPIC, Source, frame_schema

__all__ = ["MergeResult", "author_id", "merge_records", "record_keys", "topic_id"]

_FIELDS = ("kind", "title", "year", "venue", "abstract", "url")
_STATUS_RANK = {"active": 0, "obsoleted": 1, "retracted": 2}
_STORED = "stored"
_IMPORT, _INFERRED = Source.IMPORT.value, Source.INFERRED.value  # enum lookups are slow


def author_id(name: str, orcid: str = "") -> str:
    return f"author:{orcid}" if orcid else f"author:{normalize_title(name)}"


def topic_id(name: str) -> str:
    return "topic:" + "-".join(normalize_title(name).split())


def record_keys(r: PaperRecord) -> tuple[list[str], str]:
    """Strong keys (``doi:``, ``arxiv:``, catalogue ids) and the title key of a record."""
    strong = [f"doi:{r.doi}"] if r.doi else []
    if r.arxiv:
        strong.append(f"arxiv:{r.arxiv}")
    strong += list(r.ext_ids)
    key = title_key(r.title, r.year)
    return strong, f"title:{key}" if key else ""


def _ref_key(ref: str | tuple[str, int | None]) -> tuple[str, PaperRecord | None]:
    """The key a reference names, and a stub record for it when it can be keyed."""
    if isinstance(ref, tuple):
        key = title_key(ref[0], ref[1])
        if not key:
            return "", None
        return f"title:{key}", PaperRecord("reference", "", title=ref[0], year=ref[1],
                                           stub=True)
    if ref.startswith(("openalex:", "s2:")):
        return ref, None
    found = parse_identifier(ref)
    if found is None:
        return "", None
    scheme, value = found
    kind = "rfc" if value.startswith("10.17487/rfc") else "paper"
    stub = PaperRecord("reference", "", kind=kind, stub=True,
                       **({"doi": value} if scheme == "doi" else {"arxiv": value}))
    return f"{scheme}:{value}", stub


class _Union:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        root = parent.setdefault(x, x)
        while root != parent[root]:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


@dataclass
class MergeResult:
    load: PaperLoad
    #: every key met ("doi:...", "arxiv:...", "title:...", "openalex:W..") -> paper id
    ids: dict[str, str] = field(default_factory=dict)
    #: record index -> paper id
    record_ids: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)


@dataclass
class _Candidate:
    """A record, or a stored paper taking part in the merge as a record would."""

    authority: int
    order: int
    values: dict[str, Any]
    source: str
    stub: bool
    record: PaperRecord | None = None
    stored: dict | None = None


def _stored_candidate(row: Mapping[str, Any], order: int) -> _Candidate:
    values = {f: row.get(f) for f in (*_FIELDS, "doi", "arxiv")}
    sources = row.get("sources") or []
    # which source gave a stored value is known only when the paper had one source
    label = sources[0] if len(sources) == 1 else _STORED
    return _Candidate(int(row.get("authority") or 0), order, values, label,
                      not row.get("resolved"), stored=dict(row))


def _record_candidate(r: PaperRecord, order: int) -> _Candidate:
    values = {"kind": r.kind, "title": r.title, "year": r.year, "venue": r.venue,
              "abstract": r.abstract, "url": r.url, "doi": r.doi, "arxiv": r.arxiv}
    return _Candidate(r.authority, order, values, r.source, r.stub, record=r)


def _same(field_name: str, a: Any, b: Any) -> bool:
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str) and field_name in ("title", "venue"):
        return normalize_title(a) == normalize_title(b)
    return a == b


def merge_records(records: Iterable[PaperRecord], index: pl.DataFrame,
                  fetch: Callable[[set[str]], dict[str, dict]], *,
                  now: datetime) -> MergeResult:
    """Plan the load of ``records`` against the papers of ``index`` (the graph's identity
    keys, :func:`graphdb.academic.read_paper_index`); ``fetch(ids)`` returns the stored
    papers of those ids (:func:`graphdb.academic.read_papers`)."""
    records = list(records)
    # works named only as references or as superseded: stubs, merged like any record
    for r in list(records):
        for ref in (*r.references, *r.supersedes):
            _, stub = _ref_key(ref)
            if stub is not None:
                records.append(PaperRecord(**{**{n: getattr(stub, n) for n in stub.__slots__},
                                              "source": r.source}))
    uf = _Union()
    rec_keys: list[tuple[list[str], str]] = []
    for i, r in enumerate(records):
        strong, weak = record_keys(r)
        rec_keys.append((strong, weak))
        uf.find(f"rec:{i}")
        for k in strong:
            uf.union(f"rec:{i}", k)
    stored_title: dict[str, list[str]] = {}
    for pid, doi, arxiv, tkey, ext, status in index.select(
            "id", "doi", "arxiv", "title_key", "ext_ids", "status").iter_rows():
        if status == "merged":
            continue
        node = f"node:{pid}"
        uf.find(node)
        for k in ([f"doi:{doi}"] if doi else []) + ([f"arxiv:{arxiv}"] if arxiv else []) + \
                list(ext or ()):
            uf.union(node, k)
        if pid.startswith("paper:doi:"):
            uf.union(node, f"doi:{pid.removeprefix('paper:doi:')}")
        elif pid.startswith("paper:arxiv:"):
            uf.union(node, f"arxiv:{pid.removeprefix('paper:arxiv:')}")
        if tkey:
            stored_title.setdefault(f"title:{tkey}", []).append(node)
    # title + year joins only around a single strongly identified paper
    strong_roots = {uf.find(k) for k in list(uf.parent) if k.startswith(("doi:", "arxiv:"))}
    by_title: dict[str, list[str]] = {}
    for i, (_, weak) in enumerate(rec_keys):
        if weak:
            by_title.setdefault(weak, []).append(f"rec:{i}")
    for weak, nodes in stored_title.items():
        by_title.setdefault(weak, []).extend(nodes)
    for weak, members in by_title.items():
        roots = {uf.find(m) for m in members}
        strong = [x for x in roots if x in strong_roots]
        if len(strong) <= 1:
            for m in members:
                uf.union(members[0], m)
            uf.union(members[0], weak)
        else:
            loose = [m for m in members if uf.find(m) not in strong_roots]
            for m in loose:
                uf.union(loose[0], m)
            if loose:
                uf.union(loose[0], weak)
    groups: dict[str, list[str]] = {}
    for node in list(uf.parent):
        if node.startswith(("rec:", "node:")):
            groups.setdefault(uf.find(node), []).append(node)
    stored_ids = {n[5:] for members in groups.values() for n in members if n.startswith("node:")
                  and any(m.startswith("rec:") for m in members)}
    stored = fetch(stored_ids) if stored_ids else {}
    plan = _Plan(now)
    result = MergeResult(plan.load, record_ids=[""] * len(records))
    for root, members in groups.items():
        recs = [int(m[4:]) for m in members if m.startswith("rec:")]
        if not recs:
            continue  # a stored paper nothing new is about
        nodes = [stored[m[5:]] for m in members if m.startswith("node:") and m[5:] in stored]
        pid = plan.paper(records, recs, nodes)
        if not pid:
            for i in recs:
                result.issues.append(Issue(records[i].source, 0, "record has nothing to "
                                                                 "identify it; skipped"))
            continue
        for i in recs:
            result.record_ids[i] = pid
        result.ids[root] = pid
    # every key -> its paper's id
    for key in list(uf.parent):
        if not key.startswith(("rec:", "node:")):
            pid = result.ids.get(uf.find(key))
            if pid is None:
                members = groups.get(uf.find(key), [])
                node = next((m[5:] for m in members if m.startswith("node:")), None)
                pid = node
            if pid:
                result.ids[key] = pid
    for root in [k for k in result.ids if k.startswith(("rec:", "node:"))]:
        del result.ids[root]
    unresolved = 0
    for i, r in enumerate(records):
        pid = result.record_ids[i]
        if not pid or r.stub:
            continue
        for ref in r.references:
            key, _ = _ref_key(ref)
            target = result.ids.get(key)
            if target is None:
                unresolved += 1
            elif target != pid:
                plan.cites.append({"from": pid, "to": target, "evidence": r.source,
                                   "source": _IMPORT, "confidence": 1.0})
        for ref in r.supersedes:
            key, _ = _ref_key(ref)
            target = result.ids.get(key)
            if target and target != pid:
                plan.supersede(pid, target, r)
    result.counts = {**plan.counts, "unresolved_references": unresolved}
    plan.finish()
    return result


class _Plan:
    def __init__(self, now: datetime) -> None:
        self.now = now
        self.load = PaperLoad(now=now)
        self.new: list[dict] = []
        self.updated: list[dict] = []
        self.authors: dict[str, dict] = {}
        self.topics: dict[str, dict] = {}
        self.wrote: list[dict] = []
        self.has_topic: list[dict] = []
        self.cites: list[dict] = []
        self.supersedes: list[dict] = []
        self.superseded: dict[str, dict] = {}
        self.valid_from: dict[str, datetime | None] = {}
        self.counts = {"papers": 0, "new": 0, "updated": 0, "unchanged": 0, "stubs": 0,
                       "upgraded": 0, "merged": 0}

    def paper(self, records: list[PaperRecord], recs: list[int], nodes: list[dict]) -> str:
        cands = [_stored_candidate(row, -1) for row in nodes]
        cands += [_record_candidate(records[i], i) for i in recs]
        cands.sort(key=lambda c: (-c.authority, c.order))
        real = [c for c in cands if not c.stub]
        values: dict[str, Any] = {}
        for name in (*_FIELDS, "doi", "arxiv"):
            values[name] = next((c.values[name] for c in cands if c.values.get(name)), None)
        if values["kind"] in (None, "paper") and any(c.values.get("kind") == "rfc"
                                                     for c in cands):
            values["kind"] = "rfc"
        pid = paper_id(doi=values["doi"] or "", arxiv=values["arxiv"] or "",
                       title=values["title"] or "", year=values["year"])
        if not values["doi"] and not values["arxiv"] and nodes:
            pid = sorted(n["id"] for n in nodes)[0]  # a title-keyed paper keeps its id
        if not pid:
            return ""
        conflicts: dict[str, list[list[Any]]] = {}
        for row in nodes:
            if row.get("conflicts"):
                for name, items in json.loads(row["conflicts"]).items():
                    conflicts.setdefault(name, []).extend(items)
        for name in (*_FIELDS, "doi", "arxiv") if len(cands) > 1 else ():
            won = values[name]
            for c in cands:
                v = c.values.get(name)
                if v in (None, "") or _same(name, v, won):
                    continue
                if name == "kind" and (c.stub or v == "paper"):
                    continue
                item = [v, c.source]
                if item not in conflicts.setdefault(name, []):
                    conflicts[name].append(item)
        conflicts = {k: v for k, v in sorted(conflicts.items()) if v}
        stored_sources = {s for row in nodes for s in row.get("sources") or ()}
        new_sources = {c.source for c in cands if c.record is not None and c.source and (
            not c.stub or c.record.format == "text")}
        if not real:
            new_sources = {c.source for c in cands if c.record is not None and c.source}
        ext = sorted({e for row in nodes for e in row.get("ext_ids") or ()}
                     | {e for c in cands if c.record is not None for e in c.record.ext_ids})
        status = "active"
        for c in cands:
            if c.record is not None and c.record.status != "active" and \
                    _STATUS_RANK.get(c.record.status, 0) > _STATUS_RANK[status]:
                status = c.record.status
        for row in nodes:
            if _STATUS_RANK.get(row.get("status") or "active", 0) > _STATUS_RANK[status]:
                status = row["status"]
        year = values["year"]
        valid_from = datetime(year, 1, 1) if year else None
        resolved = bool(real)
        row = {
            "id": pid, "kind": values["kind"] or "paper", "doi": values["doi"] or "",
            "arxiv": values["arxiv"] or "", "title": values["title"] or "", "year": year,
            "venue": values["venue"] or "", "abstract": values["abstract"] or "",
            "url": values["url"] or "", "resolved": resolved, "status": status,
            "title_key": title_key(values["title"] or "", year),
            "authority": max(c.authority for c in cands),
            "ext_ids": ext, "sources": sorted(stored_sources | new_sources),
            "conflicts": json.dumps(conflicts, ensure_ascii=False, sort_keys=True)
            if conflicts else "",
            "source": (_IMPORT if resolved else _INFERRED),
            "confidence": 1.0,
        }
        self.valid_from[pid] = valid_from
        self.counts["papers"] += 1
        same_node = next((n for n in nodes if n["id"] == pid), None)
        for n in nodes:
            if n["id"] != pid:
                self.load.merged.append((n["id"], pid))
                self.supersedes.append({
                    "from": pid, "to": n["id"], "reason": "merged",
                    "evidence": f"same work, now identified as {pid}", "at": self.now,
                    "by": "vgdb", "source": _INFERRED, "confidence": 1.0})
                self.counts["merged"] += 1
        if same_node is None:
            row["valid_from"] = valid_from or self.now
            self.new.append(row)
            self.counts["new"] += 1
            self.counts["stubs"] += not resolved
        else:
            if valid_from is not None:
                row["valid_from"] = valid_from
            changed = any(row[k] != same_node.get(k) for k in row if k != "valid_from") or (
                valid_from is not None and same_node.get("valid_from") != valid_from)
            if changed:
                self.updated.append(row)
                self.counts["updated"] += 1
                self.counts["upgraded"] += resolved and not same_node.get("resolved")
            else:
                self.counts["unchanged"] += 1
        stored_authority = max((int(n.get("authority") or 0) for n in nodes), default=-1)
        has_authors = any(n.get("_has_authors") for n in nodes)
        has_topics = any(n.get("_has_topics") for n in nodes)
        best = next((c for c in real if c.record and c.record.authors), None)
        if best and (not has_authors or best.authority > stored_authority):
            if has_authors:
                self.load.replace_authors.append(pid)
            for pos, a in enumerate(best.record.authors):
                aid = author_id(a.name, a.orcid)
                self.authors.setdefault(aid, {"id": aid, "name": a.name, "orcid": a.orcid,
                                              "affiliation": a.affiliation,
                                              "source": _IMPORT,
                                              "confidence": 1.0})
                self.wrote.append({"from": aid, "to": pid, "position": pos,
                                   "source": _IMPORT, "confidence": 1.0})
        best = next((c for c in real if c.record and c.record.topics), None)
        if best and (not has_topics or best.authority > stored_authority):
            if has_topics:
                self.load.replace_topics.append(pid)
            for name, score in best.record.topics:
                tid = topic_id(name)
                self.topics.setdefault(tid, {"id": tid, "name": name,
                                             "source": _IMPORT, "confidence": 1.0})
                self.has_topic.append({"from": pid, "to": tid, "score": score,
                                       "source": _IMPORT, "confidence": 1.0})
        return pid

    def supersede(self, new: str, old: str, record: PaperRecord) -> None:
        reason = "obsoletes" if record.kind == "rfc" else "retracts"
        at = self.valid_from.get(new) or self.now
        self.supersedes.append({"from": new, "to": old, "reason": reason,
                                "evidence": record.source, "at": at, "by": record.source,
                                "source": _IMPORT, "confidence": 1.0})
        status = "obsoleted" if reason == "obsoletes" else "retracted"
        self.superseded[old] = {"id": old, "status": status, "valid_to": at}

    def finish(self) -> None:
        load = self.load
        load.new_papers = _frame(self.new, PAPER)
        load.updated_papers = _frame(self.updated, PAPER)
        load.authors = _frame(list(self.authors.values()), AUTHOR)
        load.topics = _frame(list(self.topics.values()), TOPIC)
        load.wrote = _columns(self.wrote)
        load.has_topic = _columns(self.has_topic)
        load.cites = _columns(self.cites)
        load.supersedes = _frame(self.supersedes, SUPERSEDES)
        if self.superseded:
            load.superseded = pl.DataFrame(
                list(self.superseded.values()),
                schema={"id": pl.Utf8, "status": pl.Utf8, "valid_to": pl.Datetime("us")})


def _columns(rows: list[dict]) -> pl.DataFrame:
    """Rows (dicts with the same keys) as a frame, built column by column (several times
    faster than from a list of dicts)."""
    if not rows:
        return pl.DataFrame()
    return pl.DataFrame({c: [r[c] for r in rows] for c in rows[0]})


def _frame(rows: list[dict], table: Any) -> pl.DataFrame:
    if not rows:
        return pl.DataFrame()
    schema = frame_schema(table)
    cols = [c for c in dict.fromkeys(k for r in rows for k in r) if c in schema]
    return pl.DataFrame({c: [r.get(c) for r in rows] for c in cols},
                        schema={c: schema[c] for c in cols}, strict=False)
