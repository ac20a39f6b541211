import CRawLMDB
import Glibc

/// The storage ceiling: plain LMDB, with the flags and durability normcache uses
/// (`MDB_NOSUBDIR | MDB_NOTLS`, a synchronous commit), one unnamed database.
final class RawLMDB {
    private let env: OpaquePointer
    private var dbi = MDB_dbi()
    /// The data file.
    let path: String

    /// Opens (creating) the file `path` with a map of `mapSize` bytes; `database` names
    /// a database of the file to open instead of the unnamed one.
    init(path: String, mapSize: Int, readOnly: Bool = false, database: String? = nil) throws {
        var env: OpaquePointer?
        try Self.check(mdb_env_create(&env), "mdb_env_create")
        self.env = env!
        self.path = path
        try Self.check(mdb_env_set_mapsize(env, mapSize), "mdb_env_set_mapsize")
        try Self.check(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
        let flags = UInt32(MDB_NOSUBDIR | MDB_NOTLS) | (readOnly ? UInt32(MDB_RDONLY) : 0)
        try Self.check(mdb_env_open(env, path, flags, 0o644), "mdb_env_open \(path)")
        try transaction(readOnly: readOnly) { txn in
            try Self.check(mdb_dbi_open(txn, database, readOnly ? 0 : UInt32(MDB_CREATE), &dbi), "mdb_dbi_open")
        }
    }

    deinit { mdb_env_close(env) }

    /// The records of a normcache cache file, in key order (a cursor over its records
    /// database). The cache must not be open in this process.
    static func records(ofCache path: String) throws -> RecordSet {
        var records = RecordSet()
        try forEachRecord(ofCache: path) { records.append(key: $0, value: $1) }
        return records
    }

    /// Visits every record of a normcache cache file in key order with a cursor in one
    /// read transaction. The cache must not be open in this process.
    static func forEachRecord(ofCache path: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        let source = try RawLMDB(path: path, mapSize: 0, readOnly: true, database: "records")
        try source.transaction(readOnly: true) { txn in
            try source.forEach(txn, from: nil) { key, value in
                try body(key, value)
                return true
            }
        }
    }

    /// Puts every pair of `records`, in order, in one committed transaction.
    func putAll(_ records: RecordSet) throws {
        try transaction(readOnly: false) { txn in
            try records.withStorage { storage in
                for pair in records.pairs { try put(txn, storage, pair) }
            }
        }
    }

    /// Puts each pair of `records` in a committed transaction of its own.
    func putEach(_ records: RecordSet) throws {
        try records.withStorage { storage in
            for pair in records.pairs {
                try transaction(readOnly: false) { txn in try put(txn, storage, pair) }
            }
        }
    }

    /// Gets every key of `records` in order in one read transaction, copying each
    /// value into `output` as a reader copies its result; returns the bytes copied.
    @discardableResult
    func getAll(_ records: RecordSet, into output: inout [UInt8]) throws -> Int {
        output.removeAll(keepingCapacity: true)
        try transaction(readOnly: true) { txn in
            try records.withStorage { storage in
                for pair in records.pairs { try copy(txn, storage, pair, into: &output) }
            }
        }
        return output.count
    }

    /// Gets each key of `records` in a read transaction of its own (as one call of a
    /// cache's get does), copying each value into `output`; returns the bytes copied.
    @discardableResult
    func getEach(_ records: RecordSet, into output: inout [UInt8]) throws -> Int {
        output.removeAll(keepingCapacity: true)
        try records.withStorage { storage in
            for pair in records.pairs {
                try transaction(readOnly: true) { txn in try copy(txn, storage, pair, into: &output) }
            }
        }
        return output.count
    }

    private func copy(_ txn: OpaquePointer, _ storage: UnsafeRawBufferPointer, _ pair: RecordSet.Pair,
                      into output: inout [UInt8]) throws {
        var key = MDB_val(mv_size: pair.keyLength, mv_data: UnsafeMutableRawPointer(mutating: storage.baseAddress! + pair.keyOffset))
        var value = MDB_val()
        try Self.check(mdb_get(txn, dbi, &key, &value), "mdb_get")
        output.append(contentsOf: UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
    }

    /// Walks the keys that start with `prefix` after `after` (at most `limit`, 0: all) with a
    /// cursor in one read transaction, copying each key into `keys`; returns the last key.
    @discardableResult
    func scan(prefix: [UInt8], after: [UInt8]? = nil, limit: Int = 0, into keys: inout [UInt8]) throws -> [UInt8] {
        keys.removeAll(keepingCapacity: true)
        var last: [UInt8] = []
        var count = 0
        try transaction(readOnly: true) { txn in
            try forEach(txn, from: after ?? prefix) { key, _ in
                guard key.starts(with: prefix) else { return false }
                if let after, key.elementsEqual(after) { return true }
                keys.append(contentsOf: key)
                count += 1
                if limit > 0, count == limit {
                    last = Array(key)
                    return false
                }
                return true
            }
        }
        return last
    }

    /// The size of the data file in bytes.
    var fileSize: Int { Self.fileSize(path) }

    /// The size of the file at `path` in bytes (0 when missing).
    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    private func put(_ txn: OpaquePointer, _ storage: UnsafeRawBufferPointer, _ pair: RecordSet.Pair) throws {
        var key = MDB_val(mv_size: pair.keyLength, mv_data: UnsafeMutableRawPointer(mutating: storage.baseAddress! + pair.keyOffset))
        var value = MDB_val(mv_size: pair.valueLength, mv_data: UnsafeMutableRawPointer(mutating: storage.baseAddress! + pair.valueOffset))
        try Self.check(mdb_put(txn, dbi, &key, &value, 0), "mdb_put")
    }

    /// Visits pairs from the first key at or after `start` (nil: the first) until
    /// `body` returns false.
    private func forEach(_ txn: OpaquePointer, from start: [UInt8]?,
                         _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        var cursor: OpaquePointer?
        try Self.check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val(), value = MDB_val()
        var code: Int32
        if var start {
            code = start.withUnsafeMutableBytes { bytes in
                key = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
                return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
            }
        } else {
            code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        }
        while code == MDB_SUCCESS {
            let keep = try body(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
                                UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
            if !keep { return }
            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if code != MDB_NOTFOUND { try Self.check(code, "mdb_cursor_get") }
    }

    /// Runs `body` in a transaction, committed unless it fails (a read-only commit keeps
    /// a database handle opened in it).
    private func transaction(readOnly: Bool, _ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), "mdb_txn_begin")
        do {
            try body(txn!)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private static func check(_ code: Int32, _ what: String) throws {
        guard code != MDB_SUCCESS else { return }
        throw BenchError("\(what): \(String(cString: mdb_strerror(code)))")
    }
}
