import CNormCacheHeader
import Glibc
import NormCache

// The functions of include/normcache.h. Each `@c @implementation` is checked by the
// compiler against the header's declaration; their documentation lives there.

@c @implementation
public func normcache_version() -> UnsafePointer<CChar>? {
    Boundary.cString(NormalizedCache.version)
}

@c @implementation
public func normcache_version_number() -> Int32 {
    NormalizedCache.versionNumber
}

@c @implementation
public func normcache_errstr(_ code: Int32) -> UnsafePointer<CChar>? {
    Boundary.cString(StatusText.text(for: code))
}

@c @implementation
public func normcache_errmsg() -> UnsafePointer<CChar>? {
    ErrorMessage.current()
}

@c @implementation
public func normcache_open(_ path: UnsafePointer<CChar>?, _ pathLength: Int,
                           _ options: UnsafePointer<CChar>?, _ optionsLength: Int,
                           _ outCache: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outCache?.pointee = nil
    return Boundary.run { () throws(NormCacheError) in
        guard let outCache else { throw NormCacheError(.invalidArgument, "out_cache is NULL") }
        let pathBytes = try Boundary.input(path, pathLength, "path")
        guard let pathText = String(validating: pathBytes, as: UTF8.self) else {
            throw NormCacheError(.invalidArgument, "path is not valid UTF-8")
        }
        let parsed = try CacheOptions(json: Boundary.input(options, optionsLength, "options_json"))
        let cache = try NormalizedCache(path: pathText, options: parsed)
        do throws(NormCacheError) {
            let handle = try caches.register(cache)
            InterruptDirectory.publish(handle, cache.interruptFlag)
            outCache.pointee = handle
        } catch {
            cache.close()
            throw error
        }
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_close(_ cache: OpaquePointer?) -> Int32 {
    guard cache != nil else { return NORMCACHE_OK }
    return Boundary.run { () throws(NormCacheError) in
        if let cache { InterruptDirectory.withdraw(cache) }
        try caches.remove(cache) { $0.close() }
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_interrupt(_ cache: OpaquePointer?) -> Int32 {
    // Atomic loads and a compare-and-swap, nothing else: async-signal-safe.
    guard let cache, let flag = InterruptDirectory.flag(cache), flag.interrupt() else { return NORMCACHE_EINVAL }
    return NORMCACHE_OK
}

@c @implementation
public func normcache_put(_ cache: OpaquePointer?, _ records: UnsafePointer<CChar>?, _ recordsLength: Int,
                          _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                          _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningChanged(outChanged, outLength) { (wanted) throws(NormCacheError) in
        try caches.object(cache).put(json: Boundary.input(records, recordsLength, "records_json"), reportingChanges: wanted)
    }
}

@c @implementation
public func normcache_get(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                          _ outRecord: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                          _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.clear(outRecord, outLength)
    return Boundary.run { () throws(NormCacheError) in
        let (outRecord, outLength) = try Boundary.require(outRecord, outLength, "out_record")
        let open = try caches.object(cache)
        guard let record = try open.recordBlock(Boundary.input(key, keyLength, "key")) else { return NORMCACHE_NOTFOUND }
        outRecord.pointee = record.block.assumingMemoryBound(to: CChar.self)
        outLength.pointee = record.count
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_remove(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        return try open.remove(Boundary.input(key, keyLength, "key")) ? NORMCACHE_OK : NORMCACHE_NOTFOUND
    }
}

@c @implementation
public func normcache_remove_field(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                   _ field: UnsafePointer<CChar>?, _ fieldLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        let keyBytes = try Boundary.input(key, keyLength, "key")
        return try open.removeField(Boundary.input(field, fieldLength, "field"), of: keyBytes) ? NORMCACHE_OK : NORMCACHE_NOTFOUND
    }
}

@c @implementation
public func normcache_remove_prefix(_ cache: OpaquePointer?, _ prefix: UnsafePointer<CChar>?, _ prefixLength: Int,
                                    _ outCount: UnsafeMutablePointer<UInt64>?) -> Int32 {
    outCount?.pointee = 0
    return Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        let removed = try open.removeAll(withPrefix: Boundary.input(prefix, prefixLength, "prefix"))
        outCount?.pointee = UInt64(removed)
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_clear(_ cache: OpaquePointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).clear()
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_search(_ cache: OpaquePointer?, _ prefix: UnsafePointer<CChar>?, _ prefixLength: Int,
                             _ after: UnsafePointer<CChar>?, _ afterLength: Int, _ limit: Int,
                             _ outKeys: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningBlock(outKeys, outLength, "out_keys") { () throws(NormCacheError) in
        let open = try caches.object(cache)
        let afterBytes = after == nil && afterLength == 0 ? nil : try Boundary.input(after, afterLength, "after")
        return try open.keysBlock(withPrefix: Boundary.input(prefix, prefixLength, "prefix"), after: afterBytes, limit: limit)
    }
}

@c @implementation
public func normcache_stats(_ cache: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in
        try caches.object(cache).stats().json
    }
}
