"""Python CALLS rows: explicit calls, the implicit ones the syntax makes (``with``, ``for``,
``x[k]``, operators: the dunder methods of what the repository defines), functions handed on
as values, the fixtures a test requests, and the name-only guess of last resort."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ingest.extract.python import IMPLICIT_DUNDERS, VALUE_PREFIX
from ingest.extract.rows import CallRow, FileExtract
from ingest.resolve.python_candidates import is_test_file
from ingest.resolve.python_index import Index
from ingest.resolve.python_names import (
    BUILTIN_METHODS,
    CALLABLE_KINDS,
    VALUE_KINDS,
    External,
    Instance,
    Module,
    Sym,
    Target,
)
from ingest.resolve.rows import EdgeRow, ResolveResult
from schema import (
    CALLS,
    EXTERNAL,
    FILE,
    MODULE_QUALNAME,
    RESOLUTION_CONFIDENCE,
    SYMBOL,
    Resolution,
    file_id,
    symbol_id,
)

if TYPE_CHECKING:
    from ingest.resolve.python_providers import Providers

__all__ = ["MAX_CANDIDATES", "OVERRIDE_CONFIDENCE", "PROPERTY_READ", "call_edges", "destination",
           "fixture_edges"]

#: a subclass's override reached through an instance typed as the base: one of several
#: possible targets, so impact weighs it like a guess and the score floor stops it sooner
OVERRIDE_CONFIDENCE = 0.5
#: at most this many candidates of an ambiguous method name from test code
MAX_CANDIDATES = 20
#: ``name`` of a CALLS row made by reading a property (``x.prop``): a call no ``(...)`` shows
PROPERTY_READ = "property"
#: a call site that made no row (``print(x)`` with no edge to a builtin is not one of them)
_NOTHING: tuple[list[EdgeRow], list[tuple]] = ([], [])


def destination(repo: str, target: Target, result: ResolveResult, kind: str = "symbol", *,
         providers: Providers | None = None, symbol_only: bool = False,
         ) -> tuple[str, str] | None:
    if isinstance(target, Sym):
        return symbol_id(repo, target.path, target.qualname), SYMBOL.name
    if isinstance(target, Module):
        return file_id(repo, target.path), FILE.name
    if isinstance(target, External):
        if providers is not None and not target.builtin:
            found = providers.target(target.name, symbol_only=symbol_only)
            if found is not None:
                return found
        ext_kind = "builtin" if target.builtin else kind
        return result.external("python", target.name, ext_kind), EXTERNAL.name
    return None



def call_edges(repo: str, path: str, fx: FileExtract, index: Index, result: ResolveResult) -> None:
    """The CALLS rows of every call site of ``path``. What a site resolves to depends on its
    scope and callee alone (the index's lookups give the same answer whatever ran before),
    so a site repeating an earlier one of the file (a quarter of the standard library's)
    copies its rows with its own line instead of resolving again."""
    done: dict[tuple[str, str], tuple[list[EdgeRow], list[tuple]]] = {}
    edges, unresolved = result.edges, result.unresolved
    for call in fx.calls:
        site = (call.scope, call.callee)
        known = done.get(site)
        if known is _NOTHING:
            continue
        if known is not None:
            line = call.line
            edges += [EdgeRow(e.rel, e.src, e.src_table, e.dst, e.dst_table, line,
                              e.resolution, e.confidence, e.name) for e in known[0]]
            unresolved += [(*u[:3], line, u[4]) for u in known[1]]
            continue
        first_edge, first_unresolved = len(edges), len(unresolved)
        if not call.callee:
            unresolved.append((path, call.scope, "", call.line, "dynamic"))
        elif call.callee.startswith(VALUE_PREFIX):
            _function_value(repo, path, call, index, result)
        else:
            _property_edges(repo, path, call, index, result)
            _call_edges(repo, path, call, index, result)
        done[site] = (edges[first_edge:], unresolved[first_unresolved:]) \
            if len(edges) > first_edge or len(unresolved) > first_unresolved else _NOTHING


def _call_edges(repo: str, path: str, call: CallRow, index: Index,
                result: ResolveResult) -> None:
    """The edge of one explicit or implicit call, then the other targets it may run."""
    target, method = index.expression(path, call.scope, call.callee)
    # a subclass overriding a class attribute the receiver is read through
    variants = index.variants(path, call.scope, call.callee, tests=is_test_file(path)) \
        if "." in call.callee else []
    # (a plain string finds its Resolution key: StrEnum members hash and compare as strings)
    confidence = RESOLUTION_CONFIDENCE.get(method, 0.0) if method else 0.0
    if isinstance(target, Instance):  # calling an instance runs its class's ``__call__``
        dunder, _ = index.class_member(target.path, target.cls, "__call__", instance=True)
        target = dunder if isinstance(dunder, Sym) else target
    if isinstance(target, Sym) and target.kind in VALUE_KINDS:
        target = None  # calling a variable: what it holds is not known here
    if call.callee.rsplit(".", 1)[-1] in IMPLICIT_DUNDERS and not isinstance(target, Sym) \
            and not variants:
        return  # ``with``/``for``/``x[k]``/operators on what the repository does not define
    if target is None or isinstance(target, (Module, Instance)):
        target, method = _guess(index, path, call.scope, call.callee)
        confidence = RESOLUTION_CONFIDENCE[method] if target is not None else 0.0
        if target is None and variants:  # only a subclass's class attribute says
            target, method, confidence = variants.pop(0), Resolution.INHERITANCE, \
                OVERRIDE_CONFIDENCE
        if target is None:
            result.unresolved.append((path, call.scope, call.callee, call.line, method))
            if is_test_file(path):
                _candidate_edges(repo, path, call, index, result, method)
            return
    dst = destination(repo, target, result, providers=index.providers, symbol_only=True)
    if dst is None:
        return
    if isinstance(target, External) and dst[1] != EXTERNAL.name:
        method = Resolution.IMPORT  # into another repository of the graph
        confidence = RESOLUTION_CONFIDENCE[Resolution.IMPORT]
    src = symbol_id(repo, path, call.scope or MODULE_QUALNAME)
    edges = [EdgeRow(CALLS.name, src, SYMBOL.name, dst[0], dst[1], call.line, method,
                     confidence)]
    if isinstance(target, Sym):
        edges += [EdgeRow(CALLS.name, src, SYMBOL.name, symbol_id(repo, sym.path, sym.qualname),
                          SYMBOL.name, call.line, how, weight)
                  for sym, how, weight in _also_run(path, call, target, method, confidence,
                                                    index)]
    edges += [EdgeRow(CALLS.name, src, SYMBOL.name, symbol_id(repo, alt.path, alt.qualname),
                      SYMBOL.name, call.line, Resolution.INHERITANCE, OVERRIDE_CONFIDENCE)
              for alt in variants]
    result.edges += edges


def _also_run(path: str, call: CallRow, target: Sym, method: str, confidence: float,
              index: Index) -> list[tuple[Sym, str, float]]:
    """The other definitions a call resolved to ``target`` may run: the same-scope
    definitions of the name, overrides in subclasses (through an instance), each branch's
    first definer of ``super().m`` with several bases, and a function a conditional import
    binds beside it."""
    out = [(Sym(target.path, qualname, target.kind), method, confidence)
           for qualname in index.siblings(target)]
    if "." in call.callee and not call.callee.startswith("super(") and \
            not index.exact_receiver(path, call.scope, call.callee):
        # through an instance of a class or a subclass: any override may be what runs
        out += [(sub, Resolution.INHERITANCE, OVERRIDE_CONFIDENCE)
                for sub in index.overrides(target, tests=is_test_file(path))]
    if call.callee.startswith("super(") and call.callee.count(".") == 1:
        out += [(base, Resolution.INHERITANCE, RESOLUTION_CONFIDENCE[Resolution.INHERITANCE])
                for base in index.super_candidates(path, call.scope, call.callee)[1:]]
    other = index.shadowed_import(target)
    if other is not None:
        out.append((other, Resolution.IMPORT, RESOLUTION_CONFIDENCE[Resolution.IMPORT]))
    return out


def _candidate_edges(repo: str, path: str, call: CallRow, index: Index,
                     result: ResolveResult, reason: str) -> None:
    """Test code calling ``x.m()`` on a receiver of unknown type, where several repository
    methods are named ``m``: a CALLS edge (resolution ``candidate``) to each, up to
    :data:`MAX_CANDIDATES`. A test is a leaf of impact, so a wrong candidate selects only
    that test; library code gets none (its edges would spread)."""
    parts = call.callee.split(".")
    if reason not in ("ambiguous", "external-base") or len(parts) < 2 or \
            parts[0].startswith("super(") or (len(parts) == 2 and parts[0] in ("self", "cls")):
        return  # ``self.m()`` in a class with an outside base: the base's method, not a guess
    found = [c for c in index.by_name.get(parts[-1], []) if c.kind == "method"]
    if len(found) > MAX_CANDIDATES:
        return
    src = symbol_id(repo, path, call.scope or MODULE_QUALNAME)
    result.edges += [EdgeRow(CALLS.name, src, SYMBOL.name, symbol_id(repo, c.path, c.qualname),
                             SYMBOL.name, call.line, Resolution.CANDIDATE,
                             RESOLUTION_CONFIDENCE[Resolution.CANDIDATE]) for c in found]


def _function_value(repo: str, path: str, call: CallRow, index: Index,
                    result: ResolveResult) -> None:
    """A function used as a value (an argument, as in ``functools.partial(f)`` or a callback
    registered, or stored in a dict, list or attribute) is called later by whoever holds it:
    a CALLS edge (resolution ``value``) from the scope that hands it on, when the name is a
    repository function (never a guess, and nothing recorded as unresolved: most such names
    are data). Module-level code handing one on does not run it at import time."""
    name = call.callee[len(VALUE_PREFIX):]
    if "." not in name and name in index.parameter_names(path, call.scope) and \
            name not in index.ns.get((path, call.scope), ()):
        return  # a parameter handed on: what a caller passes, not known here
    target, method = index.expression(path, call.scope, name)
    _property_edges(repo, path, call, index, result, VALUE_PREFIX)
    if not isinstance(target, Sym) or target.kind not in CALLABLE_KINDS:
        return  # a class handed on is instantiated later (``partial(Signer, key)``)
    if not index.is_property(target):  # a property read runs now; the rest runs later
        method = Resolution.VALUE
    result.edges.append(EdgeRow(
        CALLS.name, symbol_id(repo, path, call.scope or MODULE_QUALNAME), SYMBOL.name,
        symbol_id(repo, target.path, target.qualname), SYMBOL.name, call.line, method,
        RESOLUTION_CONFIDENCE[method]))


def _property_edges(repo: str, path: str, call: CallRow, index: Index, result: ResolveResult,
                    prefix: str = "") -> None:
    """A property read on the way to the callee (``self.prop.m()``, ``for x in self.prop``,
    ``f(self.prop.x)``) calls its getter, and through an instance any override of it."""
    if call.callee.count(".") < 2:
        return  # ``a.m``: no attribute read before the last part
    reads = index.property_reads(path, call.scope, call.callee[len(prefix):])
    if not reads:
        return
    src = symbol_id(repo, path, call.scope or MODULE_QUALNAME)
    for getter, method in reads:
        result.edges.append(EdgeRow(
            CALLS.name, src, SYMBOL.name, symbol_id(repo, getter.path, getter.qualname),
            SYMBOL.name, call.line, method, RESOLUTION_CONFIDENCE[method],
            PROPERTY_READ))
        for sub in index.overrides(getter, tests=is_test_file(path)):
            result.edges.append(EdgeRow(
                CALLS.name, src, SYMBOL.name, symbol_id(repo, sub.path, sub.qualname),
                SYMBOL.name, call.line, Resolution.INHERITANCE, OVERRIDE_CONFIDENCE,
                PROPERTY_READ))


def fixture_edges(repo: str, path: str, fx: FileExtract, index: Index,
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


def _guess(index: Index, path: str, scope: str, callee: str) -> tuple[Target | None, str]:
    """Name-only fallback: the last name, when exactly one repository callable has it.

    Not taken when the head is known (``self`` of a class whose bases leave the repository,
    an External module): the callee then lies outside what the repository defines.
    """
    head, _, _ = callee.partition(".")
    name = callee.rsplit(".", 1)[-1]
    if "." in callee and name in BUILTIN_METHODS:
        return None, "builtin-method"
    if head in ("self", "cls") or head.startswith("super("):
        return None, "external-base"
    if "." in callee:
        target, _ = index.lookup_name(path, scope, head)
        if isinstance(target, External):
            return None, "external"
    elif index.is_bound(path, scope, head):
        return None, "bound-unresolved"  # ``append = out.append; append(x)``: not a guess
    candidates = index.by_name.get(name, [])
    if not is_test_file(path):  # library code never calls into a test helper
        candidates = [c for c in candidates if not is_test_file(c.path)]
    if "." not in callee:  # a bare name never calls a method
        candidates = [c for c in candidates if c.kind != "method"]
    if len(candidates) == 1 and candidates[0].kind in CALLABLE_KINDS:
        return candidates[0], Resolution.NAME_ONLY
    return None, "ambiguous" if candidates else "unknown"

