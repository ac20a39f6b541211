import CNormCacheHeader
import NormCache

// The functions of include/normcache.h about the library's memory: buffers it returned,
// and the blocks it keeps between calls.

@c @implementation
public func normcache_free(_ buffer: UnsafeMutableRawPointer?) {
    NormalizedCache.releaseHandedOut(buffer)
}

@c @implementation
public func normcache_release_memory(_ outReleased: UnsafeMutablePointer<Int>?) -> Int32 {
    let released = NormalizedCache.releaseMemory()
    outReleased?.pointee = released
    return NORMCACHE_OK
}
