import CNormCacheHeader
import NormCache

// Transactions of several calls: normcache_begin, normcache_commit, normcache_rollback.

@c @implementation
public func normcache_begin(_ cache: OpaquePointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).begin()
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_commit(_ cache: OpaquePointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).commit()
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_rollback(_ cache: OpaquePointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).rollBack()
        return NORMCACHE_OK
    }
}
