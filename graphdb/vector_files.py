"""The files of ``<db>/vectors/`` (layout: :mod:`graphdb.vectors`): one table's stored rows,
vectors and hnswlib index in memory, the manifest, and the atomic write of a new
generation. Cached per open Store (:func:`vector_dir`); a damaged index is rebuilt from the
stored vectors, never trusted unchecked."""

from __future__ import annotations

import hashlib
import io
import json
import os
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
           "VectorTable", "append_vectors", "build_index", "read_vectors", "vector_dir",
           "wants_index"]

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
            if rows.height != record["rows"]:
                raise ValueError("row count differs from the manifest")
            vectors = read_vectors(self.root / f"{name}.{gen}.npy", rows.height, dim)
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

    def commit(self, table: VectorTable, old_generation: int, *,
               appended: np.ndarray | None = None) -> None:
        """Write ``table`` as a new generation, then the manifest, then drop the old files.

        ``appended``: the update only added these vectors after the old generation's rows
        (``table.vectors`` is then the old generation's): they are appended to its file
        instead of the whole file being written again (:func:`append_vectors`), and
        ``table.vectors`` becomes the new file's rows."""
        self.root.mkdir(parents=True, exist_ok=True)
        name, gen = table.name, table.generation
        path = self.root / f"{name}.{gen}.npy"
        if appended is not None:
            old = self.root / f"{name}.{old_generation}.npy"
            if append_vectors(old, path, table.vectors.shape[0], appended):
                table.vectors = read_vectors(path, table.rows.height, appended.shape[1])
            else:  # no usable old file: the whole table is written
                table.vectors = np.concatenate([np.asarray(table.vectors, dtype=np.float32),
                                                appended])
                appended = None
        if appended is None:
            _atomic(path, lambda p: np.save(p, np.ascontiguousarray(table.vectors,
                                                                    dtype=np.float32)))
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


def read_vectors(path: Path, rows: int, dim: int) -> np.ndarray:
    """The first ``rows`` vectors of a ``.npy`` file, mapped: the manifest's row count is
    the truth, a longer file (vectors appended by an update killed before its manifest was
    written) is read up to it. ValueError when the file holds fewer, or another layout."""
    with open(path, "rb") as handle:
        start, shape = _npy_header(handle)
    if len(shape) != 2 or shape[1] != dim or shape[0] < rows:
        raise ValueError(f"{path.name}: shape {shape}, expected ({rows}, {dim})")
    if path.stat().st_size < start + rows * dim * 4:
        raise ValueError(f"{path.name}: shorter than its {rows} rows")
    if rows == 0:
        return np.zeros((0, dim), dtype=np.float32)
    return np.memmap(path, dtype=np.float32, mode="r", offset=start, shape=(rows, dim))


def append_vectors(old: Path, new: Path, rows: int, vectors: np.ndarray) -> bool:
    """Make ``new`` the file of ``old``'s first ``rows`` vectors followed by ``vectors``,
    writing only those: appended to ``old`` (cut first to its ``rows``: a tail an update
    killed earlier left), its header updated in place, then ``new`` linked to the same file
    (``old`` stays readable as before under its own manifest: its reader stops at its
    ``rows``). False, with nothing changed, when ``old`` is missing, shorter or of another
    layout, or the header would not fit in place: the caller then writes ``new`` whole.

    On the standard library's 26.5K symbols (27 MB) an update adding a few vectors wrote
    the whole file again, read it into memory and copied it: ~0.1 s of a one-file update."""
    data = np.ascontiguousarray(vectors, dtype=np.float32)
    try:
        with open(old, "r+b") as handle:
            start, shape = _npy_header(handle)
            dim = data.shape[1]
            end = start + rows * dim * 4
            if len(shape) != 2 or shape[1] != dim or shape[0] < rows or \
                    handle.seek(0, 2) < end:
                return False
            header = _header_bytes((rows + data.shape[0], dim), start)
            if header is None:
                return False
            handle.truncate(end)
            handle.seek(end)
            handle.write(data.tobytes())
            handle.seek(0)
            handle.write(header)
    except (OSError, ValueError):
        return False
    try:
        new.unlink(missing_ok=True)  # a link an update killed before its manifest left
        os.link(old, new)
    except OSError:  # a file system without hard links: ``old`` reads as before (its rows)
        return False
    return True


def _npy_header(handle: Any) -> tuple[int, tuple[int, ...]]:
    """(offset of the data, shape) of an open ``.npy`` file of float32 rows (C order)."""
    version = np.lib.format.read_magic(handle)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if fortran or dtype != np.dtype(np.float32):
        raise ValueError(f"not C-ordered float32 rows: {dtype}, fortran={fortran}")
    return handle.tell(), shape


def _header_bytes(shape: tuple[int, int], size: int) -> bytes | None:
    """A ``.npy`` header for float32 rows of ``shape`` exactly ``size`` bytes long (the
    data's offset in the file stays), or None when none is."""
    for write in (np.lib.format.write_array_header_1_0, np.lib.format.write_array_header_2_0):
        buffer = io.BytesIO()
        try:
            write(buffer, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)),
                           "fortran_order": False, "shape": shape})
        except ValueError:
            continue
        if buffer.tell() == size:
            return buffer.getvalue()
    return None


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
