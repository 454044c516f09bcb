; Python, statements: definitions (a decorated one starts at its first decorator), imports,
; assignments and the statements that bind a name (``except E as e``, ``with C() as c``,
; ``for x in f()``) or narrow its type (``if``/``elif``/``while``/``assert isinstance(x, C)``).
; Their scope, kind (method: directly in a class) and ordinal suffixes come from the spans;
; ingest/extract/python_rows.py turns each capture into rows. Only the statements that can
; give a row are captured: an assignment to a name or an attribute (``x[i] = ...`` and
; ``a, b = ...`` give none), a condition that is a call or ``and``/``or`` (``isinstance``).

(function_definition) @definition
(class_definition) @definition
(decorated_definition) @decorated
(import_statement) @import
(import_from_statement) @import.from
(expression_statement (assignment left: [(identifier) (attribute)]) @assignment)
(except_clause) @binding
(with_statement) @binding
(for_statement left: (identifier) right: (call)) @loop
(if_statement condition: [(call) (boolean_operator)]) @narrowing
(elif_clause condition: [(call) (boolean_operator)]) @narrowing
(while_statement condition: [(call) (boolean_operator)]) @narrowing
(assert_statement) @narrowing.assert
