// record.swift — fuzz target: the record decoder on arbitrary stored bytes.
//
// Each input is stored, as it is, as the bytes of two records, and then read by
// everything that decodes records: `record` (get), a merging `put` and an operation
// read. A damaged record must give a `NOTCACHE` error naming its key, and a put that
// fails on it must leave it untouched.

@testable import NormCache

/// The scratch cache and an operation that reads both records.
private let state = RunState { () -> (scratch: ScratchCache, operation: PreparedOperation) in
    let scratch = ScratchCache(clearEvery: Int.max)
    do throws(NormCacheError) {
        return (scratch, try scratch.cache.prepare("{ a list item { a b } }"))
    } catch {
        require(false, "prepare failed: \(error.message)")
        fatalError()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let stored = UnsafeRawBufferPointer(start: data, count: size)
    let (scratch, operation) = state.current
    let cache = scratch.cache
    do throws(NormCacheError) {
        try cache.store.write { (txn) throws(NormCacheError) in
            try "QUERY_ROOT".withUTF8Bytes { (key) throws(NormCacheError) in try txn.setRecord(key, stored) }
            try "Item:1".withUTF8Bytes { (key) throws(NormCacheError) in try txn.setRecord(key, stored) }
        }
    } catch {
        require(false, "storing the input failed: \(error.message)")
    }
    for key in ["Item:1", "QUERY_ROOT"] {
        do throws(NormCacheError) {
            _ = try cache.record(key)
        } catch {
            requireDamaged(error, "get \(key)")
            require(error.message.contains(key), "the error does not name \(key): \(error.message)")
        }
    }
    for partial in [false, true] {
        do throws(NormCacheError) {
            _ = try cache.read(operation, options: ReadOptions(partial: partial))
        } catch {
            requireDamaged(error, "read")
        }
    }
    let otherBefore = storedBytes("Other:1", in: cache)
    do throws(NormCacheError) {
        _ = try cache.put(json: #"{"Other:1": {"a": 1}, "Item:1": {"b": [1, {"c": null}]}}"#)
    } catch {
        requireDamaged(error, "merge into Item:1")
        require(storedBytes("Item:1", in: cache) == Array(stored), "a failed merge changed the damaged record")
        require(storedBytes("Other:1", in: cache) == otherBefore, "a failed put wrote part of its records")
    }
    return 0
}

/// Stops the run unless `error` is the error of a damaged record.
private func requireDamaged(_ error: NormCacheError, _ what: String) {
    require(error.code == .notACache && error.message.contains("is damaged"),
            "\(what): error \(error.code.rawValue): \(error.message)")
}

/// The stored bytes of record `key`, or nil when there is none.
private func storedBytes(_ key: String, in cache: NormalizedCache) -> [UInt8]? {
    do throws(NormCacheError) {
        return try cache.store.read { (txn) throws(NormCacheError) -> [UInt8]? in
            try key.withUTF8Bytes { (key) throws(NormCacheError) in try txn.record(key).map { Array($0) } }
        }
    } catch {
        require(false, "reading \(key) failed: \(error.message)")
        return nil
    }
}
