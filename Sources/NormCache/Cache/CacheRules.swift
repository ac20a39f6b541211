/// The schema, key rules and max-age rules of one cache handle, changed by
/// `loadSchema`, `configure` and read by `prepare`, from any thread.
///
/// Configuration JSON is checked against the schema where both are known: at
/// `configure` when a schema is loaded, else when the next schema is loaded, which
/// replays every configuration given so far over the schema's directives and fails
/// (the schema not loaded) when one names what the schema lacks.
///
/// Rules adopted from a cache file (`adopt`) hold until the handle is given rules of
/// its own: the first `load` or `configure` after `adopt` starts from no rules (the
/// programmatic resolver, which is never saved, stays), so that a handle that brings
/// the same rules as the file ends with exactly them, and the same fingerprint.
final class CacheRules: @unchecked Sendable {
    private let lock = Mutex()
    private var schema: Schema?
    private var keyRules = KeyRules()
    private var maxAgeRules = MaxAgeRules()
    /// The SDL of the schema, kept to be saved.
    private var sdl: [UInt8]?
    /// Every configuration JSON accepted so far, in order, replayed over a new schema.
    private var configurations: [[UInt8]] = []
    /// Whether the rules are a file's saved ones, which the next `load` or `configure`
    /// replaces.
    private var adopted = false
    /// The fingerprint of the rules (see `SavedRules`), nil without any.
    private var currentFingerprint: UInt64?

    /// The schema and rules now in force.
    var current: (schema: Schema?, keyRules: KeyRules, maxAgeRules: MaxAgeRules) {
        lock.withLock { (schema, keyRules, maxAgeRules) }
    }

    /// The rules as a cache file saves them.
    var saved: SavedRules {
        lock.withLock { SavedRules(sdl: sdl, configurations: configurations) }
    }

    /// The fingerprint of the rules now in force, nil without any.
    var fingerprint: UInt64? {
        lock.withLock { currentFingerprint }
    }

    /// Replaces the schema with the one `sdl` describes; the rules become the schema's
    /// directives with the configured rules over them, checked against it.
    func load(sdl newSDL: [UInt8]) throws(NormCacheError) {
        let newSchema = try Schema(sdl: newSDL)
        var rules = try KeyRules(schema: newSchema)
        var maxAges = try MaxAgeRules(schema: newSchema)
        try lock.withLock { () throws(NormCacheError) in
            let kept = adopted ? [] : configurations
            for json in kept {
                try json.withBytes { (bytes) throws(NormCacheError) in
                    let document = try JSONDocument(scanning: bytes)
                    try Self.replaying("key rules") { () throws(NormCacheError) in try rules.configure(document: document, schema: newSchema) }
                    try Self.replaying("max-age rules") { () throws(NormCacheError) in try maxAges.configure(document: document, schema: newSchema) }
                }
            }
            rules.resolver = keyRules.resolver
            try rules.checkInheritance(in: newSchema, code: .schema)
            schema = newSchema
            sdl = newSDL
            configurations = kept
            keyRules = rules
            maxAgeRules = maxAges
            changed()
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
            var rules = adopted ? KeyRules() : keyRules
            rules.resolver = keyRules.resolver
            let base = adopted ? nil : schema
            try rules.configure(document: document, schema: base)
            if let base { try rules.checkInheritance(in: base, code: .invalidArgument) }
            var maxAges = adopted ? MaxAgeRules() : maxAgeRules
            try maxAges.configure(document: document, schema: base)
            if adopted { (schema, sdl, configurations) = (nil, nil, []) }
            configurations.append(Array(json))
            keyRules = rules
            maxAgeRules = maxAges
            changed()
        }
    }

    /// Takes `saved`, a file's rules, as this handle's (which must have none yet), until
    /// it is given rules of its own.
    func adopt(_ saved: SavedRules) throws(NormCacheError) {
        if let sdl = saved.sdl { try load(sdl: sdl) }
        for configuration in saved.configurations {
            try configuration.withBytes { (json) throws(NormCacheError) in try configure(json: json) }
        }
        lock.withLock { adopted = true }
    }

    /// Notes a change of the rules: they are the handle's own, with a new fingerprint.
    private func changed() {
        adopted = false
        let rules = SavedRules(sdl: sdl, configurations: configurations)
        currentFingerprint = rules.isEmpty ? nil : rules.fingerprint
    }
}
