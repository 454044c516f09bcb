; Python, statements: definitions (a decorated one starts at its first decorator), imports,
; assignments and the statements that bind a name (``except E as e``, ``with C() as c``,
; ``for x in f()``) or narrow its type (``if``/``elif``/``while``/``assert isinstance(x, C)``). Their scope, kind (method: directly in a class) and ordinal suffixes come
; from the spans; ingest/extract/python_rows.py turns each capture into rows.

(function_definition) @definition
(class_definition) @definition
(decorated_definition) @decorated
(import_statement) @import
(import_from_statement) @import.from
(expression_statement (assignment) @assignment)
(except_clause) @binding
(with_statement) @binding
(for_statement left: (identifier) right: (call)) @loop
(if_statement) @narrowing
(elif_clause) @narrowing
(while_statement) @narrowing
(assert_statement) @narrowing.assert
