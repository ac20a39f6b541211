/// The declarative cache-key rules: type policies (key fields, optional key group),
/// field policies (arguments that name the record a field resolves to), possible types
/// for abstract types without a schema, and default key fields. They come from SDL
/// directives (`@typePolicy`, `@fieldPolicy`) and from `configure` JSON.
struct KeyRules {
    /// How objects of a type (or of the types an interface covers) are keyed.
    struct TypePolicy: Hashable {
        /// The fields whose values, joined with `+`, form the id.
        var keyFields: [String]
        /// The group that replaces the typename in keys (`Node:<id>`), if any.
        var group: String?
    }

    /// Type policies by object or interface name.
    var typePolicies: [String: TypePolicy] = [:]
    /// Field policies by `Type.field`: the arguments whose values form the id.
    var fieldPolicies: [String: [String]] = [:]
    /// Configured possible types of abstract types, for documents without a schema.
    var possibleTypes: [String: Set<String>] = [:]
    /// Key fields for every type without a policy of its own (off when nil).
    var defaultKeyFields: [String]?
    /// The programmatic rule, asked before all others.
    var resolver: KeyResolver?
    /// Whether a mutation's write stores `MUTATION_ROOT` and the objects without a key
    /// below it, whose keys hold the root fields' arguments (Apollo's behaviour); off by
    /// default, so that a `login(password:)` leaves no secret on disk. Not a key rule,
    /// but set by `configure` and fixed at `prepare` alike.
    var storesMutationRoot = false
    /// Which objects of plain JSON documents are entities (`configure`'s `documents`).
    var documents = DocumentRules()

    /// No rules.
    init() {}

    /// The rules the schema's `@typePolicy` and `@fieldPolicy` directives declare;
    /// checks that key fields exist and that no type inherits conflicting policies.
    init(schema: Schema) throws(NormCacheError) {
        for type in schema.types.values.sorted(by: { $0.name < $1.name }) {
            for directive in type.directives {
                switch directive.name {
                case "typePolicy":
                    let keyFields = try Self.words(directive, "keyFields", type: type.name)
                    if let field = Self.unknownKeyField(keyFields, of: type) {
                        throw Self.error("key field '\(field)' of @typePolicy on '\(type.name)' is not a field of '\(type.name)'", at: directive.location)
                    }
                    typePolicies[type.name] = TypePolicy(keyFields: keyFields, group: nil)
                case "fieldPolicy":
                    let field = try Self.words(directive, "forField", type: type.name)
                    guard field.count == 1, let definition = type.fields[field[0]] else {
                        throw Self.error("@fieldPolicy on '\(type.name)' names no field of '\(type.name)'", at: directive.location)
                    }
                    let keyArgs = try Self.words(directive, "keyArgs", type: type.name)
                    if let path = Self.unknownKeyArgument(keyArgs, of: definition, in: schema) {
                        throw Self.error("key argument '\(path)' of @fieldPolicy is not an argument of '\(type.name).\(field[0])'", at: directive.location)
                    }
                    fieldPolicies[type.name + "." + field[0]] = keyArgs
                default:
                    break
                }
            }
        }
        try checkInheritance(in: schema, code: .schema)
    }

    /// Fails when a type's own policy differs from one it inherits from an interface,
    /// or it inherits different policies and has none of its own (which one would key
    /// it depends on declaration order).
    func checkInheritance(in schema: Schema, code: NormCacheError.Code) throws(NormCacheError) {
        for type in schema.types.values.sorted(by: { $0.name < $1.name }) where type.kind == .object || type.kind == .interface {
            let ancestors = schema.interfaces(of: type.name)
            let inherited = Set(ancestors.compactMap { name in
                typePolicies[name].map { "\(name): \($0.keyFields.joined(separator: " "))" }
            }).sorted().joined(separator: "; ")
            let distinct = Set(ancestors.compactMap { typePolicies[$0] })
            if let own = typePolicies[type.name], distinct.contains(where: { $0 != own }) {
                throw NormCacheError(code, "GraphQL error at \(type.location): the type policy of '\(type.name)' conflicts with the one it inherits (\(inherited))")
            }
            if typePolicies[type.name] == nil, distinct.count > 1 {
                throw NormCacheError(code, "GraphQL error at \(type.location): '\(type.name)' inherits conflicting type policies (\(inherited))")
            }
        }
    }

    /// The first of a type policy's `keyFields` that is not a field of `type`; nil when
    /// all are, and for a union, which has no fields of its own. SDL directives and
    /// configuration JSON are checked with it alike.
    static func unknownKeyField(_ keyFields: [String], of type: Schema.NamedType) -> String? {
        type.kind == .union ? nil : keyFields.first { type.fields[$0] == nil }
    }

    /// The first of a field policy's `keyArgs` that is not an argument path of `field`;
    /// nil when all are. SDL directives and configuration JSON are checked with it alike.
    static func unknownKeyArgument(_ keyArgs: [String], of field: FieldDefinition, in schema: Schema) -> String? {
        keyArgs.first { !isArgumentPath($0, of: field, in: schema) }
    }

    /// Whether `path` (`id`, or `input.id` into input objects) names an argument of
    /// `field`, and then input fields of the argument's input object types.
    private static func isArgumentPath(_ path: String, of field: FieldDefinition, in schema: Schema) -> Bool {
        let segments = path.split(separator: ".").map(String.init)
        guard let first = segments.first, var current = field.arguments.first(where: { $0.name == first })?.type else { return false }
        for segment in segments.dropFirst() {
            guard let input = schema.type(named: current.namedType), input.kind == .input,
                  let next = input.fields[segment] else { return false }
            current = next.type
        }
        return true
    }

    /// The policy for an object of `typename`: its own, else one inherited from an
    /// interface it implements (or, when the schema does not know the type, from the
    /// interface `declaredType` of the field), else the default key fields.
    func policy(for typename: String, declaredType: String?, schema: Schema?) -> TypePolicy? {
        if let own = typePolicies[typename] { return own }
        if let schema, schema.type(named: typename) != nil {
            for interface in [typename] + schema.interfaces(of: typename) {
                if let inherited = typePolicies[interface] { return inherited }
            }
        } else if let declaredType, let inherited = typePolicies[declaredType] {
            return inherited
        } else {
            for (abstract, members) in possibleTypes.sorted(by: { $0.key < $1.key }) where members.contains(typename) {
                if let inherited = typePolicies[abstract] { return inherited }
            }
        }
        return defaultKeyFields.map { TypePolicy(keyFields: $0, group: nil) }
    }

    /// The space-separated words of a string argument of a directive.
    private static func words(_ directive: Directive, _ argument: String, type: String) throws(NormCacheError) -> [String] {
        guard let value = directive.arguments.first(where: { $0.name == argument })?.value, case .string(let text) = value else {
            throw error("@\(directive.name) on '\(type)' needs a string argument '\(argument)'", at: directive.location)
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" }).map(String.init)
        guard !words.isEmpty else { throw error("@\(directive.name) on '\(type)' has an empty '\(argument)'", at: directive.location) }
        return words
    }

    private static func error(_ message: String, at location: SourceLocation) -> NormCacheError {
        NormCacheError(.schema, "GraphQL error at \(location): \(message)")
    }
}
