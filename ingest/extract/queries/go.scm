; Go: functions, methods (owner = the receiver's type), named types (interfaces by shape, every
; other named type is the nominal type methods attach to: a struct), interface methods,
; package-level const/var, imports, calls, embedded fields and interfaces (extends).
; Tests: Test*/Benchmark*/Fuzz*/Example* functions in _test.go files (the spec's rule).

(package_clause (package_identifier) @package)

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list . (parameter_declaration
    type: [
      (type_identifier) @owner
      (qualified_type) @owner
      (generic_type type: (_) @owner)
      (pointer_type [(type_identifier) (qualified_type)] @owner)
      (pointer_type (generic_type type: (_) @owner))
    ]))?
  name: (field_identifier) @name) @definition.method

(method_elem name: (field_identifier) @name) @definition.method

; The interface pattern comes first: the earlier pattern's kind wins on the same node.
[
  (type_spec name: (type_identifier) @name type: (interface_type))
  (type_alias name: (type_identifier) @name type: (interface_type))
] @definition.interface
[
  (type_spec name: (type_identifier) @name)
  (type_alias name: (type_identifier) @name)
] @definition.struct

(source_file (const_declaration (const_spec name: (identifier) @name.each) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name.each) @definition.variable))
(source_file (var_declaration (var_spec_list
  (var_spec name: (identifier) @name.each) @definition.variable)))

(import_spec name: (_)? @import.alias path: (_) @import.module) @import

(call_expression function: (_) @callee) @call

(type_spec type: (struct_type (field_declaration_list (field_declaration !name
  type: [
    (type_identifier) @inherit.base
    (qualified_type) @inherit.base
    (generic_type type: (_) @inherit.base)
    (pointer_type [(type_identifier) (qualified_type)] @inherit.base)
    (pointer_type (generic_type type: (_) @inherit.base))
  ]))))
(type_spec type: (interface_type (type_elem . [(type_identifier) (qualified_type)] @inherit.base .)))
(type_spec type: (interface_type (type_elem . (generic_type type: (_) @inherit.base) .)))
