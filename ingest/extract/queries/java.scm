; Java: types (nested as Outer.Inner), methods and constructors, fields (static final and
; interface fields are constants), enum constants, imports, method invocations and `new`
; expressions, extends/implements. Tests: methods annotated @Test & co.; every class of a test
; file (the spec's rule).

(package_declaration [(scoped_identifier) (identifier)] @package)

[(class_declaration name: (_) @name) (record_declaration name: (_) @name)] @definition.class
[(interface_declaration name: (_) @name)
 (annotation_type_declaration name: (_) @name)] @definition.interface
(enum_declaration name: (_) @name) @definition.enum
[(method_declaration name: (_) @name)
 (constructor_declaration name: (_) @name)
 (compact_constructor_declaration name: (_) @name)] @definition.method
(enum_constant name: (_) @name) @definition.constant

; Constants come first: the earlier pattern's kind wins on the same declaration.
(interface_body
  [(constant_declaration declarator: (variable_declarator name: (_) @name.each))
   (field_declaration declarator: (variable_declarator name: (_) @name.each))] @definition.constant)
(annotation_type_body
  [(constant_declaration declarator: (variable_declarator name: (_) @name.each))
   (field_declaration declarator: (variable_declarator name: (_) @name.each))] @definition.constant)
((field_declaration (modifiers "static" "final")
   declarator: (variable_declarator name: (_) @name.each)) @definition.constant)
((field_declaration (modifiers "final" "static")
   declarator: (variable_declarator name: (_) @name.each)) @definition.constant)
[(field_declaration declarator: (variable_declarator name: (_) @name.each))
 (constant_declaration declarator: (variable_declarator name: (_) @name.each))] @definition.variable

([(method_declaration (modifiers [
    (marker_annotation name: [(identifier) @_a (scoped_identifier name: (_) @_a)])
    (annotation name: [(identifier) @_a (scoped_identifier name: (_) @_a)])]))]
  @test
  (#any-of? @_a "Test" "ParameterizedTest" "RepeatedTest" "TestFactory" "TestTemplate"))

((import_declaration [(scoped_identifier) (identifier)] @import.module) @import
  (#not-match? @import "^import\\s+static"))
((import_declaration "static" (scoped_identifier scope: (_) @import.module name: (_) @import.name))
  @import (#not-match? @import "\\*"))
(import_declaration [(scoped_identifier) (identifier)] @import.module (asterisk) @import.wildcard)
  @import

(method_invocation object: (_)? @callee.receiver name: (identifier) @callee.method) @call
(object_creation_expression type: (_) @callee) @call

(superclass (_) @inherit.base)
(interface_declaration (extends_interfaces (type_list (_) @inherit.base)))
[(class_declaration (super_interfaces (type_list (_) @implements.base)))
 (enum_declaration (super_interfaces (type_list (_) @implements.base)))
 (record_declaration (super_interfaces (type_list (_) @implements.base)))]
