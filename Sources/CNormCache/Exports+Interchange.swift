import CNormCacheHeader
import NormCache

// The Apollo cache functions of include/normcache.h; documented there.

/// The format a C caller names, or `.invalidArgument`.
private func interchangeFormat(_ format: Int32) throws(NormCacheError) -> InterchangeFormat {
    guard let known = InterchangeFormat(rawValue: format) else {
        throw NormCacheError(.invalidArgument, "unknown format \(format) (NORMCACHE_FORMAT_APOLLO_CLIENT is 1, NORMCACHE_FORMAT_APOLLO_IOS 2)")
    }
    return known
}

@c @implementation
public func normcache_import(_ cache: OpaquePointer?, _ format: Int32, _ data: UnsafePointer<CChar>?, _ dataLength: Int,
                             _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningChanged(outChanged, outLength) { (wanted) throws(NormCacheError) in
        let open = try caches.object(cache)
        return try open.importRecords(interchangeFormat(format), from: Boundary.input(data, dataLength, "data"), reportingChanges: wanted)
    }
}

@c @implementation
public func normcache_export(_ cache: OpaquePointer?, _ format: Int32,
                             _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in
        let open = try caches.object(cache)
        return try open.exportRecords(interchangeFormat(format))
    }
}
