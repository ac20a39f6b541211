import CNormCacheHeader
import NormCache

// The watchers and commit log functions of include/normcache.h; documented there.

/// The live watchers of the C interface.
let watches = HandleTable<Watcher>(name: "watcher", boundToProcess: false, lock: ForkSafety.locks.watchHandles)

@c @implementation
public func normcache_watch(_ cache: OpaquePointer?, _ op: OpaquePointer?, _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                            _ key: UnsafePointer<CChar>?, _ keyLength: Int, _ callback: normcache_watch_callback?,
                            _ context: UnsafeMutableRawPointer?, _ outWatch: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outWatch?.pointee = nil
    return Boundary.run { () throws(NormCacheError) in
        guard let outWatch else { throw NormCacheError(.invalidArgument, "out_watcher is NULL") }
        guard let callback else { throw NormCacheError(.invalidArgument, "callback is NULL") }
        let open = try caches.object(cache)
        let operation = try operations.object(op)
        let fragmentKey = key == nil && keyLength == 0 ? nil : try Boundary.text(key, keyLength, "key")
        let target = CallbackTarget(context)
        let watcher = try open.watch(operation, variables: Boundary.input(variables, variablesLength, "variables_json"),
                                     at: fragmentKey) { outcome in
            switch outcome {
            case .success(let result):
                result.json.withUnsafeBufferPointer { json in
                    callback(target.context, Boundary.status(result.status), UnsafeRawPointer(json.baseAddress)?.assumingMemoryBound(to: CChar.self),
                             json.count)
                }
            case .failure(let error):
                ErrorMessage.set(error.message)
                callback(target.context, error.code.rawValue, nil, 0)
            }
        }
        do throws(NormCacheError) {
            outWatch.pointee = try watches.register(watcher)
        } catch {
            watcher.cancel()
            throw error
        }
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_unwatch(_ watch: OpaquePointer?) -> Int32 {
    guard watch != nil else { return NORMCACHE_OK }
    return Boundary.run { () throws(NormCacheError) in
        try watches.unregister(watch).cancel()
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_last_commit(_ cache: OpaquePointer?, _ outCommit: UnsafeMutablePointer<UInt64>?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        guard let outCommit else { throw NormCacheError(.invalidArgument, "out_commit is NULL") }
        outCommit.pointee = try caches.object(cache).lastCommit()
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_changes_since(_ cache: OpaquePointer?, _ commit: UInt64, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outJSON, outLength, "out_json") { () throws(NormCacheError) in try caches.object(cache).changes(since: commit).json }
}

@c @implementation
public func normcache_wait_commit(_ cache: OpaquePointer?, _ after: UInt64, _ timeoutMilliseconds: Int32,
                                  _ outCommit: UnsafeMutablePointer<UInt64>?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        if let newest = try open.waitForCommit(after: after, timeoutMilliseconds: Int(timeoutMilliseconds)) {
            outCommit?.pointee = newest
            return NORMCACHE_OK
        }
        outCommit?.pointee = try open.lastCommit()
        return NORMCACHE_TIMEOUT
    }
}

@c @implementation
public func normcache_dispatch_changes(_ cache: OpaquePointer?, _ outCommit: UnsafeMutablePointer<UInt64>?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let newest = try caches.object(cache).dispatchChanges()
        outCommit?.pointee = newest
        return NORMCACHE_OK
    }
}

/// A C callback's context pointer, carried into a Swift closure that may run on
/// another thread (the caller vouches for it, as C callers do).
private struct CallbackTarget: @unchecked Sendable {
    let context: UnsafeMutableRawPointer?

    init(_ context: UnsafeMutableRawPointer?) {
        self.context = context
    }
}
