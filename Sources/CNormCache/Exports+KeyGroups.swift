import CNormCacheHeader
import NormCache

// normcache_key_groups of include/normcache.h; documented there.

@c @implementation
public func normcache_key_groups(_ cache: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                 _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in
        try JSONEncoding.keyGroups(caches.object(cache).keyGroupStats())
    }
}
