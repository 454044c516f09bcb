; Kotlin: classes, interfaces, objects, functions (methods inside types, companion objects
; included); imports (aliased and wildcard); calls; supertypes: a supertype called as a
; constructor is the superclass (extends), the others are interfaces (implements); @Test
; functions are tests.

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration "class" name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function

(function_declaration
  (modifiers (annotation (user_type (identifier) @_a)))
  (#eq? @_a "Test")) @test

(delegation_specifier (constructor_invocation (user_type) @inherit.base))
(delegation_specifier (user_type) @implements.base)

(import (qualified_identifier) @import.module) @import
(import (qualified_identifier) @import.module (identifier) @import.alias) @import
(import (qualified_identifier) @import.module "*" @import.wildcard) @import

(package_header (qualified_identifier) @package)

(call_expression . (_) @callee) @call
