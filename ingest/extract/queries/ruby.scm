; Ruby: classes, modules, methods (def and def self.), RSpec/ActiveSupport `it`/`test` blocks;
; require / require_relative; calls (receiver.method); superclass and `include` mixins
; (recorded as implements). Minitest's test_* methods are tests by the spec's name rule.

(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list . (string (string_content) @name))
  block: [(do_block) (block)]
  (#any-of? @_m "it" "specify" "test")) @definition.test

(superclass (_) @inherit.base)
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list [(constant) (scope_resolution)] @implements.base)
  (#any-of? @_m "include" "prepend")) @_mixin

(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list . (string (string_content) @import.module))
  (#eq? @_m "require")) @import
(call
  !receiver
  method: (identifier) @_m
  arguments: (argument_list . (string (string_content) @import.module))
  (#eq? @_m "require_relative")) @import @import.relative

(call
  !receiver
  method: (identifier) @callee.method
  ; (#not-any-of? with several values does not filter in py-tree-sitter 0.26: a regex does)
  (#not-match? @callee.method
    "^(require|require_relative|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public|module_function|it|specify|test|describe|context)$")) @call
(call receiver: (_) @callee.receiver method: (_) @callee.method) @call
; a bare name standing as a statement is a call of a method without arguments (`save`)
((body_statement (identifier) @callee @call)
  (#not-match? @callee "^(private|protected|public|module_function)$"))
