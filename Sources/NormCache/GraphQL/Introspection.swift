/// The introspection types of the GraphQL specification (October 2021, §4.5), part of
/// every schema, and the `__schema` and `__type` fields of the query root.
enum Introspection {
    /// The introspection types as SDL.
    static let sdl = """
    type __Schema { description: String types: [__Type!]! queryType: __Type! mutationType: __Type
      subscriptionType: __Type directives: [__Directive!]! }
    type __Type { kind: __TypeKind! name: String description: String specifiedByURL: String
      fields(includeDeprecated: Boolean = false): [__Field!] interfaces: [__Type!] possibleTypes: [__Type!]
      enumValues(includeDeprecated: Boolean = false): [__EnumValue!]
      inputFields(includeDeprecated: Boolean = false): [__InputValue!] ofType: __Type }
    enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT LIST NON_NULL }
    type __Field { name: String! description: String args(includeDeprecated: Boolean = false): [__InputValue!]!
      type: __Type! isDeprecated: Boolean! deprecationReason: String }
    type __InputValue { name: String! description: String type: __Type! defaultValue: String
      isDeprecated: Boolean! deprecationReason: String }
    type __EnumValue { name: String! description: String isDeprecated: Boolean! deprecationReason: String }
    type __Directive { name: String! description: String locations: [__DirectiveLocation!]!
      args(includeDeprecated: Boolean = false): [__InputValue!]! isRepeatable: Boolean! }
    enum __DirectiveLocation { QUERY MUTATION SUBSCRIPTION FIELD FRAGMENT_DEFINITION FRAGMENT_SPREAD INLINE_FRAGMENT
      VARIABLE_DEFINITION SCHEMA SCALAR OBJECT FIELD_DEFINITION ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE
      INPUT_OBJECT INPUT_FIELD_DEFINITION }
    """

    /// `__schema: __Schema!` and `__type(name: String!): __Type` of the query root.
    static let rootFields: [String: FieldDefinition] = {
        let nowhere = SourceLocation(line: 0, column: 0)
        let name = FieldDefinition(name: "name", description: nil, arguments: [], type: .nonNull(.named("String")),
                                   defaultValue: nil, directives: [], location: nowhere)
        return [
            "__schema": FieldDefinition(name: "__schema", description: nil, arguments: [], type: .nonNull(.named("__Schema")),
                                        defaultValue: nil, directives: [], location: nowhere),
            "__type": FieldDefinition(name: "__type", description: nil, arguments: [name], type: .named("__Type"),
                                      defaultValue: nil, directives: [], location: nowhere),
        ]
    }()
}
