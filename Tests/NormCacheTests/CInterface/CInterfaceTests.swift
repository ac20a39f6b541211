import CNormCache
import CNormCacheHeader
import Glibc
import NormCache
import TestSupport
import Testing

/// The C interface called as C would call it: handles, status codes, thread-local
/// messages, output buffers.
@Suite struct CInterfaceTests {
    func open(_ path: String, _ options: String = "") -> (Int32, OpaquePointer?) {
        var handle: OpaquePointer?
        let status = path.withCString { p in options.withCString { o in normcache_open(p, strlen(p), o, strlen(o), &handle) } }
        return (status, handle)
    }

    func message() -> String { String(cString: normcache_errmsg()) }

    func put(_ handle: OpaquePointer?, _ json: String) -> (Int32, String?) {
        var out: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = json.withCString { normcache_put(handle, $0, strlen($0), &out, &length) }
        defer { normcache_free(out) }
        return (status, out.map { String(cString: $0) })
    }

    func get(_ handle: OpaquePointer?, _ key: String) -> (Int32, String?) {
        var out: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = key.withCString { normcache_get(handle, $0, strlen($0), &out, &length) }
        defer { normcache_free(out) }
        #expect(out.map { strlen($0) } ?? 0 == length)
        return (status, out.map { String(cString: $0) })
    }

    @Test func openPutGetClose() throws {
        let test = try TestCache()
        let (status, handle) = open(test.path, #"{"durability": "fast"}"#)
        #expect(status == NORMCACHE_OK)
        #expect(put(handle, #"{"Droid:2001": {"name": "R2-D2"}}"#) == (NORMCACHE_OK, #"["Droid:2001.name"]"#))
        #expect(get(handle, "Droid:2001") == (NORMCACHE_OK, #"{"name":"R2-D2"}"#))
        #expect(get(handle, "Droid:2002") == (NORMCACHE_NOTFOUND, nil))
        #expect(normcache_close(handle) == NORMCACHE_OK)
    }

    /// The header's NORMCACHE_VERSION is the version's one source: the Swift core's
    /// version text and number, and what the library reports, agree with it.
    @Test func theVersionAgreesWithTheHeader() {
        #expect("\(NormalizedCache.version)" == NORMCACHE_VERSION)
        #expect(NormalizedCache.versionNumber == NORMCACHE_VERSION_NUMBER)
        #expect(NORMCACHE_VERSION_NUMBER == NORMCACHE_VERSION_MAJOR * 1_000_000 + NORMCACHE_VERSION_MINOR * 1000 + NORMCACHE_VERSION_PATCH)
        #expect(String(cString: normcache_version()) == NORMCACHE_VERSION)
        #expect(normcache_version_number() == NORMCACHE_VERSION_NUMBER)
    }

    @Test func closedAndMadeUpHandlesAreRefused() throws {
        let test = try TestCache()
        let (_, handle) = open(test.path)
        #expect(normcache_close(handle) == NORMCACHE_OK)
        #expect(normcache_close(handle) == NORMCACHE_EINVAL)
        #expect(message() == "the cache handle is closed or was never opened")
        #expect(put(handle, #"{"A:1": {}}"#).0 == NORMCACHE_EINVAL)
        #expect(normcache_clear(OpaquePointer(bitPattern: 0xdead_beef)) == NORMCACHE_EINVAL)
        #expect(normcache_clear(nil) == NORMCACHE_EINVAL)
        #expect(message() == "the cache handle is NULL")
        #expect(normcache_close(nil) == NORMCACHE_OK)
        // A new open that reuses the slot gets a new generation: the old handle stays dead.
        let (_, again) = open(test.path)
        #expect(again != handle)
        #expect(get(handle, "A:1").0 == NORMCACHE_EINVAL)
        #expect(normcache_close(again) == NORMCACHE_OK)
    }

    @Test func failuresSetAThreadLocalMessage() throws {
        let test = try TestCache()
        let (_, handle) = open(test.path)
        defer { _ = normcache_close(handle) }
        #expect(put(handle, #"{"A:1": {"x": [1, }}"#) == (NORMCACHE_EJSON, nil))
        #expect(message() == "JSON error at byte 18: expected a JSON value")
        #expect(put(handle, #"{"A:1": 5}"#) == (NORMCACHE_EJSON, nil))
        #expect(message() == "JSON error at byte 8: record 'A:1' must be a JSON object of fields, not number")
        #expect(put(handle, #"{"": {}}"#) == (NORMCACHE_EINVAL, nil))
        #expect(message() == "empty record key at byte 1")
        #expect(put(handle, #"{"A:1": {"r": {"$reference": 5}}}"#) == (NORMCACHE_EJSON, nil))
        #expect(message() == #"JSON error at byte 14: malformed reference in field 'r' of record 'A:1': a reference is an object whose only member is "$reference" with a string value"#)
        // Successful calls leave the message alone.
        #expect(put(handle, #"{"A:1": {"x": 1}}"#).0 == NORMCACHE_OK)
        #expect(message().hasPrefix("JSON error at byte 14"))
    }

    @Test func outputPointersAreCheckedAndCleared() throws {
        let test = try TestCache()
        let (_, handle) = open(test.path)
        defer { _ = normcache_close(handle) }
        var out: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(bitPattern: 1)
        var length = 99
        #expect(normcache_get(handle, "A", 1, &out, nil) == NORMCACHE_EINVAL)
        #expect(out == nil)
        #expect(normcache_get(handle, nil, 3, &out, &length) == NORMCACHE_EINVAL)
        #expect(message() == "key is NULL but its length is 3")
        #expect(length == 0)
        #expect(normcache_put(handle, "{}", 2, nil, nil) == NORMCACHE_OK)
        var count: UInt64 = 7
        #expect(normcache_remove_prefix(handle, "", 0, &count) == NORMCACHE_EINVAL)
        #expect(count == 0)
        #expect(String(cString: normcache_errstr(NORMCACHE_ENOTCACHE)) == "not a normcache cache, damaged, or of a newer format")
        #expect(String(cString: normcache_errstr(12345)) == "unknown status code")
        #expect(String(cString: normcache_version()) == NORMCACHE_VERSION)
    }
}
