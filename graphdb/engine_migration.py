"""Move a database written by vgdb 0.1 (Kuzu 0.11.3, ``graph.kz``) to LadybugDB.

LadybugDB cannot open a Kuzu 0.11.3 file, but Kuzu's ``EXPORT DATABASE`` (Parquet) read back
by LadybugDB's ``IMPORT DATABASE`` carries every node and rel exactly (DESIGN.md §4). Kuzu runs
in a subprocess: the two engines are never loaded in one process.

Steps, each safe to kill (the next write open starts again from the first unfinished one):

1. export the old graph (read-only) to ``.migrate/export``, with its row count per table;
2. import it into ``.migrate/graph.lbug`` (without the old FTS indexes: keyword search now
   lives outside the engine and is rebuilt from the graph), and compare every count;
3. rename it to ``graph.lbug``: from here on the database is the new one;
4. move ``graph.kz*`` and ``fts.json`` into ``kuzu-0.11.3-backup/`` (kept, never deleted).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import ladybug

from graphdb.engine import max_db_bytes
from graphdb.faults import failpoint
from schema import CorruptDatabaseError, StoreError

__all__ = ["BACKUP_DIR", "finish_migration", "migrate_from_kuzu"]

BACKUP_DIR = "kuzu-0.11.3-backup"
_WORK = ".migrate"
_LEGACY = "graph.kz"

# Run by a fresh interpreter with kuzu 0.11.3; prints {table: rows} as JSON.
_EXPORT = """
import json, sys, kuzu
db = kuzu.Database(sys.argv[1], read_only=True)
conn = kuzu.Connection(db)
conn.execute("LOAD EXTENSION fts")  # the old graph has FTS indexes; the extension is bundled
conn.execute(f"EXPORT DATABASE '{sys.argv[2]}' (format='parquet')")
counts = {}
for name, kind in conn.execute("CALL show_tables() RETURN name, type").get_as_pl().iter_rows():
    pattern = f"(n:{name})" if kind == "NODE" else f"()-[n:{name}]->()"
    counts[name] = conn.execute(f"MATCH {pattern} RETURN count(*)").get_as_pl().item()
print(json.dumps(counts))
"""


def migrate_from_kuzu(directory: Path, graph: Path) -> dict[str, int]:
    """Migrate ``directory``'s Kuzu 0.11.3 graph to ``graph`` (a LadybugDB file); returns the
    rows per table. The caller holds the directory's write lock."""
    work = directory / _WORK
    shutil.rmtree(work, ignore_errors=True)  # an earlier attempt that was killed
    export = work / "export"
    work.mkdir()
    started = time.perf_counter()
    print(f"vgdb: migrating {directory} from Kuzu 0.11.3 to LadybugDB {ladybug.__version__} "
          "(once; the old files are kept in " + BACKUP_DIR + "/)", file=sys.stderr)
    done = subprocess.run([sys.executable, "-c", _EXPORT, str(directory / _LEGACY), str(export)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise CorruptDatabaseError(
            f"cannot migrate {directory} from Kuzu 0.11.3: its export failed ({reason})",
            suggestion="nothing was changed; the database needs vgdb 0.1 (kuzu==0.11.3) to "
                       "be read, or re-ingest into a new --db")
    counts: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    _drop_engine_indexes(export)
    staged = work / graph.name
    _import(staged, export, counts)
    failpoint("migrate:imported")
    os.replace(staged, graph)
    finish_migration(directory)
    shutil.rmtree(work, ignore_errors=True)
    print(f"vgdb: migrated {sum(counts.values())} nodes and rels in "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return counts


def _drop_engine_indexes(export: Path) -> None:
    """Keyword indexes left the engine (LadybugDB would need to download its fts extension)."""
    index = export / "index.cypher"
    if index.exists():
        kept = [line for line in index.read_text(encoding="utf-8").splitlines()
                if "FTS_INDEX" not in line.upper()]
        index.write_text("\n".join(kept) + ("\n" if kept else ""), encoding="utf-8")


def _import(staged: Path, export: Path, counts: dict[str, int]) -> None:
    db = ladybug.Database(str(staged), auto_checkpoint=False, max_db_size=max_db_bytes(staged))
    try:
        conn = ladybug.Connection(db)
        conn.execute(f"IMPORT DATABASE '{export}'")
        found: dict[str, int] = {}
        for name, kind in conn.execute("CALL show_tables() RETURN name, type").get_as_pl(
                ).iter_rows():
            pattern = f"(n:{name})" if kind == "NODE" else f"()-[n:{name}]->()"
            found[name] = conn.execute(f"MATCH {pattern} RETURN count(*)").get_as_pl().item()
        conn.execute("CHECKPOINT")
        conn.close()
    except RuntimeError as exc:
        db.close()
        raise StoreError(f"migration to LadybugDB failed while importing: {exc}",
                         suggestion="nothing was changed; report this with the database's "
                                    "manifest.json") from exc
    db.close()
    if found != counts:
        differ = sorted(t for t in counts.keys() | found.keys()
                        if counts.get(t) != found.get(t))
        raise StoreError(f"migration to LadybugDB changed row counts of {', '.join(differ)}",
                         suggestion="nothing was changed; report this")


def finish_migration(directory: Path) -> None:
    """Step 4: keep the old files in the backup folder (also after a kill between 3 and 4)."""
    backup = directory / BACKUP_DIR
    backup.mkdir(exist_ok=True)
    for old in [*directory.glob(f"{_LEGACY}*"), directory / "fts.json"]:
        if old.exists():
            os.replace(old, backup / old.name)
    manifest = directory / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        data.pop("kuzu_version", None)
        data.update(engine="ladybug", engine_version=ladybug.__version__)
        tmp = directory / ".manifest.json.tmp"
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, manifest)
