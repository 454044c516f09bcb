; C#: classes, records, structs, interfaces, enums, methods, constructors; using directives;
; invocations and `new`; base lists (names following the .NET convention I[A-Z]... are recorded
; as `implements`); tests are methods carrying a test attribute of NUnit, xUnit or MSTest, and
; classes carrying [TestFixture] / [TestClass].

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method

(method_declaration
  (attribute_list (attribute name: (_) @_attr))
  (#any-of? @_attr "Test" "Fact" "Theory" "TestMethod" "TestCase" "DataTestMethod")) @test
(class_declaration
  (attribute_list (attribute name: (_) @_attr))
  (#any-of? @_attr "TestFixture" "TestClass")) @test

(base_list
  [(identifier) (generic_name) (qualified_name)] @implements.base
  (#match? @implements.base "^([A-Za-z_.]+\\.)?I[A-Z]"))
(base_list
  [(identifier) (generic_name) (qualified_name)] @inherit.base
  (#not-match? @inherit.base "^([A-Za-z_.]+\\.)?I[A-Z]"))

(using_directive
  name: (identifier) @import.alias
  [(qualified_name) (identifier)] @import.module) @import
(using_directive
  !name
  [(qualified_name) (identifier)] @import.module) @import

(namespace_declaration name: (_) @package)
(file_scoped_namespace_declaration name: (_) @package)

(invocation_expression function: (_) @callee) @call
(object_creation_expression type: (_) @callee) @call
