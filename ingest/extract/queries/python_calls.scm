; Python, call sites: every call (``@callee``, its called expression), and the calls the syntax
; makes without parentheses: ``@deco`` (called by the enclosing scope when the definition
; runs), ``with x`` (``__enter__``/``__exit__``), ``for a in x`` (``__iter__``), ``x[k]``
; (``__getitem__``), binary operators on a named receiver, and a name used as a value
; (``@value``: passed on, stored, returned; an attribute compared or asserted is read, so a
; property's getter runs) unless it is a base or metaclass (``@value.base``).

(call function: (_) @callee)
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
(return_statement [(identifier) (attribute)] @value)
(if_statement condition: (attribute) @value)
(elif_clause condition: (attribute) @value)
(while_statement condition: (attribute) @value)
(boolean_operator (attribute) @value)
(conditional_expression (attribute) @value)
(comparison_operator (attribute) @value)
(not_operator argument: (attribute) @value)
(assert_statement (attribute) @value)
(class_definition superclasses: (argument_list [(identifier) (attribute)] @value.base))
(class_definition superclasses: (argument_list
  (keyword_argument value: [(identifier) (attribute)] @value.base)))
