"""Seeded long fuzz run of every ingest parser (issue 23), and a sample through the real CLI.

For each parser of ``tests/ingest/fuzzing.py`` (source files of seven languages, file names,
git data, BibTeX, CITATION.cff, codemeta.json, OpenAlex/Semantic Scholar JSON, the papers
JSONL, references in text, session JSONL, coverage files, batch manifests): ``--inputs``
generated inputs (hypothesis, seeded, no shrinking) fed to the parser in-process. Each
input is *parsed*, *reported bad* (as the parser documents) or a *crash* (any other
exception, or a parsed result holding a string that cannot be stored). Then ``--cli``
inputs per command through the real ``vgdb`` command in a subprocess: the exit code must be
one the command documents, never 70, and no traceback.

Baseline, in the same run: with ``--baseline DIR`` (a checkout of the code before the fixes,
e.g. ``/work/main``), the same seeded inputs run against that tree's ``ingest`` in a child
process, so the crashes the fixes removed are counted on identical inputs.

    .venv/bin/python benchmarks/fuzz_parsers.py [--inputs 10000] [--cli 20] [--seed 23]
        [--only bibtex,cff] [--baseline /work/main]

Exit 0 when no parser crashed and every CLI exit code was documented.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load_fuzzing(code_root: Path):
    """``tests/ingest/fuzzing.py`` of this tree, importing the parsers of ``code_root``."""
    import importlib.util

    sys.path.insert(0, str(code_root))
    spec = importlib.util.spec_from_file_location(
        "fuzzing", ROOT / "tests" / "ingest" / "fuzzing.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzzing"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _seeded(strategy, count: int, seed: int, body):
    """Call ``body`` on ``count`` inputs of ``strategy`` (seeded; no shrinking, no replay)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    @with_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(value: object) -> None:
        body(value)

    run()


def fuzz_in_process(fuzzing, names: list[str], inputs: int, seed: int) -> dict[str, dict]:
    """Per parser: inputs, parsed, bad, crashes, seconds and the first crashes' reasons."""
    out: dict[str, dict] = {}
    for name in names:
        parser = fuzzing.PARSERS[name]
        tally: Counter[str] = Counter()
        examples: list[str] = []

        def one(value: object, parser=parser, tally=tally, examples=examples) -> None:
            tally["inputs"] += 1
            with tempfile.TemporaryDirectory(prefix="parsers-fuzz-") as tmp:
                try:
                    tally[parser.check(value, Path(tmp))] += 1
                except Exception as exc:  # the contract broken: count it, keep going
                    tally["crashes"] += 1
                    where = traceback.extract_tb(exc.__traceback__)[-1]
                    reason = (f"{type(exc).__name__}: {str(exc)[:120]} at "
                              f"{Path(where.filename).name}:{where.lineno}")
                    if reason not in examples and len(examples) < 5:
                        examples.append(reason)

        started = time.perf_counter()
        _seeded(parser.inputs, inputs, seed, one)
        out[name] = {"inputs": tally["inputs"], "parsed": tally["parsed"],
                     "bad": tally["bad"], "crashes": tally["crashes"],
                     "seconds": round(time.perf_counter() - started, 1),
                     "crash_examples": examples}
        print(f"  {name:16} {json.dumps(out[name])}", file=sys.stderr, flush=True)
    return out


def fuzz_cli(fuzzing, count: int, seed: int) -> dict[str, dict]:
    """Per command: runs, exit codes seen, undocumented ones (70 among them)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    out: dict[str, dict] = {}
    for command, (strategy, build) in fuzzing.CLI_CASES.items():
        codes: Counter[int] = Counter()
        bad: list[str] = []

        def one(value: object, command=command, build=build, codes=codes, bad=bad) -> None:
            with tempfile.TemporaryDirectory(prefix="parsers-fuzz-cli-") as tmp:
                for argv in build(value, Path(tmp)):
                    proc = subprocess.run([sys.executable, "-m", "api.cli", *argv], cwd=ROOT,
                                          env=env, capture_output=True, text=True,
                                          timeout=300, check=False)
                    if argv[0] != command:
                        continue  # a set-up step (the ingest before ingest-coverage)
                    codes[proc.returncode] += 1
                    if proc.returncode not in fuzzing.CLI_EXITS[command] or \
                            "Traceback" in proc.stderr or "internal error" in proc.stderr:
                        bad.append(f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")

        started = time.perf_counter()
        _seeded(strategy, count, seed, one)
        out[command] = {"runs": sum(codes.values()), "exit_codes": dict(sorted(codes.items())),
                        "undocumented": len(bad), "examples": bad[:3],
                        "seconds": round(time.perf_counter() - started, 1)}
        print(f"  {command:16} {json.dumps(out[command])}", file=sys.stderr, flush=True)
    return out


def _table(title: str, rows: dict[str, dict], baseline: dict[str, dict] | None) -> None:
    print(f"\n{title}")
    head = "| parser | inputs | parsed | reported bad | crashes |"
    if baseline is not None:
        head += " crashes before the fixes (baseline) |"
    print(head + " seconds |")
    print("|---" * (head.count("|") - 1 + 1) + "|")
    for name, r in rows.items():
        line = f"| {name} | {r['inputs']:,} | {r['parsed']:,} | {r['bad']:,} | {r['crashes']} |"
        if baseline is not None:
            b = baseline.get(name)
            line += f" {b['crashes']} of {b['inputs']:,} |" if b else " - |"
        print(line + f" {r['seconds']} |")
    for name, r in rows.items():
        for reason in r["crash_examples"]:
            print(f"  crash in {name}: {reason}")
    if baseline is not None:
        for name, b in baseline.items():
            for reason in b["crash_examples"]:
                print(f"  baseline crash in {name}: {reason}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--cli", type=int, default=20, help="inputs per CLI command")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--only", default="", help="comma-separated parser names")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of the code before the fixes (same inputs)")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:  # the baseline's side: parsers of another tree
        fuzzing = _load_fuzzing(args.child)
        names = args.only.split(",") if args.only else list(fuzzing.PARSERS)
        print(json.dumps(fuzz_in_process(fuzzing, names, args.inputs, args.seed)))
        return 0
    fuzzing = _load_fuzzing(ROOT)
    names = args.only.split(",") if args.only else list(fuzzing.PARSERS)
    print(f"# fuzz_parsers: seed {args.seed}, {args.inputs:,} inputs per parser, "
          f"{args.cli} per CLI command; load average {os.getloadavg()}", flush=True)
    baseline = None
    if args.baseline is not None:
        print(f"baseline: the parsers of {args.baseline} on the same inputs", file=sys.stderr)
        proc = subprocess.run([sys.executable, __file__, "--child", str(args.baseline),
                               "--inputs", str(args.inputs), "--seed", str(args.seed),
                               "--only", ",".join(names)], stdout=subprocess.PIPE,
                              text=True, check=False, cwd=args.baseline,
                              env={**os.environ, "PYTHONPATH": str(args.baseline)})
        baseline = json.loads(proc.stdout.strip().splitlines()[-1])
    print("this tree:", file=sys.stderr)
    rows = fuzz_in_process(fuzzing, names, args.inputs, args.seed)
    _table("In-process parsers (seeded):", rows, baseline)
    cli = fuzz_cli(fuzzing, args.cli, args.seed) if args.cli else {}
    if cli:
        print("\nThrough the real `vgdb` CLI (subprocess per run):")
        print("| command | runs | exit codes seen | undocumented (70 or traceback) | seconds |")
        print("|---|---:|---|---:|---:|")
        for command, r in cli.items():
            print(f"| {command} | {r['runs']} | {r['exit_codes']} | {r['undocumented']} | "
                  f"{r['seconds']} |")
            for example in r["examples"]:
                print(f"  {command}: {example}")
    print(f"\nload average after: {os.getloadavg()}")
    ok = all(r["crashes"] == 0 for r in rows.values()) and \
        all(r["undocumented"] == 0 for r in cli.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
