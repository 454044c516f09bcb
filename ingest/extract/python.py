"""Python extractor: definitions, imports, calls, bases and simple bindings from one file.

Definitions and imports come from a walk over statements only (cheap: expressions are never
visited); call sites come from a tree-sitter query, and each is assigned to its innermost
enclosing definition by one sweep over the sorted definition spans.
"""

from __future__ import annotations

import inspect
import re
from pathlib import PurePosixPath

import tree_sitter as ts
import tree_sitter_python

from ingest.extract.common import (
    error_lines,
    node_text,
    parser_for,
    query_for,
)
from ingest.extract.python_names import annotated, callee_text, dotted, typed
from ingest.extract.rows import (
    AssignRow,
    CallRow,
    FileExtract,
    ImportRow,
    InheritRow,
    SymbolRow,
)

__all__ = ["IMPLICIT_DUNDERS", "VALUE_PREFIX", "extract", "is_test_path"]

_CALLS = "(call function: (_) @callee)"
#: Calls the syntax makes without parentheses: ``@deco`` (called by the enclosing scope when
#: the definition runs), ``with x`` (``__enter__``/``__exit__``), ``for a in x``
#: (``__iter__``), ``x[k]`` (``__getitem__``) and binary operators on a named receiver
_IMPLICIT = """
(decorator [(identifier) (attribute)] @decorator)
(with_item value: (as_pattern . [(identifier) (attribute) (call)] @with))
(with_item value: [(identifier) (attribute) (call)] @with)
(for_statement right: [(identifier) (attribute)] @iter)
(for_in_clause right: [(identifier) (attribute)] @iter)
(subscript value: [(identifier) (attribute)] @item)
(binary_operator left: [(identifier) (attribute)] @operand)
(argument_list [(identifier) (attribute)] @value)
(pair value: [(identifier) (attribute)] @value)
(list [(identifier) (attribute)] @value)
(tuple [(identifier) (attribute)] @value)
(assignment left: (attribute) right: [(identifier) (attribute)] @value)
(keyword_argument value: [(identifier) (attribute)] @value)
(return_statement (identifier) @value)
(comparison_operator (attribute) @value)
(not_operator argument: (attribute) @value)
(assert_statement (attribute) @value)
"""
#: (an attribute compared or asserted, ``assert result.output == "x"``, is read: a property's
#: getter runs)
#: the prefix of a function used as a value (``callee`` of a row the resolver keeps only
#: when it names a repository function: passing it on, storing it, registering a callback)
VALUE_PREFIX = "&"
_DUNDERS = {"with": ("__enter__", "__exit__"), "iter": ("__iter__",),
            "item": ("__getitem__",)}
_OPERATORS = {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__",
              "//": "__floordiv__", "%": "__mod__", "@": "__matmul__", "|": "__or__",
              "&": "__and__", "^": "__xor__", "<<": "__lshift__", ">>": "__rshift__",
              "**": "__pow__"}
#: the methods those calls name (the resolver keeps such a call only when it finds the method)
IMPLICIT_DUNDERS = frozenset(
    {n for names in _DUNDERS.values() for n in names} | set(_OPERATORS.values()))
_WS = re.compile(r"\s+")
_CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
#: Statements whose blocks may hold definitions (if/try/with/loops at any level).
_COMPOUND = frozenset({
    "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
    "except_group_clause", "finally_clause", "with_statement", "for_statement",
    "while_statement", "match_statement", "case_clause", "block",
})
_DOC_LIMIT = 4000
_SIG_LIMIT = 300


def is_test_path(path: str) -> bool:
    """pytest's default discovery: ``test_*.py`` / ``*_test.py``, or a file under tests/."""
    p = PurePosixPath(path)
    name = p.name
    return (name.startswith("test_") or name.endswith("_test.py")
            or any(part in ("tests", "test", "testing") for part in p.parts[:-1]))


class _Walker:
    """Collects rows while walking the statements of one module."""

    def __init__(self, path: str) -> None:
        self.test_file = is_test_path(path)
        #: pytest may inject fixtures into this file's functions (tests, fixtures)
        self.fixture_users = self.test_file or PurePosixPath(path).name == "conftest.py"
        self.symbols: list[SymbolRow] = []
        self.imports: list[ImportRow] = []
        self.inherits: list[InheritRow] = []
        self.assigns: list[AssignRow] = []
        #: (start_byte, end_byte, qualname) of every function/class, for the call sweep
        self.spans: list[tuple[int, int, str]] = []
        self._seen: dict[str, int] = {}

    def unique(self, qualname: str) -> str:
        """Ordinal suffix for a repeated qualname (``f~2``), decided when the definition is met,
        so nested rows always carry their parent's final qualname."""
        n = self._seen.get(qualname, 0) + 1
        self._seen[qualname] = n
        return qualname if n == 1 else f"{qualname}~{n}"

    # -- statements ---------------------------------------------------------------------
    def block(self, node: ts.Node, scope: str, scope_kind: str) -> None:
        for child in node.named_children:
            self.statement(child, scope, scope_kind)

    def statement(self, node: ts.Node, scope: str, scope_kind: str) -> None:
        kind = node.type
        if kind == "decorated_definition":
            inner = node.child_by_field_name("definition")
            if inner is not None:
                self.definition(inner, scope, scope_kind, outer=node)
        elif kind in ("function_definition", "class_definition"):
            self.definition(node, scope, scope_kind, outer=node)
        elif kind == "import_statement":
            self.import_statement(node, scope)
        elif kind == "import_from_statement":
            self.import_from(node, scope)
        elif kind == "expression_statement":
            for child in node.named_children:
                if child.type == "assignment":
                    self.assignment(child, scope, scope_kind)
        elif kind == "assert_statement":
            for child in node.named_children[:1]:
                self.narrowing(child, scope)
        elif kind in _COMPOUND:
            if kind in ("if_statement", "elif_clause", "while_statement"):
                self.narrowing(node.child_by_field_name("condition"), scope)
            if kind in ("except_clause", "with_statement"):
                self.as_targets(node, scope)
            elif kind == "for_statement":
                self.loop_target(node, scope)
            for child in node.named_children:
                if child.type == "block":
                    self.block(child, scope, scope_kind)
                elif child.type in _COMPOUND:
                    self.statement(child, scope, scope_kind)

    def definition(self, node: ts.Node, scope: str, scope_kind: str, outer: ts.Node) -> None:
        name = node_text(node.child_by_field_name("name"))
        if not name:
            return
        qualname = self.unique(f"{scope}.{name}" if scope else name)
        is_class = node.type == "class_definition"
        kind = "class" if is_class else "method" if scope_kind == "class" else "function"
        body = node.child_by_field_name("body")
        self.symbols.append(SymbolRow(
            qualname=qualname, name=name, kind=kind,
            start_line=outer.start_point[0] + 1, end_line=node.end_point[0] + 1,
            parent=scope, signature=_signature(node, body), docstring=_docstring(body),
            visibility=_visibility(name), is_test=self._is_test(name, kind, scope_kind, scope),
        ))
        # from ``def``/``class``, not the decorators: their calls run in the enclosing scope;
        # a test's stay with it (``@given``, ``@pytest.mark.parametrize(cases())``: what the
        # test needs, and how property-based tests are recognised) as pytest selects per test
        test = self._is_test(name, "class" if is_class else "function", scope_kind, scope)
        self.spans.append((outer.start_byte if test else node.start_byte, node.end_byte,
                           qualname))
        self.fixtures(node, outer, qualname, name, scope, is_class)
        if scope_kind == "class" and not is_class and _GETTERS & _decorators(outer):
            # a getter: reading ``x.name`` calls it (row ``property``: class, name, method)
            self.assigns.append(AssignRow(scope, name, qualname, outer.start_point[0] + 1,
                                          "property"))
        if is_class:
            self.bases(node, qualname)
        else:
            self.parameters(node, qualname)
            self.return_type(node, qualname)
        if body is not None:
            self.block(body, qualname, kind if is_class else "function")

    def _is_test(self, name: str, kind: str, scope_kind: str, scope: str) -> bool:
        if not self.test_file:
            return False
        if kind == "class":
            return name.startswith("Test")
        return name.startswith("test")

    def fixtures(self, node: ts.Node, outer: ts.Node, qualname: str, name: str, scope: str,
                 is_class: bool) -> None:
        """pytest fixtures: ``@pytest.fixture`` defines one (row kind ``fixture``: ``target``
        the fixture's name, ``value`` the function); a test's or fixture's parameters and
        ``@pytest.mark.usefixtures`` request them by name (kind ``fixture-use``)."""
        is_fixture, fixture_name, used, parametrized = False, name, [], set()
        decorators = [c for c in outer.named_children if c.type == "decorator"] \
            if outer.type == "decorated_definition" else []
        for dec in decorators:
            expr = dec.named_children[0] if dec.named_children else None
            if expr is None:
                continue
            call = expr if expr.type == "call" else None
            func = dotted(call.child_by_field_name("function") if call is not None else expr)
            positional, keywords = _string_args(call)
            if func in ("fixture", "pytest.fixture") or func.endswith("_asyncio.fixture"):
                is_fixture = not is_class
                fixture_name = keywords.get("name", [name])[0]
            elif func.endswith("mark.usefixtures"):
                used.extend(s for strings in positional for s in strings)
            elif func.endswith("mark.parametrize"):
                names = keywords.get("argnames", positional[0] if positional else [])
                parametrized.update(n.strip() for arg in names for n in arg.split(","))
        if is_fixture:
            self.assigns.append(AssignRow(scope, fixture_name, qualname,
                                          outer.start_point[0] + 1, "fixture"))
            returned = _returned_call(node.child_by_field_name("body"))
            if returned:  # ``return CliRunner()``: what the requesting tests get
                self.assigns.append(AssignRow(qualname, f"<return>.{fixture_name}", returned,
                                              outer.start_point[0] + 1, "returns"))
        if not self.fixture_users:
            return
        if not is_class and (is_fixture or self._is_test(name, "function", "", scope)):
            params = node.child_by_field_name("parameters")
            for param in params.named_children if params is not None else ():
                ident = param if param.type == "identifier" else (
                    param.named_children[0] if param.type == "typed_parameter"
                    and param.named_children else None)
                if ident is not None and ident.type == "identifier":
                    used.append(node_text(ident))
        line = outer.start_point[0] + 1
        for fixture in dict.fromkeys(used):
            if fixture not in ("self", "cls") and fixture not in parametrized:
                self.assigns.append(AssignRow(qualname, fixture, fixture, line, "fixture-use"))

    def bases(self, node: ts.Node, qualname: str) -> None:
        args = node.child_by_field_name("superclasses")
        if args is None:
            return
        for arg in args.named_children:
            if arg.type == "subscript":  # ``Base[str | bytes]``, ``Generic[T]``: the class
                arg = arg.child_by_field_name("value") or arg
            text = dotted(arg)
            if text:
                self.inherits.append(InheritRow(qualname, text, arg.start_point[0] + 1))

    def parameters(self, node: ts.Node, qualname: str) -> None:
        """``def f(x: Foo)`` binds x to an instance of Foo inside f."""
        params = node.child_by_field_name("parameters")
        if params is None:
            return
        for param in params.named_children:
            if param.type not in ("typed_parameter", "typed_default_parameter"):
                continue
            type_node = param.child_by_field_name("type")
            name_node = param.child_by_field_name("name") or (
                param.named_children[0] if param.named_children else None)
            if type_node is None or name_node is None or name_node.type != "identifier":
                continue
            found_type = typed(type_node)
            if found_type is not None:
                self.assigns.append(AssignRow(qualname, node_text(name_node), found_type[1],
                                              param.start_point[0] + 1, found_type[0]))

    def return_type(self, node: ts.Node, qualname: str) -> None:
        """``-> C`` / ``-> C | None`` / ``-> t.Optional[C]``: a call returns an instance of C
        (row ``returns``); ``-> list[C]`` / ``Iterator[C]`` ...: iterating it yields them
        (row ``returns-item``)."""
        found = annotated(node.child_by_field_name("return_type"))
        if node.child_by_field_name("return_type") is None:  # unannotated: ``return C(...)``
            returned = _returned_call(node.child_by_field_name("body"))
            found = ("returns", returned) if returned else None
        if found is not None and found[0] != "class":
            kind, cls = found
            self.assigns.append(AssignRow(qualname, f"<{kind}>", cls, node.start_point[0] + 1,
                                          kind))

    def narrowing(self, cond: ts.Node | None, scope: str) -> None:
        """``if isinstance(x, C)`` / ``assert isinstance(x, (C, D))`` (also under ``and``):
        x is a C or a D there (row ``narrow``, one per class)."""
        if cond is None:
            return
        if cond.type == "boolean_operator":
            for side in ("left", "right"):
                self.narrowing(cond.child_by_field_name(side), scope)
            return
        if cond.type != "call" or node_text(cond.child_by_field_name("function")) != \
                "isinstance":
            return
        args = cond.child_by_field_name("arguments")
        named = args.named_children if args is not None else []
        if len(named) != 2 or named[0].type != "identifier":
            return
        classes = named[1].named_children if named[1].type == "tuple" else [named[1]]
        for cls in classes:
            if dotted(cls):
                self.assigns.append(AssignRow(scope, node_text(named[0]), dotted(cls),
                                              cond.start_point[0] + 1, "narrow"))

    def loop_target(self, node: ts.Node, scope: str) -> None:
        """``for p in self.get_params():`` binds p to an item of what the call returns."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier" or right.type != "call":
            return
        func = dotted(right.child_by_field_name("function"))
        if func:
            self.assigns.append(AssignRow(scope, node_text(left), func,
                                          node.start_point[0] + 1, "item"))

    def as_targets(self, node: ts.Node, scope: str) -> None:
        """``except E as e`` binds e to an instance of E; ``with C(...) as c`` to one of C
        (``__enter__`` returning ``self``, the common case)."""
        items = [node] if node.type == "except_clause" else [
            item for clause in node.named_children if clause.type == "with_clause"
            for item in clause.named_children if item.type == "with_item"]
        for item in items:
            pattern = item.child_by_field_name("value")
            if pattern is None or pattern.type != "as_pattern" or not pattern.named_children:
                continue
            value, alias = pattern.named_children[0], pattern.child_by_field_name("alias")
            if node.type == "with_statement":
                value = value.child_by_field_name("function") if value.type == "call" else None
            name = alias.named_children[0] if alias is not None and alias.named_children \
                else None
            cls = dotted(value)
            if cls and name is not None and name.type == "identifier":
                self.assigns.append(AssignRow(scope, node_text(name), cls,
                                              item.start_point[0] + 1, "instance"))

    def assignment(self, node: ts.Node, scope: str, scope_kind: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        type_node = node.child_by_field_name("type")
        if left is None:
            return
        line = node.start_point[0] + 1
        target = node_text(left) if left.type in ("identifier", "attribute") else ""
        if left.type == "identifier" and scope_kind in ("module", "class"):
            name = target
            kind = "constant" if _CONSTANT.match(name) else "variable"
            qualname = self.unique(f"{scope}.{name}" if scope else name)
            self.symbols.append(SymbolRow(
                qualname=qualname, name=name, kind=kind, start_line=line,
                end_line=node.end_point[0] + 1, parent=scope,
                signature=_clip(node_text(node).split("\n", 1)[0], _SIG_LIMIT),
                visibility=_visibility(name),
            ))
        if not target or (left.type == "attribute" and not target.startswith("self.")):
            return
        found_type = typed(type_node)
        if found_type is not None:
            self.assigns.append(AssignRow(scope, target, found_type[1], line, found_type[0]))
            return
        if right is None:
            return
        if right.type == "call":
            value = dotted(right.child_by_field_name("function"))
            if value.rsplit(".", 1)[-1] == "cast":  # ``t.cast(C, x)``: an instance of C
                args = right.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children \
                    else None
                value = dotted(first) if first is not None and first.type in (
                    "identifier", "attribute") else ""
            if value:
                self.assigns.append(AssignRow(scope, target, value, line, "instance"))
        elif right.type in ("identifier", "attribute"):
            value = dotted(right)
            if value:
                self.assigns.append(AssignRow(scope, target, value, line, "alias"))

    # -- imports ------------------------------------------------------------------------
    def import_statement(self, node: ts.Node, scope: str) -> None:
        line = node.start_point[0] + 1
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                module = node_text(child.child_by_field_name("name"))
                alias = node_text(child.child_by_field_name("alias"))
            else:
                module, alias = node_text(child), ""
            if module:
                self.imports.append(ImportRow(module=module, alias=alias, line=line, scope=scope))

    def import_from(self, node: ts.Node, scope: str) -> None:
        line = node.start_point[0] + 1
        module_node = node.child_by_field_name("module_name")
        level, module = 0, ""
        if module_node is not None and module_node.type == "relative_import":
            for part in module_node.named_children:
                if part.type == "import_prefix":
                    level = node_text(part).count(".")
                elif part.type == "dotted_name":
                    module = node_text(part)
        else:
            module = node_text(module_node)
        names = node.children_by_field_name("name")
        if not names and any(c.type == "wildcard_import" for c in node.named_children):
            self.imports.append(ImportRow(module, "*", "", level, line, scope))
            return
        for child in names:
            if child.type == "aliased_import":
                name = node_text(child.child_by_field_name("name"))
                alias = node_text(child.child_by_field_name("alias"))
            else:
                name, alias = node_text(child), ""
            if name:
                self.imports.append(ImportRow(module, name, alias, level, line, scope))


#: decorators making a method a getter read as an attribute
_GETTERS = frozenset({"property", "cached_property"})


def _decorators(outer: ts.Node) -> set[str]:
    """The last names of a decorated definition's decorators (``functools.cached_property``
    -> ``cached_property``)."""
    if outer.type != "decorated_definition":
        return set()
    out = set()
    for dec in outer.named_children:
        expr = dec.named_children[0] if dec.type == "decorator" and dec.named_children else None
        if expr is not None and expr.type == "call":
            expr = expr.child_by_field_name("function")
        name = dotted(expr)
        if name:
            out.add(name.rsplit(".", 1)[-1])
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _returned_call(body: ts.Node | None) -> str:
    """``C`` when a statement of ``body`` itself (not a nested block) is ``return C(...)`` or
    ``yield C(...)``, else ''."""
    for stmt in body.named_children if body is not None else ():
        value = stmt.named_children[0] if stmt.named_children else None
        if stmt.type == "expression_statement" and value is not None and value.type == "yield":
            value = value.named_children[0] if value.named_children else None
        elif stmt.type != "return_statement":
            continue
        if value is not None and value.type == "call":
            return dotted(value.child_by_field_name("function"))
    return ""


def _string_args(call: ts.Node | None) -> tuple[list[list[str]], dict[str, list[str]]]:
    """The strings of a decorator call's arguments, per positional argument and per keyword
    (a string gives itself, a list or tuple of strings all of them)."""
    positional: list[list[str]] = []
    keywords: dict[str, list[str]] = {}
    args = call.child_by_field_name("arguments") if call is not None else None
    for arg in args.named_children if args is not None else ():
        if arg.type == "keyword_argument":
            value = arg.child_by_field_name("value")
            strings = _strings(value)
            if strings:
                keywords[node_text(arg.child_by_field_name("name"))] = strings
        else:
            positional.append(_strings(arg))
    return positional, keywords


def _strings(node: ts.Node | None) -> list[str]:
    if node is None:
        return []
    if node.type == "string":
        return ["".join(node_text(c) for c in node.named_children
                        if c.type == "string_content")]
    if node.type in ("list", "tuple"):
        return [s for child in node.named_children for s in _strings(child)]
    return []


def _visibility(name: str) -> str:
    if name.startswith("__") and name.endswith("__"):
        return "public"
    return "private" if name.startswith("_") else "public"


def _signature(node: ts.Node, body: ts.Node | None) -> str:
    end = body.start_byte if body is not None else node.end_byte
    raw = node.text[: end - node.start_byte] if node.text is not None else b""
    return _clip(_WS.sub(" ", raw.decode("utf-8", "replace")).strip().rstrip(":").strip(),
                 _SIG_LIMIT)


def _docstring(body: ts.Node | None) -> str:
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or not first.named_children:
        return ""
    string = first.named_children[0]
    if string.type != "string":
        return ""
    content = "".join(node_text(c) for c in string.named_children
                      if c.type == "string_content")
    return _clip(inspect.cleandoc(content), _DOC_LIMIT)


def _calls(root: ts.Node, spans: list[tuple[int, int, str]]) -> list[CallRow]:
    """Every call site with its innermost enclosing definition, by a sweep over sorted spans."""
    cursor = ts.QueryCursor(query_for(tree_sitter_python.language, _CALLS))
    callees = [(n, callee_text(n)) for n in cursor.captures(root).get("callee", [])]
    callees += _implicit_calls(root)
    callees.sort(key=lambda c: (c[0].start_byte, c[0].end_byte))
    spans = sorted(spans, key=lambda s: (s[0], -s[1]))
    rows: list[CallRow] = []
    stack: list[tuple[int, int, str]] = []
    i = 0
    for callee, text in callees:
        pos = callee.start_byte
        while i < len(spans) and spans[i][0] <= pos:
            while stack and stack[-1][1] <= spans[i][0]:
                stack.pop()
            stack.append(spans[i])
            i += 1
        while stack and stack[-1][1] <= pos:
            stack.pop()
        scope = stack[-1][2] if stack else ""
        rows.append(CallRow(scope, text, callee.start_point[0] + 1))
    return rows


def _in_bases(node: ts.Node) -> bool:
    """``node`` is a base class or ``metaclass=`` of a class statement."""
    up = node.parent
    if up is not None and up.type == "keyword_argument":
        up = up.parent
    return up is not None and up.parent is not None and up.parent.type == "class_definition"


def _implicit_calls(root: ts.Node) -> list[tuple[ts.Node, str]]:
    """(receiver node, ``receiver.__dunder__``) for the calls :data:`_IMPLICIT` finds; a
    context manager built by ``C(...)`` is an instance of ``C``. The resolver keeps only
    those reaching a repository definition."""
    cursor = ts.QueryCursor(query_for(tree_sitter_python.language, _IMPLICIT))
    out: list[tuple[ts.Node, str]] = []
    for capture, nodes in cursor.captures(root).items():
        for node in nodes:
            if capture == "decorator":
                out.append((node, dotted(node)))
                continue
            if capture == "value":
                if dotted(node) and not _in_bases(node):
                    out.append((node, VALUE_PREFIX + dotted(node)))
                continue
            receiver = dotted(node.child_by_field_name("function")) \
                if node.type == "call" else dotted(node)
            if not receiver:
                continue
            if capture == "operand":
                op = node.parent.child_by_field_name("operator") if node.parent else None
                names: tuple[str, ...] = (_OPERATORS[node_text(op)],) \
                    if op is not None and node_text(op) in _OPERATORS else ()
            else:
                names = _DUNDERS[capture]
            out += [(node, f"{receiver}.{name}") for name in names]
    return out


def definitions(data: bytes, path: str, *, language: str = "python") -> list[SymbolRow]:
    """The definitions alone, as :func:`extract` finds them: history attribution needs
    symbol spans of many old revisions, and skipping call sites saves a quarter of the time."""
    walker = _Walker(path)
    walker.block(parser_for(tree_sitter_python.language).parse(data).root_node, "", "module")
    return walker.symbols


def extract(data: bytes, path: str, *, language: str = "python") -> FileExtract:
    """Rows for one Python file; syntax errors leave a partial tree that still yields rows."""
    tree = parser_for(tree_sitter_python.language).parse(data)
    root = tree.root_node
    walker = _Walker(path)
    walker.block(root, "", "module")
    calls = _calls(root, walker.spans)
    return FileExtract(
        language=language,
        symbols=walker.symbols,
        imports=walker.imports,
        calls=calls,
        inherits=walker.inherits,
        assigns=walker.assigns,
        error_lines=error_lines(root),
        loc=data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0),
        module_doc=_docstring(root),
    )
