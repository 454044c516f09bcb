"""The files of ``<db>/vectors/`` (layout: :mod:`graphdb.vectors`): one table's stored rows,
vectors and hnswlib index in memory, the manifest, and the atomic write of a new
generation. Cached per open Store (:func:`vector_dir`); a damaged index is rebuilt from the
stored vectors, never trusted unchecked."""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import hnswlib
import numpy as np
import polars as pl

from graphdb.faults import failpoint
from graphdb.store import Store

__all__ = ["EXACT_MAX_ROWS", "FORMAT", "HNSW", "MANIFEST", "VECTOR_DIR", "HnswParams", "VectorDir",
           "VectorTable", "build_index", "vector_dir", "wants_index"]

VECTOR_DIR = "vectors"
MANIFEST = "manifest.json"
FORMAT = 1
#: A table with at most this many live rows keeps no HNSW index: its searches are exact
#: (numpy over the stored vectors: 6 ms at 26.5K and 17 ms at 50K rows of 256 floats at
#: load 5 here, recall 1.0), and building the index costs far more than it saves (M=16,
#: ef_construction=200, one thread: ~4-5 s for the standard library's 26.5K symbols, 3-4x
#: its whole tree-sitter parse).
EXACT_MAX_ROWS = 50_000


def wants_index(rows: pl.DataFrame) -> bool:
    """Whether a table of these rows (id, hash, live) keeps an HNSW index."""
    return rows.height > 0 and int(rows["live"].sum()) > EXACT_MAX_ROWS


@dataclass(frozen=True, slots=True)
class HnswParams:
    """hnswlib settings: ``m`` links per node, ``ef_construction`` build beam, ``ef_search``
    query beam (raised to k when k is larger). A single build thread and a fixed ``seed``
    make builds deterministic."""

    m: int = 16
    ef_construction: int = 200
    ef_search: int = 100
    seed: int = 0
    threads: int = 1


#: The default HNSW settings (benchmarks/RESULTS.md, "Search", measures their recall).
HNSW = HnswParams()


# ------------------------------------------------------------------------------------ on disk
@dataclass
class VectorTable:
    """One table's vectors in memory: rows (label = position), vectors, and its index."""

    name: str
    generation: int
    rows: pl.DataFrame  # id, hash, live
    vectors: np.ndarray  # (len(rows), dim) float32
    index: hnswlib.Index | None = None  # None: searched exactly (see wants_index)
    index_state: str = "ok"


class VectorDir:
    """The ``vectors/`` directory of one open database; loaded lazily, cached per Store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # hybrid search reads tables from two threads; a table is loaded (and a damaged index
        # rebuilt and saved, manifest included) by one thread at a time
        self.lock = threading.RLock()
        self.manifest: dict[str, Any] = {}
        self.stamp: tuple[int, int] | None = None
        self.tables: dict[str, VectorTable] = {}
        self.reload()

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = (self.root / MANIFEST).stat()
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def fresh(self) -> bool:
        return self._stamp() == self.stamp

    def reload(self) -> None:
        self.stamp = self._stamp()
        self.tables = {}
        self.manifest = {}
        if self.stamp is None:
            return
        try:
            data = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}  # unreadable: as if nothing was embedded; embed_graph rebuilds it all
        if data.get("format") == FORMAT:
            self.manifest = data

    @property
    def model_id(self) -> str | None:
        return self.manifest.get("model_id")

    @property
    def dim(self) -> int | None:
        return self.manifest.get("dim")

    def hnsw(self) -> HnswParams:
        return HnswParams(**self.manifest.get("hnsw", asdict(HNSW)))

    def stored_rows(self, name: str) -> pl.DataFrame | None:
        """The rows (id, hash, live) of table ``name`` without its vectors and index; None
        when the table has no readable generation."""
        if name in self.tables:
            return self.tables[name].rows
        record = self.manifest.get("tables", {}).get(name)
        if record is None:
            return None
        try:
            rows = pl.read_parquet(self.root / f"{name}.{int(record['generation'])}.rows.parquet")
        except (OSError, ValueError, pl.exceptions.PolarsError):
            return None
        return rows if rows.height == record["rows"] else None

    def table(self, name: str, *, writable: bool) -> VectorTable:
        """The stored vectors of table ``name`` with a checked (or rebuilt) index."""
        if name in self.tables:
            return self.tables[name]
        with self.lock:
            if name in self.tables:
                return self.tables[name]
            return self._load(name, writable=writable)

    def _load(self, name: str, *, writable: bool) -> VectorTable:
        record = self.manifest.get("tables", {}).get(name)
        dim = int(self.dim or 0)
        empty = VectorTable(name, 0, pl.DataFrame(schema={"id": pl.Utf8, "hash": pl.Utf8,
                                                     "live": pl.Boolean}),
                       np.zeros((0, dim), dtype=np.float32))
        if record is None:
            self.tables[name] = empty
            return empty
        gen = int(record["generation"])
        try:
            rows = pl.read_parquet(self.root / f"{name}.{gen}.rows.parquet")
            vectors = np.load(self.root / f"{name}.{gen}.npy", mmap_mode="r")
            if vectors.shape != (rows.height, dim) or rows.height != record["rows"]:
                raise ValueError("row count differs from the manifest")
        except (OSError, ValueError, pl.exceptions.PolarsError):
            # the stored vectors themselves are gone: start over (re-embedding is cheap)
            empty.index_state = "vectors lost"
            self.tables[name] = empty
            return empty
        table = VectorTable(name, gen, rows, vectors)
        if not wants_index(rows):  # searched exactly; an index file left by an older
            self.tables[name] = table  # version is neither read nor trusted
            return table
        table.index, table.index_state = self._open_index(table, record.get("index"))
        if table.index_state != "ok":
            table.index = build_index(table, self.hnsw())
            if writable:
                record["index"] = self._save_index(table)
                self._write_manifest()
        self.tables[name] = table
        return table

    def _open_index(self, table: VectorTable,
                    record: dict[str, Any] | None) -> tuple[hnswlib.Index | None, str]:
        path = self.root / f"{table.name}.{table.generation}.hnsw"
        if not path.exists():
            return None, "missing"
        if record is None or path.stat().st_size != record["bytes"] \
                or record["elements"] != table.rows.height:
            return None, "stale"
        if _digest(path) != record["blake2b"]:
            return None, "corrupt"  # never hand hnswlib a file we did not write
        index = hnswlib.Index(space="cosine", dim=table.vectors.shape[1])
        try:
            index.load_index(str(path), max_elements=table.rows.height)
        except (RuntimeError, ValueError, MemoryError):
            return None, "corrupt"
        if index.element_count != table.rows.height:
            return None, "stale"
        index.set_ef(self.hnsw().ef_search)
        return index, "ok"

    def _save_index(self, table: VectorTable) -> dict[str, Any]:
        assert table.index is not None
        path = self.root / f"{table.name}.{table.generation}.hnsw"
        tmp = path.with_name(f".{path.name}.tmp")
        table.index.save_index(str(tmp))
        tmp.replace(path)
        return {"bytes": path.stat().st_size, "blake2b": _digest(path),
                "elements": table.index.element_count}

    def _write_manifest(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".{MANIFEST}.tmp"
        tmp.write_text(json.dumps(self.manifest, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.root / MANIFEST)
        self.stamp = self._stamp()

    def commit(self, table: VectorTable, old_generation: int) -> None:
        """Write ``table`` as a new generation, then the manifest, then drop the old files."""
        self.root.mkdir(parents=True, exist_ok=True)
        name, gen = table.name, table.generation
        _atomic(self.root / f"{name}.{gen}.npy",
                lambda p: np.save(p, np.ascontiguousarray(table.vectors, dtype=np.float32)))
        _atomic(self.root / f"{name}.{gen}.rows.parquet", table.rows.write_parquet)
        record = {"generation": gen, "rows": table.rows.height,
                  "live": int(table.rows["live"].sum()) if table.rows.height else 0,
                  "index": None if table.index is None else self._save_index(table)}
        failpoint("vectors:files-written")
        self.manifest.setdefault("tables", {})[name] = record
        self._write_manifest()
        failpoint("vectors:manifest-written")
        self.tables[name] = table
        for old in self.root.glob(f"{name}.*"):
            if old.name.split(".")[1] != str(gen):
                old.unlink(missing_ok=True)


def _atomic(path: Path, write: Callable[[Any], Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        write(handle)
    tmp.replace(path)


def _digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, lambda: hashlib.blake2b(digest_size=16)).hexdigest()


def build_index(table: VectorTable, params: HnswParams) -> hnswlib.Index:
    """A new index holding every row (so labels = rows), dead rows marked deleted."""
    n, dim = table.vectors.shape
    index = hnswlib.Index(space="cosine", dim=dim)
    index.init_index(max_elements=max(n, 1), M=params.m, ef_construction=params.ef_construction,
                     random_seed=params.seed, allow_replace_deleted=False)
    live = table.rows["live"].to_numpy() if n else np.zeros(0, dtype=bool)
    labels = np.flatnonzero(live)
    if labels.size:
        index.add_items(np.asarray(table.vectors[labels]), labels, num_threads=params.threads)
    dead = np.flatnonzero(~live)
    if dead.size:  # dead rows get a label too, deleted at once: element_count == rows
        index.add_items(np.asarray(table.vectors[dead]), dead, num_threads=params.threads)
        for label in dead:
            index.mark_deleted(int(label))
    index.set_ef(params.ef_search)
    return index


_DIRS: weakref.WeakKeyDictionary[Store, VectorDir] = weakref.WeakKeyDictionary()


_DIRS_LOCK = threading.Lock()


def vector_dir(store: Store) -> VectorDir:
    found = _DIRS.get(store)
    if found is not None and found.fresh():
        return found
    with _DIRS_LOCK:
        found = _DIRS.get(store)
        if found is None or not found.fresh():
            found = VectorDir(store.path / VECTOR_DIR)
            _DIRS[store] = found
        return found
