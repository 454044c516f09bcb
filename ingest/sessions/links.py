"""Links a live write names, made exact before the rules run, and the nearest real nodes when
one names nothing.

A session log may keep a reference to nothing as ``unresolved`` (the code may arrive later);
a live write refuses it instead, and tells the caller what it probably meant. The API names
code the way agents think of it, so these forms are accepted beside the log's own:

- symbols: ``sym:`` keys, ``path#qualname``, or a bare qualname (``Store.write``) when one
  current symbol has it;
- files: paths or ``file:<repo>/<path>`` keys;
- papers (``papers``, ``based_on``): DOI, arXiv id, ``paper:`` keys, or an exact title.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from graphdb import Store
from ingest.sessions.plan import paper_ref
from schema import COMMIT, ENTRY, FILE, PAPER, SYMBOL

__all__ = ["closest", "normalize_links"]

#: How many near matches a refusal names.
CLOSEST = 5


def normalize_links(store: Store, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (one event as a dict) with its code and paper links in the forms the
    planner resolves; what cannot be made exact is left for it to report."""
    out = dict(data)
    if out.get("symbols"):
        out["symbols"] = [_symbol(store, r) for r in out["symbols"]]
    for name in ("files", "paths"):
        if out.get(name):
            out[name] = [_file(store, r) for r in out[name]]
    if out.get("file"):
        out["file"] = _file(store, out["file"])
    for name in ("papers", "based_on"):
        if out.get(name):
            out[name] = [_paper(store, r) for r in out[name]]
    return out


def _symbol(store: Store, ref: str) -> str:
    if ref.startswith("sym:") or "#" in ref:
        return ref
    rows = store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE s.qualname = $q AND s.valid_to IS NULL "
                        "RETURN s.id LIMIT 2", {"q": ref})
    return rows["s.id"][0] if rows.height == 1 else ref


def _file(store: Store, ref: str) -> str:
    if not ref.startswith("file:"):
        return ref
    rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.id = $id RETURN f.path", {"id": ref})
    return rows["f.path"][0] if rows.height else ref


def _paper(store: Store, ref: Any) -> Any:
    if not isinstance(ref, str) or ref.startswith("paper:"):
        return ref
    if paper_ref(ref) is not None:  # a DOI or an arXiv id
        return ref
    rows = store.cypher(f"MATCH (p:{PAPER.name}) WHERE lower(p.title) = lower($t) "
                        "RETURN p.id LIMIT 2", {"t": ref.strip()})
    return rows["p.id"][0] if rows.height == 1 else ref


def closest(store: Store, ref: str) -> tuple[str, ...]:
    """The nodes nearest to an unresolved reference ``kind:value`` (as the planner reports
    them: ``symbol:``, ``file:``, ``commit:``, ``paper:``, ``supersedes:``, ``resolves:``),
    in the form the write API takes back: symbol keys, paths, shas, paper keys, display
    ids."""
    kind, _, value = ref.partition(":")
    if kind == "symbol":
        path, _, qualname = value.rpartition("#")
        name = qualname.rpartition(".")[2] or value
        rows = store.cypher(
            f"MATCH (s:{SYMBOL.name}) WHERE s.valid_to IS NULL AND (starts_with(lower(s.name), "
            "lower($p)) OR ($f <> '' AND ends_with(s.file, $f))) RETURN s.id LIMIT 20000",
            {"p": name[:2], "f": f"/{path}" if path else ""})
        keys = rows["s.id"].to_list()
        tails = {k.partition("#")[2]: k for k in keys}
        near = _near(qualname or value, list(tails), cutoff=0.6)  # the name says most
        return tuple(dict.fromkeys(tails[n] for n in near))[:CLOSEST]
    if kind == "file":
        rows = store.cypher(f"MATCH (f:{FILE.name}) WHERE f.valid_to IS NULL RETURN f.path")
        return _near(value, rows["f.path"].to_list())
    if kind == "commit":
        sha = value.lower().removeprefix("commit:")
        rows = store.cypher(f"MATCH (c:{COMMIT.name}) WHERE starts_with(c.sha, $p) "
                            "RETURN c.sha LIMIT 50", {"p": sha[:4]})
        return _near(sha, rows["c.sha"].to_list())
    if kind == "paper":
        rows = store.cypher(f"MATCH (p:{PAPER.name}) RETURN p.id, p.title")
        titles = {t: i for i, t in rows.rows() if t}
        near = _near(value, [*titles, *titles.values()])
        return tuple(dict.fromkeys(titles.get(n, n) for n in near))
    if kind in ("supersedes", "resolves"):
        rows = store.cypher(f"MATCH (e:{ENTRY.name}) WHERE e.valid_to IS NULL AND "
                            "e.expired_at IS NULL RETURN e.display_id, e.title")
        titles = {t: d for d, t in rows.rows() if t and d}
        near = _near(value, [*titles.values(), *titles])
        return tuple(dict.fromkeys(titles.get(n, n) for n in near))
    return ()


def _near(value: str, candidates: list[str], *, cutoff: float = 0.4) -> tuple[str, ...]:
    found = difflib.get_close_matches(value, candidates, n=CLOSEST, cutoff=cutoff)
    if not found:  # the end of a path or name often says more than the whole
        tail = value.rpartition("/")[2]
        found = [c for c in candidates if c.endswith(tail)][:CLOSEST] if tail else []
    return tuple(found)
