"""TESTS edges (test -> symbol under test), the same way for every language.

Two kinds of evidence: a test calls a repository symbol directly (method ``calls``), or a test
is named for it (``test_parse`` in ``test_parser.py`` -> ``parse`` in ``parser.py``; method
``naming``). Only CALLS edges of the files being resolved are used, so this stays incremental.
"""

from __future__ import annotations

import re
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


def tests_edges(repo: str, files: dict[str, FileExtract], edges: list[EdgeRow], *,
                only: set[str] | None = None) -> list[EdgeRow]:
    """TESTS edges for the test symbols of ``files`` (or of ``only``)."""
    tests: set[str] = set()
    non_test: set[str] = set()
    by_stem: dict[str, list[str]] = {}
    for path, fx in files.items():
        test_file = any(s.is_test for s in fx.symbols)
        if not test_file:
            by_stem.setdefault(PurePosixPath(path).name.split(".", 1)[0], []).append(path)
        for sym in fx.symbols:
            sid = symbol_id(repo, path, sym.qualname)
            (tests if sym.is_test else non_test).add(sid)
    out: dict[tuple[str, str], EdgeRow] = {}
    for edge in edges:
        if edge.rel == CALLS.name and edge.src in tests and edge.dst in non_test:
            key = (edge.src, edge.dst)
            if key not in out:
                out[key] = EdgeRow(TESTS.name, edge.src, SYMBOL.name, edge.dst, SYMBOL.name,
                                   edge.line, "calls", edge.confidence)
    for path, fx in sorted(files.items()):
        if only is not None and path not in only:
            continue
        targets = by_stem.get(tested_stem(path), [])
        if not targets:
            continue
        for sym in fx.symbols:
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
