; Bash: functions; `source` / `.` of a file (a path after "$(dirname ...)" or "${BASH_SOURCE
; ...}" is relative to the script); every other command is a call of its name (functions of the
; script and of sourced files resolve; programs stay unresolved). No inheritance in Bash.
; Functions named test_* are tests (shunit2 and bash_unit conventions).

(function_definition name: (word) @name) @definition.function

(command
  name: (command_name (word) @_s)
  argument: [(word) @import.module (string . (string_content) @import.module) (raw_string) @import.module]
  (#any-of? @_s "source" ".")) @import
(command
  name: (command_name (word) @_s)
  argument: (string [(command_substitution) (expansion)] . (string_content) @import.module)
  (#any-of? @_s "source" ".")) @import @import.relative

(command
  name: (command_name (word) @callee)
  (#not-match? @callee "^(source|\\.)$")) @call
