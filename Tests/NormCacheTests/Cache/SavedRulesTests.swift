import TestSupport
import Testing
@testable import NormCache

/// Rules saved in the cache file (`saveRules`, `SavedRules`): taken by handles that bring
/// none, replaced by the first rules a handle is given, fingerprinted in `stats`,
/// enforced under `"rules": "strict"`, and refused with `.notACache` when damaged.
/// Across processes: tests/c/test_saved_rules.c and the Python tests.
@Suite struct SavedRulesTests {
    static let schema = "type Query { dog(id: ID!): Dog }\ntype Dog { id: ID! name: String }"
    static let keyRules = #"{"typePolicies": {"Dog": {"keyFields": ["id"]}}}"#
    static let query = "query Q { dog(id: 1) { id name } }"
    static let response = #"{"data": {"dog": {"__typename": "Dog", "id": "1", "name": "Rex"}}}"#

    /// The fingerprint of `schema` with `keyRules`, as `stats` shows it.
    static let fingerprint = SavedRules.text(SavedRules(sdl: Array(schema.utf8), configurations: [Array(keyRules.utf8)]).fingerprint)

    /// A cache whose handle has `schema` and `keyRules`, saved in the file.
    static func savedCache() throws -> TestCache {
        let test = try TestCache()
        try test.cache.loadSchema(schema)
        try test.cache.configure(keyRules)
        #expect(try test.cache.saveRules() == fingerprint)
        return test
    }

    @Test func aHandleThatBringsNoRulesKeysWithTheSavedOnes() throws {
        let test = try Self.savedCache()
        let other = try test.reopen()
        defer { other.close() }
        let operation = try other.prepare(Self.query)
        _ = try other.write(operation, response: Self.response)
        #expect(try other.record("Dog:1") == #"{"__typename":"Dog","id":"1","name":"Rex"}"#)
        #expect(try other.record("QUERY_ROOT") == #"{"dog(id:1)":{"$reference":"Dog:1"}}"#)
        #expect(String(decoding: try other.read(operation).data ?? [], as: UTF8.self) == #"{"dog":{"id":"1","name":"Rex"}}"#)
        let stats = try other.stats()
        #expect(stats.rulesFingerprint == Self.fingerprint && stats.savedRulesFingerprint == Self.fingerprint)
        #expect(Self.fingerprint.count == 16)
    }

    @Test func theSavedSchemaValidatesPreparedOperations() throws {
        let test = try Self.savedCache()
        let other = try test.reopen()
        defer { other.close() }
        #expect(throws: NormCacheError.self) { try other.prepare("{ cat { id } }") }
    }

    @Test func aFileWithoutSavedRulesGivesAHandleWithoutRules() throws {
        let test = try TestCache()
        let stats = try test.cache.stats()
        #expect(stats.rulesFingerprint == nil && stats.savedRulesFingerprint == nil)
        let operation = try test.cache.prepare(Self.query)
        _ = try test.cache.write(operation, response: Self.response)
        #expect(try test.cache.record("QUERY_ROOT") == #"{"dog(id:1)":{"$reference":"QUERY_ROOT.dog(id:1)"}}"#)
        #expect(try test.cache.clearSavedRules() == false)
    }

    @Test func bringingTheSameRulesReplacesTheSavedOnesWithAnEqualFingerprint() throws {
        let test = try Self.savedCache()
        let other = try test.reopen()
        defer { other.close() }
        try other.loadSchema(Self.schema)
        try other.configure(Self.keyRules)
        #expect(try other.stats().rulesFingerprint == Self.fingerprint)
    }

    @Test func differentRulesShowADifferentFingerprint() throws {
        let test = try Self.savedCache()
        let other = try test.reopen()
        defer { other.close() }
        try other.configure(#"{"defaultKeyFields": ["id"]}"#)
        let stats = try other.stats()
        #expect(stats.savedRulesFingerprint == Self.fingerprint)
        #expect(stats.rulesFingerprint == SavedRules.text(SavedRules(sdl: nil, configurations: [Array(#"{"defaultKeyFields": ["id"]}"#.utf8)]).fingerprint))
        #expect(stats.rulesFingerprint != Self.fingerprint)
    }

    @Test func theFirstConfigureReplacesTheSavedSchemaToo() throws {
        let test = try Self.savedCache()
        let other = try test.reopen()
        defer { other.close() }
        try other.configure(#"{"typePolicies": {"Cat": {"keyFields": ["id"]}}}"#)
        // Without the saved schema, a field it lacks prepares; with the saved key rules
        // gone, a dog is keyed by its path.
        _ = try other.prepare("{ cat { id } }")
        let operation = try other.prepare(Self.query)
        _ = try other.write(operation, response: Self.response)
        #expect(try other.record("QUERY_ROOT") == #"{"dog(id:1)":{"$reference":"QUERY_ROOT.dog(id:1)"}}"#)
    }

    @Test func aFailedFirstLoadKeepsTheSavedRules() throws {
        let test = try Self.savedCache()
        let other = try test.reopen()
        defer { other.close() }
        #expect(throws: NormCacheError.self) { try other.loadSchema("type Query {") }
        #expect(try other.stats().rulesFingerprint == Self.fingerprint)
        try other.configure(#"{"defaultKeyFields": ["id"]}"#)
        #expect(try other.stats().rulesFingerprint != Self.fingerprint)
    }

    @Test func ownRulesIgnoreTheSavedOnes() throws {
        let test = try Self.savedCache()
        let other = try test.reopen(options: Self.options(.own))
        defer { other.close() }
        let stats = try other.stats()
        #expect(stats.rulesFingerprint == nil && stats.savedRulesFingerprint == Self.fingerprint)
    }

    @Test func strictHandlesRefuseRulesThatDifferFromTheSavedOnes() throws {
        let test = try Self.savedCache()
        let other = try test.reopen(options: Self.options(.strict))
        defer { other.close() }
        _ = try other.put(json: #"{"Dog:2": {"name": "Fido"}}"#)
        try other.configure(#"{"defaultKeyFields": ["id"]}"#)
        let own = try #require(other.stats().rulesFingerprint)
        let refused = NormCacheError(.invalidArgument, "the rules of this handle (fingerprint \(own)) differ from the rules saved in '\(test.path)' (fingerprint \(Self.fingerprint)), and it was opened with \"rules\": \"strict\": give it no rules of its own to use the saved ones, or save its rules in the file")
        #expect(throws: refused) { try other.prepare(Self.query) }
        #expect(throws: refused) { try other.put(json: #"{"Dog:2": {"name": "Rex"}}"#) }
        #expect(throws: refused) { try other.remove("Dog:2") }
        #expect(try other.record("Dog:2") == #"{"name":"Fido"}"#)
        // Saving makes the handle's rules the file's; clearing leaves it with rules of
        // its own and none saved.
        #expect(try other.saveRules() == own)
        _ = try other.prepare(Self.query)
        #expect(try other.clearSavedRules())
        #expect(throws: NormCacheError(.invalidArgument, "the rules of this handle (fingerprint \(own)) differ from the rules saved in '\(test.path)' (fingerprint none), and it was opened with \"rules\": \"strict\": give it no rules of its own to use the saved ones, or save its rules in the file")) {
            try other.put(json: #"{"Dog:2": {"name": "Rex"}}"#)
        }
    }

    @Test func strictHandlesWithoutRulesWriteToFilesWithoutRules() throws {
        let test = try TestCache(options: Self.options(.strict))
        _ = try test.cache.put(json: #"{"Dog:2": {"name": "Fido"}}"#)
        _ = try test.cache.prepare(Self.query)
    }

    @Test func savingWithoutRulesOrReadOnlyFails() throws {
        let test = try TestCache()
        #expect(throws: NormCacheError(.invalidArgument, "this handle has no rules to save: load a schema or configure rules first")) {
            try test.cache.saveRules()
        }
        var options = CacheOptions()
        options.readOnly = true
        let reader = try test.reopen(options: options)
        defer { reader.close() }
        try reader.configure(Self.keyRules)
        #expect(throws: NormCacheError(.readOnly, "'\(test.path)' is open read-only")) { try reader.saveRules() }
    }

    @Test func damagedSavedRulesAreNotACache() throws {
        let test = try Self.savedCache()
        let whole = SavedRules(sdl: Array(Self.schema.utf8), configurations: [Array(Self.keyRules.utf8)]).stored
        var flipped = whole
        flipped[20] ^= 1
        var newer = whole
        newer[8] = 2
        let remedy = "; open it with the option \"rules\": \"own\" to clear or replace them"
        let cases: [([UInt8], String)] = [
            (Array(whole.prefix(5)), "'\(test.path)' is damaged: its saved rules are shorter than a fingerprint\(remedy)"),
            (Array(whole.prefix(30)), "'\(test.path)' is damaged: its saved rules do not match their fingerprint\(remedy)"),
            (flipped, "'\(test.path)' is damaged: its saved rules do not match their fingerprint\(remedy)"),
            (newer, "'\(test.path)' has saved rules of encoding version 2, which this library does not read (it reads 1)\(remedy)"),
            (SavedRules(sdl: Array("type Query {".utf8), configurations: []).stored,
             "'\(test.path)' has saved rules that do not load: GraphQL error at line 1, column 13: expected a name, found end of input\(remedy)"),
        ]
        for (stored, message) in cases {
            try Self.setSavedRules(stored, in: test.cache)
            #expect(throws: NormCacheError(.notACache, message)) { try test.reopen().close() }
            #expect(throws: NormCacheError(.notACache, message)) { try test.reopen().close() }
        }
        let repair = try test.reopen(options: Self.options(.own))
        defer { repair.close() }
        #expect(try repair.clearSavedRules())
        try test.reopen().close()
    }

    @Test func theEncodingRoundTripsAndRefusesWhatIsCutShort() throws {
        let rules = SavedRules(sdl: Array(Self.schema.utf8), configurations: [Array(Self.keyRules.utf8), Array("{}".utf8)])
        let stored = rules.stored
        #expect(try stored.withUnsafeBytes { try SavedRules(stored: $0, path: "p") } == rules)
        let none = SavedRules(sdl: nil, configurations: [Array("{}".utf8)])
        #expect(try none.stored.withUnsafeBytes { try SavedRules(stored: $0, path: "p") } == none)
        for count in 9..<stored.count {
            #expect(throws: NormCacheError.self) { try stored.prefix(count).withUnsafeBytes { try SavedRules(stored: $0, path: "p") } }
        }
    }

    /// The default options with `rules`.
    static func options(_ rules: CacheOptions.Rules) -> CacheOptions {
        var options = CacheOptions()
        options.rules = rules
        return options
    }

    /// Writes `stored` as the file's saved rules, as a damaged or foreign file holds them.
    static func setSavedRules(_ stored: [UInt8], in cache: NormalizedCache) throws {
        try cache.store.write(checked: false) { (txn) throws(NormCacheError) in
            try stored.withBytes { (bytes) throws(NormCacheError) in try txn.setMetaValue(SavedRules.metaName, bytes) }
        }
    }
}
