"""Which definitions a resolved call may run besides the one its name resolves to: the other
same-scope definitions of the name, overrides in subclasses, each branch's first definer of
``super().m``, a function a conditional import binds beside a def, a subclass's class
attribute read through ``self``, and the pytest fixture a parameter names. A part of
:class:`ingest.resolve.python_index.Index`, kept apart to keep each module readable."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from ingest.extract.python import is_test_path
from ingest.resolve.python_names import CALLABLE_KINDS, VALUE_KINDS, Binding, Sym, Target

__all__ = ["Candidates", "is_test_file"]

#: whether a path is a test file, once per path: resolution asks ~150K times on the
#: standard library about its ~700 paths (a PurePosixPath each time, ~0.3 s)
is_test_file = lru_cache(maxsize=1 << 16)(is_test_path)


class Candidates:
    """Candidate queries over the namespaces :class:`~ingest.resolve.python_index.Index`
    builds (its attributes and lookups, declared here for the reader)."""

    files: Any
    kinds: dict[tuple[str, str], str]
    parents: dict[tuple[str, str], str]
    ns: dict[tuple[str, str], dict[str, Binding]]
    fixtures: dict[tuple[str, str], dict[str, str]]
    same_scope: dict[tuple[str, str, str], list[str]]
    shadowed: dict[tuple[str, str, str], Binding]
    _memo: dict[tuple, Any]
    _view: tuple[str, str] | None

    #: with Index's lookups: ensure, mro, bound, enclosing_class, module_member, expression
    by_name: Mapping[str, list[Sym]]
    class_attributes: dict[str, list[tuple[str, str]]]

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
        """For ``super().m``: ``m`` as the classes after the caller's in its MRO define it
        that ``super()`` may reach directly. With several bases, the next definer depends
        on the instance's MRO (:meth:`mro` is depth-first, not C3), so each branch's first
        definer is a candidate; a class's own ancestors never are: the MRO of any subclass
        keeps them after it, and the definer before them runs first (a chain of overrides
        each calling ``super().m()`` is a chain of edges, not a fan to every ancestor)."""
        cls = self.enclosing_class(path, scope)
        name = callee.rsplit(".", 1)[-1]
        out: list[Sym] = []
        behind: set[tuple[str, str]] = set()  # ancestors of a candidate's class
        for p, c in self.mro(path, cls)[1:] if cls else ():
            binding = self.ns.get((p, c), {}).get(name)
            target = self.bound(p, binding) if binding is not None and \
                binding.kind == "def" else None
            if isinstance(target, Sym) and target not in out and (p, c) not in behind:
                out.append(target)
                behind.update(self.mro(p, c)[1:])
        return out

    def exact_receiver(self, path: str, scope: str, callee: str) -> bool:
        """Whether the receiver of ``C(...).m`` is an instance of exactly the class it
        calls, so no subclass's override can run. (A local ``c = C(...)`` would be too, but
        its row does not tell a constructor from an annotation or a ``cast``, which may
        hold a subclass's instance.)"""
        head, dot, rest = callee.partition(".")
        if not dot or "." in rest or not head.endswith("()") or "(" in head[:-2]:
            return False
        target, _ = self.expression(path, scope, head[:-2])
        return isinstance(target, Sym) and target.kind == "class"

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
        other = self.shadowing(target)
        return other if isinstance(other, Sym) and other.kind in CALLABLE_KINDS else None

    def shadowing(self, target: Sym) -> Target | None:
        """What a conditional import binds under ``target``'s name beside its def, wherever
        it leads (``from _asyncio import get_running_loop``: an External)."""
        parent = self.parents.get((target.path, target.qualname))
        name = target.qualname.rsplit(".", 1)[-1].split("~", 1)[0]
        binding = self.shadowed.get((target.path, parent or "", name))
        return self.bound(target.path, binding) if binding is not None else None

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

    def variants(self, path: str, scope: str, dotted: str, *, tests: bool) -> list[Sym]:
        """What ``a.b.c`` written in a method of class C stands for when ``self`` is an
        instance of a subclass that overrides a class attribute C's methods read
        (``default_serializer = _CompactJSON`` in a subclass of the class whose
        ``__init__`` does ``self.serializer = self.default_serializer``), when it differs from
        the plain answer. ``tests``: whether the caller is test code (library code never
        reaches a test's subclass)."""
        cls = self.enclosing_class(path, scope)
        if not cls:
            return []
        subclasses = self._overriding_subclasses(path, cls)
        if not subclasses:
            return []  # the common case: nothing to evaluate
        plain, _ = self.expression(path, scope, dotted)
        out: list[Sym] = []
        for sub in subclasses:
            if not tests and is_test_file(sub[0]):
                continue
            self._view = sub
            try:
                found, _ = self.expression(path, scope, dotted)
            finally:
                self._view = None
            if isinstance(found, Sym) and found != plain and found not in out and \
                    found.kind in CALLABLE_KINDS:
                out.append(found)
        return out

    def _overriding_subclasses(self, path: str, cls: str) -> list[tuple[str, str]]:
        """The repository's subclasses of ``cls`` binding in their own body a class attribute
        that a class of ``cls``'s MRO binds too. Only the classes binding a variable of such a
        name are looked at (:attr:`class_attributes`, read without indexing any file): a
        one-file update must not index every file of the repository to learn its subclass
        tree (0.66 s on the standard library)."""
        key = ("sub", path, cls)
        found = self._memo.get(key)
        if found is not None:
            return found
        inherited = {name for p, c in self.mro(path, cls)
                     for name, b in self.ns.get((p, c), {}).items() if self._class_attr(p, b)}
        owners = sorted({owner for name in inherited
                         for owner in self.class_attributes.get(name, ())})
        out: list[tuple[str, str]] = []
        for sub in owners:
            self.ensure(sub[0])
            if (path, cls) in self.mro(*sub)[1:] and any(
                    name in inherited and self._class_attr(sub[0], b)
                    for name, b in self.ns.get(sub, {}).items()):
                out.append(sub)
        self._memo[key] = out
        return out

    def _class_attr(self, path: str, binding: Binding) -> bool:
        """A class-body binding that holds a value (``x = C`` or a variable symbol)."""
        return binding.kind == "assign" or (
            binding.kind == "def" and self.kinds.get((path, binding.value)) in VALUE_KINDS)

