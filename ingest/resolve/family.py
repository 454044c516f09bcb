"""The resolution engine shared by the non-Python language families (JavaScript/TypeScript, Go,
Java, Rust): :class:`FamilyResolver` and the :class:`Target` / :class:`Binding` values it works
with. Python has its own resolver in :mod:`ingest.resolve.python`.

The engine resolves a dotted callee in a fixed order, most certain first: ``this``/``self``
members (through the INHERITS chain), names in enclosing definitions, import bindings, names of
the same file or package, star imports, builtins, and finally a name-only guess when exactly one
function or method in the repository has the name. Languages supply the parts that differ, as
subclass hooks: what an import points at, which files share a namespace, where a type's methods
may live, builtins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ingest.extract.rows import FileExtract, ImportRow, SymbolRow
from ingest.resolve.rows import EdgeRow, ResolveResult
from schema import (
    CALLS,
    EXTERNAL,
    FILE,
    IMPORTS,
    INHERITS,
    MODULE_QUALNAME,
    RESOLUTION_CONFIDENCE,
    SYMBOL,
    Resolution,
    SymbolKind,
    file_id,
    symbol_id,
)

__all__ = ["CALLABLE_KINDS", "TYPE_KINDS", "Binding", "FamilyResolver", "Found", "Target"]

TYPE_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.STRUCT,
                        SymbolKind.ENUM, SymbolKind.TRAIT})
CALLABLE_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})


@dataclass(frozen=True, slots=True)
class Target:
    """A node an edge can point at."""

    table: str  # SYMBOL.name | FILE.name | EXTERNAL.name
    id: str
    path: str = ""
    qualname: str = ""
    kind: str = ""


Found = tuple[Target, str]  # target and its schema.Resolution value


@dataclass(frozen=True, slots=True)
class Binding:
    """What a name bound by an import refers to: a repository symbol, the files of a module
    (members are their top-level names), or a name outside the repository."""

    symbol: Target | None = None
    files: tuple[str, ...] = ()
    external: str = ""


class FamilyResolver:
    """Resolution shared by the languages; subclasses override the hooks below ``# hooks``."""

    language = ""
    self_words: frozenset[str] = frozenset({"this"})
    super_word = "super"
    implicit_self = False  # Java: a bare ``m()`` inside a class calls its method

    def __init__(self, repo: str, files: dict[str, FileExtract]) -> None:
        self.repo = repo
        self.files = files
        self.result = ResolveResult()
        self.symbols: dict[str, dict[str, SymbolRow]] = {
            p: {s.qualname: s for s in fx.symbols} for p, fx in files.items()}
        self.bases: dict[str, dict[str, list[str]]] = {}  # path -> class -> base names
        self.by_name: dict[tuple[bool, str], list[tuple[str, str]]] = {}
        #: qualname -> files defining it / holding inherit rows for it (members of a Go or
        #: Rust type may sit in other files than the type)
        self.defined_in: dict[str, list[str]] = {}
        self.inherits_in: dict[str, list[str]] = {}
        for path in sorted(files):
            fx = files[path]
            for row in fx.inherits:
                self.bases.setdefault(path, {}).setdefault(row.cls, []).append(row.base)
                if self.inherits_in.get(row.cls, [""])[-1] != path:
                    self.inherits_in.setdefault(row.cls, []).append(path)
            for s in fx.symbols:
                self.defined_in.setdefault(s.qualname, []).append(path)
                if s.kind in CALLABLE_KINDS or s.kind in TYPE_KINDS:
                    key = (s.kind in TYPE_KINDS, s.name)
                    self.by_name.setdefault(key, []).append((path, s.qualname))
        self._bindings: dict[str, tuple[dict[str, Binding], list[Binding]]] = {}

    def packaged_symbol(self, packages: Mapping[str, Sequence[str]],
                        dotted: str) -> Target | None:
        """``a.b.C``: the top-level ``C`` of a file of package ``a.b``, or the nested ``C``
        of ``a.B`` (package ``a``, qualname ``B.C``); the longest package wins."""
        parts = dotted.split(".")
        for i in range(len(parts) - 1, -1, -1):
            package, qualname = ".".join(parts[:i]), ".".join(parts[i:])
            for p in packages.get(package, ()):
                if qualname in self.symbols[p]:
                    return self.symbol(p, qualname)
        return None

    # hooks ------------------------------------------------------------------------------------

    def import_targets(self, path: str, imp: ImportRow) -> list[Target]:
        """The nodes an import row points at (files, symbols or one External)."""
        raise NotImplementedError

    def import_bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        """Local names bound by the imports of ``path``, and its star imports."""
        raise NotImplementedError

    def shares_scope(self, path: str, other: str) -> bool:
        """Whether ``path`` sees the top-level names of ``other`` unqualified (same package)."""
        return other == path

    def shares_members(self, path: str, other: str) -> bool:
        """Whether ``other`` may define members of a type of ``path`` (Go: same package)."""
        return other == path

    def self_names(self, path: str, scope: str) -> frozenset[str]:
        return self.self_words

    def builtin(self, parts: list[str]) -> str | None:
        """External name of a language builtin called as ``parts``, else None."""
        return None

    def resolve_callee(self, path: str, scope: str, callee: str) -> Found | None:
        return self.lookup(path, scope, self.split(callee), types=False)

    def split(self, dotted: str) -> list[str]:
        return dotted.split(".")

    def join(self, parts: Iterable[str]) -> str:
        return ".".join(parts)

    # driver -----------------------------------------------------------------------------------

    def run(self, only: set[str] | None) -> ResolveResult:
        paths = sorted(self.files if only is None else only & self.files.keys())
        for path in paths:
            self._resolve_imports(path)
            self._resolve_inherits(path)
            self._resolve_calls(path)
        return self.result

    def _resolve_imports(self, path: str) -> None:
        src = file_id(self.repo, path)
        seen: set[tuple[str, int, str]] = set()
        for imp in self.files[path].imports:
            for target in self.import_targets(path, imp):
                if (target.id, imp.line, imp.name) in seen:
                    continue
                seen.add((target.id, imp.line, imp.name))
                how = Resolution.EXTERNAL if target.table == EXTERNAL.name else Resolution.IMPORT
                self._edge(IMPORTS.name, src, FILE.name, target, imp.line, how, imp.name)

    def _resolve_inherits(self, path: str) -> None:
        for row in self.files[path].inherits:
            cls = self._class_target(path, row.cls)
            if cls is None:
                continue
            found = self.resolve_type(path, row.base, scope=row.cls)
            if found is None:
                found = (self.external(self.join(self.split(row.base))), Resolution.EXTERNAL)
            self._edge(INHERITS.name, cls.id, SYMBOL.name, found[0], row.line, found[1],
                       row.kind)

    def _class_target(self, path: str, cls: str) -> Target | None:
        """The class an inherit row is about: in this file, or (Rust impl) found by name."""
        if cls in self.symbols[path]:
            return self.symbol(path, cls)
        found = self.resolve_type(path, cls, scope="")
        return found[0] if found is not None and found[0].table == SYMBOL.name else None

    def _resolve_calls(self, path: str) -> None:
        for call in self.files[path].calls:
            src = symbol_id(self.repo, path, call.scope or MODULE_QUALNAME)
            if not call.callee:
                self.result.unresolved.append((path, call.scope, "", call.line, "dynamic"))
                continue
            found = self.resolve_callee(path, call.scope, call.callee)
            if found is None:
                parts = self.split(call.callee)
                reason = "ambiguous" if len(self.by_name.get((False, parts[-1]), ())) > 1 \
                    else "not_found"
                self.result.unresolved.append((path, call.scope, call.callee, call.line, reason))
                continue
            self._edge(CALLS.name, src, SYMBOL.name, found[0], call.line, found[1])

    def _edge(self, rel: str, src: str, src_table: str, target: Target, line: int, how: str,
              name: str = "") -> None:
        self.result.edges.append(EdgeRow(
            rel, src, src_table, target.id, target.table, line, str(how),
            RESOLUTION_CONFIDENCE[Resolution(how)], name))

    # targets ----------------------------------------------------------------------------------

    def symbol(self, path: str, qualname: str) -> Target:
        sym = self.symbols[path][qualname]
        return Target(SYMBOL.name, symbol_id(self.repo, path, qualname), path, qualname, sym.kind)

    def file(self, path: str) -> Target:
        return Target(FILE.name, file_id(self.repo, path), path)

    def external(self, name: str, kind: str = "symbol") -> Target:
        return Target(EXTERNAL.name, self.result.external(self.language, name, kind))

    def bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        if path not in self._bindings:
            self._bindings[path] = self.import_bindings(path)
        return self._bindings[path]

    # lookup -----------------------------------------------------------------------------------

    def resolve_type(self, path: str, name: str, *, scope: str) -> Found | None:
        """A base-class / type name as written in ``path``."""
        return self.lookup(path, scope, self.split(name), types=True, members=False)

    def lookup(self, path: str, scope: str, parts: list[str], *, types: bool,
               members: bool = True) -> Found | None:
        """Resolve ``parts`` (a dotted reference written in ``scope`` of ``path``)."""
        head, rest = parts[0], parts[1:]
        if members and (head in self.self_names(path, scope) or head == self.super_word):
            return self._through_self(path, scope, head, rest)
        if members and self.implicit_self and not rest:
            found = self._implicit_member(path, scope, head)
            if found is not None:
                return found
        found = self._in_scope(path, scope, head, rest)
        if found is not None:
            return found
        name = self.builtin(parts)
        if name is not None:
            return self.external(name, "builtin"), Resolution.BUILTIN
        return self.name_only(parts[-1], types=types)

    def _in_scope(self, path: str, scope: str, head: str, rest: list[str]) -> Found | None:
        """Enclosing definitions, imports, the file/package, then star imports."""
        symbols = self.symbols[path]
        q = scope
        while q:  # nested definitions of the enclosing ones (methods need this/self)
            candidate = symbols.get(f"{q}.{head}")
            if candidate is not None and candidate.kind != SymbolKind.METHOD:
                return self.chain(self.symbol(path, candidate.qualname), rest, Resolution.LOCAL)
            q = q.rsplit(".", 1)[0] if "." in q else ""
        named, stars = self.bindings(path)
        binding = named.get(head)
        if binding is not None:
            found = self.through_binding(binding, rest)
            if found is not None:
                return found
        sites = self.defined_in.get(head, ())
        home = path if path in sites else next(
            (p for p in sites if self.shares_scope(path, p)), None)
        if home is not None:
            return self.chain(self.symbol(home, head), rest, Resolution.SAME_MODULE)
        for star in stars:
            found = self._through_star(star, head, rest)
            if found is not None:
                return found
        return None

    def through_binding(self, binding: Binding, rest: list[str]) -> Found | None:
        if binding.symbol is not None:
            return self.chain(binding.symbol, rest, Resolution.IMPORT)
        if binding.external:
            return self.external(self.join([binding.external, *rest])), Resolution.EXTERNAL
        if not rest:
            return None
        member = self.module_member(binding.files, rest[0])
        return self.chain(member, rest[1:], Resolution.IMPORT) if member is not None else None

    def _through_star(self, star: Binding, head: str, rest: list[str]) -> Found | None:
        if star.symbol is not None and star.symbol.kind in TYPE_KINDS:
            found = self.member(star.symbol.path, star.symbol.qualname, head)
            return self.chain(found[0], rest, Resolution.IMPORT) if found is not None else None
        member = self.module_member(star.files, head)
        return self.chain(member, rest, Resolution.IMPORT) if member is not None else None

    def module_member(self, files: Iterable[str], name: str) -> Target | None:
        """Top-level symbol ``name`` of a module made of ``files``."""
        for p in files:
            if name in self.symbols.get(p, {}):
                return self.symbol(p, name)
        return None

    def chain(self, target: Target, rest: list[str], how: str) -> Found | None:
        """``target`` followed by ``rest`` (at most one member: ``Type.method``)."""
        if not rest:
            return target, how
        if len(rest) > 1 or target.table != SYMBOL.name:
            return None
        if target.kind in TYPE_KINDS:
            found = self.member(target.path, target.qualname, rest[0])
            return (found[0], how) if found is not None else None
        child = f"{target.qualname}.{rest[0]}"
        return (self.symbol(target.path, child), how) if child in self.symbols[target.path] \
            else None

    def member(self, path: str, cls: str, name: str, *, own: bool = True,
               seen: set[tuple[str, str]] | None = None) -> Found | None:
        """Method ``name`` of type ``cls`` (declared in ``path``), else of its bases."""
        seen = set() if seen is None else seen
        if (path, cls) in seen:
            return None
        seen.add((path, cls))
        if own:
            qualname = f"{cls}.{name}"
            for p in self._member_sites(path, self.defined_in.get(qualname, ())):
                return self.symbol(p, self._callable_sibling(p, qualname)), Resolution.SELF
        for p in self._member_sites(path, self.inherits_in.get(cls, ())):
            for base_name in self.bases.get(p, {}).get(cls, ()):
                base = self.resolve_type(p, base_name, scope=cls)
                if base is None or base[0].table != SYMBOL.name:
                    continue
                found = self.member(base[0].path, base[0].qualname, name, seen=seen)
                if found is not None:
                    return found[0], Resolution.INHERITANCE
        return None

    def _callable_sibling(self, path: str, qualname: str) -> str:
        """``qualname`` or its first ``~N`` sibling that is callable: in Java a field and a
        method may share a name (``int price; int price()``), and a call means the method."""
        symbols = self.symbols[path]
        n, candidate = 1, qualname
        while candidate in symbols:
            if symbols[candidate].kind in CALLABLE_KINDS:
                return candidate
            n += 1
            candidate = f"{qualname}~{n}"
        return qualname

    def _member_sites(self, path: str, candidates: Iterable[str]) -> list[str]:
        """``candidates`` that may hold members of a type of ``path``, ``path`` first."""
        sites = [p for p in candidates if p != path and self.shares_members(path, p)]
        return [path, *sites] if path in candidates else sites

    def enclosing_class(self, path: str, scope: str) -> str | None:
        """Qualname of the class/impl type whose method (or body) ``scope`` is in."""
        symbols = self.symbols[path]
        q = scope
        while q:
            sym = symbols.get(q)
            if sym is not None and sym.kind in TYPE_KINDS:
                return q
            if sym is not None and sym.kind == SymbolKind.METHOD:
                return q.rsplit(".", 1)[0] if "." in q else None
            q = q.rsplit(".", 1)[0] if "." in q else ""
        return None

    def _through_self(self, path: str, scope: str, head: str, rest: list[str]) -> Found | None:
        cls = self.enclosing_class(path, scope)
        if cls is None or len(rest) > 1:
            return self.name_only(rest[-1], types=False) if rest else None
        if not rest:  # super(...): the base class
            bases = self.bases.get(path, {}).get(cls, ()) if head == self.super_word else ()
            for base_name in bases:
                base = self.resolve_type(path, base_name, scope=cls)
                if base is not None and base[0].table == SYMBOL.name:
                    return base[0], Resolution.INHERITANCE
            return None
        found = self.member(path, cls, rest[0], own=head != self.super_word)
        return found if found is not None else self.name_only(rest[0], types=False)

    def _implicit_member(self, path: str, scope: str, name: str) -> Found | None:
        cls = self.enclosing_class(path, scope)
        while cls:
            found = self.member(path, cls, name)
            if found is not None:
                return found
            outer = cls.rsplit(".", 1)[0] if "." in cls else ""
            cls = outer if outer in self.symbols[path] else None
        return None

    def name_only(self, name: str, *, types: bool) -> Found | None:
        """The single function/method (or type) of that name in the repository, if unique."""
        candidates = self.by_name.get((types, name), ())
        if len(candidates) != 1:
            return None
        return self.symbol(*candidates[0]), Resolution.NAME_ONLY
