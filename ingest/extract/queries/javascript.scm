; JavaScript only (after ecmascript.scm): class fields holding functions; `extends` expressions.

(field_definition property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

(class_heritage (_) @inherit.base)
