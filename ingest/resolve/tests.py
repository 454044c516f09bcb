"""TESTS edges (test -> symbol under test), the same way for every language.

Two kinds of evidence: a test calls a repository symbol directly (method ``calls``), or a test
is named for it (``test_parse`` in ``test_parser.py`` -> ``parse`` in ``parser.py``; method
``naming``). Only CALLS edges of the files being resolved are used, so this stays incremental.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath

from ingest.extract.rows import FileExtract
from ingest.resolve.rows import EdgeRow
from schema import CALLS, SYMBOL, TESTS, symbol_id

__all__ = ["tested_stem", "tests_edges"]

_TEST_AFFIXES = re.compile(r"^(test_|tests_)|(_test|_tests|Test|Tests|\.test|\.spec)$")
_TEST_NAME = re.compile(r"^(test_?|Test)")


def tested_stem(path: str) -> str:
    """``tests/test_parser.py`` -> ``parser``; ``parser_test.go`` -> ``parser``."""
    stem = PurePosixPath(path).name.split(".", 1)[0]
    return _TEST_AFFIXES.sub("", stem)


def tests_edges(repo: str, files: Mapping[str, FileExtract], edges: list[EdgeRow], *,
                only: set[str] | None = None) -> list[EdgeRow]:
    """TESTS edges for the test symbols of ``files`` (or of ``only``).

    Only the files involved are read: the tests' own files, the files their calls reach, and
    the modules they are named for (``files`` may build extracts on access).
    """
    prefix = f"sym:{repo}/"
    tests_in: dict[str, frozenset[str]] = {}

    def test_qualnames(path: str) -> frozenset[str]:
        if path not in tests_in:
            fx = files.get(path)
            tests_in[path] = frozenset(s.qualname for s in fx.symbols if s.is_test) \
                if fx is not None else frozenset()
        return tests_in[path]

    def is_test(symbol: str) -> bool | None:
        """None when the id is not a symbol of this repository."""
        if not symbol.startswith(prefix) or "#" not in symbol:
            return None
        path, _, qualname = symbol[len(prefix):].partition("#")
        return qualname in test_qualnames(path)

    out: dict[tuple[str, str], EdgeRow] = {}
    for edge in edges:
        if edge.rel == CALLS.name and is_test(edge.src) and is_test(edge.dst) is False:
            key = (edge.src, edge.dst)
            if key not in out:
                out[key] = EdgeRow(TESTS.name, edge.src, SYMBOL.name, edge.dst, SYMBOL.name,
                                   edge.line, "calls", edge.confidence)
    by_stem: dict[tuple[str, str], list[str]] = {}  # (family, stem): a test names its own
    for path in files:                                   # language's module, not another's
        key = (_family(files, path), PurePosixPath(path).name.split(".", 1)[0])
        by_stem.setdefault(key, []).append(path)
    for path in sorted(only if only is not None else files):
        if path not in files or not test_qualnames(path):
            continue
        targets = [t for t in by_stem.get((_family(files, path), tested_stem(path)), [])
                   if t != path and not test_qualnames(t)]
        for sym in files[path].symbols:
            if not sym.is_test or sym.kind == "class":
                continue
            wanted = _TEST_NAME.sub("", sym.name)
            for target_path in targets:
                for cand in files[target_path].symbols:
                    if cand.name == wanted and cand.kind in ("function", "method", "class"):
                        src = symbol_id(repo, path, sym.qualname)
                        dst = symbol_id(repo, target_path, cand.qualname)
                        out.setdefault((src, dst), EdgeRow(
                            TESTS.name, src, SYMBOL.name, dst, SYMBOL.name,
                            sym.start_line, "naming", 0.7))
    return sorted(out.values(), key=lambda e: (e.src, e.dst))


def _family(files: Mapping[str, FileExtract], path: str) -> str:
    """The resolver family of ``path`` (a lazy mapping answers without building the extract)."""
    from ingest.resolve import FAMILIES  # the package imports this module

    language_of = getattr(files, "language_of", None)
    language = language_of(path) if language_of is not None else files[path].language
    return FAMILIES.get(language, language)
