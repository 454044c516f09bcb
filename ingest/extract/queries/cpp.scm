; C++: functions, methods (in the class body, or out of it as Type::name), classes, structs,
; unions, enums, #define constants; #include; calls and `new`; base classes. GoogleTest's
; TEST/TEST_F/TEST_P bodies are tests named Suite_Name; functions test_* in test files too.

(function_definition
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list
      (parameter_declaration type: (_) @name)
      (parameter_declaration type: (_) @name)))
  (#any-of? @_macro "TEST" "TEST_F" "TEST_P" "TYPED_TEST")) @definition.test

(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
  ]) @definition.function

(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(preproc_def name: (identifier) @name @definition.constant)

(base_class_clause
  [(type_identifier) (qualified_identifier) (template_type)] @inherit.base)

(preproc_include path: (_) @import.module) @import

(call_expression function: (_) @callee) @call
(new_expression type: (_) @callee) @call

(namespace_definition name: (_) @package)
