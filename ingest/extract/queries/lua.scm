; Lua: functions (`function M.f`, `function M:m` are members of M); a table created at file
; level (`local M = {}`, `M = setmetatable(...)`) is a class, since Lua's classes and modules are
; tables; require (with the local it is bound to); calls; `setmetatable(t, { __index = Base })`
; is inheritance; busted's it("...", function() ... end) blocks and, in test files, test*
; functions (luaunit) are tests.

(function_declaration name: (_) @name) @definition.function
(chunk
  [(variable_declaration (assignment_statement
     (variable_list . name: (identifier) @name)
     (expression_list . value: [(table_constructor) (function_call name: (identifier) @_f)])))
   (assignment_statement
     (variable_list . name: (identifier) @name)
     (expression_list . value: [(table_constructor) (function_call name: (identifier) @_f)]))
  ] @definition.class
  (#eq? @_f "setmetatable"))
(chunk
  [(variable_declaration (assignment_statement
     (variable_list . name: (identifier) @name)
     (expression_list . value: (table_constructor))))
   (assignment_statement
     (variable_list . name: (identifier) @name)
     (expression_list . value: (table_constructor)))
  ] @definition.class)
(function_call
  name: (identifier) @_it
  arguments: (arguments . (string content: (string_content) @name) (function_definition))
  (#eq? @_it "it")) @definition.test

(function_call
  name: (identifier) @_f
  arguments: (arguments (_) (table_constructor
    (field name: (identifier) @_i value: [(identifier) (dot_index_expression)] @inherit.base)))
  (#eq? @_f "setmetatable")
  (#eq? @_i "__index"))

(function_call
  name: (identifier) @_r
  arguments: (arguments . (string content: (string_content) @import.module))
  (#eq? @_r "require")) @import
(assignment_statement
  (variable_list . name: (identifier) @import.alias)
  (expression_list . value: (function_call
    name: (identifier) @_r
    arguments: (arguments . (string content: (string_content) @import.module))) @import)
  (#eq? @_r "require"))

(function_call
  name: (_) @callee
  (#not-match? @callee "^(require|it|describe)$")) @call
