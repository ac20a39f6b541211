import CNormCacheHeader
import NormCache

// The plain JSON document functions of include/normcache.h; documented there
// (normcache_execute_document is with normcache_execute, in Exports+Execute.swift).

@c @implementation
public func normcache_put_document(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                   _ json: UnsafePointer<CChar>?, _ jsonLength: Int,
                                   _ options: UnsafePointer<normcache_write_options>?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        let writeOptions = try WriteOptions(options)
        let stored = try open.putDocument(Boundary.input(key, keyLength, "key"), json: Boundary.input(json, jsonLength, "json"),
                                          options: writeOptions)
        return stored ? NORMCACHE_OK : NORMCACHE_NOTSTORED
    }
}

@c @implementation
public func normcache_get_document(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                   _ options: UnsafePointer<normcache_read_options>?,
                                   _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                   _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningWholeRead(outJSON, outLength, options) { (readOptions) throws(NormCacheError) in
        try caches.object(cache).documentBlock(Boundary.input(key, keyLength, "key"), options: readOptions)
    }
}

@c @implementation
public func normcache_refresh_document(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                      _ options: UnsafePointer<normcache_write_options>?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        let writeOptions = try WriteOptions(options)
        switch try open.refreshDocument(Boundary.input(key, keyLength, "key"), options: writeOptions) {
        case .refreshed: return NORMCACHE_OK
        case .absent: return NORMCACHE_MISS
        case .notStored: return NORMCACHE_NOTSTORED
        }
    }
}
