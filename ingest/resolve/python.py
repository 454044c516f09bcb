"""Python name resolution: imports, calls and base classes to symbols, files or Externals.

Handles relative imports, ``from x import y as z``, package ``__init__`` re-exports (followed
through any number of hops and ``*`` imports), module attributes (``os.path.join``),
``self``/``cls`` methods through the class's bases, ``super()``, instances bound by
``x = C()`` / ``x: C`` / ``self.x = C()``, and falls back to a name-only guess only when a
short name is unique in the repository. Every edge carries the method that found it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ingest.extract.python import IMPLICIT_DUNDERS, VALUE_PREFIX, is_test_path
from ingest.extract.rows import CallRow, FileExtract, ImportRow
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
    file_id,
    symbol_id,
)

__all__ = ["Providers", "module_name", "module_names", "resolve"]

_BUILTINS = frozenset(dir(builtins))
#: Method names of builtin types: ``x.strip()`` on an unknown ``x`` is far more often a str
#: method than the one repository method of that name, so no name-only guess for these.
_BUILTIN_METHODS = frozenset(
    name for t in (str, bytes, bytearray, list, tuple, dict, set, frozenset, int, float,
                   complex, object, type, memoryview, range, slice)
    for name in dir(t)
)
_CALLABLE_KINDS = frozenset({"function", "method", "class"})
_VALUE_KINDS = frozenset({"variable", "constant"})
_MAX_DEPTH = 25


# ---------------------------------------------------------------------------------- targets
@dataclass(frozen=True, slots=True)
class _Module:
    path: str


@dataclass(frozen=True, slots=True)
class _Sym:
    path: str
    qualname: str
    kind: str


@dataclass(frozen=True, slots=True)
class _Instance:
    path: str
    cls: str


@dataclass(frozen=True, slots=True)
class _External:
    name: str
    builtin: bool = False


_Target = _Module | _Sym | _Instance | _External


@dataclass(frozen=True, slots=True)
class _Binding:
    """How a name got into a namespace."""

    kind: str  # def | import | from | assign | fixture (a parameter naming a fixture)
    value: str  # qualname, module name, or dotted expression
    member: str = ""  # for 'from'
    scope: str = ""  # for 'assign': where the value is evaluated
    instance: bool = False  # for 'assign'
    alias: bool = False  # for 'import': bound to the full module (import a.b as c)
    item: bool = False  # for 'assign': an item of what the value returns (a for loop)


_NO_BINDING = _Binding("none", "")


def module_names(paths: Iterable[str], *, root_package: str = "") -> dict[str, str]:
    """Dotted module name of every Python file among ``paths`` (see :func:`module_name`).

    A tree whose root is itself a package (an installed package's directory) imports itself
    by that package's name, ``root_package``: ``email/`` holds ``from email import errors``.
    """
    python = [p for p in paths if p.endswith((".py", ".pyi"))]
    package_dirs = {str(PurePosixPath(p).parent) for p in python
                    if PurePosixPath(p).name == "__init__.py"}
    prefix = root_package if "." in package_dirs and root_package.isidentifier() else ""
    out: dict[str, str] = {}
    for path in python:
        name = module_name(path, package_dirs)
        out[path] = (f"{prefix}.{name}" if name else prefix) if prefix else name
    return out


def module_name(path: str, package_dirs: set[str]) -> str:
    """Dotted module name of ``path``: the path below the highest ancestor that is not a
    package (a directory without ``__init__.py``), so ``src/pkg/mod.py`` is ``pkg.mod``."""
    p = PurePosixPath(path)
    parts = [p.stem] if p.stem != "__init__" else []
    parent = p.parent
    while str(parent) != "." and str(parent) in package_dirs:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts)


class _Index:
    """Namespaces of every module of one repository, built from rows alone."""

    def __init__(self, files: Mapping[str, FileExtract], *, root_package: str = "") -> None:
        self.files = files
        self.module_of = module_names(files, root_package=root_package)
        self.path_of: dict[str, str] = {}
        for path in sorted(self.module_of, key=lambda p: (p.endswith(".pyi"), p.count("/"), p)):
            self.path_of.setdefault(self.module_of[path], path)  # .py before .pyi; shallower
        self.is_package = {p: PurePosixPath(p).name == "__init__.py" for p in files}
        self.kinds: dict[tuple[str, str], str] = {}
        self.ns: dict[tuple[str, str], dict[str, _Binding]] = {}
        self.stars: dict[tuple[str, str], list[tuple[str, int]]] = {}
        self.bases: dict[tuple[str, str], list[str]] = {}
        self.parents: dict[tuple[str, str], str] = {}
        self.self_attrs: dict[tuple[str, str], dict[str, _Binding]] = {}
        #: (path, scope) -> pytest fixture name -> the qualname of its function
        self.fixtures: dict[tuple[str, str], dict[str, str]] = {}
        #: (path, fixture function) -> ``C`` of its ``return C(...)``
        self.returns: dict[tuple[str, str], str] = {}
        #: (path, function) -> ``C`` of its ``-> list[C]`` (``Iterator[C]``, ...)
        self.returns_item: dict[tuple[str, str], str] = {}
        #: (path, parent, name) -> every definition of that name in that scope, in order
        self.same_scope: dict[tuple[str, str, str], list[str]] = {}
        #: (path, scope, name) -> a ``from`` import the def of that name in that scope
        #: shadows (``if WIN: from ._win import f`` beside ``else: def f``)
        self.shadowed: dict[tuple[str, str, str], _Binding] = {}
        self._by_name: dict[str, list[_Sym]] | None = None
        # files are indexed on first use: resolving a few files of a large repository reaches
        # a small part of it (and a lazy mapping of files then builds only that part)
        self._indexed: set[str] = set()
        self._memo: dict[tuple, Any] = {}
        self._active: set[tuple] = set()
        self._cuts = 0
        #: other repositories of the graph (cross-repository resolution), if any
        self.providers: Providers | None = None

    def ensure(self, path: str) -> None:
        """Index ``path``'s namespaces if not yet done (unknown paths index as empty)."""
        if path in self._indexed:
            return
        self._indexed.add(path)
        if path in self.files:
            self._index_file(path, self.files[path])

    @property
    def by_name(self) -> dict[str, list[_Sym]]:
        """Short name -> every repository function, method and class of that name."""
        if self._by_name is None:
            self._by_name = {}
            listing = getattr(self.files, "callables_by_name", None)
            if listing is not None:
                for name, rows in listing().items():
                    self._by_name[name] = [_Sym(*row) for row in rows]
            else:
                for path, fx in self.files.items():
                    for s in fx.symbols:
                        if s.kind in _CALLABLE_KINDS and not s.name.startswith("__"):
                            self._by_name.setdefault(s.name, []).append(
                                _Sym(path, s.qualname, s.kind))
        return self._by_name

    def _index_file(self, path: str, fx: FileExtract) -> None:
        ns = self.ns.setdefault((path, ""), {})
        for sym in fx.symbols:
            key = (path, sym.qualname)
            self.kinds[key] = sym.kind
            self.parents[key] = sym.parent
            self.ns.setdefault((path, sym.parent), {}).setdefault(
                sym.name, _Binding("def", sym.qualname))
            self.same_scope.setdefault((path, sym.parent, sym.name), []).append(sym.qualname)
        for imp in fx.imports:
            self._index_import(path, imp)
        for inh in fx.inherits:
            self.bases.setdefault((path, inh.cls), []).append(inh.base)
        for asg in fx.assigns:
            if asg.kind == "fixture":
                self.fixtures.setdefault((path, asg.scope), {}).setdefault(asg.target,
                                                                           asg.value)
                continue
            if asg.kind == "returns":
                self.returns.setdefault((path, asg.scope), asg.value)
                continue
            if asg.kind == "returns-item":
                self.returns_item.setdefault((path, asg.scope), asg.value)
                continue
            if asg.kind == "fixture-use":
                if self.kinds.get((path, asg.scope)) in ("function", "method"):
                    # a parameter naming a fixture holds what the fixture returns
                    self.ns.setdefault((path, asg.scope), {}).setdefault(
                        asg.target, _Binding("fixture", asg.target, scope=asg.scope))
                continue
            if asg.kind not in ("instance", "alias", "item"):
                continue
            binding = _Binding("assign", asg.value, scope=asg.scope,
                               instance=asg.kind != "alias", item=asg.kind == "item")
            if asg.target.startswith("self."):
                cls = self.enclosing_class(path, asg.scope)
                if cls:
                    self.self_attrs.setdefault((path, cls), {}).setdefault(
                        asg.target[5:], binding)
            elif "." not in asg.target and asg.value.split(".", 1)[0] != asg.target:
                # ``isfuture = base_futures.isfuture``: the variable symbol is only a name;
                # the assignment says what it stands for (``X = X`` says nothing)
                scope_ns = self.ns.setdefault((path, asg.scope), {})
                current = scope_ns.get(asg.target)
                if current is None or current.kind in ("assign", "fixture") or (
                        current.kind == "def"
                        and self.kinds.get((path, current.value)) in _VALUE_KINDS):
                    scope_ns[asg.target] = binding
        del ns

    def _index_import(self, path: str, imp: ImportRow) -> None:
        scope_ns = self.ns.setdefault((path, imp.scope), {})
        module = self.absolute(path, imp.module, imp.level)
        if not imp.name:  # import a.b [as c]: the first binding in source order wins, as
            # for defs (``if posix: import posixpath as path / else: import ntpath as path``)
            if imp.alias:
                scope_ns.setdefault(imp.alias, _Binding("import", module, alias=True))
            else:
                top = module.split(".", 1)[0]
                scope_ns.setdefault(top, _Binding("import", top))
        elif imp.name == "*":
            self.stars.setdefault((path, imp.scope), []).append((module, 0))
        else:
            name = imp.alias or imp.name
            if scope_ns.get(name, _NO_BINDING).kind != "def" or \
                    self.kinds.get((path, scope_ns[name].value)) in _VALUE_KINDS:
                # ``try: from _c import f / except ImportError: def f``: keep the in-tree
                # def, the one whose impact matters
                scope_ns[name] = _Binding("from", module, member=imp.name)
            else:
                self.shadowed.setdefault((path, imp.scope, name),
                                         _Binding("from", module, member=imp.name))

    # -- modules --------------------------------------------------------------------------
    def absolute(self, path: str, module: str, level: int) -> str:
        """Absolute module name of a (possibly relative) import in ``path``."""
        if level == 0:
            return module
        own = self.module_of.get(path, "")
        parts = own.split(".") if own else []
        if not self.is_package.get(path, False):
            parts = parts[:-1]
        if level > 1:
            parts = parts[: max(0, len(parts) - (level - 1))]
        base = ".".join(parts)
        if module:
            return f"{base}.{module}" if base else module
        return base

    def module_target(self, name: str) -> _Target:
        path = self.path_of.get(name)
        return _Module(path) if path is not None else _External(name)

    def enclosing_class(self, path: str, scope: str) -> str:
        """The class whose method (or body) ``scope`` is, if any."""
        self.ensure(path)
        while scope:
            if self.kinds.get((path, scope)) == "class":
                return scope
            scope = self.parents.get((path, scope), "")
        return ""

    # -- lookups ----------------------------------------------------------------------------
    def _guarded(self, key: tuple, compute: Callable[[], Any], cut: Any) -> Any:
        """Memoized ``compute()`` with a guard against import cycles and runaway chains.

        A result computed below a cycle cut depends on where the lookup started, so it is not
        memoized: every top-level lookup then gives the same answer whatever ran before it,
        which keeps incremental resolution equal to a full one.
        """
        if key in self._memo:
            return self._memo[key]
        if key in self._active or len(self._active) > _MAX_DEPTH:
            self._cuts += 1
            return cut
        cuts = self._cuts
        self._active.add(key)
        try:
            result = compute()
        finally:
            self._active.discard(key)
        if self._cuts == cuts:
            self._memo[key] = result
        return result

    def member(self, target: _Target | None, name: str) -> tuple[_Target | None, bool]:
        """``target.name``; the flag says the member was found on a base class."""
        if target is None:
            return None, False
        if isinstance(target, _Module):
            return self.module_member(target.path, name), False
        if isinstance(target, _External):
            return _External(f"{target.name}.{name}", target.builtin), False
        if isinstance(target, _Sym) and target.kind == "class":
            return self.class_member(target.path, target.qualname, name, instance=False)
        if isinstance(target, _Instance):
            return self.class_member(target.path, target.cls, name, instance=True)
        return None, False

    def declared(self, module: str, name: str) -> _Target | None:
        """Where ``from module import name`` leads: the file or symbol that declares the name,
        following re-exports (unlike :meth:`module_member`, a variable is not evaluated:
        importing ``CALLS = RelTable(...)`` imports the constant, not a RelTable)."""
        full = f"{module}.{name}" if module else name
        if full in self.path_of:
            return _Module(self.path_of[full])
        base = self.module_target(module) if module else None
        if not isinstance(base, _Module):
            return _External(full) if module else None

        def compute() -> _Target | None:
            path = base.path
            self.ensure(path)
            if self.parents.get((path, name)) == "" and (path, name) in self.kinds:
                return _Sym(path, name, self.kinds[(path, name)])
            binding = self.ns.get((path, ""), {}).get(name)
            if binding is not None and binding.kind == "from":
                return self.declared(binding.value, binding.member)
            if binding is not None and binding.kind == "import":
                return self.module_target(binding.value)
            for star, _ in self.stars.get((path, ""), []):
                found = self.declared(star, name)
                if found is not None and not isinstance(found, _External):
                    return found
            return None

        return self._guarded(("d", module, name), compute, None)

    def module_member(self, path: str, name: str) -> _Target | None:
        self.ensure(path)
        def compute() -> _Target | None:
            binding = self.ns.get((path, ""), {}).get(name)
            if binding is not None:
                return self.bound(path, binding)
            sub = self.path_of.get(f"{self.module_of[path]}.{name}")
            if sub is not None:
                return _Module(sub)
            for star, _ in self.stars.get((path, ""), []):
                target = self.module_target(star)
                if isinstance(target, _Module):
                    found = self.module_member(target.path, name)
                    if found is not None:
                        return found
            return None

        return self._guarded(("m", path, name), compute, None)

    def class_member(self, path: str, cls: str, name: str, *,
                     instance: bool) -> tuple[_Target | None, bool]:
        """Look ``name`` up on class ``cls`` and then its bases, depth-first like a simple MRO."""
        self.ensure(path)
        for depth, (p, c) in enumerate(self.mro(path, cls)):
            binding = self.ns.get((p, c), {}).get(name)
            if binding is not None and binding.kind == "def":
                return self.bound(p, binding), depth > 0
            if instance:
                attr = self.self_attrs.get((p, c), {}).get(name)
                if attr is not None:
                    return self.bound(p, attr), depth > 0
        return None, False

    def mro(self, path: str, cls: str) -> list[tuple[str, str]]:
        self.ensure(path)
        def compute() -> list[tuple[str, str]]:
            order = [(path, cls)]
            scope = self.parents.get((path, cls), "")
            for base in self.bases.get((path, cls), []):
                target, _ = self.expression(path, scope, base)
                if isinstance(target, _Sym) and target.kind == "class":
                    for item in self.mro(target.path, target.qualname):
                        if item not in order:
                            order.append(item)
            return order

        return self._guarded(("mro", path, cls), compute, [(path, cls)])

    def bound(self, path: str, binding: _Binding) -> _Target | None:
        """What a namespace entry of module ``path`` stands for."""
        self.ensure(path)
        if binding.kind == "def":
            return _Sym(path, binding.value, self.kinds.get((path, binding.value), ""))
        if binding.kind == "import":
            return self.module_target(binding.value)
        if binding.kind == "from":
            full = f"{binding.value}.{binding.member}" if binding.value else binding.member
            sub = self.path_of.get(full)
            if sub is not None:
                return _Module(sub)
            if not binding.value:
                return None
            base = self.module_target(binding.value)
            if isinstance(base, _External):
                return _External(full)
            return self.module_member(base.path, binding.member)
        if binding.kind == "fixture":
            fixture = self.fixture(path, binding.scope, binding.value)
            if fixture is None:
                return None
            self.ensure(fixture.path)
            made = self.returns.get((fixture.path, fixture.qualname))
            if made is None:
                return None
            cls, _ = self.expression(fixture.path, fixture.qualname, made)
            return _Instance(cls.path, cls.qualname) \
                if isinstance(cls, _Sym) and cls.kind == "class" else None
        # assign
        target, _ = self.expression(path, binding.scope, binding.value)
        if not binding.instance:
            return target
        if isinstance(target, _Sym) and target.kind == "class" and not binding.item:
            return _Instance(target.path, target.qualname)
        if isinstance(target, _Sym) and target.kind in ("function", "method"):
            # ``x = f()`` / ``for x in f()`` with ``def f() -> C`` / ``-> list[C]``
            table = self.returns_item if binding.item else self.returns
            self.ensure(target.path)
            made = table.get((target.path, target.qualname))
            cls, _ = self.expression(target.path, target.qualname, made) if made else (None, "")
            if isinstance(cls, _Sym) and cls.kind == "class":
                return _Instance(cls.path, cls.qualname)
        return None

    def lookup_name(self, path: str, scope: str, name: str) -> tuple[_Target | None, str]:
        """A bare name seen in ``scope``: enclosing function scopes, module, builtins."""
        self.ensure(path)
        s = scope
        while True:
            binding = self.ns.get((path, s), {}).get(name)
            is_class_scope = self.kinds.get((path, s)) == "class"
            if binding is not None and binding.kind == "def" and \
                    self.kinds.get((path, binding.value)) in _VALUE_KINDS:
                binding = None  # a plain value (X = 5, X = X): look further out
            # class bodies are not enclosing scopes for the functions inside them
            if binding is not None and (not is_class_scope or s == scope):
                return self.bound(path, binding), _method_of(binding, s)
            if not s:
                break
            for star, _ in self.stars.get((path, s), []):
                target = self.module_target(star)
                if isinstance(target, _Module):
                    found = self.module_member(target.path, name)
                    if found is not None:
                        return found, Resolution.IMPORT
            s = self.parents.get((path, s), "")
        for star, _ in self.stars.get((path, ""), []):
            target = self.module_target(star)
            if isinstance(target, _Module):
                found = self.module_member(target.path, name)
                if found is not None:
                    return found, Resolution.IMPORT
        if name in _BUILTINS:
            return _External(f"builtins.{name}", builtin=True), Resolution.BUILTIN
        return None, ""

    def siblings(self, target: _Sym) -> list[str]:
        """The other functions, methods and classes defined under ``target``'s name in its
        scope (``@overload`` stubs, ``if``/``else`` variants, property setters): which one
        runs is decided at run time, so a call reaches every one of them."""
        parent = self.parents.get((target.path, target.qualname))
        if parent is None:
            return []
        name = target.qualname.rsplit(".", 1)[-1].split("~", 1)[0]
        return [q for q in self.same_scope.get((target.path, parent, name), [])
                if q != target.qualname and self.kinds.get((target.path, q)) in _CALLABLE_KINDS]

    def super_candidates(self, path: str, scope: str, callee: str) -> list[_Sym]:
        """For ``super().m``: ``m`` as every class after the caller's in its MRO defines
        it (with several bases, cooperative ``super()`` chains reach each of them)."""
        cls = self.enclosing_class(path, scope)
        name = callee.rsplit(".", 1)[-1]
        out: list[_Sym] = []
        for p, c in self.mro(path, cls)[1:] if cls else ():
            binding = self.ns.get((p, c), {}).get(name)
            target = self.bound(p, binding) if binding is not None and \
                binding.kind == "def" else None
            if isinstance(target, _Sym) and target not in out:
                out.append(target)
        return out

    def shadowed_import(self, target: _Sym) -> _Sym | None:
        """The function a conditional import binds under ``target``'s name in its scope,
        beside ``target``'s def: either may be the one that runs."""
        parent = self.parents.get((target.path, target.qualname))
        name = target.qualname.rsplit(".", 1)[-1].split("~", 1)[0]
        binding = self.shadowed.get((target.path, parent or "", name))
        other = self.bound(target.path, binding) if binding is not None else None
        return other if isinstance(other, _Sym) and other.kind in _CALLABLE_KINDS else None

    def fixture(self, path: str, requester: str, name: str) -> _Sym | None:
        """The pytest fixture ``name`` as the function (or class) ``requester`` of ``path``
        gets it: from the classes enclosing it (and their bases), its module, then the
        ``conftest.py`` of its directory and of each parent directory. A fixture requesting
        its own name gets the one it overrides, further out."""
        self.ensure(path)
        skip = (path, requester)
        scope = self.parents.get((path, requester), "")
        while scope:
            if self.kinds.get((path, scope)) == "class":
                for p, c in self.mro(path, scope):
                    qualname = self.fixtures.get((p, c), {}).get(name)
                    if qualname is not None and (p, qualname) != skip:
                        return _Sym(p, qualname, self.kinds.get((p, qualname), "function"))
            scope = self.parents.get((path, scope), "")
        directory = PurePosixPath(path).parent
        modules = [path] + [str(d / "conftest.py") if str(d) != "." else "conftest.py"
                            for d in (directory, *directory.parents)]
        for module in dict.fromkeys(modules):
            if module not in self.files:
                continue
            self.ensure(module)
            qualname = self.fixtures.get((module, ""), {}).get(name)
            if qualname is not None and (module, qualname) != skip:
                return _Sym(module, qualname, self.kinds.get((module, qualname), "function"))
            if qualname is None:  # ``from .fixtures import runner``: an imported fixture
                found = self.module_member(module, name)
                if isinstance(found, _Sym) and found.path != module:
                    self.ensure(found.path)
                    parent = self.parents.get((found.path, found.qualname), "")
                    if self.fixtures.get((found.path, parent), {}).get(name) == found.qualname:
                        return found
        return None

    def is_bound(self, path: str, scope: str, name: str) -> bool:
        """Whether ``name`` is bound in ``scope`` or an enclosing scope of ``path``."""
        self.ensure(path)
        s = scope
        while True:
            if name in self.ns.get((path, s), {}):
                return True
            if not s:
                return False
            s = self.parents.get((path, s), "")

    def expression(self, path: str, scope: str, dotted: str) -> tuple[_Target | None, str]:
        """Resolve ``a.b.c`` written in ``scope`` of ``path``; returns (target, method)."""
        self.ensure(path)
        return self._guarded(("e", path, scope, dotted),
                             lambda: self._expression(path, scope, dotted), (None, ""))

    def _expression(self, path: str, scope: str, dotted: str) -> tuple[_Target | None, str]:
        parts = dotted.split(".")
        head, rest = parts[0], parts[1:]
        inherited = False
        if head.startswith("super(") or (head in ("self", "cls") and rest):
            cls = self.enclosing_class(path, scope)
            if not cls or not rest:
                return None, ""
            if head.startswith("super("):
                target, found_on_base = None, False
                for p, c in self.mro(path, cls)[1:]:
                    target, _ = self.class_member(p, c, rest[0], instance=True)
                    if target is not None:
                        found_on_base = True
                        break
            else:
                target, found_on_base = self.class_member(path, cls, rest[0],
                                                          instance=head == "self")
            method = Resolution.INHERITANCE if found_on_base else Resolution.SELF
            rest = rest[1:]
        else:
            target, method = self.lookup_name(path, scope, head)
        for attr in rest:
            target, on_base = self.member(target, attr)
            inherited = inherited or on_base
            if target is None:
                break
        if target is not None and inherited and method not in (Resolution.BUILTIN,):
            method = Resolution.INHERITANCE
        if isinstance(target, _External) and not target.builtin:
            method = Resolution.EXTERNAL
        return target, method


def _method_of(binding: _Binding, scope: str) -> str:
    if binding.kind in ("import", "from"):
        return Resolution.IMPORT
    if binding.kind == "fixture":
        return Resolution.CONSTRUCTOR  # an instance: the fixture returned ``C()``
    if binding.kind == "assign":
        return Resolution.CONSTRUCTOR if binding.instance else (
            Resolution.LOCAL if scope else Resolution.SAME_MODULE)
    return Resolution.LOCAL if scope else Resolution.SAME_MODULE


# ------------------------------------------------------------------------------------ edges
def resolve(repo: str, files: Mapping[str, FileExtract], *,
            only: set[str] | None = None,
            providers: Providers | None = None) -> ResolveResult:
    """Resolve the imports, calls and bases of ``files`` (or of those in ``only``).

    ``providers``: the other repositories of the graph; a name that leaves this repository
    for a module one of them provides resolves into it instead of to an External."""
    index = _Index(files, root_package=repo)
    index.providers = providers
    result = ResolveResult()
    for path in sorted(files):
        if only is not None and path not in only:
            continue
        index.ensure(path)
        fx = files[path]
        _imports(repo, path, fx, index, result)
        _calls(repo, path, fx, index, result)
        _inherits(repo, path, fx, index, result)
        _fixtures(repo, path, fx, index, result)
    return result


def _dst(repo: str, target: _Target, result: ResolveResult, kind: str = "symbol", *,
         providers: Providers | None = None, symbol_only: bool = False,
         ) -> tuple[str, str] | None:
    if isinstance(target, _Sym):
        return symbol_id(repo, target.path, target.qualname), SYMBOL.name
    if isinstance(target, _Module):
        return file_id(repo, target.path), FILE.name
    if isinstance(target, _External):
        if providers is not None and not target.builtin:
            found = providers.target(target.name, symbol_only=symbol_only)
            if found is not None:
                return found
        ext_kind = "builtin" if target.builtin else kind
        return result.external("python", target.name, ext_kind), EXTERNAL.name
    return None


def _imports(repo: str, path: str, fx: FileExtract, index: _Index,
             result: ResolveResult) -> None:
    src = file_id(repo, path)
    for imp in fx.imports:
        module = index.absolute(path, imp.module, imp.level)
        if imp.name and imp.name != "*":
            target = index.declared(module, imp.name)
            if target is None:  # a name the module does not define: the module itself
                target = index.module_target(module)
            kind = "symbol"
        else:
            target, kind = index.module_target(module), "module"
        dst = _dst(repo, target, result, kind, providers=index.providers) \
            if target is not None else None
        if dst is None:
            continue
        method = Resolution.EXTERNAL if dst[1] == EXTERNAL.name else Resolution.IMPORT
        result.edges.append(EdgeRow(IMPORTS.name, src, FILE.name, dst[0], dst[1], imp.line,
                                    method, RESOLUTION_CONFIDENCE[method], imp.alias or imp.name))


def _calls(repo: str, path: str, fx: FileExtract, index: _Index, result: ResolveResult) -> None:
    for call in fx.calls:
        scope = call.scope or MODULE_QUALNAME
        src = symbol_id(repo, path, scope)
        if not call.callee:
            result.unresolved.append((path, call.scope, "", call.line, "dynamic"))
            continue
        if call.callee.startswith(VALUE_PREFIX):
            _function_value(repo, path, call, index, result)
            continue
        target, method = index.expression(path, call.scope, call.callee)
        if isinstance(target, _Sym) and target.kind in _VALUE_KINDS:
            target = None  # calling a variable: what it holds is not known here
        if call.callee.rsplit(".", 1)[-1] in IMPLICIT_DUNDERS and not isinstance(target, _Sym):
            continue  # ``with``/``for``/``x[k]``/operators on what the repository does not define
        if target is None or isinstance(target, (_Module, _Instance)):
            target, method = _guess(index, path, call.scope, call.callee)
            if target is None:
                result.unresolved.append((path, call.scope, call.callee, call.line, method))
                continue
        dst = _dst(repo, target, result, providers=index.providers, symbol_only=True)
        if dst is None:
            continue
        if isinstance(target, _External) and dst[1] != EXTERNAL.name:
            method = Resolution.IMPORT  # into another repository of the graph
        confidence = RESOLUTION_CONFIDENCE[Resolution(method)]
        result.edges.append(EdgeRow(CALLS.name, src, SYMBOL.name, dst[0], dst[1], call.line,
                                    method, confidence))
        if isinstance(target, _Sym):  # the other same-scope definitions of the name follow
            for qualname in index.siblings(target):
                result.edges.append(EdgeRow(CALLS.name, src, SYMBOL.name,
                                            symbol_id(repo, target.path, qualname),
                                            SYMBOL.name, call.line, method, confidence))
            if call.callee.startswith("super(") and call.callee.count(".") == 1:
                for base in index.super_candidates(path, call.scope, call.callee)[1:]:
                    result.edges.append(EdgeRow(
                        CALLS.name, src, SYMBOL.name, symbol_id(repo, base.path, base.qualname),
                        SYMBOL.name, call.line, Resolution.INHERITANCE,
                        RESOLUTION_CONFIDENCE[Resolution.INHERITANCE]))
            other = index.shadowed_import(target)
            if other is not None:
                result.edges.append(EdgeRow(
                    CALLS.name, src, SYMBOL.name, symbol_id(repo, other.path, other.qualname),
                    SYMBOL.name, call.line, Resolution.IMPORT,
                    RESOLUTION_CONFIDENCE[Resolution.IMPORT]))


def _function_value(repo: str, path: str, call: CallRow, index: _Index,
                    result: ResolveResult) -> None:
    """A function used as a value (an argument, as in ``functools.partial(f)`` or a callback
    registered, or stored in a dict, list or attribute) is called later by whoever holds it:
    a CALLS edge from the scope that hands it on, when the name is a repository function
    (never a guess, and nothing recorded as unresolved: most such names are data)."""
    target, method = index.expression(path, call.scope, call.callee[len(VALUE_PREFIX):])
    if not isinstance(target, _Sym) or target.kind not in _CALLABLE_KINDS:
        return  # a class handed on is instantiated later (``partial(Signer, key)``)
    result.edges.append(EdgeRow(
        CALLS.name, symbol_id(repo, path, call.scope or MODULE_QUALNAME), SYMBOL.name,
        symbol_id(repo, target.path, target.qualname), SYMBOL.name, call.line, method,
        RESOLUTION_CONFIDENCE[Resolution(method)]))


def _fixtures(repo: str, path: str, fx: FileExtract, index: _Index,
              result: ResolveResult) -> None:
    """CALLS (resolution ``fixture``) from each test or fixture to the fixtures it requests;
    names no repository fixture defines (pytest's own ``tmp_path``, plugins') get none."""
    for asg in fx.assigns:
        if asg.kind != "fixture-use":
            continue
        target = index.fixture(path, asg.scope, asg.target)
        if target is None:
            continue
        result.edges.append(EdgeRow(
            CALLS.name, symbol_id(repo, path, asg.scope), SYMBOL.name,
            symbol_id(repo, target.path, target.qualname), SYMBOL.name, asg.line,
            Resolution.FIXTURE, RESOLUTION_CONFIDENCE[Resolution.FIXTURE]))


def _guess(index: _Index, path: str, scope: str, callee: str) -> tuple[_Target | None, str]:
    """Name-only fallback: the last name, when exactly one repository callable has it.

    Not taken when the head is known (``self`` of a class whose bases leave the repository,
    an External module): the callee then lies outside what the repository defines.
    """
    head, _, _ = callee.partition(".")
    name = callee.rsplit(".", 1)[-1]
    if "." in callee and name in _BUILTIN_METHODS:
        return None, "builtin-method"
    if head in ("self", "cls") or head.startswith("super("):
        return None, "external-base"
    if "." in callee:
        target, _ = index.lookup_name(path, scope, head)
        if isinstance(target, _External):
            return None, "external"
    elif index.is_bound(path, scope, head):
        return None, "bound-unresolved"  # ``append = out.append; append(x)``: not a guess
    candidates = index.by_name.get(name, [])
    if not is_test_path(path):  # library code never calls into a test helper
        candidates = [c for c in candidates if not is_test_path(c.path)]
    if len(candidates) == 1 and candidates[0].kind in _CALLABLE_KINDS:
        return candidates[0], Resolution.NAME_ONLY
    return None, "ambiguous" if candidates else "unknown"


def _inherits(repo: str, path: str, fx: FileExtract, index: _Index,
              result: ResolveResult) -> None:
    for inh in fx.inherits:
        if inh.base == "object":
            continue
        scope = index.parents.get((path, inh.cls), "")
        target, method = index.expression(path, scope, inh.base)
        if target is None or isinstance(target, (_Module, _Instance)):
            continue
        dst = _dst(repo, target, result, providers=index.providers, symbol_only=True)
        if dst is None:
            continue
        if isinstance(target, _External) and dst[1] != EXTERNAL.name:
            method = Resolution.IMPORT  # a base class of another repository of the graph
        result.edges.append(EdgeRow(
            INHERITS.name, symbol_id(repo, path, inh.cls), SYMBOL.name, dst[0], dst[1],
            inh.line, method, RESOLUTION_CONFIDENCE[Resolution(method)], inh.kind))


# ------------------------------------------------------------------------ other repositories
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
        self._indexes: dict[str, _Index] = {}
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
            index = self._indexes[repo] = _Index(self._files_of(repo), root_package=repo)
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in index.path_of:
                break
        else:
            return None
        rest = parts[cut:]
        target: _Target | None = _Module(index.path_of[module])
        if rest:
            target = index.declared(module, rest[0])
            for attr in rest[1:]:
                target, _ = index.member(target, attr)
        if isinstance(target, _External) and target.name != name and not target.builtin:
            return self.target(target.name, symbol_only=symbol_only, _depth=depth + 1)
        if isinstance(target, _Sym) and not (symbol_only and target.kind in _VALUE_KINDS):
            return symbol_id(repo, target.path, target.qualname), SYMBOL.name
        if isinstance(target, _Module) and not symbol_only:
            return file_id(repo, target.path), FILE.name
        return None
