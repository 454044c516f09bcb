; JavaScript, TypeScript and TSX: the patterns the grammars share (javascript.scm and
; typescript.scm add their own). Functions, classes, methods, functions and classes bound to a
; name anywhere, other values bound at module level; imports (rows built by the spec's import
; hook: clauses, re-exports, require); calls and `new`; extends. Tests: every function and
; method of a test file (the spec's rule).

[(function_declaration name: (_) @name)
 (generator_function_declaration name: (_) @name)] @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method

; A declarator's kind: the pattern written first wins on the same node.
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
((program (lexical_declaration "const" (variable_declarator name: (identifier) @name)
   @definition.constant)) (#match? @name "^[^a-z]*[A-Z][^a-z]*$"))
((program (export_statement (lexical_declaration "const"
   (variable_declarator name: (identifier) @name) @definition.constant)))
  (#match? @name "^[^a-z]*[A-Z][^a-z]*$"))
(program [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
          (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)])
(program (export_statement [
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)]))

[(import_statement) (export_statement source: (_))] @import.hook
((call_expression function: (identifier) @_r arguments: (arguments . (string) .))
  @import.hook @not_call (#eq? @_r "require"))
(call_expression function: (import)) @not_call

(call_expression function: (_) @callee) @call
(new_expression constructor: (_) @callee) @call
