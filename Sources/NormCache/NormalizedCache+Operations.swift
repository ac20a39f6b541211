import Glibc

/// GraphQL operations: schema and key rules, prepare, normalize, write and read.
extension NormalizedCache {
    /// Loads a schema from SDL, with Apollo's `@typePolicy` and `@fieldPolicy`
    /// directives (usually in `extend type` lines). It also reads max-age rules: Apollo's
    /// `@cacheControl(maxAge:, inheritMaxAge:)` on object, interface and union types and
    /// their fields, and Apollo Kotlin's `@cacheControlField(name:, maxAge:,
    /// inheritMaxAge:)` on object and interface types; a misplaced or repeated directive, a
    /// `maxAge` that is not an integer from 0 to 2147483647, `maxAge` together with
    /// `inheritMaxAge: true`, or a `@cacheControlField` naming no field of its type is a
    /// `.schema` error. Operations prepared afterwards are
    /// validated against it and use its types and key rules. Rules configured before are
    /// checked against it (see `configure`); when one does not fit, this throws `.schema`
    /// and the schema is not loaded. On a handle whose rules are the cache file's saved
    /// rules (see `saveRules`), the first `loadSchema` or `configure` replaces them all:
    /// the handle then has only the rules it is given.
    public func loadSchema(sdl: UnsafeRawBufferPointer) throws(NormCacheError) {
        try rules.load(sdl: Array(sdl))
    }

    /// Adds key rules given as JSON (`typePolicies`, `fieldPolicies`, `possibleTypes`,
    /// `defaultKeyFields`, and `storeMutationRoot`, which keeps Apollo's `MUTATION_ROOT`)
    /// for operations prepared afterwards. The same object may hold max-age rules, which
    /// apply to every read from then on: `maxAges` maps schema coordinates (`Type`,
    /// `Type.field`) to seconds (0 to 2147483647) or `"inherit"`, replacing the schema's
    /// rules of the same names, and `defaultMaxAge` (seconds, or null for never) gives
    /// the max age of fields that neither have nor inherit a rule (see `normcache.h`,
    /// "Freshness"). With a schema loaded, a type, key field, field
    /// or key argument it lacks is a `.schema` error (with the byte offset and a close
    /// name) and nothing is added; without one, the check waits for `loadSchema`. On a
    /// handle whose rules are the file's saved rules, the first `configure` replaces
    /// them, as `loadSchema` does.
    public func configure(json: UnsafeRawBufferPointer) throws(NormCacheError) {
        try rules.configure(json: json)
    }

    /// Sets the programmatic key rule (nil removes it) for operations prepared afterwards.
    public func setKeyResolver(_ resolver: KeyResolver?) {
        rules.setResolver(resolver)
    }

    /// Parses, validates and compiles the operation `operationName` (nil: the only one)
    /// of a GraphQL document. A handle opened with `CacheOptions.Rules.strict` first
    /// checks that its rules are the file's saved rules (see `saveRules`). A document
    /// longer than `CacheOptions.maxDocumentBytes` or of more tokens than
    /// `CacheOptions.maxDocumentTokens` is a `.document` error (see `DocumentLimits`).
    public func prepare(document: UnsafeRawBufferPointer, operationName: String? = nil) throws(NormCacheError) -> PreparedOperation {
        try interruptible { () throws(NormCacheError) in
            if options.rules == .strict { try store.read { (txn) throws(NormCacheError) in try Self.checkRules(rules, in: txn) } }
            let (schema, keyRules, _) = rules.current
            return try PreparedOperation(source: Array(document), operationName: operationName, schema: schema, keyRules: keyRules,
                                         limits: DocumentLimits(options))
        }
    }

    /// The records a GraphQL response (`{"data": ..., "errors": ...}`) splits into, in
    /// the records JSON notation, without touching the cache. A response without
    /// `data` (or with `data: null`) but with `errors` gives `{}`; a response without
    /// its envelope, with a top-level member other than `data`, `errors` and
    /// `extensions`, or with neither `data` nor `errors` is a `.data` error (see
    /// `ResponseEnvelope`). Variables the operation does not declare are refused.
    /// Exactly the records `write` stores: of a mutation, unless the rules say
    /// `storeMutationRoot`, the entities it returns and not `MUTATION_ROOT` (`Normalizer`).
    public static func normalize(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer,
                                 response: UnsafeRawBufferPointer) throws(NormCacheError) -> [UInt8] {
        try normalize(operation, variables: variables, response: response, strictKeys: false).records
    }

    /// `normalize` with the number of key fallbacks (objects of a keyed type keyed by
    /// their path for want of their key fields); with `strictKeys`, the first fallback
    /// is a `.data` error instead, as `write` with `WriteOptions.strictKeys` gives it.
    public static func normalize(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer, response: UnsafeRawBufferPointer,
                                 strictKeys: Bool) throws(NormCacheError) -> NormalizeResult {
        let (block, count, keyFallbacks) = try normalizeBlock(operation, variables: variables, response: response, strictKeys: strictKeys)
        defer { free(block) }
        return NormalizeResult(records: Array(UnsafeRawBufferPointer(start: block, count: count)), keyFallbacks: keyFallbacks)
    }

    /// `normalize` as the C interface hands it over: one malloc'd, NUL-terminated block
    /// that the caller releases with `free`, and the number of key fallbacks.
    package static func normalizeBlock(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer, response: UnsafeRawBufferPointer,
                                       strictKeys: Bool) throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int, keyFallbacks: Int) {
        try normalized(operation, variables: variables, response: response, strictKeys: strictKeys) { (batch) throws(NormCacheError) in
            let json = try batch.json()
            return (json.start, json.count, batch.keyFallbacks)
        }
    }

    /// Normalizes a response and merges its records in one transaction; returns the
    /// changed fields (none when not `reportingChanges`). The response is checked as
    /// `normalize` checks it; on any error nothing is written.
    public func write(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer,
                      response: UnsafeRawBufferPointer, reportingChanges: Bool = true) throws(NormCacheError) -> ChangedFields {
        try interruptible { () throws(NormCacheError) in
            try Self.normalized(operation, variables: variables, response: response, strictKeys: false) { (batch) throws(NormCacheError) in
                try merge(batch, reportingChanges: reportingChanges)
            }
        }
    }

    /// `write` with a lifetime for what it writes (`WriteOptions`: the caller's max age
    /// and the response's caching headers): the fields the write carries are stamped
    /// with the earliest expiry these give. A response marked `Cache-Control: no-store`
    /// is not written (`isStored` false); malformed headers are `.invalidArgument` errors,
    /// and nothing is written. The result counts the key fallbacks; with
    /// `options.strictKeys` the first one is a `.data` error, and nothing is written.
    public func write(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer, response: UnsafeRawBufferPointer,
                      options: WriteOptions, reportingChanges: Bool = true) throws(NormCacheError) -> WriteResult {
        try write(options, reportingChanges: reportingChanges) { (merge) throws(NormCacheError) in
            try Self.normalized(operation, variables: variables, response: response, strictKeys: options.strictKeys, merge)
        }
    }

    /// Runs a write with `options`: asks the clock once, and unless they say `no-store`
    /// (then nothing is made or written), hands `make` the merge that stamps each field
    /// of its batch with the write's time and expiry.
    func write(_ options: WriteOptions, reportingChanges: Bool,
               _ make: (_ merge: (borrowing RecordBatch) throws(NormCacheError) -> WriteResult) throws(NormCacheError) -> WriteResult)
        throws(NormCacheError) -> WriteResult {
        try interruptible { () throws(NormCacheError) in
            let now = try clock.now()
            guard case .at(let expiry) = try options.expiry(now: now) else { return WriteResult(isStored: false, changed: []) }
            let metadata = FieldMetadata(writtenAt: now, expiresAt: expiry)
            return try make { (batch) throws(NormCacheError) in
                WriteResult(isStored: true, changed: try merge(batch, reportingChanges: reportingChanges, metadata: metadata),
                            keyFallbacks: batch.keyFallbacks)
            }
        }
    }

    /// Reads the operation's data from the cache, judging each field it uses by the
    /// max-age rules now in force and the expiries stored with it (see `ReadResult`).
    public func read(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer,
                     options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try read(operation, at: Self.rootKey(of: operation), variables: variables, options: options)
    }

    /// Reads the object at record `key` through a prepared fragment (direct cache
    /// access), as `read` reads an operation.
    public func readFragment(_ fragment: PreparedOperation, key: String, variables: UnsafeRawBufferPointer,
                             options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try Self.checkFragment(fragment: fragment, key: key)
        return try read(fragment, at: key, variables: variables, options: options)
    }

    /// Writes `data`, a JSON object of the fragment's selection, as the record `key`
    /// (and the records below it) in one transaction; returns the changed fields (none
    /// when not `reportingChanges`).
    public func writeFragment(_ fragment: PreparedOperation, key: String, data: UnsafeRawBufferPointer,
                              variables: UnsafeRawBufferPointer, reportingChanges: Bool = true) throws(NormCacheError) -> ChangedFields {
        try interruptible { () throws(NormCacheError) in
            try Self.fragmentNormalized(fragment, key: key, data: data, variables: variables, strictKeys: false) { (batch) throws(NormCacheError) in
                try merge(batch, reportingChanges: reportingChanges)
            }
        }
    }

    /// `writeFragment` with a lifetime for what it writes, as `write` with
    /// `WriteOptions` takes it (`no-store` writes nothing; `strictKeys` refuses a key
    /// fallback below `key`); the result counts the key fallbacks.
    public func writeFragment(_ fragment: PreparedOperation, key: String, data: UnsafeRawBufferPointer, variables: UnsafeRawBufferPointer,
                              options: WriteOptions, reportingChanges: Bool = true) throws(NormCacheError) -> WriteResult {
        try write(options, reportingChanges: reportingChanges) { (merge) throws(NormCacheError) in
            try Self.fragmentNormalized(fragment, key: key, data: data, variables: variables, strictKeys: options.strictKeys, merge)
        }
    }

    /// Normalizes `data` through `fragment` as the record `key` and hands the records to
    /// `body` while the call's shapes live (see `normalized`).
    private static func fragmentNormalized<R>(_ fragment: PreparedOperation, key: String, data: UnsafeRawBufferPointer,
                                              variables: UnsafeRawBufferPointer, strictKeys: Bool,
                                              _ body: (borrowing RecordBatch) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        guard case .fragment = fragment.root else {
            throw NormCacheError(.invalidArgument, "'\(fragment.name ?? "the operation")' is an operation, not a fragment: write it with write")
        }
        guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "empty record key") }
        let context = try fragment.context(variables: variables)
        defer { fragment.finished(with: context) }
        let batch = try Normalizer.records(of: JSONDocument(scanning: data), at: nil, operation: fragment, rootKey: key,
                                           context: context, strictKeys: strictKeys)
        return try body(batch)
    }

    private func read(_ operation: PreparedOperation, at key: String, variables: UnsafeRawBufferPointer,
                      options: ReadOptions) throws(NormCacheError) -> ReadResult {
        try read(operation, at: key, variables: variables, options: options) { (reader) throws(NormCacheError) -> ReadResult in
            Self.result(of: reader, partial: options.partial)
        }
    }

    /// The result a reader's work gives; its data on a miss only when `partial`.
    static func result(of reader: borrowing Reader, partial: Bool) -> ReadResult {
        let status = status(of: reader)
        return ReadResult(status: status, data: status != .miss || partial ? reader.out.array : nil,
                          missing: reader.missing, stale: reader.stale,
                          oldestWrittenAt: reader.reportedOldestWrittenAt, earliestExpiry: reader.reportedEarliestExpiry)
    }

    /// Reads the object at record `key` through `operation` and hands the reader that
    /// did it to `finish`, inside the read transaction; throws `.outOfMemory` when the
    /// data read could not be held.
    private func read<R>(_ operation: PreparedOperation, at key: String, variables: UnsafeRawBufferPointer, options: ReadOptions,
                         _ finish: (inout Reader) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try interruptible { () throws(NormCacheError) in
            let (context, freshness) = try readContext(operation, variables: variables, options: options)
            defer { operation.finished(with: context) }
            // Not counted, as the closure passes down: the caller holds the handle and the
            // operation, and the context lives past the read (see `withRecordJSON`).
            unowned(unsafe) let cache = self, uncountedOperation = operation, uncountedContext = context
            return try store.read { (txn) throws(NormCacheError) -> R in
                try cache.read(uncountedOperation, at: key, in: txn, context: uncountedContext, freshness: freshness, finish)
            }
        }
    }

    /// The context and freshness check of a read of `operation` at `now` (nil: the
    /// clock's time), with the max-age rules in force.
    func readContext(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer, options: ReadOptions,
                     now: UInt64? = nil) throws(NormCacheError) -> (SelectionContext, FreshnessCheck) {
        let maxAgeRules = rules.current.maxAgeRules
        let context = try operation.context(variables: variables, maxAgeRules: maxAgeRules)
        let rootTypes = operation.schema.map { schema in [OperationKind.query, .mutation, .subscription].compactMap { schema.rootTypes[$0] } }
        let time: UInt64
        if let now { time = now } else { time = try clock.now() }
        let freshness = FreshnessCheck(now: time, maxStale: options.maxStale, rules: maxAgeRules,
                                       reports: options.reportingFreshness, ignoresExpiry: options.ignoringFreshness,
                                       rootTypes: rootTypes ?? ["Query", "Mutation", "Subscription"])
        return (context, freshness)
    }

    /// Reads the object at record `key` through `operation` within `txn` (a read's, or a
    /// write's that reads back what it wrote) and hands the reader to `finish`.
    /// `tracking`, the reader notes what it used (`Reader.dependencies`).
    func read<R>(_ operation: PreparedOperation, at key: String, in txn: StoreTransaction, context: SelectionContext,
                 freshness: FreshnessCheck, prefix: StaticString? = nil, tracking: Bool = false,
                 _ finish: (inout Reader) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        var reader = Reader(context: context, txn: txn, freshness: freshness, expectedBytes: operation.outputSizeHint, prefix: prefix)
        if tracking { reader.dependencies = ReadDependencies() }
        try reader.read(rootKey: key, rootType: operation.rootType, plan: operation.plan, isOperationRoot: operation.rootKey != nil)
        try reader.out.check(while: "writing the data of a read")
        if !tracking { store.counters.countRead(Self.status(of: reader)) }
        operation.outputSizeHint = reader.out.count
        return try finish(&reader)
    }

    /// How a read went, from what its reader noted.
    static func status(of reader: borrowing Reader) -> ReadResult.Status {
        if !reader.missing.isEmpty { return .miss }
        return reader.stale.isEmpty ? .complete : .stale
    }

    /// `read` (with `fragmentKey`: `readFragment`) as the C interface hands it over: one
    /// malloc'd, NUL-terminated block that the caller releases with `free`, and the
    /// read's status. As `normcache_read` gives it (not `wholeResult`): the data, or on a
    /// miss `{"data":<partial data or null>,"missing":[...]}`; as `normcache_read_ex`
    /// gives it (`wholeResult`), every part of the result in one object
    /// (`ByteBuffer.appendResult`).
    package func readBlock(_ operation: PreparedOperation, fragmentKey: String?, variables: UnsafeRawBufferPointer,
                           options: ReadOptions, wholeResult: Bool) throws(NormCacheError)
        -> (block: UnsafeMutableRawPointer, count: Int, status: ReadResult.Status) {
        let key: String
        if let fragmentKey {
            try Self.checkFragment(fragment: operation, key: fragmentKey)
            key = fragmentKey
        } else {
            key = try Self.rootKey(of: operation)
        }
        var options = options
        options.reportingFreshness = wholeResult
        return try read(operation, at: key, variables: variables, options: options) { (reader) throws(NormCacheError) in
            let status = Self.status(of: reader)
            if !wholeResult, status != .miss {
                let output = try reader.out.takeAll().takeBlock(while: "writing the data of a read")
                return (output.start, output.count, status)
            }
            var result = ByteBuffer()
            let data = status != .miss || options.partial ? reader.out.bytes : nil
            if wholeResult {
                result.appendResult(data: data, missing: reader.missing, stale: reader.stale,
                                    oldestWrittenAt: reader.reportedOldestWrittenAt, earliestExpiry: reader.reportedEarliestExpiry)
            } else {
                result.appendMiss(reader.missing, partialData: data)
            }
            let output = try result.takeBlock(while: "writing the result of a read")
            return (output.start, output.count, status)
        }
    }

    /// Checks that `fragment` is a fragment and `key` a record key, for a fragment read.
    static func checkFragment(fragment: PreparedOperation, key: String) throws(NormCacheError) {
        guard case .fragment = fragment.root else {
            throw NormCacheError(.invalidArgument, "'\(fragment.name ?? "the operation")' is an operation, not a fragment: read it without a record key (an operation read)")
        }
        guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "empty record key") }
    }

    static func rootKey(of operation: PreparedOperation) throws(NormCacheError) -> String {
        guard let key = operation.rootKey else {
            throw NormCacheError(.invalidArgument, "'\(operation.name ?? "the fragment")' is a fragment, not an operation: read or write it at a record key (a fragment read or write)")
        }
        return key
    }

    /// Normalizes a response (`{"data": ..., "errors": ...}`) and hands its records to
    /// `body` while the call's shapes, which the batch's field keys point into, live (the
    /// response's tape is gone by then); with `strictKeys`, a key fallback fails it.
    private static func normalized<R>(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer,
                                      response: UnsafeRawBufferPointer, strictKeys: Bool,
                                      _ body: (borrowing RecordBatch) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        let rootKey = try rootKey(of: operation)
        let context = try operation.context(variables: variables)
        defer { operation.finished(with: context) }
        let batch = try records(of: response, operation: operation, rootKey: rootKey, context: context, strictKeys: strictKeys)
        return try body(batch)
    }

    /// The records of a response; none when it has no `data` (or `data: null`). The
    /// response's top level is checked by `ResponseEnvelope`.
    private static func records(of response: UnsafeRawBufferPointer, operation: PreparedOperation, rootKey: String,
                                context: SelectionContext, strictKeys: Bool) throws(NormCacheError) -> RecordBatch {
        try records(of: JSONDocument(scanning: response), operation: operation, rootKey: rootKey, context: context, strictKeys: strictKeys)
    }

    /// `records(of:operation:rootKey:context:strictKeys:)` of a response already scanned
    /// (see `Normalizer.records` for `keepingMutationRoot` and `strictKeys`).
    static func records(of document: JSONDocument, operation: PreparedOperation, rootKey: String, context: SelectionContext,
                        keepingMutationRoot: Bool = false, strictKeys: Bool = false) throws(NormCacheError) -> RecordBatch {
        guard let data = try ResponseEnvelope.data(of: document, rootPlan: operation.plan) else { return RecordBatch() }
        return try Normalizer.records(of: document, at: data, operation: operation, rootKey: rootKey, context: context,
                                      keepingMutationRoot: keepingMutationRoot, strictKeys: strictKeys)
    }
}
