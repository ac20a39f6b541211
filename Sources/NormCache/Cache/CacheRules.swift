/// The schema and key rules of one cache handle, changed by `loadSchema`, `configure`
/// and read by `prepare`, from any thread.
///
/// Configuration JSON is checked against the schema where both are known: at
/// `configure` when a schema is loaded, else when the next schema is loaded, which
/// replays every configuration given so far over the schema's directives and fails
/// (the schema not loaded) when one names what the schema lacks.
final class CacheRules: @unchecked Sendable {
    private let lock = Mutex()
    private var schema: Schema?
    private var keyRules = KeyRules()
    /// Every configuration JSON accepted so far, in order, replayed over a new schema.
    private var configurations: [[UInt8]] = []

    /// The schema and rules now in force.
    var current: (schema: Schema?, keyRules: KeyRules) {
        lock.withLock { (schema, keyRules) }
    }

    /// Replaces the schema; the rules become the schema's directives with the
    /// configured rules over them, checked against it.
    func load(_ newSchema: Schema) throws(NormCacheError) {
        var rules = try KeyRules(schema: newSchema)
        try lock.withLock { () throws(NormCacheError) in
            for json in configurations {
                do throws(NormCacheError) {
                    try json.withBytes { (bytes) throws(NormCacheError) in try rules.configure(json: bytes, schema: newSchema) }
                } catch {
                    throw NormCacheError(error.code, "the key rules configured before the schema do not fit it: \(error.message)")
                }
            }
            rules.resolver = keyRules.resolver
            try rules.checkInheritance(in: newSchema, code: .schema)
            schema = newSchema
            keyRules = rules
        }
    }

    /// Sets (or, with nil, removes) the programmatic key rule.
    func setResolver(_ resolver: KeyResolver?) {
        // The replaced resolver is let go after the lock: letting go of the last hold on
        // a C resolver runs its context's destructor, which must not run under our lock.
        let replaced = lock.withLock { () -> KeyResolver? in
            defer { keyRules.resolver = resolver }
            return keyRules.resolver
        }
        withExtendedLifetime(replaced) {}
    }

    /// Adds configured rules (JSON), over the schema's; with a schema loaded, checked
    /// against it.
    func configure(json: UnsafeRawBufferPointer) throws(NormCacheError) {
        try lock.withLock { () throws(NormCacheError) in
            var rules = keyRules
            try rules.configure(json: json, schema: schema)
            if let schema { try rules.checkInheritance(in: schema, code: .invalidArgument) }
            configurations.append(Array(json))
            keyRules = rules
        }
    }
}
