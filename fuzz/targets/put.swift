// put.swift — fuzz target: `put` of arbitrary records JSON.
//
// A put that succeeds leaves every record of the cache readable as a JSON object and
// reports only fields of keys it was given; a put that fails leaves the cache as it
// was.

@testable import NormCache

private let scratch = ScratchCache(clearEvery: 256)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPut(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    scratch.nextInput()
    let cache = scratch.cache
    let json = UnsafeRawBufferPointer(start: data, count: size)
    let before = snapshot(cache)
    do throws(NormCacheError) {
        let changed = try cache.put(json: json)
        for field in changed {
            let key = recordKey(ofChange: field, in: cache)
            require(key != nil, "change '\(field)' names no stored record")
        }
        _ = snapshot(cache)
    } catch {
        requireInputError(error, allowed: [.json, .data, .invalidArgument], "put")
        require(snapshot(cache) == before, "a failed put changed the cache")
    }
    return 0
}

/// The stored record a change `Key.field` belongs to: the longest prefix before a dot
/// that is a record key (keys and field names may themselves hold dots). Dots are
/// found in the UTF-8 bytes: a dot followed by a combining mark is one Character.
private func recordKey(ofChange change: String, in cache: NormalizedCache) -> String? {
    var bytes = Array(change.utf8)
    while let dot = bytes.lastIndex(of: UInt8(ascii: ".")) {
        bytes.removeSubrange(dot...)
        let candidate = String(decoding: bytes, as: UTF8.self)
        if (try? cache.record(candidate)) != nil { return candidate }
    }
    return nil
}
