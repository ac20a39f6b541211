/// The schema and key rules of one cache handle, changed by `loadSchema`, `configure`
/// and read by `prepare`, from any thread.
final class CacheRules: @unchecked Sendable {
    private let lock = Mutex()
    private var schema: Schema?
    private var keyRules = KeyRules()
    private var configured = KeyRules()

    /// The schema and rules now in force.
    var current: (schema: Schema?, keyRules: KeyRules) {
        lock.withLock { (schema, keyRules) }
    }

    /// Replaces the schema; the rules become the schema's directives with the
    /// configured rules over them.
    func load(_ newSchema: Schema) throws(NormCacheError) {
        var rules = try KeyRules(schema: newSchema)
        try lock.withLock { () throws(NormCacheError) in
            rules.overlay(configured)
            try rules.checkInheritance(in: newSchema, code: .schema)
            schema = newSchema
            keyRules = rules
        }
    }

    /// Sets (or, with nil, removes) the programmatic key rule.
    func setResolver(_ resolver: KeyResolver?) {
        // The replaced resolver is let go after the lock: letting go of the last hold on
        // a C resolver runs its context's destructor, which must not run under our lock.
        let replaced = lock.withLock { () -> (KeyResolver?, KeyResolver?) in
            defer {
                configured.resolver = resolver
                keyRules.resolver = resolver
            }
            return (configured.resolver, keyRules.resolver)
        }
        withExtendedLifetime(replaced) {}
    }

    /// Adds configured rules (JSON), over the schema's.
    func configure(json: UnsafeRawBufferPointer) throws(NormCacheError) {
        try lock.withLock { () throws(NormCacheError) in
            var added = configured
            try added.configure(json: json)
            var rules = keyRules
            try rules.configure(json: json)
            if let schema { try rules.checkInheritance(in: schema, code: .invalidArgument) }
            configured = added
            keyRules = rules
        }
    }
}

extension KeyRules {
    /// Adds the rules of `other`, replacing policies of the same names.
    mutating func overlay(_ other: KeyRules) {
        typePolicies.merge(other.typePolicies) { $1 }
        fieldPolicies.merge(other.fieldPolicies) { $1 }
        possibleTypes.merge(other.possibleTypes) { $1 }
        if let fields = other.defaultKeyFields { defaultKeyFields = fields }
        resolver = other.resolver
        storesMutationRoot = other.storesMutationRoot
    }
}
