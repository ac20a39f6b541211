/// A GraphQL schema built from SDL: named types with their fields, interfaces, union
/// members and directives, and the root operation types. The built-in scalars and the
/// introspection types are always there.
struct Schema {
    /// A named type of the schema.
    struct NamedType {
        /// The type's name.
        var name: String
        /// What kind of type it is.
        var kind: TypeDefinition.Kind
        /// Fields of objects and interfaces, input fields of input objects, by name.
        var fields: [String: FieldDefinition] = [:]
        /// The interfaces an object or interface implements, in source order.
        var interfaces: [String] = []
        /// The members of a union.
        var unionMembers: [String] = []
        /// The directives applied to the type and its extensions, in source order.
        var directives: [Directive] = []
        /// Where the type is defined.
        var location: SourceLocation
    }

    /// The types by name.
    private(set) var types: [String: NamedType] = [:]
    /// The possible object types of each interface and union, computed once.
    private var possible: [String: Set<String>] = [:]
    /// The root type of each operation kind.
    private(set) var rootTypes: [OperationKind: String] = [.query: "Query", .mutation: "Mutation", .subscription: "Subscription"]

    /// The built-in scalar types.
    static let builtInScalars = ["Int", "Float", "String", "Boolean", "ID"]

    /// The type named `name`.
    func type(named name: String) -> NamedType? { types[name] }

    /// The field `name` of the object or interface `typeName`, including the
    /// `__typename` meta field, and `__schema`/`__type` on the query root.
    func field(_ name: String, on typeName: String) -> FieldDefinition? {
        if name == "__typename" {
            return FieldDefinition(name: name, description: nil, arguments: [], type: .nonNull(.named("String")),
                                   defaultValue: nil, directives: [], location: SourceLocation(line: 0, column: 0))
        }
        if typeName == rootTypes[.query], let meta = Introspection.rootFields[name] { return meta }
        return types[typeName]?.fields[name]
    }

    /// The object types a value of type `name` can have at run time: itself for an
    /// object, the implementations of an interface, the members of a union.
    func possibleTypes(of name: String) -> Set<String> {
        guard let type = types[name] else { return [] }
        return type.kind == .object ? [name] : possible[name] ?? []
    }

    /// Fills `possible`: the members of each union, and for each interface the object
    /// types that implement it, directly or through other interfaces.
    private mutating func computePossibleTypes() {
        for type in types.values {
            switch type.kind {
            case .union:
                possible[type.name, default: []].formUnion(type.unionMembers)
            case .object:
                for interface in [type.name] + Self.interfaces(of: type.name, in: types) where interface != type.name {
                    possible[interface, default: []].insert(type.name)
                }
            default:
                break
            }
        }
    }

    /// Every interface `name` implements, transitively.
    private static func interfaces(of name: String, in types: [String: NamedType]) -> [String] {
        var found: [String] = []
        var pending = types[name]?.interfaces ?? []
        while let next = pending.popLast() {
            guard !found.contains(next) else { continue }
            found.append(next)
            pending += types[next]?.interfaces ?? []
        }
        return found
    }

    /// Every interface `typeName` implements, directly or through other interfaces.
    func interfaces(of typeName: String) -> [String] {
        Self.interfaces(of: typeName, in: types)
    }

    /// Whether a selection on `parent` may hold a fragment on `condition`: their
    /// possible types overlap (GraphQL specification §5.5.2.3).
    func fragmentIsPossible(_ condition: String, within parent: String) -> Bool {
        !possibleTypes(of: condition).isDisjoint(with: possibleTypes(of: parent))
    }

    /// Whether `typeName` is a leaf type (scalar or enum).
    func isLeaf(_ typeName: String) -> Bool {
        guard let type = types[typeName] else { return false }
        return type.kind == .scalar || type.kind == .enum
    }
}

extension Schema {
    /// Builds a schema from SDL; every problem is a `.schema` error naming its line and
    /// column: a type defined twice, an extension of an unknown type or of another kind,
    /// a field defined twice, an unknown type in a field, an interface or union member
    /// that is not one.
    init(sdl: [UInt8]) throws(NormCacheError) {
        let document = try GraphQLParser.parseSchema(sdl)
        let introspection = try GraphQLParser.parseSchema(Array(Introspection.sdl.utf8))
        for name in Self.builtInScalars {
            types[name] = NamedType(name: name, kind: .scalar, location: SourceLocation(line: 0, column: 0))
        }
        var extensions: [TypeDefinition] = []
        for definition in introspection.definitions + document.definitions {
            switch definition {
            case .type(let type) where type.isExtension:
                extensions.append(type)
            case .type(let type):
                guard types[type.name] == nil else {
                    throw Self.error("type '\(type.name)' is defined more than once", at: type.location)
                }
                types[type.name] = NamedType(name: type.name, kind: type.kind, location: type.location)
                try add(type)
            case .schema(let schema):
                for (operation, typeName) in schema.operationTypes { rootTypes[operation] = typeName }
            case .operation, .fragment, .directive:
                break
            }
        }
        for type in extensions {
            guard let existing = types[type.name] else {
                throw Self.error("cannot extend unknown type '\(type.name)'", at: type.location)
            }
            guard existing.kind == type.kind else {
                throw Self.error("cannot extend \(existing.kind.rawValue) '\(type.name)' as \(type.kind.rawValue)", at: type.location)
            }
            try add(type)
        }
        try validateReferences()
        computePossibleTypes()
    }

    private mutating func add(_ definition: TypeDefinition) throws(NormCacheError) {
        guard var type = types[definition.name] else { return }
        for field in definition.fields {
            guard type.fields[field.name] == nil else {
                throw Self.error("field '\(definition.name).\(field.name)' is defined more than once", at: field.location)
            }
            type.fields[field.name] = field
        }
        type.interfaces += definition.interfaces
        type.unionMembers += definition.unionMembers
        type.directives += definition.directives
        types[definition.name] = type
    }

    private func validateReferences() throws(NormCacheError) {
        for type in types.values {
            for field in type.fields.values {
                for reference in [field.type] + field.arguments.map(\.type) where types[reference.namedType] == nil {
                    throw Self.error("unknown type '\(reference.namedType)' in '\(type.name).\(field.name)'", at: field.location)
                }
            }
            for interface in type.interfaces where types[interface]?.kind != .interface {
                throw Self.error("'\(type.name)' implements '\(interface)', which is not an interface", at: type.location)
            }
            for member in type.unionMembers where types[member]?.kind != .object {
                throw Self.error("union '\(type.name)' has member '\(member)', which is not an object type", at: type.location)
            }
        }
    }

    private static func error(_ message: String, at location: SourceLocation) -> NormCacheError {
        NormCacheError(.schema, "GraphQL error at \(location): \(message)")
    }
}
