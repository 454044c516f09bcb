"""Cross-repository Python resolution: names that leave one repository resolved into the
other repositories of the graph that provide them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ingest.extract.rows import FileExtract
from ingest.resolve.python_index import Index
from ingest.resolve.python_names import VALUE_KINDS, External, Module, Sym, Target
from schema import FILE, SYMBOL, file_id, symbol_id

__all__ = ["Providers"]


class Providers:
    """The modules other repositories of one graph provide, to resolve names that leave a
    repository into them: ``attrs.define`` in a consumer becomes the ``define`` symbol of the
    ingested ``attrs`` repository, found through its own re-exports (``attrs/__init__.py``
    imports it from ``attr._next_gen``, which another repository may provide in turn).

    ``modules`` maps a top-level module name to the one repository providing it (names that
    several repositories provide are left out: no guess); ``files_of(repo)`` gives that
    repository's files as extracts (a lazy mapping built from the graph serves). Pure: the
    graph is read by whoever builds the arguments.
    """

    def __init__(self, modules: Mapping[str, str],
                 files_of: Callable[[str], Mapping[str, FileExtract]]) -> None:
        self.modules = dict(modules)
        self._files_of = files_of
        self._indexes: dict[str, Index] = {}
        self._memo: dict[tuple[str, bool], tuple[str, str] | None] = {}

    def target(self, name: str, *, symbol_only: bool = False,
               _depth: int = 0) -> tuple[str, str] | None:
        """(node id, node table) that the dotted ``name`` stands for in the repository
        providing its top-level module, or None (it stays an External). ``symbol_only``: a
        Symbol or nothing (CALLS and INHERITS end at symbols)."""
        key = (name, symbol_only)
        if key not in self._memo:
            self._memo[key] = self._target(name, symbol_only, _depth)
        return self._memo[key]

    def _target(self, name: str, symbol_only: bool, depth: int) -> tuple[str, str] | None:
        repo = self.modules.get(name.split(".", 1)[0])
        if repo is None or depth > 5:
            return None
        index = self._indexes.get(repo)
        if index is None:
            index = self._indexes[repo] = Index(self._files_of(repo), root_package=repo)
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in index.path_of:
                break
        else:
            return None
        rest = parts[cut:]
        target: Target | None = Module(index.path_of[module])
        if rest:
            target = index.declared(module, rest[0])
            for attr in rest[1:]:
                target, _ = index.member(target, attr)
        if isinstance(target, External) and target.name != name and not target.builtin:
            return self.target(target.name, symbol_only=symbol_only, _depth=depth + 1)
        if isinstance(target, Sym) and not (symbol_only and target.kind in VALUE_KINDS):
            return symbol_id(repo, target.path, target.qualname), SYMBOL.name
        if isinstance(target, Module) and not symbol_only:
            return file_id(repo, target.path), FILE.name
        return None
