"""Query-engine benchmark: extraction time of the languages declared as data against a raw
single-thread tree-sitter parse of the same files, measured interleaved in one run.

The corpus is what this machine has of each language outside the project, found in fixed
system directories (sorted, capped in bytes per language): C headers of /usr/include, C++
headers, PHP and shell scripts under /usr, and the running interpreter's standard library for
Python (without its tests, as ``benchmarks/ingest.py --no-tests``). ``--reference REV`` also
times, for Python, the extractor of git revision REV (loaded as by
``benchmarks/python_extract_identity.py``) in the same rounds: the A/B of a change to it.

Per language and round, the files (already in memory)
are parsed with ``Parser.parse`` only (the baseline), then extracted with
``ingest.extract.extract`` (parse + one ``QueryCursor.matches`` + rows); the figure is the
median over rounds, and the ratio extract / parse is what the engine costs on top of the parse.

    .venv/bin/python benchmarks/query_engine.py [--rounds 3] [--max-mb 8]
        [--languages python,c] [--reference main] [--cpu]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tree_sitter as ts
import tree_sitter_python
from python_extract_identity import reference

from ingest.extract import extract
from ingest.extract.languages import SPECS
from ingest.extract.rows import FileExtract

_STDLIB = sysconfig.get_paths()["stdlib"]

#: language -> (directories searched, file suffixes)
CORPORA: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "c": (("/usr/include",), (".h",)),
    "cpp": (("/usr/include", "/usr/lib", "/usr/share"), (".hpp", ".cpp", ".cc")),
    "php": (("/usr/share", "/usr/lib"), (".php",)),
    "bash": (("/usr/share", "/usr/lib", "/usr/bin", "/etc"), (".sh",)),
    "python": ((_STDLIB,), (".py",)),
}
#: the clock every figure reads: wall time, or with ``--cpu`` this process's CPU time (less
#: sensitive to the other jobs of a shared machine; the extraction is single-threaded)
CLOCK: list[Callable[[], float]] = [time.perf_counter]
#: directories left out of a corpus (the standard library's tests and installed packages)
SKIP_DIRS = frozenset({"site-packages", "__pycache__", "test", "tests", "idle_test"})


def corpus(language: str, max_bytes: int) -> list[tuple[str, bytes]]:
    dirs, suffixes = CORPORA[language]
    paths: list[Path] = []
    for d in dirs:
        for root, subdirs, names in os.walk(d):
            subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS]
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


def grammar(language: str) -> Callable[[], object]:
    return tree_sitter_python.language if language == "python" else SPECS[language].grammar()


def raw_parse(language: str, files: list[tuple[str, bytes]]) -> float:
    parser = ts.Parser(ts.Language(grammar(language)()))
    start = CLOCK[0]()
    for _, data in files:
        parser.parse(data)
    return CLOCK[0]() - start


def engine(language: str, files: list[tuple[str, bytes]],
           extractor: Callable[[bytes, str], FileExtract] | None = None) -> tuple[float, int]:
    rows = 0
    start = CLOCK[0]()
    for path, data in files:
        fx = extractor(data, path) if extractor else extract(language, data, path)
        rows += len(fx.symbols) + len(fx.calls) + len(fx.imports) + len(fx.inherits)
    return CLOCK[0]() - start, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-mb", type=float, default=8.0)
    parser.add_argument("--languages", default=",".join(CORPORA))
    parser.add_argument("--reference", help="git revision whose Python extractor to time too")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds instead of wall")
    args = parser.parse_args()
    if args.cpu:
        CLOCK[0] = time.process_time
    with tempfile.TemporaryDirectory(prefix="vgdb-qe-") as tmp:
        old = reference(args.reference, Path(tmp)).extract if args.reference else None
        print(f"load average before: {os.getloadavg()}; "
              f"{'CPU' if args.cpu else 'wall'} seconds")
        print(f"{'language':9} {'files':>6} {'MB':>6} {'parse s':>8} {'extract s':>9} "
              f"{'ratio':>6} {'rows':>8}" + (f" {'reference s':>11} {'ratio':>6}" if old else ""))
        for language in args.languages.split(","):
            measure(language, args.rounds, int(args.max_mb * 1e6),
                    old if language == "python" else None)
        print(f"load average after: {os.getloadavg()}")


def measure(language: str, rounds: int, max_bytes: int,
            old: Callable[[bytes, str], FileExtract] | None) -> None:
    files = corpus(language, max_bytes)
    if not files:
        print(f"{language:9} no files on this machine")
        return
    engine(language, files[:5])  # warm: grammar load and query compilation
    parses, extracts, olds, rows = [], [], [], 0
    for _ in range(rounds):  # interleaved: load changes hit all alike
        parses.append(raw_parse(language, files))
        seconds, rows = engine(language, files)
        extracts.append(seconds)
        if old is not None:
            olds.append(engine(language, files, old)[0])
    p, e = statistics.median(parses), statistics.median(extracts)
    mb = sum(len(d) for _, d in files) / 1e6
    line = f"{language:9} {len(files):6d} {mb:6.1f} {p:8.2f} {e:9.2f} {e / p:6.2f} {rows:8d}"
    if olds:
        o = statistics.median(olds)
        line += f" {o:11.2f} {o / p:6.2f}"
    print(line)


if __name__ == "__main__":
    main()
