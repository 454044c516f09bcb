"""Identity check of the Python extractor against a reference revision, file by file.

The reference is the Python extractor as it is at a git revision (default ``main``): its
``ingest/extract/python.py``, ``python_names.py`` and ``common.py`` are read with ``git show``
and loaded as stand-alone modules, so the check keeps working after the current tree
replaced them. Every
``.py`` file under the given roots (default: the running interpreter's standard library, tests
included, and /tmp/incr-click when it exists) is extracted by both, and every row list (symbols,
imports, calls, inherits, assigns, error lines, loc, module docstring) is compared in order.

    .venv/bin/python benchmarks/python_extract_identity.py [--ref main] [--broken N] [ROOT ...]

``--broken N`` also compares N broken copies of every file (a seeded random slice of 1-40
bytes cut out), whose syntax errors exercise the rules for partial trees.

Prints the number of files, rows and differing files (each difference with its first rows),
and exits 1 when any file differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest.extract import definitions, extract
from ingest.extract.rows import FileExtract

REPO = Path(__file__).resolve().parent.parent
FIELDS = ("symbols", "imports", "calls", "inherits", "assigns", "error_lines", "loc",
          "module_doc", "package", "language")


def reference(ref: str, into: Path) -> ModuleType:
    """The Python extractor of revision ``ref`` as a module of its own."""
    for stem in ("common", "python_names", "python"):  # the helpers it uses, as they were
        text = git_show(ref, f"ingest/extract/{stem}.py")
        for other in ("common", "python_names"):
            text = text.replace(f"from ingest.extract.{other} import",
                                f"from pyq_ref_{other} import")
        (into / f"pyq_ref_{stem}.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(into))
    spec = importlib.util.spec_from_file_location("pyq_ref_python", into / "pyq_ref_python.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def git_show(ref: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{ref}:{path}"], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout


def python_files(roots: list[Path]) -> list[Path]:
    found: list[Path] = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in ("site-packages", "__pycache__", ".git", ".venv"))
            found.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return found


def rows(fx: FileExtract) -> dict[str, object]:
    return {f: [row(r) for r in getattr(fx, f)] if isinstance(getattr(fx, f), list)
            else getattr(fx, f) for f in FIELDS}


def row(r: object) -> object:
    if dataclasses.is_dataclass(r):
        return dataclasses.astuple(r)  # type: ignore[arg-type]
    return tuple(r) if isinstance(r, tuple) else r


def compare(old: FileExtract, new: FileExtract) -> list[str]:
    a, b = rows(old), rows(new)
    out = []
    for field in FIELDS:
        if a[field] != b[field]:
            if isinstance(a[field], list):
                left, right = a[field], b[field]
                only_old = [r for r in left if r not in right][:3]
                only_new = [r for r in right if r not in left][:3]
                out.append(f"  {field}: {len(left)} vs {len(right)} rows; "
                           f"old only {only_old}; new only {only_new}"
                           + ("; same rows, other order" if not only_old and not only_new
                              else ""))
            else:
                out.append(f"  {field}: {a[field]!r} vs {b[field]!r}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--broken", type=int, default=0)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("roots", nargs="*", type=Path)
    args = parser.parse_args()
    roots = args.roots or [Path(sysconfig.get_paths()["stdlib"])] + (
        [Path("/tmp/incr-click")] if Path("/tmp/incr-click").is_dir() else [])
    with tempfile.TemporaryDirectory(prefix="vgdb-identity-") as tmp:
        ref = reference(args.ref, Path(tmp))
        files = python_files(roots)
        differing = 0
        total_rows = 0
        started = time.perf_counter()
        rng = random.Random(args.seed)
        for path in files:
            for data, label in variants(path, args.broken, rng):
                count, diff = check(ref, data, str(path), label)
                total_rows += count
                if diff:
                    differing += 1
                    print(f"{path}{label}")
                    print("\n".join(diff))
        print(f"roots {', '.join(map(str, roots))}; reference {args.ref}; "
              f"broken copies per file {args.broken}")
        print(f"files {len(files)}, rows {total_rows}, differing files {differing} "
              f"({time.perf_counter() - started:.1f} s)")
    return 1 if differing else 0


def variants(path: Path, broken: int, rng: random.Random) -> list[tuple[bytes, str]]:
    """The file's bytes, then ``broken`` copies with a slice cut out (labelled ``#brokenN``)."""
    data = path.read_bytes()
    out = [(data, "")]
    for n in range(broken if data else 0):
        start = rng.randrange(len(data))
        out.append((data[:start] + data[start + rng.randint(1, 40):], f"#broken{n}"))
    return out


def check(ref: ModuleType, data: bytes, path: str, label: str) -> tuple[int, list[str]]:
    """(rows of the reference, differences) of one file's bytes."""
    old = ref.extract(data, path)
    new = extract("python", data, path)
    diff = compare(old, new)
    old_defs = [dataclasses.astuple(r) for r in ref.definitions(data, path)]
    new_defs = [dataclasses.astuple(r) for r in definitions("python", data, path)]
    if old_defs != new_defs:
        diff.append(f"  definitions(): {len(old_defs)} vs {len(new_defs)} rows")
    return sum(len(getattr(old, f)) for f in FIELDS[:5]), diff


if __name__ == "__main__":
    raise SystemExit(main())
