; TypeScript and TSX (after ecmascript.scm): abstract classes, interfaces and type aliases,
; enums, interface methods, class fields holding functions, extends/implements.

(abstract_class_declaration name: (_) @name) @definition.class
[(interface_declaration name: (_) @name)
 (type_alias_declaration name: (_) @name)] @definition.interface
(enum_declaration name: (_) @name) @definition.enum
(abstract_method_signature name: (_) @name) @definition.method
(interface_body (method_signature name: (_) @name) @definition.method)
(public_field_definition name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

(class_heritage (extends_clause value: (_) @inherit.base))
(class_heritage (implements_clause (_) @implements.base))
(extends_type_clause (_) @inherit.base)
