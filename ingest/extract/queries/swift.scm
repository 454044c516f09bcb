; Swift: classes, structs, enums, actors, protocols, extensions (their members are the extended
; type's), functions, initialisers; imports; calls; inheritance: a class's listed types are
; recorded as extends (the grammar cannot tell the superclass from a protocol), a struct's,
; enum's or extension's as implements (protocol conformances). XCTest's test* methods in
; *Tests.swift files are tests (the spec's rule), and so are Swift Testing's @Test functions.

(class_declaration "class" name: (type_identifier) @name) @definition.class
(class_declaration "actor" name: (type_identifier) @name) @definition.class
(class_declaration "struct" name: (type_identifier) @name) @definition.struct
(class_declaration "enum" name: (type_identifier) @name) @definition.enum
(class_declaration "extension" name: (_) @name) @definition.extension
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method

(function_declaration
  (modifiers (attribute (user_type (type_identifier) @_a)))
  (#eq? @_a "Test")) @test

(class_declaration "class" (inheritance_specifier inherits_from: (_) @inherit.base))
(class_declaration ["struct" "enum" "extension" "actor"]
  (inheritance_specifier inherits_from: (_) @implements.base))
(protocol_declaration (inheritance_specifier inherits_from: (_) @inherit.base))

(import_declaration (identifier) @import.module) @import

(call_expression . (_) @callee) @call
