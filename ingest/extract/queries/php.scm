; PHP: classes, interfaces, traits, enums, methods, functions; `use` imports and
; require/include of a file; function, method, static and `new` calls; extends, implements and
; trait `use` (recorded as implements). PHPUnit's test* methods in *Test.php files are tests
; (the spec's name rule), and so are methods with a #[Test] attribute.

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function

(method_declaration
  attributes: (attribute_list (attribute_group (attribute (name) @_a)))
  (#eq? @_a "Test")) @test

(base_clause [(name) (qualified_name)] @inherit.base)
(class_interface_clause [(name) (qualified_name)] @implements.base)
(use_declaration [(name) (qualified_name)] @implements.base)

(namespace_use_clause [(qualified_name) (name)] @import.module alias: (name) @import.alias) @import
(namespace_use_clause [(qualified_name) (name)] @import.module !alias) @import
(require_expression
  [(string (string_content) @import.module)
   (encapsed_string (string_content) @import.module)]) @import
(require_expression
  (binary_expression
    left: (name) @_dir
    right: [(string (string_content) @import.module)
            (encapsed_string (string_content) @import.module)])
  (#eq? @_dir "__DIR__")) @import @import.relative
(require_once_expression
  [(string (string_content) @import.module)
   (encapsed_string (string_content) @import.module)]) @import
(require_once_expression
  (binary_expression
    left: (name) @_dir
    right: [(string (string_content) @import.module)
            (encapsed_string (string_content) @import.module)])
  (#eq? @_dir "__DIR__")) @import @import.relative
(include_expression
  [(string (string_content) @import.module)
   (encapsed_string (string_content) @import.module)]) @import
(include_expression
  (binary_expression
    left: (name) @_dir
    right: [(string (string_content) @import.module)
            (encapsed_string (string_content) @import.module)])
  (#eq? @_dir "__DIR__")) @import @import.relative
(include_once_expression
  [(string (string_content) @import.module)
   (encapsed_string (string_content) @import.module)]) @import
(include_once_expression
  (binary_expression
    left: (name) @_dir
    right: [(string (string_content) @import.module)
            (encapsed_string (string_content) @import.module)])
  (#eq? @_dir "__DIR__")) @import @import.relative

(namespace_definition name: (_) @package)

(function_call_expression function: (_) @callee) @call
(member_call_expression object: (_) @callee.receiver name: (_) @callee.method) @call
(nullsafe_member_call_expression object: (_) @callee.receiver name: (_) @callee.method) @call
(scoped_call_expression scope: (_) @callee.receiver name: (_) @callee.method) @call
(object_creation_expression [(name) (qualified_name)] @callee) @call
