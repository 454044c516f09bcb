"""The namespaces of every module of one Python repository and the lookups over them:
imports followed through re-exports, module attributes, class members through the bases,
receiver types (``x = C()``, ``x: C``, ``self.x = C()``, returns annotated ``-> C``, pytest
fixtures returning ``C()``), ``super()``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from ingest.extract.python import is_test_path
from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.python_names import (
    BUILTINS,
    CALLABLE_KINDS,
    NO_BINDING,
    VALUE_KINDS,
    Binding,
    External,
    Instance,
    Module,
    Sym,
    Target,
    method_of,
    module_names,
)
from schema import Resolution

#: whether a path is a test file, once per path: resolution asks ~150K times on the
#: standard library about its ~700 paths (a PurePosixPath each time, ~0.3 s)
is_test_file = lru_cache(maxsize=1 << 16)(is_test_path)

__all__ = ["Index", "is_test_file"]

_MAX_DEPTH = 25


class Index:
    """Namespaces of every module of one repository, built from rows alone."""

    def __init__(self, files: Mapping[str, FileExtract], *, root_package: str = "") -> None:
        self.files = files
        self.module_of = module_names(files, root_package=root_package)
        self.path_of: dict[str, str] = {}
        for path in sorted(self.module_of, key=lambda p: (p.endswith(".pyi"), p.count("/"), p)):
            self.path_of.setdefault(self.module_of[path], path)  # .py before .pyi; shallower
        self.is_package = {p: PurePosixPath(p).name == "__init__.py" for p in files}
        self.kinds: dict[tuple[str, str], str] = {}
        self.ns: dict[tuple[str, str], dict[str, Binding]] = {}
        self.stars: dict[tuple[str, str], list[tuple[str, int]]] = {}
        self.bases: dict[tuple[str, str], list[str]] = {}
        self.parents: dict[tuple[str, str], str] = {}
        self.self_attrs: dict[tuple[str, str], dict[str, Binding]] = {}
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
        self.shadowed: dict[tuple[str, str, str], Binding] = {}
        self._by_name: dict[str, list[Sym]] | None = None
        # files are indexed on first use: resolving a few files of a large repository reaches
        # a small part of it (and a lazy mapping of files then builds only that part)
        self._indexed: set[str] = set()
        self._memo: dict[tuple, Any] = {}
        self._active: set[tuple] = set()
        self._cuts = 0
        #: other repositories of the graph (cross-repository resolution), if any
        self.providers: Any = None  # ingest.resolve.python_providers.Providers

    def ensure(self, path: str) -> None:
        """Index ``path``'s namespaces if not yet done (unknown paths index as empty)."""
        if path in self._indexed:
            return
        self._indexed.add(path)
        if path in self.files:
            self._index_file(path, self.files[path])

    @property
    def by_name(self) -> dict[str, list[Sym]]:
        """Short name -> every repository function, method and class of that name."""
        if self._by_name is None:
            self._by_name = {}
            listing = getattr(self.files, "callables_by_name", None)
            if listing is not None:
                for name, rows in listing().items():
                    self._by_name[name] = [Sym(*row) for row in rows]
            else:
                for path, fx in self.files.items():
                    for s in fx.symbols:
                        if s.kind in CALLABLE_KINDS and not s.name.startswith("__"):
                            self._by_name.setdefault(s.name, []).append(
                                Sym(path, s.qualname, s.kind))
        return self._by_name

    def _index_file(self, path: str, fx: FileExtract) -> None:
        ns = self.ns.setdefault((path, ""), {})
        for sym in fx.symbols:
            key = (path, sym.qualname)
            self.kinds[key] = sym.kind
            self.parents[key] = sym.parent
            self.ns.setdefault((path, sym.parent), {}).setdefault(
                sym.name, Binding("def", sym.qualname))
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
                        asg.target, Binding("fixture", asg.target, scope=asg.scope))
                continue
            if asg.kind not in ("instance", "alias", "item"):
                continue
            binding = Binding("assign", asg.value, scope=asg.scope,
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
                        and self.kinds.get((path, current.value)) in VALUE_KINDS):
                    scope_ns[asg.target] = binding
        del ns

    def _index_import(self, path: str, imp: ImportRow) -> None:
        scope_ns = self.ns.setdefault((path, imp.scope), {})
        module = self.absolute(path, imp.module, imp.level)
        if not imp.name:  # import a.b [as c]: the first binding in source order wins, as
            # for defs (``if posix: import posixpath as path / else: import ntpath as path``)
            if imp.alias:
                scope_ns.setdefault(imp.alias, Binding("import", module, alias=True))
            else:
                top = module.split(".", 1)[0]
                scope_ns.setdefault(top, Binding("import", top))
        elif imp.name == "*":
            self.stars.setdefault((path, imp.scope), []).append((module, 0))
        else:
            name = imp.alias or imp.name
            if scope_ns.get(name, NO_BINDING).kind != "def" or \
                    self.kinds.get((path, scope_ns[name].value)) in VALUE_KINDS:
                # ``try: from _c import f / except ImportError: def f``: keep the in-tree
                # def, the one whose impact matters
                scope_ns[name] = Binding("from", module, member=imp.name)
            else:
                self.shadowed.setdefault((path, imp.scope, name),
                                         Binding("from", module, member=imp.name))

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

    def module_target(self, name: str) -> Target:
        path = self.path_of.get(name)
        return Module(path) if path is not None else External(name)

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

    def member(self, target: Target | None, name: str) -> tuple[Target | None, bool]:
        """``target.name``; the flag says the member was found on a base class."""
        if target is None:
            return None, False
        if isinstance(target, Module):
            return self.module_member(target.path, name), False
        if isinstance(target, External):
            return External(f"{target.name}.{name}", target.builtin), False
        if isinstance(target, Sym) and target.kind == "class":
            return self.class_member(target.path, target.qualname, name, instance=False)
        if isinstance(target, Instance):
            return self.class_member(target.path, target.cls, name, instance=True)
        return None, False

    def declared(self, module: str, name: str) -> Target | None:
        """Where ``from module import name`` leads: the file or symbol that declares the name,
        following re-exports (unlike :meth:`module_member`, a variable is not evaluated:
        importing ``CALLS = RelTable(...)`` imports the constant, not a RelTable)."""
        full = f"{module}.{name}" if module else name
        if full in self.path_of:
            return Module(self.path_of[full])
        base = self.module_target(module) if module else None
        if not isinstance(base, Module):
            return External(full) if module else None

        def compute() -> Target | None:
            path = base.path
            self.ensure(path)
            if self.parents.get((path, name)) == "" and (path, name) in self.kinds:
                return Sym(path, name, self.kinds[(path, name)])
            binding = self.ns.get((path, ""), {}).get(name)
            if binding is not None and binding.kind == "from":
                return self.declared(binding.value, binding.member)
            if binding is not None and binding.kind == "import":
                return self.module_target(binding.value)
            for star, _ in self.stars.get((path, ""), []):
                found = self.declared(star, name)
                if found is not None and not isinstance(found, External):
                    return found
            return None

        return self._guarded(("d", module, name), compute, None)

    def module_member(self, path: str, name: str) -> Target | None:
        self.ensure(path)
        def compute() -> Target | None:
            binding = self.ns.get((path, ""), {}).get(name)
            if binding is not None:
                return self.bound(path, binding)
            sub = self.path_of.get(f"{self.module_of[path]}.{name}")
            if sub is not None:
                return Module(sub)
            for star, _ in self.stars.get((path, ""), []):
                target = self.module_target(star)
                if isinstance(target, Module):
                    found = self.module_member(target.path, name)
                    if found is not None:
                        return found
            return None

        return self._guarded(("m", path, name), compute, None)

    def class_member(self, path: str, cls: str, name: str, *,
                     instance: bool) -> tuple[Target | None, bool]:
        """Look ``name`` up on class ``cls`` and then its bases, depth-first like a simple MRO."""
        self.ensure(path)
        for depth, (p, c) in enumerate(self.mro(path, cls)):
            binding = self.ns.get((p, c), {}).get(name)
            # a def, or a class attribute bound in the body (``default_signer = Signer``)
            if binding is not None and binding.kind in ("def", "assign"):
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
                if isinstance(target, Sym) and target.kind == "class":
                    for item in self.mro(target.path, target.qualname):
                        if item not in order:
                            order.append(item)
            return order

        return self._guarded(("mro", path, cls), compute, [(path, cls)])

    def bound(self, path: str, binding: Binding) -> Target | None:
        """What a namespace entry of module ``path`` stands for."""
        self.ensure(path)
        if binding.kind == "def":
            return Sym(path, binding.value, self.kinds.get((path, binding.value), ""))
        if binding.kind == "import":
            return self.module_target(binding.value)
        if binding.kind == "from":
            full = f"{binding.value}.{binding.member}" if binding.value else binding.member
            sub = self.path_of.get(full)
            if sub is not None:
                return Module(sub)
            if not binding.value:
                return None
            base = self.module_target(binding.value)
            if isinstance(base, External):
                return External(full)
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
            return Instance(cls.path, cls.qualname) \
                if isinstance(cls, Sym) and cls.kind == "class" else None
        # assign
        target, _ = self.expression(path, binding.scope, binding.value)
        if not binding.instance:
            return target
        if isinstance(target, Sym) and target.kind == "class" and not binding.item:
            return Instance(target.path, target.qualname)
        if isinstance(target, Sym) and target.kind in ("function", "method"):
            # ``x = f()`` / ``for x in f()`` with ``def f() -> C`` / ``-> list[C]``
            table = self.returns_item if binding.item else self.returns
            self.ensure(target.path)
            made = table.get((target.path, target.qualname))
            cls, _ = self.expression(target.path, target.qualname, made) if made else (None, "")
            if isinstance(cls, Sym) and cls.kind == "class":
                return Instance(cls.path, cls.qualname)
        return None

    def lookup_name(self, path: str, scope: str, name: str) -> tuple[Target | None, str]:
        """A bare name seen in ``scope``: enclosing function scopes, module, builtins."""
        self.ensure(path)
        s = scope
        while True:
            binding = self.ns.get((path, s), {}).get(name)
            is_class_scope = self.kinds.get((path, s)) == "class"
            if binding is not None and binding.kind == "def" and \
                    self.kinds.get((path, binding.value)) in VALUE_KINDS:
                binding = None  # a plain value (X = 5, X = X): look further out
            # class bodies are not enclosing scopes for the functions inside them
            if binding is not None and (not is_class_scope or s == scope):
                return self.bound(path, binding), method_of(binding, s)
            if not s:
                break
            for star, _ in self.stars.get((path, s), []):
                target = self.module_target(star)
                if isinstance(target, Module):
                    found = self.module_member(target.path, name)
                    if found is not None:
                        return found, Resolution.IMPORT
            s = self.parents.get((path, s), "")
        for star, _ in self.stars.get((path, ""), []):
            target = self.module_target(star)
            if isinstance(target, Module):
                found = self.module_member(target.path, name)
                if found is not None:
                    return found, Resolution.IMPORT
        if name in BUILTINS:
            return External(f"builtins.{name}", builtin=True), Resolution.BUILTIN
        return None, ""

    def siblings(self, target: Sym) -> list[str]:
        """The other functions, methods and classes defined under ``target``'s name in its
        scope (``@overload`` stubs, ``if``/``else`` variants, property setters): which one
        runs is decided at run time, so a call reaches every one of them."""
        parent = self.parents.get((target.path, target.qualname))
        if parent is None:
            return []
        name = target.qualname.rsplit(".", 1)[-1].split("~", 1)[0]
        return [q for q in self.same_scope.get((target.path, parent, name), [])
                if q != target.qualname and self.kinds.get((target.path, q)) in CALLABLE_KINDS]

    def super_candidates(self, path: str, scope: str, callee: str) -> list[Sym]:
        """For ``super().m``: ``m`` as every class after the caller's in its MRO defines
        it (with several bases, cooperative ``super()`` chains reach each of them)."""
        cls = self.enclosing_class(path, scope)
        name = callee.rsplit(".", 1)[-1]
        out: list[Sym] = []
        for p, c in self.mro(path, cls)[1:] if cls else ():
            binding = self.ns.get((p, c), {}).get(name)
            target = self.bound(p, binding) if binding is not None and \
                binding.kind == "def" else None
            if isinstance(target, Sym) and target not in out:
                out.append(target)
        return out

    def overrides(self, target: Sym, *, tests: bool) -> list[Sym]:
        """The methods overriding ``target`` in the repository's subclasses of its class
        (class hierarchy analysis): a call through an instance typed as the base may run any
        of them (``self.make_signer().sign`` when the signer is a ``TimestampSigner``).
        ``tests``: whether the caller is test code (library code never reaches a test's
        subclass)."""
        if target.kind != "method":
            return []
        cls = self.parents.get((target.path, target.qualname), "")
        if not cls or self.kinds.get((target.path, cls)) != "class":
            return []
        key = ("ov", target.path, target.qualname, tests)
        if key not in self._memo:
            name = target.qualname.rsplit(".", 1)[-1].split("~", 1)[0]
            out: list[Sym] = []
            for cand in self.by_name.get(name, []):
                if cand.kind != "method" or cand == target or (
                        not tests and is_test_file(cand.path)):
                    continue
                self.ensure(cand.path)
                sub = self.parents.get((cand.path, cand.qualname), "")
                if sub and (target.path, cls) in self.mro(cand.path, sub)[1:]:
                    out.append(cand)
            self._memo[key] = out
        return self._memo[key]

    def shadowed_import(self, target: Sym) -> Sym | None:
        """The function a conditional import binds under ``target``'s name in its scope,
        beside ``target``'s def: either may be the one that runs."""
        parent = self.parents.get((target.path, target.qualname))
        name = target.qualname.rsplit(".", 1)[-1].split("~", 1)[0]
        binding = self.shadowed.get((target.path, parent or "", name))
        other = self.bound(target.path, binding) if binding is not None else None
        return other if isinstance(other, Sym) and other.kind in CALLABLE_KINDS else None

    def fixture(self, path: str, requester: str, name: str) -> Sym | None:
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
                        return Sym(p, qualname, self.kinds.get((p, qualname), "function"))
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
                return Sym(module, qualname, self.kinds.get((module, qualname), "function"))
            if qualname is None:  # ``from .fixtures import runner``: an imported fixture
                found = self.module_member(module, name)
                if isinstance(found, Sym) and found.path != module:
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

    def returned(self, target: Target | None) -> Target | None:
        """What calling ``target`` gives, when the repository says: an instance of the class
        called, or of the class a function's return annotation names (``-> C``)."""
        if isinstance(target, Sym) and target.kind == "class":
            return Instance(target.path, target.qualname)
        if isinstance(target, Sym) and target.kind in ("function", "method"):
            self.ensure(target.path)
            made = self.returns.get((target.path, target.qualname))
            cls, _ = self.expression(target.path, target.qualname, made) if made else (None, "")
            if isinstance(cls, Sym) and cls.kind == "class":
                return Instance(cls.path, cls.qualname)
        return None

    def expression(self, path: str, scope: str, dotted: str) -> tuple[Target | None, str]:
        """Resolve ``a.b.c`` written in ``scope`` of ``path``; returns (target, method)."""
        self.ensure(path)
        return self._guarded(("e", path, scope, dotted),
                             lambda: self._expression(path, scope, dotted), (None, ""))

    def _expression(self, path: str, scope: str, dotted: str) -> tuple[Target | None, str]:
        # a part written ``f()`` stands for what calling ``f`` gives (``a.make().sign``)
        parts = dotted.split(".")
        head, rest = parts[0], parts[1:]
        inherited = False
        if head.startswith("super(") or (head in ("self", "cls") and rest):
            cls = self.enclosing_class(path, scope)
            if not cls or not rest:
                return None, ""
            first, called = _called(rest[0])
            if head.startswith("super("):
                target, found_on_base = None, False
                for p, c in self.mro(path, cls)[1:]:
                    target, _ = self.class_member(p, c, first, instance=True)
                    if target is not None:
                        found_on_base = True
                        break
            else:
                target, found_on_base = self.class_member(path, cls, first,
                                                          instance=head == "self")
            target = self.returned(target) if called else target
            method = Resolution.INHERITANCE if found_on_base else Resolution.SELF
            rest = rest[1:]
        else:
            name, called = _called(head)
            target, method = self.lookup_name(path, scope, name)
            target = self.returned(target) if called else target
        for part in rest:
            attr, called = _called(part)
            target, on_base = self.member(target, attr)
            target = self.returned(target) if called else target
            inherited = inherited or on_base
            if target is None:
                break
        if target is not None and inherited and method not in (Resolution.BUILTIN,):
            method = Resolution.INHERITANCE
        if isinstance(target, External) and not target.builtin:
            method = Resolution.EXTERNAL
        return target, method


def _called(part: str) -> tuple[str, bool]:
    """``f()`` -> (``f``, True): the part is called; ``f`` -> (``f``, False)."""
    return (part[:-2], True) if part.endswith("()") else (part, False)
