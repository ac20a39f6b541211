/// A max age as a rule gives it: a number of seconds, or the max age of the parent field.
enum MaxAge: Equatable, Sendable {
    case seconds(UInt32)
    case inherit
}

/// How one field's max age is found before its parent field's is applied: what a
/// compiled shape keeps per field, for `MaxAgeRules.resolve` to finish at read time.
enum FieldMaxAgeRule: Equatable, Sendable {
    /// A number of seconds, from the field's rule or its type's.
    case seconds(UInt32)
    /// The parent field's max age (an `inherit` rule, or a leaf field without a rule).
    case inheritParent
    /// The default max age (a root field or a composite field without a rule).
    case defaultMaxAge
}

/// Max-age rules by schema coordinate (`Article`, `Query.feed`), and the default max
/// age, from `@cacheControl` / `@cacheControlField` in the schema and `maxAges` /
/// `defaultMaxAge` in `configure` JSON.
///
/// A field's max age follows Apollo Kotlin's `SchemaCoordinatesMaxAgeProvider` (which
/// mirrors Apollo Server's `@cacheControl`):
/// - the field's own rule (`Type.field`): its seconds, or for `inherit` the parent field's;
/// - else the rule of the field's type (`Type`): its seconds, or for `inherit` the parent field's;
/// - else, for a root field or a field of composite type, the default max age;
/// - else (a leaf field) the parent field's.
/// Then every field but a root field gets the lower of that and its parent field's max
/// age: a field is never fresher than the path that reaches it. The root object's own
/// max age is the default max age, and without a default nothing expires by rule.
///
/// `Type.field` is looked up on the object's type names in the caller's order of
/// preference (its concrete typename when known, then the declared type), each followed,
/// with a schema, by the interfaces it implements (breadth first, in definition order);
/// `Type` on the field's named type, then its interfaces alike.
struct MaxAgeRules: Equatable, Sendable {
    /// The resolved max age that means "never expires". No rule can give it: rules stop
    /// at `maximumSeconds`.
    static let forever = UInt32.max
    /// The largest max age a rule may give, in seconds (GraphQL's largest `Int`).
    static let maximumSeconds: UInt32 = 2_147_483_647

    /// The rules by schema coordinate: `Type` or `Type.field`.
    var coordinates: [String: MaxAge] = [:]
    /// The max age of fields without a rule that do not inherit one; nil: they never expire.
    var defaultMaxAge: UInt32?

    /// No rule and no default: no field ever expires by rule (reads then skip the age check).
    var isEmpty: Bool { coordinates.isEmpty && defaultMaxAge == nil }

    /// Whether a field coordinate (`Type.field`) names a type other than `rootTypes`: only
    /// then can an object's concrete typename change a field's rule, so that a read must
    /// look it up.
    func hasFieldRules(besides rootTypes: some Collection<String>) -> Bool {
        coordinates.keys.contains { coordinate in
            guard let dot = coordinate.firstIndex(of: ".") else { return false }
            return !rootTypes.contains(String(coordinate[..<dot]))
        }
    }

    /// The max age of the root object, which its root fields' rules start from.
    var rootMaxAge: UInt32 { defaultMaxAge ?? Self.forever }

    /// No rules: nothing expires.
    init() {}

    /// The rule of field `name`, reached on an object whose type names are `parentTypes`
    /// (in order of preference: the concrete typename when known, then the declared
    /// type), whose named type is `fieldType` (nil if unknown), composite or not, a root
    /// field or not; `schema` (if any) adds the interfaces of the types to the lookups.
    func rule(field name: String, parentTypes: [String], fieldType: String?, isComposite: Bool, isRootField: Bool,
              schema: Schema?) -> FieldMaxAgeRule {
        if !coordinates.isEmpty {
            let fieldRule = Self.lookup(parentTypes, schema: schema) { coordinates[$0 + "." + name] }
            if let rule = fieldRule ?? fieldType.flatMap({ type in Self.lookup([type], schema: schema) { coordinates[$0] } }) {
                switch rule {
                case .seconds(let seconds): return .seconds(seconds)
                case .inherit: return .inheritParent
                }
            }
        }
        return isRootField || isComposite ? .defaultMaxAge : .inheritParent
    }

    /// The resolved max age of a field (`forever`: never expires) from its rule and its
    /// parent field's resolved max age (for a root field, `rootMaxAge`).
    @inline(__always)
    func resolve(_ rule: FieldMaxAgeRule, parent: UInt32, isRootField: Bool) -> UInt32 {
        Self.resolve(rule, parent: parent, isRootField: isRootField, rootMaxAge: rootMaxAge)
    }

    /// `resolve` with the root's max age given, for a read's inner loop, which keeps it
    /// rather than the rules.
    @inline(__always)
    static func resolve(_ rule: FieldMaxAgeRule, parent: UInt32, isRootField: Bool, rootMaxAge: UInt32) -> UInt32 {
        let own: UInt32
        switch rule {
        case .seconds(let seconds): own = seconds
        case .inheritParent: return parent
        case .defaultMaxAge: own = rootMaxAge
        }
        return isRootField ? own : min(own, parent)
    }

    /// The seconds of a rule written in decimal: digits only (no sign, fraction or
    /// exponent), from 0 to `maximumSeconds`; nil for anything else. SDL directives and
    /// configuration JSON are read with it alike.
    static func seconds(decimal text: some Collection<UInt8>) -> UInt32? {
        guard !text.isEmpty, text.count <= 10 else { return nil }
        var value: UInt64 = 0
        for digit in text {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        return value <= UInt64(maximumSeconds) ? UInt32(value) : nil
    }

    /// What a kind of type is called in messages: `scalar 'Date'`, `input object 'Filter'`.
    static func describe(_ kind: TypeDefinition.Kind) -> String {
        switch kind {
        case .object: return "object type"
        case .interface: return "interface"
        case .union: return "union"
        case .scalar: return "scalar"
        case .enum: return "enum"
        case .input: return "input object"
        }
    }

    /// The first rule `find` gives for the type names `names`, each followed, with a
    /// schema, by the interfaces it implements, breadth first.
    private static func lookup(_ names: [String], schema: Schema?, _ find: (String) -> MaxAge?) -> MaxAge? {
        for name in names {
            if let rule = find(name) { return rule }
            guard let schema else { continue }
            for interface in schema.interfacesBreadthFirst(of: name) {
                if let rule = find(interface) { return rule }
            }
        }
        return nil
    }
}

extension Schema {
    /// Every interface `typeName` implements, directly or through other interfaces,
    /// breadth first and each level in definition order (Apollo Kotlin's order of
    /// max-age lookups), each once.
    func interfacesBreadthFirst(of typeName: String) -> [String] {
        var found: [String] = []
        var queue = type(named: typeName)?.interfaces ?? []
        var next = 0
        while next < queue.count {
            let name = queue[next]
            next += 1
            guard name != typeName, !found.contains(name) else { continue }
            found.append(name)
            queue += type(named: name)?.interfaces ?? []
        }
        return found
    }
}
