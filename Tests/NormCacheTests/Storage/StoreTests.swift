import CLMDB
import Glibc
import TestSupport
import Testing
@testable import NormCache

/// The cache file: opening, options, stats, map growth, read-only, files that are
/// not caches, and sharing between handles (between threads: NormCacheThreadTests).
@Suite struct StoreTests {
    @Test func statsDescribeTheCache() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}, "A:2": {"x": 2}}"#)
        let stats = try test.cache.stats()
        #expect(stats.records == 2)
        #expect(stats.formatVersion == 1)
        #expect(stats.pageSize == 4096)
        #expect(stats.mapSize == 64 << 20)
        #expect(stats.bytesUsed > 0 && stats.bytesUsed % 4096 == 0)
        // No read in progress; the slot of the reads before is kept for the next.
        #expect(stats.readers == 0 && stats.readerSlots == 1 && stats.maxReaders == 126 && stats.oldestReaderLag == 0)
        // One leaf page each for the records, the meta database and LMDB's main database.
        #expect(stats.dataBytes == 3 * 4096)
        #expect(String(decoding: stats.json, as: UTF8.self)
            == #"{"records":2,"bytes_used":\#(stats.bytesUsed),"data_bytes":12288,"log_bytes":4096,"max_bytes":0,"map_size":67108864,"page_size":4096,"format_version":1,"library_version":"0.1.0","read_only":false,"durability":"full","rules_fingerprint":null,"saved_rules_fingerprint":null,"readers":0,"reader_slots":1,"max_readers":126,"oldest_reader_lag":0}"#)
    }

    @Test func optionsParseFromJSON() throws {
        let options = try Self.options(#"{"durability": "fast", "read_only": true, "map_size": 1048576, "max_readers": 8}"#)
        #expect(options.durability == .fast)
        #expect(options.readOnly)
        #expect(options.mapSize == 1 << 20)
        #expect(options.maxReaders == 8)
        #expect(options.mode == 0o600)
        #expect(try Self.options(#"{"mode": "0640"}"#).mode == 0o640)
        #expect(try Self.options(#"{"mode": "660"}"#).mode == 0o660)
        #expect(try Self.options(#"{"mode": 416}"#).mode == 0o640)
        #expect(try Self.options("") == CacheOptions())
        #expect(CacheOptions().maxDocumentBytes == 4_194_304 && CacheOptions().maxDocumentTokens == 500_000)
        let limits = try Self.options(#"{"max_document_bytes": 1, "max_document_tokens": 9007199254740993}"#)
        #expect(limits.maxDocumentBytes == 1 && limits.maxDocumentTokens == 9_007_199_254_740_993)
        let bad: [(String, String)] = [
            (#"{"durability": "slow"}"#, #"option 'durability' must be "full" or "fast""#),
            (#"{"read_only": 1}"#, "option 'read_only' must be true or false"),
            (#"{"map_size": 1024}"#, "option 'map_size' must be an integer number of bytes, at least 1048576"),
            (#"{"map_size": 1.5e9}"#, "option 'map_size' must be an integer number of bytes, at least 1048576"),
            (#"{"max_readers": 0}"#, "option 'max_readers' must be an integer from 1 to 65535"),
            (#"{"mode": "01000"}"#, Self.badMode),
            (#"{"mode": 512}"#, Self.badMode),
            (#"{"mode": -1}"#, Self.badMode),
            (#"{"mode": "0x1ff"}"#, Self.badMode),
            (#"{"mode": "0658"}"#, Self.badMode),
            (#"{"mode": true}"#, Self.badMode),
            (#"{"max_document_bytes": 0}"#, "option 'max_document_bytes' must be an integer of at least 1"),
            (#"{"max_document_tokens": "9"}"#, "option 'max_document_tokens' must be an integer of at least 1"),
            (#"{"sync": true}"#, "unknown option 'sync' (known: durability, read_only, map_size, max_readers, rules, mode, "
                + "max_document_bytes, max_document_tokens, max_bytes, low_water)"),
            ("[]", "options must be a JSON object"),
        ]
        for (json, message) in bad {
            #expect(throws: NormCacheError(.invalidArgument, message)) { try Self.options(json) }
        }
        #expect(throws: NormCacheError(.json, "JSON error at byte 1: expected a string as object key")) { try Self.options("{,}") }
    }

    static let badMode = #"option 'mode' must be permission bits from 0 to 0777: a string of octal digits ("0640") or an integer (416)"#

    static func options(_ json: String) throws(NormCacheError) -> CacheOptions {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try CacheOptions(json: bytes) }
    }

    @Test func theMapGrowsWhenFullAndNothingIsLost() throws {
        var options = CacheOptions()
        options.mapSize = 1 << 20
        let test = try TestCache(options: options)
        let value = String(repeating: "x", count: 1000)
        for batch in 0..<20 {
            let json = "{" + (0..<200).map { "\"R:\(batch)-\($0)\": {\"v\": \"\(value)\"}" }.joined(separator: ",") + "}"
            #expect(try test.cache.put(json: json).count == 200)
        }
        let stats = try test.cache.stats()
        #expect(stats.records == 4000)
        #expect(stats.mapSize >= 4 << 20)
        #expect(try test.cache.record("R:0-0") == "{\"v\":\"\(value)\"}")
        // Another handle on the same file adopts the grown map.
        let other = try test.reopen()
        #expect(try other.record("R:19-199") == "{\"v\":\"\(value)\"}")
    }

    @Test func aWriteThatReservesItsBytesRunsOnceInASmallMap() throws {
        var options = CacheOptions()
        options.mapSize = 1 << 20
        let test = try TestCache(options: options)
        let value = [UInt8](repeating: 0x78, count: 4000)
        var attempts = 0
        try test.cache.store.write(reserving: 2000 * value.count) { (txn) throws(NormCacheError) in
            attempts += 1
            for number in 0..<2000 {
                try Array("R:\(number)".utf8).withBytes { (key) throws(NormCacheError) in
                    try value.withBytes { (record) throws(NormCacheError) in try txn.setRecord(key, record) }
                }
            }
        }
        // Without the reservation the 1 MiB map fills and the transaction runs again at
        // each growth step.
        #expect(attempts == 1)
        #expect(try test.cache.stats().mapSize >= 8 << 20)
    }

    @Test func aFiftyMegabyteRecordRoundTrips() throws {
        let test = try TestCache()
        let value = String(repeating: "0123456789", count: 5_000_000)
        _ = try test.cache.put(json: "{\"Big:1\": {\"blob\": \"\(value)\"}}")
        #expect(try test.cache.record("Big:1") == "{\"blob\":\"\(value)\"}")
    }

    @Test func readOnlyOpenReadsAndRefusesWrites() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        var options = CacheOptions()
        options.readOnly = true
        let reader = try test.reopen(options: options)
        #expect(try reader.record("A:1") == #"{"x":1}"#)
        #expect(try reader.stats().readOnly)
        #expect(throws: NormCacheError(.readOnly, "'\(test.path)' is open read-only")) { try reader.put(json: #"{"A:1": {"x": 2}}"#) }
        #expect(throws: NormCacheError(.readOnly, "'\(test.path)' is open read-only")) { try reader.clear() }
        _ = try test.cache.put(json: #"{"A:1": {"x": 3}}"#)
        #expect(try reader.record("A:1") == #"{"x":3}"#)
        #expect(throws: NormCacheError(.storage, "cannot open '\(test.directory)/missing.cache' read-only: no such file (or its directory does not exist)")) {
            try NormalizedCache(path: test.directory + "/missing.cache", options: options)
        }
    }

    @Test func pathsThatCannotBeOpened() throws {
        #expect(throws: NormCacheError(.storage, "cannot create '/nonexistent-dir/x.cache': its directory does not exist")) {
            try NormalizedCache(path: "/nonexistent-dir/x.cache")
        }
        #expect(throws: NormCacheError(.invalidArgument, "empty cache path")) { try NormalizedCache(path: "") }
        #expect(throws: NormCacheError(.invalidArgument, "cache path contains a NUL byte")) { try NormalizedCache(path: "a\0b") }
    }

    @Test func filesThatAreNotCachesAreRefused() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        test.cache.close()
        let dir = test.directory
        try Self.write(dir + "/random.cache", (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        try Self.write(dir + "/zeros.cache", [UInt8](repeating: 0, count: 65536))
        try Self.write(dir + "/text.cache", Array("hello, I am not a cache\n".utf8))
        for name in ["random", "zeros", "text"] {
            #expect(throws: NormCacheError(.notACache, "'\(dir)/\(name).cache' is not a normcache cache: not an LMDB file")) {
                try NormalizedCache(path: "\(dir)/\(name).cache")
            }
        }
        // A cache cut short: its pages end after the new end of the file.
        let whole = try TestData.read(test.path)
        try Self.write(dir + "/cut.cache", Array(whole[0..<(whole.count / 2)]))
        #expect(throws: NormCacheError(.notACache, "'\(dir)/cut.cache' is truncated: \(whole.count / 2) bytes, but its pages end at byte \(whole.count)")) {
            try NormalizedCache(path: dir + "/cut.cache")
        }
        for name in ["random", "zeros", "text", "cut"] {
            unlink("\(dir)/\(name).cache")
            unlink("\(dir)/\(name).cache-lock")
        }
    }

    @Test func aPlainLMDBFileOrANewerFormatIsRefused() throws {
        let test = try TestCache()
        test.cache.close()
        // A file whose meta database says format 2.
        try Self.rewriteFormat(test.path, to: 2)
        #expect(throws: NormCacheError(.notACache, "'\(test.path)' is not a normcache cache: format version 2 is newer than this library reads (up to 1)")) {
            try NormalizedCache(path: test.path)
        }
        // A plain LMDB file with data of its own in the main database.
        let plain = test.directory + "/plain.mdb"
        try Self.lmdbPut(plain, database: nil, key: "k", value: Array("v".utf8))
        #expect(throws: NormCacheError(.notACache, "'\(plain)' is not a normcache cache: an LMDB file without normcache's meta database")) {
            try NormalizedCache(path: plain)
        }
        unlink(plain)
        unlink(plain + "-lock")
    }

    static func rewriteFormat(_ path: String, to version: UInt32) throws {
        var value: [UInt8] = []
        value.appendUInt32(version)
        try lmdbPut(path, database: "meta", key: "format", value: value)
    }

    /// Stores `value` under `key` in the database `database` (nil: the main one) of the
    /// LMDB file at `path` with liblmdb itself, as a program that is not normcache would.
    static func lmdbPut(_ path: String, database: String?, key: String, value: [UInt8]) throws {
        func check(_ code: Int32, _ call: String) throws {
            guard code == 0 else { throw NormCacheError(.storage, "\(call) on \(path): \(String(cString: mdb_strerror(code)))") }
        }
        var env: OpaquePointer?
        try check(mdb_env_create(&env), "mdb_env_create")
        defer { mdb_env_close(env) }
        try check(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
        try check(mdb_env_open(env, path, UInt32(MDB_NOSUBDIR), 0o644), "mdb_env_open")
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        var dbi: MDB_dbi = 0
        var keyBytes = Array(key.utf8), valueBytes = value
        let code = keyBytes.withUnsafeMutableBytes { keyBuffer in
            valueBytes.withUnsafeMutableBytes { valueBuffer in
                var mdbKey = MDB_val(mv_size: keyBuffer.count, mv_data: keyBuffer.baseAddress)
                var mdbValue = MDB_val(mv_size: valueBuffer.count, mv_data: valueBuffer.baseAddress)
                let opened = mdb_dbi_open(txn, database, 0, &dbi)
                return opened != 0 ? opened : mdb_put(txn, dbi, &mdbKey, &mdbValue, 0)
            }
        }
        guard code == 0 else {
            mdb_txn_abort(txn)
            try check(code, "mdb_put")
            return
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    static func write(_ path: String, _ bytes: [UInt8]) throws {
        guard let file = fopen(path, "wb") else { throw NormCacheError(.storage, "cannot write \(path)") }
        defer { fclose(file) }
        _ = fwrite(bytes, 1, bytes.count, file)
    }

    @Test func aClosedCacheRefusesEveryCall() throws {
        let test = try TestCache()
        #expect(test.cache.close())
        #expect(!test.cache.close())
        let closed = NormCacheError(.invalidArgument, "the cache '\(test.path)' is closed")
        #expect(throws: closed) { try test.cache.put(json: #"{"A:1": {"x": 1}}"#) }
        #expect(throws: closed) { try test.cache.record("A:1") }
        #expect(throws: closed) { try test.cache.keys(withPrefix: "A:") }
        #expect(throws: closed) { try test.cache.remove("A:1") }
        #expect(throws: closed) { try test.cache.stats() }
    }

    @Test func twoHandlesOnOneFileSeeEachOthersWrites() throws {
        let test = try TestCache()
        let other = try test.reopen()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        #expect(try other.record("A:1") == #"{"x":1}"#)
        _ = try other.put(json: #"{"A:1": {"y": 2}}"#)
        #expect(try test.cache.record("A:1") == #"{"x":1,"y":2}"#)
    }

    @Test func handlesOnOneFileShareItsEnvironment() throws {
        let test = try TestCache()
        let second = try test.reopen()
        _ = try second.put(json: #"{"A:1": {"x": 1}}"#)
        #expect(second.close())
        #expect(try test.cache.record("A:1") == #"{"x":1}"#)
        _ = try test.cache.put(json: #"{"A:1": {"x": 2}}"#)
        // Through another path to the same file.
        let third = try NormalizedCache(path: test.directory + "/./test.cache")
        #expect(try third.record("A:1") == #"{"x":2}"#)
        third.close()
    }

    @Test func durabilityIsTheStrongestAskedForAndReadOnlyComesFirst() throws {
        var fast = CacheOptions()
        fast.durability = .fast
        let test = try TestCache(options: fast)
        #expect(try test.cache.stats().durability == .fast)
        let full = try test.reopen()
        #expect(try test.cache.stats().durability == .full)
        full.close()
        test.cache.close()
        var readOnly = CacheOptions()
        readOnly.readOnly = true
        let reader = try NormalizedCache(path: test.path, options: readOnly)
        #expect(throws: NormCacheError(.invalidArgument, "'\(test.path)' is already open read-only in this process; close it before opening it for writing")) {
            try NormalizedCache(path: test.path)
        }
        reader.close()
        test.cache = try test.reopen()
    }
}
