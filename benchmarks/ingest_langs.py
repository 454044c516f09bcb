"""Per-language figures of an ingested repository: files, symbols, and the CALLS and IMPORTS
edges resolved to a definition in the repository, by the language of the caller (importer).

The check of the multi-language ingest (issue 24): every code language with files (5 or more)
has calls resolved to the repository's own definitions, and imports resolved where its files
import anything at all (an import left to an ``External`` node counts as "has imports"). A
resolved edge is also counted by whether its target is of the same language family (C and C++
resolve as one family, as do JavaScript and TypeScript, Python and notebooks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingest.extract.document import DOCUMENT_EXTENSIONS

__all__ = ["FAMILIES", "checks", "language_stats"]

Query = Callable[[str], list[dict[str, Any]]]

DOCUMENTS = frozenset(DOCUMENT_EXTENSIONS.values())
#: a language with fewer files is not checked: one stray C file of a Python tree (the
#: standard library has one) may well call and include nothing of the repository
MIN_FILES = 5
FAMILIES = {"c": "c/c++", "cpp": "c/c++", "javascript": "ecmascript",
            "typescript": "ecmascript", "tsx": "ecmascript", "python": "python",
            "jupyter": "python"}


def family(language: str) -> str:
    return FAMILIES.get(language, language)


def language_stats(query: Query, repo: str) -> dict[str, dict[str, int]]:
    """language -> files, symbols, calls (resolved to a Symbol), calls_same (to the same
    family), imports (resolved to a File or Symbol), imports_same, imports_any (any target,
    External included)."""
    out: dict[str, dict[str, int]] = {}

    def row(language: str) -> dict[str, int]:
        return out.setdefault(language or "(none)", dict.fromkeys(
            ("files", "symbols", "calls", "calls_same", "imports", "imports_same",
             "imports_any"), 0))

    for r in query(f"MATCH (f:File) WHERE f.repo = '{repo}' AND f.valid_to IS NULL "
                   "RETURN f.language AS language, count(*) AS n"):
        row(r["language"])["files"] = int(r["n"])
    for r in query(f"MATCH (s:Symbol) WHERE s.repo = '{repo}' AND s.valid_to IS NULL "
                   "RETURN s.language AS language, count(*) AS n"):
        row(r["language"])["symbols"] = int(r["n"])
    for r in query("MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) "
                   f"WHERE a.repo = '{repo}' AND a.valid_to IS NULL AND e.valid_to IS NULL "
                   "RETURN a.language AS language, b.language AS target, count(*) AS n"):
        stats = row(r["language"])
        stats["calls"] += int(r["n"])
        if family(r["target"]) == family(r["language"]):
            stats["calls_same"] += int(r["n"])
    for r in query("MATCH (a:File)-[e:IMPORTS]->(b) "
                   f"WHERE a.repo = '{repo}' AND a.valid_to IS NULL AND e.valid_to IS NULL "
                   "RETURN a.language AS language, label(b) AS kind, b.language AS target, "
                   "count(*) AS n"):
        stats = row(r["language"])
        stats["imports_any"] += int(r["n"])
        if r["kind"] in ("File", "Symbol"):
            stats["imports"] += int(r["n"])
            if family(r["target"]) == family(r["language"]):
                stats["imports_same"] += int(r["n"])
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["files"], kv[0])))


def checks(stats: dict[str, dict[str, int]],
           min_files: int = MIN_FILES) -> list[tuple[str, bool, str]]:
    """One check per code language with ``min_files`` files or more: calls and imports
    resolved within it."""
    out = []
    for language, s in stats.items():
        if language in DOCUMENTS or language == "(none)" or s["files"] < min_files:
            continue
        missing = []
        if not s["calls_same"]:
            missing.append(f"no call resolved within {family(language)} "
                           f"({s['calls']} to another language)")
        if s["imports_any"] and not s["imports_same"]:
            missing.append(f"{s['imports_any']} imports, none resolved within "
                           f"{family(language)} ({s['imports']} to another language)")
        detail = "; ".join(missing) or (f"{s['calls_same']:,} calls, {s['imports_same']:,} "
                                        f"of {s['imports_any']:,} imports")
        out.append((f"{language}: calls and imports resolved within the language",
                    not missing, detail))
    return out
