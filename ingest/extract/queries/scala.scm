; Scala: classes, case classes, objects, traits, enums, defs (declared or defined); imports
; (selectors, renames and wildcards); calls and `new`; `extends` and `with`; ScalaTest/munit
; test("name") { ... } blocks and test* defs are tests.

(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(call_expression
  function: (call_expression
    function: (identifier) @_t
    arguments: (arguments . (string) @name))
  (#any-of? @_t "test" "it")) @definition.test

(extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @inherit.base)

(import_declaration (identifier) @import.segment) @import  ; `path:` matches only its first node
(import_declaration
  (namespace_selectors [
    (identifier) @import.name
    (arrow_renamed_identifier name: (_) @import.name alias: (_) @import.alias)
  ])) @import
(import_declaration (namespace_wildcard) @import.wildcard) @import

(package_clause name: (_) @package)

(call_expression function: (_) @callee) @call
(instance_expression (type_identifier) @callee) @call
