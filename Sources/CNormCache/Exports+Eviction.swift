import CNormCacheHeader
import NormCache

// The size limit functions of include/normcache.h; documented there.

@c @implementation
public func normcache_trim(_ cache: OpaquePointer?, _ maxBytes: Int64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                           _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in
        try caches.object(cache).trim(toBytes: Int(maxBytes)).json
    }
}
