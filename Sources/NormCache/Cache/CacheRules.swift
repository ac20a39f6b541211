/// The schema, key rules and max-age rules of one cache handle, changed by
/// `loadSchema`, `configure` and read by `prepare`, from any thread.
///
/// Configuration JSON is checked against the schema where both are known: at
/// `configure` when a schema is loaded, else when the next schema is loaded, which
/// replays every configuration given so far over the schema's directives and fails
/// (the schema not loaded) when one names what the schema lacks.
final class CacheRules: @unchecked Sendable {
    private let lock = Mutex()
    private var schema: Schema?
    private var keyRules = KeyRules()
    private var maxAgeRules = MaxAgeRules()
    /// Every configuration JSON accepted so far, in order, replayed over a new schema.
    private var configurations: [[UInt8]] = []

    /// The schema and rules now in force.
    var current: (schema: Schema?, keyRules: KeyRules, maxAgeRules: MaxAgeRules) {
        lock.withLock { (schema, keyRules, maxAgeRules) }
    }

    /// Replaces the schema; the rules become the schema's directives with the
    /// configured rules over them, checked against it.
    func load(_ newSchema: Schema) throws(NormCacheError) {
        var rules = try KeyRules(schema: newSchema)
        var maxAges = try MaxAgeRules(schema: newSchema)
        try lock.withLock { () throws(NormCacheError) in
            for json in configurations {
                try json.withBytes { (bytes) throws(NormCacheError) in
                    let document = try JSONDocument(scanning: bytes)
                    try Self.replaying("key rules") { () throws(NormCacheError) in try rules.configure(document: document, schema: newSchema) }
                    try Self.replaying("max-age rules") { () throws(NormCacheError) in try maxAges.configure(document: document, schema: newSchema) }
                }
            }
            rules.resolver = keyRules.resolver
            try rules.checkInheritance(in: newSchema, code: .schema)
            schema = newSchema
            keyRules = rules
            maxAgeRules = maxAges
        }
    }

    /// Runs `replay`, a configuration's `what` replayed over a new schema; its error
    /// says that they were configured before the schema.
    private static func replaying(_ what: String, _ replay: () throws(NormCacheError) -> Void) throws(NormCacheError) {
        do throws(NormCacheError) {
            try replay()
        } catch {
            throw NormCacheError(error.code, "the \(what) configured before the schema do not fit it: \(error.message)")
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

    /// Adds configured key and max-age rules (one JSON object), over the schema's; with
    /// a schema loaded, checked against it.
    func configure(json: UnsafeRawBufferPointer) throws(NormCacheError) {
        let document = try JSONDocument(scanning: json)
        try lock.withLock { () throws(NormCacheError) in
            var rules = keyRules
            try rules.configure(document: document, schema: schema)
            if let schema { try rules.checkInheritance(in: schema, code: .invalidArgument) }
            var maxAges = maxAgeRules
            try maxAges.configure(document: document, schema: schema)
            configurations.append(Array(json))
            keyRules = rules
            maxAgeRules = maxAges
        }
    }
}
