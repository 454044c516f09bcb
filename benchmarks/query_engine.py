"""Query-engine benchmark: extraction time of the languages declared as data against a raw
single-thread tree-sitter parse of the same files, measured interleaved in one run.

The corpus is what this machine has of each language outside the project, found in fixed
system directories (sorted, capped in bytes per language): C headers of /usr/include, C++
headers, PHP and shell scripts under /usr. Per language and round, the files (already in memory)
are parsed with ``Parser.parse`` only (the baseline), then extracted with
``ingest.extract.extract`` (parse + one ``QueryCursor.matches`` + rows); the figure is the
median over rounds, and the ratio extract / parse is what the engine costs on top of the parse.

    .venv/bin/python benchmarks/query_engine.py [--rounds 3] [--max-mb 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tree_sitter as ts

from ingest.extract import extract
from ingest.extract.languages import SPECS

#: language -> (directories searched, file suffixes)
CORPORA: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "c": (("/usr/include",), (".h",)),
    "cpp": (("/usr/include", "/usr/lib", "/usr/share"), (".hpp", ".cpp", ".cc")),
    "php": (("/usr/share", "/usr/lib"), (".php",)),
    "bash": (("/usr/share", "/usr/lib", "/usr/bin", "/etc"), (".sh",)),
}


def corpus(language: str, max_bytes: int) -> list[tuple[str, bytes]]:
    dirs, suffixes = CORPORA[language]
    paths: list[Path] = []
    for d in dirs:
        for root, _, names in os.walk(d):
            paths.extend(Path(root) / n for n in names if n.endswith(suffixes))
    out: list[tuple[str, bytes]] = []
    total = 0
    for path in sorted(set(paths)):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if total + len(data) > max_bytes:
            break
        out.append((str(path), data))
        total += len(data)
    return out


def raw_parse(language: str, files: list[tuple[str, bytes]]) -> float:
    parser = ts.Parser(ts.Language(SPECS[language].grammar()()))
    start = time.perf_counter()
    for _, data in files:
        parser.parse(data)
    return time.perf_counter() - start


def engine(language: str, files: list[tuple[str, bytes]]) -> tuple[float, int]:
    rows = 0
    start = time.perf_counter()
    for path, data in files:
        fx = extract(language, data, path)
        rows += len(fx.symbols) + len(fx.calls) + len(fx.imports) + len(fx.inherits)
    return time.perf_counter() - start, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-mb", type=float, default=8.0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    print(f"{'language':9} {'files':>6} {'MB':>6} {'parse s':>8} {'extract s':>9} "
          f"{'ratio':>6} {'rows':>8}")
    for language in CORPORA:
        files = corpus(language, int(args.max_mb * 1e6))
        if not files:
            print(f"{language:9} no files on this machine")
            continue
        engine(language, files[:5])  # warm: grammar load and query compilation
        parses, extracts, rows = [], [], 0
        for _ in range(args.rounds):  # interleaved: load changes hit both alike
            parses.append(raw_parse(language, files))
            seconds, rows = engine(language, files)
            extracts.append(seconds)
        p, e = statistics.median(parses), statistics.median(extracts)
        mb = sum(len(d) for _, d in files) / 1e6
        print(f"{language:9} {len(files):6d} {mb:6.1f} {p:8.2f} {e:9.2f} {e / p:6.2f} {rows:8d}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
