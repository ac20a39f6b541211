import CNormCacheABI
import Glibc

/// A cache opened through the C interface, as a C program uses it: every call is a
/// `normcache_*` function, every output buffer is released with `normcache_free`.
final class CacheClient {
    let handle: OpaquePointer
    /// The cache file.
    let path: String
    /// The clock set with `setClock`, kept while the handle may call it.
    private var clock: HarnessClock?

    /// Opens (or creates) the cache at `path` with `options` JSON.
    init(path: String, options: String = "") throws {
        var handle: OpaquePointer?
        let code = path.withCString { pathPointer in
            options.withCString { optionsPointer in
                normcache_open(pathPointer, strlen(pathPointer), options.isEmpty ? nil : optionsPointer,
                               strlen(optionsPointer), &handle)
            }
        }
        try Self.check(code, "normcache_open \(path)")
        guard let handle else { throw BenchError("normcache_open \(path) gave no handle") }
        self.handle = handle
        self.path = path
    }

    deinit { normcache_close(handle) }

    /// Loads the SDL schema `sdl`.
    func loadSchema(_ sdl: [UInt8]) throws {
        try Self.check(sdl.withUnsafeBufferPointer { normcache_load_schema(handle, $0.baseAddress, $0.count) },
                       "normcache_load_schema")
    }

    /// Replaces the cache's clock with `clock` (`normcache_set_clock`), which the cache
    /// keeps until it closes.
    func setClock(_ clock: HarnessClock) throws {
        try Self.check(normcache_set_clock(handle, HarnessClock.read, clock.context), "normcache_set_clock")
        self.clock = clock
    }

    /// Adds key rules (`normcache_configure`).
    func configure(_ json: String) throws {
        try Self.check(json.withCString { normcache_configure(handle, $0, strlen($0)) }, "normcache_configure")
    }

    /// Merges records JSON; returns the bytes of the changed-keys JSON when `changed`.
    @discardableResult
    func put(_ records: UnsafeRawBufferPointer, changed: Bool = false) throws -> Int {
        try Self.output("normcache_put", wanted: changed) { out, length in
            normcache_put(handle, records.baseAddress?.assumingMemoryBound(to: CChar.self), records.count, out, length)
        }
    }

    /// Stores `json` as the document `key` with no lifetime (`normcache_put_document`).
    func putDocument(_ key: String, json: UnsafeRawBufferPointer) throws {
        let code = key.withCString { keyPointer in
            normcache_put_document(handle, keyPointer, strlen(keyPointer), json.baseAddress?.assumingMemoryBound(to: CChar.self),
                                   json.count, nil)
        }
        try Self.check(code, "normcache_put_document")
    }

    /// Prepares the operation (or fragment) of `document`.
    func prepare(_ document: String) throws -> PreparedOperation {
        var op: OpaquePointer?
        let code = document.withCString { normcache_prepare(handle, $0, strlen($0), nil, 0, &op) }
        try Self.check(code, "normcache_prepare")
        guard let op else { throw BenchError("normcache_prepare gave no operation") }
        return PreparedOperation(op)
    }

    /// Normalizes `response` for `operation` and merges its records; returns the bytes
    /// of the changed-keys JSON when `changed`.
    @discardableResult
    func write(_ operation: PreparedOperation, response: UnsafeRawBufferPointer, changed: Bool = false) throws -> Int {
        try Self.output("normcache_write", wanted: changed) { out, length in
            normcache_write(handle, operation.pointer, nil, 0,
                            response.baseAddress?.assumingMemoryBound(to: CChar.self), response.count, out, length)
        }
    }

    /// Reads the data of `operation`; returns the length of the JSON output, which it
    /// releases. A miss is an error here: the harness reads only what it wrote.
    @discardableResult
    func read(_ operation: PreparedOperation) throws -> Int {
        try Self.output("normcache_read", wanted: true) { out, length in
            normcache_read(handle, operation.pointer, nil, 0, 0, out, length)
        }
    }

    /// The JSON output of reading `operation`.
    func readBytes(_ operation: PreparedOperation) throws -> [UInt8] {
        var bytes: [UInt8] = []
        _ = try Self.output("normcache_read", wanted: true, keep: { bytes = Array($0) }, { out, length in
            normcache_read(handle, operation.pointer, nil, 0, 0, out, length)
        })
        return bytes
    }

    /// The length of the JSON array of keys of the group `prefix` after `after`, at most
    /// `limit` (0: all); `lastKey` receives the page's last key when asked for.
    @discardableResult
    func search(prefix: String, after: [UInt8]? = nil, limit: Int = 0,
                lastKey: UnsafeMutablePointer<[UInt8]>? = nil) throws -> Int {
        try prefix.withCString { prefixPointer in
            try Self.output("normcache_search", wanted: true, keep: { lastKey?.pointee = Self.lastString(of: $0) }) { out, length in
                if let after {
                    return after.withUnsafeBufferPointer { afterBytes in
                        afterBytes.withMemoryRebound(to: CChar.self) {
                            normcache_search(handle, prefixPointer, strlen(prefixPointer), $0.baseAddress, $0.count,
                                             limit, out, length)
                        }
                    }
                }
                return normcache_search(handle, prefixPointer, strlen(prefixPointer), nil, 0, limit, out, length)
            }
        }
    }

    /// The length of the JSON of the record `key`; a missing record is an error.
    @discardableResult
    func get(_ key: UnsafeRawBufferPointer) throws -> Int {
        try Self.output("normcache_get", wanted: true) { out, length in
            normcache_get(handle, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, out, length)
        }
    }

    /// The JSON of the record `key`.
    func getBytes(_ key: [UInt8]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        _ = try key.withUnsafeBytes { key in
            try Self.output("normcache_get", wanted: true, keep: { bytes = Array($0) }) { out, length in
                normcache_get(handle, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, out, length)
            }
        }
        return bytes
    }

    /// The integer member `name` of the cache's `normcache_stats` object.
    func statNumber(_ name: String) throws -> Int {
        var json: [UInt8] = []
        _ = try Self.output("normcache_stats", wanted: true, keep: { json = Array($0) }, { out, length in normcache_stats(handle, out, length) })
        let member = Array("\"\(name)\":".utf8)
        guard json.count >= member.count,
              let at = (0...(json.count - member.count)).first(where: { json[$0..<($0 + member.count)].elementsEqual(member) }),
              let value = Int(String(decoding: json[(at + member.count)...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") },
                                     as: UTF8.self))
        else { throw BenchError("normcache_stats has no number \(name)") }
        return value
    }

    /// Runs a call with an optional output buffer; returns the output's length after
    /// passing it to `keep` and releasing it.
    static func output(_ what: String, wanted: Bool, keep: (UnsafeRawBufferPointer) -> Void = { _ in },
                               _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UnsafeMutablePointer<Int>?) -> Int32) throws -> Int {
        guard wanted else {
            try check(call(nil, nil), what)
            return 0
        }
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        try check(call(&buffer, &length), what)
        keep(UnsafeRawBufferPointer(start: buffer, count: length))
        normcache_free(buffer)
        return length
    }

    /// The last string of a JSON array of plain strings (keys without escapes).
    private static func lastString(of json: UnsafeRawBufferPointer) -> [UInt8] {
        guard json.count > 4, let close = json.lastIndex(of: UInt8(ascii: "\"")) else { return [] }
        guard let open = json[..<close].lastIndex(of: UInt8(ascii: "\"")) else { return [] }
        return Array(json[(open + 1)..<close])
    }

    /// Throws the library's message for a failing code.
    static func check(_ code: Int32, _ what: String) throws {
        guard code != NORMCACHE_OK else { return }
        let message = normcache_errmsg().map { String(cString: $0) } ?? ""
        throw BenchError("\(what): \(String(cString: normcache_errstr(code))) (\(code)): \(message)")
    }
}

/// A prepared operation, released with `normcache_op_free`.
final class PreparedOperation {
    /// The C handle.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { normcache_op_free(pointer) }
}
