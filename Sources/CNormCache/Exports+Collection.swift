import CNormCacheHeader
import NormCache

// Garbage collection and retain counts (include/normcache.h documents them).

@c @implementation
public func normcache_gc(
    _ cache: OpaquePointer?, _ options: UnsafePointer<normcache_gc_options>?,
    _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in
        var collection = GarbageCollectionOptions()
        if let options {
            try Boundary.checkSize(options.pointee.size, of: normcache_gc_options.self, "options")
            let flags = options.pointee.flags
            let known = NORMCACHE_GC_DRY_RUN | NORMCACHE_GC_DANGLING
            guard flags & ~known == 0 else {
                throw NormCacheError(
                    .invalidArgument, "options->flags has unknown bits \(flags & ~known) (known: NORMCACHE_GC_DRY_RUN, NORMCACHE_GC_DANGLING)")
            }
            let grace = options.pointee.stale_grace
            guard grace >= -1 else { throw NormCacheError(.invalidArgument, "options->stale_grace is \(grace): seconds, or -1 to keep stale fields") }
            collection = GarbageCollectionOptions(
                dryRun: flags & NORMCACHE_GC_DRY_RUN != 0, staleGrace: grace == -1 ? nil : UInt64(grace),
                removeDanglingReferences: flags & NORMCACHE_GC_DANGLING != 0)
        }
        return try caches.object(cache).collectGarbage(collection).json
    }
}

@c @implementation
public func normcache_retain(
    _ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
    _ outCount: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    retainCountCall(outCount) { () throws(NormCacheError) in try caches.object(cache).retain(Boundary.input(key, keyLength, "key")) }
}

@c @implementation
public func normcache_release(
    _ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
    _ outCount: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    retainCountCall(outCount) { () throws(NormCacheError) in try caches.object(cache).release(Boundary.input(key, keyLength, "key")) }
}

/// Runs a retain or release, handing its count to `outCount` (when not NULL; 0 on failure).
private func retainCountCall(_ outCount: UnsafeMutablePointer<UInt32>?, _ body: () throws(NormCacheError) -> UInt32) -> Int32 {
    outCount?.pointee = 0
    return Boundary.run { () throws(NormCacheError) in
        // Evaluated first: an optional chain would skip the call when outCount is NULL.
        let count = try body()
        outCount?.pointee = count
        return NORMCACHE_OK
    }
}
