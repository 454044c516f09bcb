"""Identity of two checkouts' full ingests: every row of every node and rel table.

Runs ``vgdb ingest SRC --db <fresh> --no-history [EXTRA...]`` with the ``vgdb`` of checkout
A and of checkout B (``<checkout>/.venv/bin/vgdb``), then reads every current row back
(every property but timestamps and vectors; a rel as its two end ids and its properties)
and compares the sorted rows table by table.

    .venv/bin/python benchmarks/ingest_identity.py SRC --a /work/main --b . [-- EXTRA...]

Prints the row count of each non-empty table and each differing table (its first rows
found on one side only); exits 1 when any table differs.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphdb import Store
from schema.tables import NODE_TABLES, REL_TABLES

#: properties that differ between any two runs
_CLOCKS = {"recorded_at", "expired_at", "valid_from", "valid_to", "ingested_at", "created_at",
           "updated_at", "seconds"}
#: a time written as text (the papers step's ``Meta`` record)
_CLOCK_TEXT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[.\d]*$")


def _columns(table: object) -> list[str]:
    return [c.name for c in table.columns  # type: ignore[attr-defined]
            if c.name not in _CLOCKS and "TIMESTAMP" not in c.type and "[]" not in c.type]


def _steady(row: list) -> tuple:
    """A row without what changes from run to run of the same code: a time written as text,
    and the graph file's size in the compaction baseline (``<file bytes> <rows>``: the
    engine's page allocation varies by a page or two between identical ingests)."""
    if row and row[0] == "compact-baseline" and isinstance(row[1], str):
        row = [row[0], "<bytes> " + row[1].split(" ")[-1], *row[2:]]
    return tuple(_CLOCK_TEXT.sub("<time>", v) if isinstance(v, str) else v for v in row)


def dump(db: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    with Store.open(db, read_only=True) as store:
        for table in NODE_TABLES:
            query = f"MATCH (n:{table.name}) RETURN " + ", ".join(
                f"n.{c}" for c in _columns(table))
            out[table.name] = sorted(repr(_steady(row)) for row in store.cypher(query).rows())
        for rel in REL_TABLES:
            query = f"MATCH (a)-[e:{rel.name}]->(b) RETURN a.id, b.id" + "".join(
                f", e.{c}" for c in _columns(rel))
            out[rel.name] = sorted(map(repr, store.cypher(query).rows()))
    return out


def ingest(checkout: Path, src: Path, db: Path, extra: list[str]) -> None:
    vgdb = checkout.resolve() / ".venv/bin/vgdb"
    done = subprocess.run([str(vgdb), "ingest", str(src), "--db", str(db), "--json",
                           "--no-history", *extra], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{vgdb} failed ({done.returncode}): {done.stderr[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("--a", type=Path, required=True)
    parser.add_argument("--b", type=Path, default=Path("."))
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    extra = argv[cut + 1:]
    with tempfile.TemporaryDirectory(prefix="vgdb-ingest-identity-") as tmp:
        ingest(args.a, args.src, Path(tmp) / "a", extra)
        ingest(args.b, args.src, Path(tmp) / "b", extra)
        a, b = dump(Path(tmp) / "a"), dump(Path(tmp) / "b")
    differing = 0
    for name, rows in a.items():
        if rows != b[name]:
            differing += 1
            only_b = set(b[name])
            only_a = set(rows)
            print(f"DIFFERENT {name}: {len(rows)} vs {len(b[name])} rows; "
                  f"A only {[r for r in rows if r not in only_b][:3]}; "
                  f"B only {[r for r in b[name] if r not in only_a][:3]}")
    print({name: len(rows) for name, rows in a.items() if rows})
    print("IDENTICAL" if not differing else f"{differing} tables differ")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
