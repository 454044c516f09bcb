"""Identity of two checkouts' parse workers, file by file: what ``ingest.worker.parse_file``
returns (status, error, every extracted row in order, the load's columns, the papers scan)
and what ``ingest.extract.definitions`` returns, for every file a grammar handles under the
roots.

Each checkout runs in a child process of the same interpreter with ``PYTHONPATH`` set to it,
so the reference is that checkout's code as a whole (extractors, queries, columns, scan),
not modules loaded one by one. ``--broken N`` adds N copies of every Python file with a
seeded random slice of 1-40 bytes cut out (written under a temporary directory), whose
syntax errors exercise the rules for partial trees.

    .venv/bin/python benchmarks/extract_identity.py --a /work/main --b . [--broken 1]
        [ROOT ...]          # default: the standard library (tests included), /tmp/incr-click

Prints the number of files and rows compared and every differing file (its first
differences), and exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import pickle
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import dataclasses, hashlib, os, pickle, sys
from ingest.extract import definitions, language_for
from ingest.worker import ParseTask, decode_source, parse_file

def plain(value):
    if dataclasses.is_dataclass(value):
        return tuple(plain(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (list, tuple)):
        return tuple(plain(v) for v in value)
    return value

out = {}
for line in sys.stdin.read().splitlines():
    abs_path, path = line.split("\t")
    language = language_for(path)
    result = parse_file(ParseTask(abs_path, path, language, "", True))
    defs = None
    if result.extract is not None:
        with open(abs_path, "rb") as handle:
            utf8, _ = decode_source(handle.read(), language)
        defs = plain(definitions(language, utf8, path))
    fields = {f.name: plain(getattr(result, f.name)) for f in dataclasses.fields(result)}
    fields["definitions"] = defs
    out[path] = fields
sys.stdout.buffer.write(pickle.dumps(out))
"""

_ROW_FIELDS = ("symbols", "imports", "calls", "inherits", "assigns")


def files(roots: list[Path]) -> list[tuple[str, str]]:
    """(absolute path, path as labelled) of every file under the roots a grammar handles."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from ingest.extract import language_for

    found = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in ("site-packages", "__pycache__", ".git", ".venv"))
            for name in sorted(filenames):
                full = Path(dirpath) / name
                rel = f"{root.name}/{full.relative_to(root)}"
                if language_for(rel) is not None and full.is_file():
                    found.append((str(full), rel))
    return found


def broken_copies(listed: list[tuple[str, str]], n: int, seed: int,
                  into: Path) -> list[tuple[str, str]]:
    """``n`` copies of every Python file with a random slice cut out."""
    rng = random.Random(seed)
    out = []
    for abs_path, rel in listed:
        if not rel.endswith(".py"):
            continue
        data = Path(abs_path).read_bytes()
        for k in range(n if data else 0):
            start = rng.randrange(len(data))
            cut = data[:start] + data[start + rng.randint(1, 40):]
            label = f"broken{k}/{rel}"
            target = into / label
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(cut)
            out.append((str(target), label))
    return out


def run(checkout: Path, listed: list[tuple[str, str]]) -> tuple[dict, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD], env=env, cwd=checkout,
                          input="\n".join(f"{a}\t{r}" for a, r in listed).encode(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.decode()[-3000:]}")
    return pickle.loads(done.stdout), time.perf_counter() - started


def differences(a: dict, b: dict) -> list[str]:
    out = []
    for key in a:
        if a[key] == b[key]:
            continue
        left, right = a[key], b[key]
        if key == "extract" and left is not None and right is not None:
            names = [f.name for f in dataclasses.fields(_file_extract())]
            for name, x, y in zip(names, left, right, strict=True):
                if x != y:
                    out.append(f"  extract.{name}: {_short(x)} vs {_short(y)}")
        else:
            out.append(f"  {key}: {_short(left)} vs {_short(right)}")
    return out


def _file_extract() -> type:
    from ingest.extract.rows import FileExtract

    return FileExtract


def _short(value: object) -> str:
    if isinstance(value, tuple) and len(value) > 4:
        return f"{len(value)} items, first {value[:3]!r}"
    text = repr(value)
    return text if len(text) < 400 else text[:400] + "..."


def rows_of(result: dict) -> int:
    fx = result.get("extract")
    if fx is None:
        return 0
    names = [f.name for f in dataclasses.fields(_file_extract())]
    return sum(len(fx[names.index(n)]) for n in _ROW_FIELDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, required=True, help="reference checkout")
    parser.add_argument("--b", type=Path, default=Path("."), help="checkout compared")
    parser.add_argument("--broken", type=int, default=0)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("roots", nargs="*", type=Path)
    args = parser.parse_args()
    roots = args.roots or [Path(sysconfig.get_paths()["stdlib"])] + (
        [Path("/tmp/incr-click")] if Path("/tmp/incr-click").is_dir() else [])
    with tempfile.TemporaryDirectory(prefix="vgdb-extract-identity-") as tmp:
        listed = files(roots)
        listed += broken_copies(listed, args.broken, args.seed, Path(tmp))
        a, a_s = run(args.a, listed)
        b, b_s = run(args.b, listed)
    differing = 0
    for _abs, rel in listed:
        diff = differences(a[rel], b[rel])
        if diff:
            differing += 1
            print(rel)
            print("\n".join(diff[:6]))
    digest = hashlib.blake2b(pickle.dumps([a[r] for _x, r in listed]), digest_size=8)
    print(f"roots {', '.join(map(str, roots))}; broken copies per Python file {args.broken}")
    print(f"files {len(listed)}, rows {sum(rows_of(a[r]) for _x, r in listed)}, "
          f"differing files {differing} (a {a_s:.1f} s, b {b_s:.1f} s; "
          f"digest of a {digest.hexdigest()})")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
