"""The ingest benchmark's baseline: a raw single-thread tree-sitter parse of the files.

Every file ``vgdb ingest`` would parse is parsed with the grammar vgdb uses for it (the
project's own language table, ``ingest.extract``), files in memory, ``parser.parse`` only, in
one thread; the best of ``repeats`` passes, per language and in total. Documents (Markdown,
TOML, ...) are not parsed by vgdb either (it counts their lines): they are listed, not timed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tree_sitter as ts
import tree_sitter_python

from ingest.extract import notebook
from ingest.extract.document import DOCUMENT_EXTENSIONS
from ingest.extract.languages import SPECS
from ingest.walk import Candidate

__all__ = ["ParseInput", "count_lines", "load_inputs", "raw_parse", "raw_parse_inputs"]

#: Mirrors ``ingest.extract.languages.extract``: a ``.h`` header that declares a class,
#: namespace or template is parsed with the C++ grammar (the pattern is private there).
CPP_IN_HEADER = re.compile(rb"^\s*(?:class|namespace|template)\b[^;(]*[{<]", re.MULTILINE)
DOCUMENTS = frozenset(DOCUMENT_EXTENSIONS.values())


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


@dataclass
class ParseInput:
    """The bytes of one language's files, as the ingest hands them to a grammar."""

    language: str
    blobs: list[tuple[str, bytes]] = field(default_factory=list)  # (grammar, bytes)
    files: int = 0
    bytes: int = 0  # on disk
    lines: int = 0
    unreadable: int = 0  # notebooks that are not JSON: vgdb records them as errors

    @property
    def parsed(self) -> bool:
        return self.language not in DOCUMENTS


def grammar_of(language: str, path: str, data: bytes) -> str:
    """The grammar vgdb parses this file with (a key of :func:`grammars`)."""
    if language in ("python", "jupyter"):
        return "python"
    if language == "c" and path.endswith(".h") and CPP_IN_HEADER.search(data):
        return "cpp"
    return language


def grammars() -> dict[str, Callable[[], object]]:
    return {"python": tree_sitter_python.language,
            **{name: spec.grammar() for name, spec in SPECS.items()}}


def load_inputs(root: Path, candidates: list[Candidate]) -> dict[str, ParseInput]:
    """Each language's files read into memory, in walk order (a notebook as its script of
    code cells, which is what vgdb parses)."""
    out: dict[str, ParseInput] = {}
    for c in candidates:
        data = (root / c.path).read_bytes()
        item = out.setdefault(c.language, ParseInput(c.language))
        item.files += 1
        item.bytes += len(data)
        item.lines += count_lines(data)
        if not item.parsed:
            continue
        if c.language == "jupyter":
            try:
                data = notebook.script(data)
            except ValueError:
                item.unreadable += 1
                continue
        item.blobs.append((grammar_of(c.language, c.path, data), data))
    return out


def raw_parse_inputs(inputs: dict[str, ParseInput], repeats: int = 2) -> dict[str, Any]:
    """Single-thread ``parser.parse`` of every file, one parser per grammar; the best of
    ``repeats`` passes over all the files, and each language's best pass."""
    parsers = {key: ts.Parser(ts.Language(fn())) for key, fn in grammars().items()}
    per_language: dict[str, list[float]] = {lang: [] for lang, i in inputs.items() if i.parsed}
    totals = []
    for _ in range(repeats):
        total = 0.0
        for lang in per_language:
            start = time.perf_counter()
            for key, data in inputs[lang].blobs:
                parsers[key].parse(data)
            took = time.perf_counter() - start
            per_language[lang].append(took)
            total += took
        totals.append(total)
    languages = {}
    for lang, item in sorted(inputs.items(), key=lambda kv: -kv[1].bytes):
        runs = per_language.get(lang)
        languages[lang] = {
            "files": item.files, "bytes": item.bytes, "lines": item.lines,
            "parsed": item.parsed, "unreadable": item.unreadable,
            "best_s": min(runs) if runs else None,
            "grammars": sorted({key for key, _ in item.blobs}),
        }
    return {"best_s": min(totals), "runs_s": totals, "languages": languages}


def raw_parse(blobs: list[bytes], repeats: int = 2) -> dict[str, Any]:
    """Python files only (``benchmarks/small_repo.py``): the best of ``repeats`` passes."""
    parser = ts.Parser(ts.Language(tree_sitter_python.language()))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for data in blobs:
            parser.parse(data)
        times.append(time.perf_counter() - start)
    return {"best_s": min(times), "runs_s": times}
