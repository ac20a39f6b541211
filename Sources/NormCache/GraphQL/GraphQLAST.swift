// The syntax tree of GraphQL documents: executable definitions (operations and
// fragments) and type system definitions and extensions (GraphQL specification,
// October 2021, §2 and §3). Nodes keep the location of their first token.

/// A parsed GraphQL document.
struct GraphQLDocument: Sendable {
    /// The definitions in source order.
    var definitions: [GraphQLDefinition]
    /// The fragment names of an executable document, each once, in order of first
    /// appearance in a spread or a definition: the parser numbers them
    /// (`FragmentSpread.nameNumber`, `FragmentDefinition.nameNumber`) so that
    /// `DocumentFragments` finds a spread's fragment without hashing its name.
    var fragmentNames: [String] = []
}

/// One definition of a document.
enum GraphQLDefinition: Sendable {
    case operation(OperationDefinition)
    case fragment(FragmentDefinition)
    case schema(SchemaDefinition)
    case type(TypeDefinition)
    case directive(DirectiveDefinition)
}

/// `query`, `mutation` or `subscription`.
enum OperationKind: String, Sendable {
    case query, mutation, subscription
}

/// An operation: `query Name($v: T = default) @dir { ... }`, or a bare selection set.
struct OperationDefinition: Sendable {
    var kind: OperationKind
    var name: String?
    var variables: [VariableDefinition]
    var directives: [Directive]
    var selections: [Selection]
    var location: SourceLocation
}

/// `$name: Type = default @dir` in an operation's variable list.
struct VariableDefinition: Sendable {
    var name: String
    var type: TypeReference
    var defaultValue: GraphQLValue?
    var directives: [Directive]
    var location: SourceLocation
}

/// `fragment Name on Type @dir { ... }`.
struct FragmentDefinition: Sendable {
    var name: String
    /// The index of `name` in the document's `fragmentNames`.
    var nameNumber: Int
    var typeCondition: String
    var directives: [Directive]
    var selections: [Selection]
    var location: SourceLocation
}

/// One selection of a selection set.
enum Selection: Sendable {
    case field(Field)
    case fragmentSpread(FragmentSpread)
    case inlineFragment(InlineFragment)
}

/// `alias: name(arg: value) @dir { ... }`.
struct Field: Sendable {
    var alias: String?
    var name: String
    var arguments: [Argument]
    var directives: [Directive]
    /// Nil for a leaf field; an empty selection set is a syntax error.
    var selections: [Selection]?
    var location: SourceLocation

    /// The key of the field in the response: its alias, or else its name.
    var responseKey: String { alias ?? name }
}

/// `...Name @dir`.
struct FragmentSpread: Sendable {
    var name: String
    /// The index of `name` in the document's `fragmentNames`.
    var nameNumber: Int
    var directives: [Directive]
    var location: SourceLocation
}

/// `... on Type @dir { ... }` (the type condition is optional).
struct InlineFragment: Sendable {
    var typeCondition: String?
    var directives: [Directive]
    var selections: [Selection]
    var location: SourceLocation
}

/// `name: value`.
struct Argument: Sendable {
    var name: String
    var value: GraphQLValue
    var location: SourceLocation
}

/// `@name(args)`.
struct Directive: Sendable {
    var name: String
    var arguments: [Argument]
    var location: SourceLocation
}

/// A literal or variable in a document. Numbers keep their text as written.
indirect enum GraphQLValue: Equatable, Sendable {
    case variable(String)
    case int(String)
    case float(String)
    case string(String)
    case boolean(Bool)
    case null
    case enumValue(String)
    case list([GraphQLValue])
    case object([(name: String, value: GraphQLValue)])

    static func == (lhs: GraphQLValue, rhs: GraphQLValue) -> Bool {
        switch (lhs, rhs) {
        case (.variable(let a), .variable(let b)), (.int(let a), .int(let b)), (.float(let a), .float(let b)),
             (.string(let a), .string(let b)), (.enumValue(let a), .enumValue(let b)):
            return a == b
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.null, .null): return true
        case (.list(let a), .list(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: return false
        }
    }
}

/// A type in a variable or field definition: `Name`, `[T]`, `T!`.
indirect enum TypeReference: Equatable, Sendable {
    case named(String)
    case list(TypeReference)
    case nonNull(TypeReference)

    /// The named type at the core of the wrappers.
    var namedType: String {
        switch self {
        case .named(let name): return name
        case .list(let inner), .nonNull(let inner): return inner.namedType
        }
    }
}

/// `schema { query: Q ... }` or `extend schema ...`.
struct SchemaDefinition: Sendable {
    var isExtension: Bool
    var directives: [Directive]
    var operationTypes: [(operation: OperationKind, type: String)]
    var location: SourceLocation
}

/// A type definition or type extension.
struct TypeDefinition: Sendable {
    /// The kind of type.
    enum Kind: String, Sendable {
        case scalar
        case object = "type"
        case interface, union, `enum`, input
    }

    var kind: Kind
    var isExtension: Bool
    var name: String
    var description: String?
    var interfaces: [String]
    var directives: [Directive]
    /// Fields of objects and interfaces; input fields of input objects.
    var fields: [FieldDefinition]
    /// Members of unions.
    var unionMembers: [String]
    /// Values of enums.
    var enumValues: [EnumValueDefinition]
    var location: SourceLocation
}

/// A field of an object or interface type, or an input field or argument
/// (then `arguments` is empty and `defaultValue` may be set).
struct FieldDefinition: Sendable {
    var name: String
    var description: String?
    var arguments: [FieldDefinition]
    var type: TypeReference
    var defaultValue: GraphQLValue?
    var directives: [Directive]
    var location: SourceLocation
}

/// A value of an enum type.
struct EnumValueDefinition: Sendable {
    var name: String
    var description: String?
    var directives: [Directive]
    var location: SourceLocation
}

/// `directive @name(args) repeatable on LOCATION | ...`.
struct DirectiveDefinition: Sendable {
    var name: String
    var description: String?
    var arguments: [FieldDefinition]
    var isRepeatable: Bool
    var locations: [String]
    var location: SourceLocation
}
