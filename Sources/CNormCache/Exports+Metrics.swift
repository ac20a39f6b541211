import CNormCacheHeader
import NormCache

// normcache_metrics of include/normcache.h; documented there.

@c @implementation
public func normcache_metrics(_ cache: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in try caches.object(cache).metrics().json }
}
