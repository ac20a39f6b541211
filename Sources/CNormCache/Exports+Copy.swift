import CNormCacheHeader
import NormCache

// normcache_copy of include/normcache.h; documented there.

@c @implementation
public func normcache_copy(_ cache: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ pathLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        try open.copy(to: Boundary.text(path, pathLength, "path"))
        return NORMCACHE_OK
    }
}
