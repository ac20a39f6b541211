import CNormCacheHeader
import NormCache

// The saved-rules functions of include/normcache.h; documented there.

@c @implementation
public func normcache_save_rules(_ cache: OpaquePointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).saveRules()
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_clear_saved_rules(_ cache: OpaquePointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).clearSavedRules() ? NORMCACHE_OK : NORMCACHE_NOTFOUND
    }
}
