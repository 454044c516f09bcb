; Rust: items (fns, structs, enums, unions, traits, consts, statics), impl methods as
; Type.method (an impl only prefixes its members), inline `mod x { }` as a qualname prefix,
; `use` trees, `mod x;` and `extern crate` as imports (rows built by the spec's import hook),
; calls (macros are not call_expressions), `impl Trait for Type` and supertraits.
; Tests: functions under #[test], #[tokio::test] and the like.

[(function_item name: (_) @name) (function_signature_item name: (_) @name)] @definition.function
[(struct_item name: (_) @name) (union_item name: (_) @name)] @definition.struct
(enum_item name: (_) @name) @definition.enum
(trait_item name: (_) @name) @definition.trait
; `static mut` comes first: the earlier pattern's kind wins on the same item.
(static_item (mutable_specifier) name: (_) @name) @definition.variable
[(const_item name: (_) @name) (static_item name: (_) @name)] @definition.constant
(mod_item name: (_) @name body: (_)) @definition.namespace

(impl_item type: [
  (type_identifier) @name
  (scoped_type_identifier name: (_) @name)
  (generic_type type: [(type_identifier) @name (scoped_type_identifier name: (_) @name)])
  (reference_type type: [(type_identifier) @name (scoped_type_identifier name: (_) @name)
    (generic_type type: [(type_identifier) @name (scoped_type_identifier name: (_) @name)])])
]) @definition.extension

((attribute_item (attribute . [(identifier) @_t (scoped_identifier name: (identifier) @_t)]))
  . [(attribute_item) (line_comment) (block_comment)]* . (function_item) @test
  (#eq? @_t "test"))

[(use_declaration) (mod_item !body) (extern_crate_declaration)] @import.hook

(call_expression function: (_) @callee) @call

(impl_item trait: (_) @implements.base)
(trait_item bounds: (trait_bounds
  [(type_identifier) (scoped_type_identifier) (generic_type)] @inherit.base))
