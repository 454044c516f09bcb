; Python, what functions return: every ``return`` statement, and the ``yield`` statements of
; a function's body (a fixture's value); ingest/extract/python_returns.py's
; ``returns_by_function`` gives each to the function it returns from.

(return_statement) @return
(function_definition body: (block (expression_statement (yield)) @return.yield))
