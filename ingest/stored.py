"""The unchanged files of a repository, as extracts built from the graph on first use.

An incremental ingest hands the resolver every file of the repository, but resolving a few
changed files touches only the modules their references reach: building all 1,789 extracts
of the standard library from stored rows took longer than the rest of a one-file update.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import polars as pl

from ingest.extract.rows import FileExtract
from ingest.frames import SYMBOL_COLUMNS, build_extract

__all__ = ["CallablesByName", "Extracts"]

_CALLABLE = ("function", "method", "class")
_VALUES = ("variable", "constant")
#: extracts built with a filter of the symbol frame each before it is partitioned by file
_FILTER_UP_TO = 8
#: names looked up with a filter of the callables each before they are all listed at once
#: (a filter of the standard library's ~20K callables: ~0.3 ms; listing them all: ~0.1 s)
_NAMES_UP_TO = 200


class Extracts(Mapping[str, FileExtract]):
    """Path -> extract: ``parsed`` files as given, the others built from stored rows lazily.

    ``stored`` has id, path, language, package of the unchanged files; ``symbols`` their
    Symbol rows (file + :data:`ingest.frames.SYMBOL_COLUMNS`); ``decls`` and ``calls`` map file
    ids to packed CodeRef JSON (calls only for the files whose references are re-resolved).
    """

    def __init__(self, parsed: dict[str, FileExtract], stored: pl.DataFrame,
                 symbols: pl.DataFrame, decls: dict[str, str], calls: dict[str, str]) -> None:
        self._parsed = parsed
        self._meta = {path: (fid, language, package) for fid, path, language, package in
                      stored.select("id", "path", "language", "package").iter_rows()
                      if path not in parsed}
        self._symbols = symbols
        self._by_file: dict[str, pl.DataFrame] | None = None
        self._asked = 0
        self._decls = decls
        self._calls = calls
        self._built: dict[str, FileExtract] = {}

    def __getitem__(self, path: str) -> FileExtract:
        if path in self._parsed:
            return self._parsed[path]
        if path not in self._built:
            fid, language, package = self._meta[path]  # KeyError for unknown paths
            rows = self._symbol_rows(fid)
            self._built[path] = build_extract(language, package, rows, self._decls.get(fid),
                                              self._calls.get(fid))
        return self._built[path]

    def __iter__(self) -> Iterator[str]:
        yield from self._parsed
        yield from (p for p in self._meta if p not in self._parsed)

    def __len__(self) -> int:
        return len(self._parsed) + len(self._meta)

    def __contains__(self, path: object) -> bool:
        return path in self._parsed or path in self._meta

    def language_of(self, path: str) -> str:
        """The file's language without building its extract."""
        if path in self._parsed:
            return self._parsed[path].language
        return self._meta[path][1]

    def callables_by_name(self) -> Mapping[str, list[tuple[str, str, str]]]:
        """Short name -> (path, qualname, kind) of every function, method and class, for
        name-only guesses, without building any extract: looked up name by name (a
        one-file update asks for a few dozen names; listing all 26K symbols of the standard
        library in Python cost ~0.1 s of it)."""
        return CallablesByName(self._parsed, self._symbols, self._meta)

    def class_attributes(self) -> dict[str, list[tuple[str, str]]]:
        """Name -> (path, class qualname) of every variable bound in a class body (a
        variable symbol with a parent: at module level it has none, in a function it is no
        symbol), without building any extract."""
        out: dict[str, list[tuple[str, str]]] = {}
        for path, fx in self._parsed.items():
            for s in fx.symbols:
                if s.kind in _VALUES and s.parent:
                    out.setdefault(s.name, []).append((path, s.parent))
        paths = {fid: path for path, (fid, _, _) in self._meta.items()}
        frame = self._symbols.filter(pl.col("kind").is_in(_VALUES)
                                     & pl.col("qualname").str.contains(".", literal=True))
        for fid, name, qualname in frame.select("file", "name", "qualname").iter_rows():
            path = paths.get(fid)
            if path is not None:
                out.setdefault(name, []).append((path, qualname.rsplit(".", 1)[0]))
        return out

    def _symbol_rows(self, fid: str) -> list[tuple]:
        # a one-file update builds a few extracts: a filter each; past a few, one partition
        # of the whole frame (26K rows on the standard library) serves every later one
        self._asked += 1
        if self._by_file is None and self._asked <= _FILTER_UP_TO:
            frame = self._symbols.filter(pl.col("file") == fid)
        else:
            if self._by_file is None:
                self._by_file = {key[0]: part for key, part in
                                 self._symbols.partition_by("file", as_dict=True).items()}
            frame = self._by_file.get(fid)
        return [] if frame is None else list(frame.select(*SYMBOL_COLUMNS).iter_rows())


class CallablesByName(Mapping[str, list[tuple[str, str, str]]]):
    """Short name -> (path, qualname, kind) of the functions, methods and classes (dunder
    names left out) of the parsed extracts, then of the stored symbol rows of the other
    files, in that order; each name is looked up when first asked (a filter of the stored
    rows), all at once past :data:`_NAMES_UP_TO` names or when iterated."""

    def __init__(self, parsed: Mapping[str, FileExtract], symbols: pl.DataFrame,
                 meta: Mapping[str, tuple[str, str, str]]) -> None:
        self._parsed = parsed
        self._paths = {fid: path for path, (fid, _, _) in meta.items()}
        self._frame = symbols.filter(pl.col("kind").is_in(_CALLABLE)
                                     & ~pl.col("name").str.starts_with("__")
                                     & pl.col("file").is_in(
                                         pl.Series(list(self._paths), dtype=pl.Utf8).implode())
                                     ).select("file", "name", "qualname", "kind")
        self._found: dict[str, list[tuple[str, str, str]]] = {}
        self._all = False

    def __getitem__(self, name: str) -> list[tuple[str, str, str]]:
        if name not in self._found and not self._all:
            if len(self._found) >= _NAMES_UP_TO:
                self._list_all()
            else:
                self._found[name] = self._named(name)
        if name not in self._found or not self._found[name]:
            raise KeyError(name)
        return self._found[name]

    def __iter__(self) -> Iterator[str]:
        self._list_all()
        return iter([name for name, rows in self._found.items() if rows])

    def __len__(self) -> int:
        self._list_all()
        return sum(1 for rows in self._found.values() if rows)

    def _named(self, name: str) -> list[tuple[str, str, str]]:
        if name.startswith("__"):
            return []
        out = [(path, s.qualname, s.kind) for path, fx in self._parsed.items()
               for s in fx.symbols if s.name == name and s.kind in _CALLABLE]
        rows = self._frame.filter(pl.col("name") == name)
        out += [(self._paths[fid], qualname, kind)
                for fid, _, qualname, kind in rows.iter_rows()]
        return out

    def _list_all(self) -> None:
        if self._all:
            return
        out: dict[str, list[tuple[str, str, str]]] = {}
        for path, fx in self._parsed.items():
            for s in fx.symbols:
                if s.kind in _CALLABLE and not s.name.startswith("__"):
                    out.setdefault(s.name, []).append((path, s.qualname, s.kind))
        for fid, name, qualname, kind in self._frame.iter_rows():
            out.setdefault(name, []).append((self._paths[fid], qualname, kind))
        self._found, self._all = out, True
