"""The namespaces of every module of one Python repository and the lookups over them:
imports followed through re-exports, module attributes, class members through the bases,
receiver types (``x = C()``, ``x: C``, ``self.x = C()``, returns annotated ``-> C``, pytest
fixtures returning ``C()``), ``super()``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePosixPath
from typing import Any

from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.python_candidates import Candidates
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
from ingest.resolve.python_stubs import Stubs, stubs
from ingest.resolve.python_types import Types
from schema import Resolution

__all__ = ["Index"]

_MAX_DEPTH = 25
_MISS = object()
_NO_NAMES: dict[str, Binding] = {}  # a scope binding nothing (never written to)


class Index(Candidates, Types):
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
        #: (path, function) -> what its ``return`` statements give, in source order:
        #: (``returns``, ``C`` of ``return C(...)``) or (``returns-value``, ``a.b``)
        self.returns: dict[tuple[str, str], list[tuple[str, str]]] = {}
        #: (path, scope, name) -> every assignment of a local name there, in source order
        #: (``if a: h = Header(v) else: h = v``: the one that resolves is a candidate), and
        #: (path, class, ``self.attribute``) -> every ``self.attribute = ...`` of its methods;
        #: a name assigned once keeps its one Binding (no list: fewer objects for the
        #: garbage collector, which the resolve phase of the standard library feels)
        self.assigned: dict[tuple[str, str, str], Binding | list[Binding]] = {}
        #: (path, function) -> the ``def`` header (its parameters, for a stub's types)
        self.signatures: dict[tuple[str, str], str] = {}
        self._params: dict[tuple[str, str], frozenset[str]] = {}
        #: types from installed stubs (:mod:`ingest.resolve.python_stubs`)
        self.stubs: Stubs | None = stubs()
        #: (path, function) -> ``C`` of its ``-> list[C]`` (``Iterator[C]``, ...)
        self.returns_item: dict[tuple[str, str], str] = {}
        #: (path, parent, name) -> every definition of that name in that scope, in order
        self.same_scope: dict[tuple[str, str, str], list[str]] = {}
        #: (path, scope, name) -> a ``from`` import the def of that name in that scope
        #: shadows (``if WIN: from ._win import f`` beside ``else: def f``)
        self.shadowed: dict[tuple[str, str, str], Binding] = {}
        #: (path, scope, name) -> the classes ``isinstance(name, C)`` checks there
        self.narrowed: dict[tuple[str, str, str], list[str]] = {}
        #: (path, method) of every getter decorated ``@property`` / ``@cached_property``:
        #: reading ``x.name`` calls it
        self.properties: set[tuple[str, str]] = set()
        self._by_name: Mapping[str, list[Sym]] | None = None
        # files are indexed on first use: resolving a few files of a large repository reaches
        # a small part of it (and a lazy mapping of files then builds only that part)
        self._indexed: set[str] = set()
        self._memo: dict[tuple, Any] = {}
        #: the concrete class ``self`` stands for while :meth:`variants` evaluates, if any
        self._view: tuple[str, str] | None = None
        self._class_attributes: dict[str, list[tuple[str, str]]] | None = None
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
    def by_name(self) -> Mapping[str, list[Sym]]:
        """Short name -> every repository function, method and class of that name."""
        if self._by_name is None:
            listing = getattr(self.files, "callables_by_name", None)
            if listing is not None:  # stored rows, looked up name by name
                self._by_name = SymsByName(listing())
            else:
                found: dict[str, list[Sym]] = {}
                for path, fx in self.files.items():
                    for s in fx.symbols:
                        if s.kind in CALLABLE_KINDS and not s.name.startswith("__"):
                            found.setdefault(s.name, []).append(Sym(path, s.qualname, s.kind))
                self._by_name = found
        return self._by_name

    @property
    def class_attributes(self) -> dict[str, list[tuple[str, str]]]:
        """Name -> (path, class) of every variable bound in a class body (a class attribute
        a subclass may override)."""
        if self._class_attributes is None:
            listing = getattr(self.files, "class_attributes", None)
            if listing is not None:
                self._class_attributes = listing()
            else:
                self._class_attributes = {}
                for path, fx in self.files.items():
                    for s in fx.symbols:
                        if s.kind in VALUE_KINDS and s.parent:
                            self._class_attributes.setdefault(s.name, []).append(
                                (path, s.parent))
        return self._class_attributes

    def _index_file(self, path: str, fx: FileExtract) -> None:
        ns = self.ns.setdefault((path, ""), {})
        # the busiest loop of indexing (~26K symbols on the standard library): locals, and
        # no Binding, dict or list made where one exists
        kinds, parents, signatures, namespaces, same_scope = \
            self.kinds, self.parents, self.signatures, self.ns, self.same_scope
        for sym in fx.symbols:
            qualname, parent, name, kind = sym.qualname, sym.parent, sym.name, sym.kind
            key = (path, qualname)
            kinds[key] = kind
            parents[key] = parent
            if kind in ("function", "method"):
                signatures[key] = sym.signature
            names = namespaces.get((path, parent))
            if names is None:
                names = namespaces[(path, parent)] = {}
            if name not in names:
                names[name] = Binding("def", qualname)
            defined = same_scope.get((path, parent, name))
            if defined is None:
                same_scope[(path, parent, name)] = [qualname]
            else:
                defined.append(qualname)
        for imp in fx.imports:
            self._index_import(path, imp)
        for inh in fx.inherits:
            self.bases.setdefault((path, inh.cls), []).append(inh.base)
        for asg in fx.assigns:
            kind = asg.kind
            if kind in ("instance", "alias", "item"):  # most rows: first
                binding = Binding("assign", asg.value, scope=asg.scope,
                                   instance=kind != "alias", item=kind == "item")
                if asg.target.startswith("self."):
                    cls = self.enclosing_class(path, asg.scope)
                    if cls:
                        self.self_attrs.setdefault((path, cls), {}).setdefault(
                            asg.target[5:], binding)
                        self._remember((path, cls, asg.target), binding)
                elif "." not in asg.target and asg.value.split(".", 1)[0] != asg.target:
                    # ``isfuture = base_futures.isfuture``: the variable symbol is only a name;
                    # the assignment says what it stands for (``X = X`` says nothing)
                    scope_ns = self.ns.setdefault((path, asg.scope), {})
                    self._remember((path, asg.scope, asg.target), binding)
                    current = scope_ns.get(asg.target)
                    if current is None or current.kind in ("assign", "fixture") or (
                            current.kind == "def"
                            and self.kinds.get((path, current.value)) in VALUE_KINDS):
                        scope_ns[asg.target] = binding
                continue
            if kind == "fixture":
                self.fixtures.setdefault((path, asg.scope), {}).setdefault(asg.target,
                                                                           asg.value)
                continue
            if kind in ("returns", "returns-value"):
                self.returns.setdefault((path, asg.scope), []).append((kind, asg.value))
                continue
            if kind == "returns-item":
                self.returns_item.setdefault((path, asg.scope), asg.value)
                continue
            if kind == "property":  # ``@property def name``: ``value`` is the getter
                self.properties.add((path, asg.value))
                continue
            if kind == "narrow":
                self.narrowed.setdefault((path, asg.scope, asg.target), []).append(asg.value)
                continue
            if kind == "fixture-use":
                if self.kinds.get((path, asg.scope)) in ("function", "method"):
                    # a parameter naming a fixture holds what the fixture returns
                    self.ns.setdefault((path, asg.scope), {}).setdefault(
                        asg.target, Binding("fixture", asg.target, scope=asg.scope))
                continue
        del ns

    def _remember(self, key: tuple[str, str, str], binding: Binding) -> None:
        known = self.assigned.get(key)
        if known is None:
            self.assigned[key] = binding
        elif isinstance(known, list):
            known.append(binding)
        else:
            self.assigned[key] = [known, binding]

    def is_property(self, target: Target | None) -> bool:
        """``target`` is a getter that reading an attribute calls."""
        return isinstance(target, Sym) and target.kind == "method" and \
            (target.path, target.qualname) in self.properties

    def property_reads(self, path: str, scope: str, dotted: str) -> list[tuple[Sym, str]]:
        """The getters that evaluating ``a.b.c`` (before its last part) calls: each prefix
        that reads a property, with how it resolved (``self.prop.m()`` calls ``prop``)."""
        parts = dotted.split(".")
        out: list[tuple[Sym, str]] = []
        for k in range(2, len(parts)):
            if parts[k - 1].endswith("()"):
                continue  # ``a.prop().m``: a call, resolved as one
            target, method = self.expression(path, scope, ".".join(parts[:k]))
            if isinstance(target, Sym) and self.is_property(target):
                out.append((target, method))
        return out

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
        found = self._memo.get(key, _MISS)
        if found is not _MISS:
            return found
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
            if target.instance and not self.stub_member(target, name):
                return None, False  # not what the stub's class has: say nothing
            return External(f"{target.name}.{name}", target.builtin), False
        if isinstance(target, Sym) and target.kind == "class":
            return self.class_member(target.path, target.qualname, name, instance=False)
        if self.is_property(target):  # ``x.prop.name``: a member of what the getter returns
            return self.member(self.returned(target), name)
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
            binding = self.ns.get((path, ""), _NO_NAMES).get(name)
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
            binding = self.ns.get((path, ""), _NO_NAMES).get(name)
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
            binding = self.ns.get((p, c), _NO_NAMES).get(name)
            # a def, or a class attribute bound in the body (``default_signer = Signer``)
            if binding is not None and binding.kind in ("def", "assign"):
                return self.bound(p, binding), depth > 0
            if instance:
                attr = self.self_attrs.get((p, c), _NO_NAMES).get(name)
                if attr is not None:
                    found = self.bound(p, attr)
                    if found is None:  # ``self.h = None`` here, ``self.h = Header()`` there
                        found = self.alternative(p, attr,
                                                 self.assigned.get((p, c, f"self.{name}")))
                    return found, depth > 0
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
            for kind, made in self.returns.get((fixture.path, fixture.qualname), ()):
                cls, _ = self.expression(fixture.path, fixture.qualname, made)
                if kind == "returns" and isinstance(cls, Sym) and cls.kind == "class":
                    return Instance(cls.path, cls.qualname)
            return None
        # assign
        target, _ = self.expression(path, binding.scope, binding.value)
        if not binding.instance:
            return target
        if isinstance(target, External) and not binding.item:
            return self.returned(target)  # what a stub says calling it gives
        if isinstance(target, Sym) and target.kind == "class" and not binding.item:
            return Instance(target.path, target.qualname)
        if isinstance(target, Sym) and target.kind in ("function", "method"):
            # ``x = f()`` / ``for x in f()`` with ``def f() -> C`` / ``-> list[C]`` (or an
            # unannotated ``return C()``)
            if not binding.item:
                returned = self.returned(target)
                return returned if isinstance(returned, (Instance, Module, External)) else None
            self.ensure(target.path)
            made = self.returns_item.get((target.path, target.qualname))
            cls, _ = self.expression(target.path, target.qualname, made) if made else (None, "")
            if isinstance(cls, Sym) and cls.kind == "class":
                return Instance(cls.path, cls.qualname)
        return None

    def lookup_name(self, path: str, scope: str, name: str) -> tuple[Target | None, str]:
        """A bare name seen in ``scope``: enclosing function scopes, module, builtins."""
        self.ensure(path)
        s = scope
        while True:
            key = (path, s)
            binding = self.ns.get(key, _NO_NAMES).get(name)
            if binding is not None and binding.kind == "def" and \
                    self.kinds.get((path, binding.value)) in VALUE_KINDS:
                binding = None  # a plain value (X = 5, X = X): look further out
            # class bodies are not enclosing scopes for the functions inside them
            if binding is not None and (s == scope or self.kinds.get(key) != "class"):
                found = self.bound(path, binding)
                if found is None and binding.kind == "assign":
                    found = self.alternative(path, binding, self.assigned.get((path, s, name)))
                if found is None and binding.kind == "assign" and not binding.instance:
                    found = self.parameter_type(path, s, name)  # ``loop=loop`` default...
                return found, method_of(binding, s)
            if binding is None and key in self.signatures and \
                    name in self.parameter_names(path, s):
                # a parameter: what a caller passes (a stub may say), never an outer name
                found = self.parameter_type(path, s, name)
                return found, Resolution.CONSTRUCTOR if found is not None else ""
            if not s:
                break
            for star, _ in self.stars.get(key, ()):
                target = self.module_target(star)
                if isinstance(target, Module):
                    found = self.module_member(target.path, name)
                    if found is not None:
                        return found, Resolution.IMPORT
            s = self.parents.get(key, "")
        for star, _ in self.stars.get((path, ""), []):
            target = self.module_target(star)
            if isinstance(target, Module):
                found = self.module_member(target.path, name)
                if found is not None:
                    return found, Resolution.IMPORT
        if name in BUILTINS:
            return External(f"builtins.{name}", builtin=True), Resolution.BUILTIN
        return None, ""

    def _narrowed(self, path: str, scope: str, name: str, member: str) -> Instance | None:
        """``name`` as an ``isinstance(name, C)`` check in ``scope`` narrows it: an instance
        of the first class checked that has ``member`` (``if isinstance(x, A): x.a() elif
        isinstance(x, B): x.b()`` -- the check is not tied to its branch, the member picks)."""
        for cls in self.narrowed.get((path, scope, name), ()):
            found, _ = self.expression(path, scope, cls)
            if isinstance(found, Sym) and found.kind == "class" and (
                    not member or self.class_member(found.path, found.qualname, member,
                                                    instance=True)[0] is not None):
                return Instance(found.path, found.qualname)
        return None

    def is_bound(self, path: str, scope: str, name: str) -> bool:
        """Whether ``name`` is bound in ``scope`` or an enclosing scope of ``path``."""
        self.ensure(path)
        s = scope
        while True:
            if name in self.ns.get((path, s), _NO_NAMES):
                return True
            if not s:
                return False
            s = self.parents.get((path, s), "")

    def expression(self, path: str, scope: str, dotted: str) -> tuple[Target | None, str]:
        """Resolve ``a.b.c`` written in ``scope`` of ``path``; returns (target, method)."""
        key = ("e", path, scope, dotted, self._view)
        found = self._memo.get(key, _MISS)  # the common case first: half the calls repeat
        if found is not _MISS:
            return found
        self.ensure(path)
        # :meth:`_guarded`, inlined: this is its busiest caller
        active = self._active
        if key in active or len(active) > _MAX_DEPTH:
            self._cuts += 1
            return None, ""
        cuts = self._cuts
        active.add(key)
        try:
            found = self._expression(path, scope, dotted)
        finally:
            active.discard(key)
        if self._cuts == cuts:
            self._memo[key] = found
        return found

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
                holder = (path, cls)
                if self._view is not None and holder in self.mro(*self._view):
                    holder = self._view  # a subclass's instance: its class attributes first
                attribute = f"self.{first}"  # an ``isinstance(self.x, C)`` check first
                target = None if called or head != "self" or \
                    (path, scope, attribute) not in self.narrowed else self._narrowed(
                        path, scope, attribute, _called(rest[1])[0] if len(rest) > 1 else "")
                found_on_base = False
                if target is None:
                    target, found_on_base = self.class_member(*holder, first,
                                                              instance=head == "self")
            target = self.returned(target) if called else target
            method = Resolution.INHERITANCE if found_on_base else Resolution.SELF
            rest = rest[1:]
        else:
            name, called = _called(head)
            target = None if called or (path, scope, name) not in self.narrowed else \
                self._narrowed(path, scope, name, _called(rest[0])[0] if rest else "")
            if target is not None:
                method = Resolution.CONSTRUCTOR  # an instance, as ``x = C()`` makes one
            else:
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


class SymsByName(Mapping[str, list[Sym]]):
    """A mapping of short name -> (path, qualname, kind) rows as :class:`Sym` lists, each
    name converted when first asked (the rows' mapping looks names up lazily too)."""

    def __init__(self, rows: Mapping[str, list[tuple[str, str, str]]]) -> None:
        self._rows = rows
        self._syms: dict[str, list[Sym]] = {}

    def __getitem__(self, name: str) -> list[Sym]:
        if name not in self._syms:
            self._syms[name] = [Sym(*row) for row in self._rows[name]]
        return self._syms[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)
