"""Rows of the Python statements the query ``queries/python.scm`` captures.

The query finds every definition, import, assignment and binding statement; this module visits
them in source order (one sort of the captures) with a stack of the open definitions, which
gives each its scope, its kind (a function directly in a class is a method) and its ordinal
suffix (``f~2``, decided when the definition is met, so nested rows carry their parent's final
qualname). The work is per captured statement, never per node of the tree.

A tree with syntax errors needs one more rule: a statement counts only where a reader of
well-formed statements reaches it (not inside an ``ERROR`` node, not in a block of a nameless
``def``), checked by :func:`reached` through the statement's ancestors, for those files only.
"""

from __future__ import annotations

import inspect
import re
from pathlib import PurePosixPath

import tree_sitter as ts

from ingest.extract.common import node_text
from ingest.extract.python_names import annotated, dotted, typed
from ingest.extract.python_returns import returns_by_function, walked_returns
from ingest.extract.rows import AssignRow, ImportRow, InheritRow, SymbolRow

__all__ = ["StatementRows", "docstring", "is_test_path", "reached"]

_WS = re.compile(r"\s+")
_CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
#: Statements whose blocks may hold definitions (if/try/with/loops at any level).
_COMPOUND = frozenset({
    "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
    "except_group_clause", "finally_clause", "with_statement", "for_statement",
    "while_statement", "match_statement", "case_clause", "block",
})
_DEFINITIONS = frozenset({"function_definition", "class_definition"})
_DOC_LIMIT = 4000
_SIG_LIMIT = 300
#: capture name -> rank among captures that start at the same byte (none do; a tie-breaker)
_STATEMENTS = ("definition", "import", "import.from", "assignment", "binding", "loop",
               "narrowing", "narrowing.assert")
#: decorators making a method a getter read as an attribute
_GETTERS = frozenset({"property", "cached_property"})


def is_test_path(path: str) -> bool:
    """pytest's default discovery: ``test_*.py`` / ``*_test.py``, or a file under tests/."""
    p = PurePosixPath(path)
    name = p.name
    return (name.startswith("test_") or name.endswith("_test.py")
            or any(part in ("tests", "test", "testing") for part in p.parts[:-1]))


def reached(node: ts.Node, how: str, seen: dict[tuple[int, str], bool]) -> bool:
    """Whether a reader that walks statements from the module down reaches ``node``: as a
    statement (``how`` ``"S"``), a block whose statements it reads (``"B"``) or a definition
    (``"D"``). Only trees with syntax errors need asking (``seen`` memoises per file)."""
    key = (node.id, how)
    if key not in seen:
        seen[key] = _reached(node, how, seen)
    return seen[key]


def _reached(node: ts.Node, how: str, seen: dict[tuple[int, str], bool]) -> bool:
    parent = node.parent
    if how == "D":
        if parent is not None and parent.type == "decorated_definition":
            inner = parent.child_by_field_name("definition")
            return inner is not None and inner.id == node.id and reached(parent, "S", seen)
        return reached(node, "S", seen)
    if parent is None:
        return how == "B"  # the module
    if how == "S":
        return reached(parent, "B", seen) or (
            node.type in _COMPOUND and node.type != "block" and parent.type in _COMPOUND
            and reached(parent, "S", seen))
    if parent.type in _DEFINITIONS:  # a definition's body, when it has a name
        body = parent.child_by_field_name("body")
        return body is not None and body.id == node.id \
            and bool(node_text(parent.child_by_field_name("name"))) \
            and reached(parent, "D", seen)
    return node.type == "block" and parent.type in _COMPOUND and reached(parent, "S", seen)


class StatementRows:
    """Symbols, imports, bases and bindings of one module's captured statements."""

    def __init__(self, data: bytes, path: str, *, symbols_only: bool = False) -> None:
        self.data = data
        self.test_file = is_test_path(path)
        #: pytest may inject fixtures into this file's functions (tests, fixtures)
        self.fixture_users = self.test_file or PurePosixPath(path).name == "conftest.py"
        self.symbols_only = symbols_only
        self.symbols: list[SymbolRow] = []
        self.imports: list[ImportRow] = []
        self.inherits: list[InheritRow] = []
        self.assigns: list[AssignRow] = []
        #: (start_byte, end_byte, qualname) of every function/class, for the call sweep
        self.spans: list[tuple[int, int, str]] = []
        self._seen: dict[str, int] = {}
        #: what each unannotated function returns, by its start byte
        #: (:func:`returns_by_function`), or None to walk its body (a tree with errors)
        self.returned: dict[int, list[tuple[str, str]]] | None = None

    def read(self, root: ts.Node, captures: dict[str, list[ts.Node]]) -> None:
        """Visit the captured statements in source order, each in its innermost definition."""
        outer_of = {}
        for outer in captures.get("decorated", ()):
            inner = outer.child_by_field_name("definition")
            if inner is not None:
                outer_of[inner.start_byte] = outer
        wanted = ("definition", "assignment") if self.symbols_only else _STATEMENTS
        events = [(node.start_byte, rank, i, node)
                  for rank, cap in enumerate(_STATEMENTS) if cap in wanted
                  for i, node in enumerate(captures.get(cap, ()))]
        events.sort()  # (start, rank, index) is unique: the nodes are never compared
        checked: dict[tuple[int, str], bool] | None = {} if root.has_error else None
        if checked is None and not self.symbols_only:
            self.returned = returns_by_function(captures)
        stack: list[tuple[int, str, str]] = []  # (end byte, qualname, scope kind)
        for start, rank, _, node in events:
            while stack and stack[-1][0] <= start:
                stack.pop()
            if checked is not None and not reached(
                    node.parent if rank == 3 else node, "D" if rank == 0 else "S", checked):
                continue
            scope, scope_kind = (stack[-1][1], stack[-1][2]) if stack else ("", "module")
            if rank == 0:
                opened = self.definition(node, scope, scope_kind,
                                         outer_of.get(node.start_byte, node))
                if opened is not None:
                    stack.append((node.end_byte, opened[0], opened[1]))
            elif rank == 1:
                self.import_statement(node, scope)
            elif rank == 2:
                self.import_from(node, scope)
            elif rank == 3:
                self.assignment(node, scope, scope_kind)
            elif rank == 4:
                self.as_targets(node, scope)
            elif rank == 5:
                self.loop_target(node, scope)
            elif rank == 6:
                self.narrowing(node.child_by_field_name("condition"), scope)
            else:
                for child in node.named_children[:1]:
                    self.narrowing(child, scope)

    def unique(self, qualname: str) -> str:
        """Ordinal suffix for a repeated qualname (``f~2``)."""
        n = self._seen.get(qualname, 0) + 1
        self._seen[qualname] = n
        return qualname if n == 1 else f"{qualname}~{n}"

    def definition(self, node: ts.Node, scope: str, scope_kind: str,
                   outer: ts.Node) -> tuple[str, str] | None:
        """Rows of a ``def``/``class``; (qualname, scope kind of its body), or None when it
        has no name (a broken tree), whose body is then not read."""
        name = node_text(node.child_by_field_name("name"))
        if not name:
            return None
        qualname = self.unique(f"{scope}.{name}" if scope else name)
        is_class = node.type == "class_definition"
        kind = "class" if is_class else "method" if scope_kind == "class" else "function"
        body = node.child_by_field_name("body")
        self.symbols.append(SymbolRow(
            qualname=qualname, name=name, kind=kind,
            start_line=outer.start_point[0] + 1, end_line=node.end_point[0] + 1,
            parent=scope, signature=self.signature(node, body), docstring=docstring(body),
            visibility=_visibility(name), is_test=self._is_test(name, kind),
        ))
        # from ``def``/``class``, not the decorators: their calls run in the enclosing scope;
        # a test's stay with it (``@given``, ``@pytest.mark.parametrize(cases())``: what the
        # test needs, and how property-based tests are recognised) as pytest selects per test
        test = self._is_test(name, "class" if is_class else "function")
        self.spans.append((outer.start_byte if test else node.start_byte, node.end_byte,
                           qualname))
        if not self.symbols_only:
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
        return qualname, kind if is_class else "function"

    def signature(self, node: ts.Node, body: ts.Node | None) -> str:
        """The header up to the body, on one line (a slice of the file's bytes: the node's
        ``text`` would copy the whole body first)."""
        end = body.start_byte if body is not None else node.end_byte
        raw = self.data[node.start_byte:end].decode("utf-8", "replace")
        return _clip(_WS.sub(" ", raw).strip().rstrip(":").strip(), _SIG_LIMIT)

    def first_line(self, node: ts.Node) -> str:
        start, end = node.start_byte, node.end_byte
        newline = self.data.find(b"\n", start, end)
        return self.data[start:end if newline < 0 else newline].decode("utf-8", "replace")

    def _is_test(self, name: str, kind: str) -> bool:
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
        if outer is node and not self.fixture_users:
            return  # no decorator, and no parameter is a fixture here
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
        if not is_class and (is_fixture or self._is_test(name, "function")):
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
            if param.type == "default_parameter":  # ``policy=compat32``: what it holds
                # unless a caller passes another (``None`` and literals say nothing)
                name_node, value = (param.child_by_field_name("name"),
                                    param.child_by_field_name("value"))
                held = dotted(value) if value is not None and value.type in (
                    "identifier", "attribute") else ""
                if name_node is not None and name_node.type == "identifier" and held and \
                        held not in ("None", "True", "False"):
                    self.assigns.append(AssignRow(qualname, node_text(name_node), held,
                                                  param.start_point[0] + 1, "alias"))
                continue
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
        annotation = node.child_by_field_name("return_type")
        if annotation is None:  # unannotated: each ``return``
            line = node.start_point[0] + 1
            returned = walked_returns(node.child_by_field_name("body")) if self.returned is None \
                else self.returned.get(node.start_byte, ())
            for kind, value in returned:
                self.assigns.append(AssignRow(qualname, f"<{kind}>", value, line, kind))
            return
        found = annotated(annotation)
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
        if len(named) != 2 or not (named[0].type == "identifier" or (
                named[0].type == "attribute" and node_text(named[0]).startswith("self."))):
            return  # a name, or an attribute of ``self`` (``isinstance(self.x, C)``)
        classes = named[1].named_children if named[1].type == "tuple" else [named[1]]
        for cls in classes:
            if dotted(cls):
                self.assigns.append(AssignRow(scope, dotted(named[0]), dotted(cls),
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
        if left is None:
            return
        line = node.start_point[0] + 1
        left_type = left.type
        target = node_text(left) if left_type in ("identifier", "attribute") else ""
        if left_type == "identifier" and scope_kind != "function":
            name = target
            kind = "constant" if _CONSTANT.match(name) else "variable"
            qualname = self.unique(f"{scope}.{name}" if scope else name)
            self.symbols.append(SymbolRow(
                qualname=qualname, name=name, kind=kind, start_line=line,
                end_line=node.end_point[0] + 1, parent=scope,
                signature=_clip(self.first_line(node), _SIG_LIMIT),
                visibility=_visibility(name),
            ))
        if self.symbols_only or not target or (
                left_type == "attribute" and not target.startswith("self.")):
            return
        found_type = typed(node.child_by_field_name("type"))
        if found_type is not None:
            self.assigns.append(AssignRow(scope, target, found_type[1], line, found_type[0]))
            return
        right = node.child_by_field_name("right")
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

    def import_statement(self, node: ts.Node, scope: str) -> None:
        line = node.start_point[0] + 1
        for child in node.children_by_field_name("name"):
            module, alias = _name_and_alias(child)
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
            name, alias = _name_and_alias(child)
            if name:
                self.imports.append(ImportRow(module, name, alias, level, line, scope))


def _name_and_alias(child: ts.Node) -> tuple[str, str]:
    """(name, alias) of an imported name: ``a.b as c`` -> ('a.b', 'c'), ``a.b`` -> ('a.b', '')."""
    if child.type == "aliased_import":
        return (node_text(child.child_by_field_name("name")),
                node_text(child.child_by_field_name("alias")))
    return node_text(child), ""


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


def docstring(body: ts.Node | None) -> str:
    """The docstring of a module or a definition's body ('' when it has none)."""
    if body is None or not body.named_child_count:  # not ``named_children``: a body's
        return ""  # list of statements would be made only to read its first
    first = body.named_child(0)
    if first.type != "expression_statement" or not first.named_child_count:
        return ""
    string = first.named_child(0)
    if string.type != "string":
        return ""
    content = "".join(node_text(c) for c in string.named_children
                      if c.type == "string_content")
    return _clip(inspect.cleandoc(content), _DOC_LIMIT)
