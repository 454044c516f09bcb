"""Names and types as the Python extractor reads them from tree-sitter nodes: dotted names
(``a.b.c``, ``super().m``), callees of chained calls (``a.make().sign``), and the class an
annotation names (``C``, ``C | None``, ``Optional[C]``, ``list[C]``, ``type[C]``)."""

from __future__ import annotations

import re

import tree_sitter as ts

from ingest.extract.common import node_text

__all__ = ["CONTAINERS", "annotated", "callee_text", "dotted", "typed"]

_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_SUPER = re.compile(r"^super\(\s*\)\.([A-Za-z_]\w*)$")
_WS = re.compile(r"\s+")


def dotted(node: ts.Node | None) -> str:
    """The node as ``a.b.c`` if it is a chain of identifiers (``super().m`` kept), else ''."""
    if node is None:
        return ""
    kind = node.type
    if kind not in ("identifier", "attribute", "call"):
        return ""
    raw = node.text  # once: each access copies the bytes
    text = "" if raw is None else raw.decode("utf-8", "replace")
    if text.isascii() and (text.isidentifier() if kind == "identifier"
                           else _identifiers(text)):  # the common case, without the patterns
        return text
    text = _WS.sub("", text)
    if _DOTTED.match(text) or _SUPER.match(text):
        return text
    return ""


def _identifiers(text: str) -> bool:
    """ASCII ``a.b.c``: what :data:`_DOTTED` matches in ASCII text without white space."""
    for part in text.split("."):  # noqa: SIM110 - a loop: no generator per call (hot path)
        if not part.isidentifier():
            return False
    return True


def callee_text(node: ts.Node) -> str:
    """A callee as the resolver reads it: ``a.b.c``, or a method of what a call returns
    written ``a.make().sign`` (``self.make_signer(salt).sign(x)``), else ''."""
    text = dotted(node)
    if text or node.type != "attribute":
        return text
    inner = node.child_by_field_name("object")
    attr = node.child_by_field_name("attribute")
    if inner is None or attr is None or inner.type != "call":
        return ""
    function = inner.child_by_field_name("function")
    head = callee_text(function) if function is not None else ""
    return f"{head}().{node_text(attr)}" if head else ""


#: subscripted typing forms that are not an instance of the class they name
_SPECIAL_FORMS = frozenset({"Union", "Callable", "Literal", "Annotated", "ClassVar", "Final",
                            "Dict", "Tuple", "Mapping", "MutableMapping", "DefaultDict",
                            "OrderedDict", "Counter", "ChainMap", "Type", "Optional",
                            "TypeGuard", "Concatenate", "Unpack", "Required", "NotRequired",
                            "Awaitable", "Coroutine", "AsyncGenerator", "ContextManager",
                            "AsyncContextManager", "Pattern", "Match", "IO"})

#: generic containers whose first argument is what iterating them yields
CONTAINERS = frozenset({"list", "List", "Iterable", "Iterator", "Sequence", "Generator",
                         "set", "Set", "frozenset", "FrozenSet", "Collection",
                         "AbstractSet", "MutableSequence", "AsyncIterator", "AsyncIterable"})


def typed(node: ts.Node | None) -> tuple[str, str] | None:
    """(``instance`` | ``alias``, class) a variable or parameter annotated ``C`` / ``C | None``
    / ``Optional[C]`` holds an instance of; ``type[C]`` holds the class itself."""
    found = annotated(node)
    if found is None or found[0] == "returns-item":
        return None
    return ("alias" if found[0] == "class" else "instance"), found[1]


def annotated(node: ts.Node | None) -> tuple[str, str] | None:
    """(``returns`` | ``returns-item`` | ``class``, class) an annotation names, if it names
    one (``class``: ``type[C]``, the class itself)."""
    if node is None:
        return None
    node = node.named_children[0] if node.type == "type" and node.named_children else node
    if node.type in ("identifier", "attribute"):
        cls = dotted(node)
        return ("returns", cls) if cls and cls != "None" else None
    if node.type == "union_type":  # C | None written in a parameter's annotation
        kinds = [c for c in node.named_children
                 if not (c.type == "type" and c.named_children
                         and c.named_children[0].type == "none")]
        return annotated(kinds[0]) if len(kinds) == 1 else None
    if node.type == "binary_operator":  # C | None
        right = node.child_by_field_name("right")
        if right is not None and node_text(right) == "None":
            return annotated(node.child_by_field_name("left"))
        return None
    if node.type == "generic_type" or node.type == "subscript":
        head = node.named_children[0] if node.named_children else None
        args = [c for c in node.named_children[1:]]
        if node.type == "generic_type" and args and args[0].type == "type_parameter":
            args = args[0].named_children
        cls = dotted(head) if head is not None else ""
        name = cls.rsplit(".", 1)[-1]
        first = annotated(args[0]) if args else None
        if first is not None and first[0] == "returns":
            if name == "Optional":
                return first
            if name in ("type", "Type"):  # the class itself, not an instance
                return "class", first[1]
            if name in CONTAINERS:
                return "returns-item", first[1]
        if name[:1].isupper() and name not in CONTAINERS and name not in _SPECIAL_FORMS:
            return "returns", cls  # ``ParamType[t.Any]``: an instance of a generic class
    return None
