"""What resolvers return: edges between deterministic ids, and the External nodes they need."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["EdgeRow", "ExternalRow", "ResolveResult"]


#: not ``frozen``: a frozen dataclass's ``__init__`` sets each field through
#: ``object.__setattr__`` (~1.5 µs an EdgeRow against ~0.3 µs), and the standard library makes
#: ~60K of them; hashable and compared by value all the same (``unsafe_hash``)
@dataclass(slots=True, unsafe_hash=True)
class EdgeRow:
    """One resolved edge. ``rel`` is a rel table name (schema.CALLS.name, ...); ``src``/``dst``
    are node ids and ``src_table``/``dst_table`` their node tables; ``resolution`` a
    schema.Resolution value (or for TESTS the method, for INHERITS 'extends'/'implements' is
    carried in ``name``)."""

    rel: str
    src: str
    src_table: str
    dst: str
    dst_table: str
    line: int
    resolution: str
    confidence: float
    name: str = ""


@dataclass(slots=True, unsafe_hash=True)
class ExternalRow:
    id: str
    name: str
    language: str
    package: str
    kind: str  # module | symbol | builtin


@dataclass(slots=True)
class ResolveResult:
    edges: list[EdgeRow] = field(default_factory=list)
    externals: dict[str, ExternalRow] = field(default_factory=dict)
    #: call sites that could not be resolved: (file path, scope, callee, line, reason)
    unresolved: list[tuple[str, str, str, int, str]] = field(default_factory=list)

    def external(self, language: str, name: str, kind: str = "symbol") -> str:
        """Id of the External for ``name`` (created on first use)."""
        from schema import external_id  # local: keeps this module import-light for workers

        eid = external_id(language, name)
        if eid not in self.externals:
            self.externals[eid] = ExternalRow(eid, name, language, _package(language, name),
                                              kind)
        return eid


def _package(language: str, name: str) -> str:
    """The package an external name belongs to: ``numpy`` for ``numpy.linalg.norm``,
    ``github.com/x/y`` for the Go ``github.com/x/y.Func``, ``@scope/pkg`` for npm."""
    if language == "go":
        head, _, last = name.rpartition("/")
        return f"{head}/{last.split('.', 1)[0]}" if head else last.split(".", 1)[0]
    if language in ("javascript", "typescript", "tsx"):
        parts = name.split("/")
        return "/".join(parts[:2]) if name.startswith("@") else parts[0].split(".", 1)[0]
    return name.split("::", 1)[0].split(".", 1)[0]
