import CNormCacheHeader
import NormCache

// normcache_compact of include/normcache.h; documented there.

@c @implementation
public func normcache_compact(
    _ path: UnsafePointer<CChar>?, _ pathLength: Int,
    _ options: UnsafePointer<CChar>?, _ optionsLength: Int,
    _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json", optional: true) { () throws(NormCacheError) in
        let pathText = try Boundary.text(path, pathLength, "path")
        let parsed = try CacheOptions(json: Boundary.input(options, optionsLength, "options_json"))
        let sizes = try NormalizedCache.compact(path: pathText, options: parsed)
        return Array(#"{"bytes_before":\#(sizes.before),"bytes_after":\#(sizes.after)}"#.utf8)
    }
}
