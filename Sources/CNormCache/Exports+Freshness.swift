import CNormCacheHeader
import NormCache

// The freshness functions of include/normcache.h; documented there.

/// A C clock and its context, called from any thread of the handle's callers.
private struct CallbackClock: @unchecked Sendable {
    let clock: normcache_clock
    let context: UnsafeMutableRawPointer?

    /// The clock's time; `.callback` with the reason it gave through
    /// `normcache_callback_error`, if it gave one.
    func now() throws(NormCacheError) -> Int64 {
        let (time, reason) = CallbackFailure.run { clock(context) }
        if let reason { throw NormCacheError(.callback, "the cache's clock failed: \(reason)") }
        return time
    }
}

@c @implementation
public func normcache_set_clock(_ cache: OpaquePointer?, _ clock: normcache_clock?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        guard let clock else {
            open.setClock(nil)
            return NORMCACHE_OK
        }
        let source = CallbackClock(clock: clock, context: context)
        open.setFailableClock { () throws(NormCacheError) -> Int64 in try source.now() }
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_write_ex(_ cache: OpaquePointer?, _ op: OpaquePointer?,
                               _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                               _ response: UnsafePointer<CChar>?, _ responseLength: Int,
                               _ options: UnsafePointer<normcache_write_options>?,
                               _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                               _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.clear(outChanged, outLength)
    return Boundary.run { () throws(NormCacheError) in
        try Boundary.allow(outChanged, outLength, "out_changed")
        let writeOptions = try WriteOptions(options)
        let result = try caches.object(cache).write(operations.object(op), variables: Boundary.input(variables, variablesLength, "variables_json"),
                                                    response: Boundary.input(response, responseLength, "response_json"),
                                                    options: writeOptions, reportingChanges: outChanged != nil)
        try Boundary.output(JSONEncoding.stringArray(result.changed), outChanged, outLength)
        return result.isStored ? NORMCACHE_OK : NORMCACHE_NOTSTORED
    }
}

@c @implementation
public func normcache_read_ex(_ cache: OpaquePointer?, _ op: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                              _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                              _ options: UnsafePointer<normcache_read_options>?,
                              _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningWholeRead(outJSON, outLength, options) { (readOptions) throws(NormCacheError) in
        let fragmentKey = key == nil && keyLength == 0 ? nil : try Boundary.text(key, keyLength, "key")
        return try caches.object(cache).readBlock(operations.object(op), fragmentKey: fragmentKey,
                                                  variables: Boundary.input(variables, variablesLength, "variables_json"),
                                                  options: readOptions, wholeResult: true)
    }
}

extension Boundary {
    /// Runs the body of a read that gives the whole result (`normcache_read_ex`,
    /// `normcache_get_document`): checks `options` (NULL: the defaults) and hands the
    /// block `body` makes to the caller with the read's status.
    static func returningWholeRead(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                                   _ options: UnsafePointer<normcache_read_options>?,
                                   _ body: (ReadOptions) throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int, status: ReadResult.Status)) -> Int32 {
        clear(out, outLength)
        return run { () throws(NormCacheError) in
            var flags: UInt32 = 0
            var maxStale: UInt64?
            if let options {
                try checkSize(options.pointee.size, of: normcache_read_options.self, "options")
                flags = options.pointee.flags
                let stale = options.pointee.max_stale
                guard stale >= -1 else { throw NormCacheError(.invalidArgument, "options->max_stale is \(stale): seconds, or -1 for none") }
                maxStale = stale == -1 ? nil : UInt64(stale)
            }
            return returningRead(out, outLength, flags: flags, known: NORMCACHE_READ_PARTIAL | NORMCACHE_READ_IGNORE_FRESHNESS) {
                (flags) throws(NormCacheError) in
                try body(ReadOptions(partial: flags & NORMCACHE_READ_PARTIAL != 0, maxStale: maxStale,
                                     ignoringFreshness: flags & NORMCACHE_READ_IGNORE_FRESHNESS != 0))
            }
        }
    }
}

@c @implementation
public func normcache_invalidate(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                 _ field: UnsafePointer<CChar>?, _ fieldLength: Int, _ flags: UInt32,
                                 _ outCount: UnsafeMutablePointer<UInt64>?) -> Int32 {
    outCount?.pointee = 0
    return Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        guard flags & ~NORMCACHE_INVALIDATE_PREFIX == 0 else {
            throw NormCacheError(.invalidArgument, "unknown invalidate flags 0x\(String(flags, radix: 16))")
        }
        let keyBytes = try Boundary.input(key, keyLength, "key")
        let hasField = field != nil || fieldLength != 0
        let marked: Int
        if flags & NORMCACHE_INVALIDATE_PREFIX != 0 {
            guard !hasField else { throw NormCacheError(.invalidArgument, "a field cannot be given with NORMCACHE_INVALIDATE_PREFIX") }
            marked = try open.invalidateAll(withPrefix: keyBytes)
        } else {
            marked = try open.invalidate(keyBytes, field: hasField ? Boundary.input(field, fieldLength, "field") : nil)
        }
        outCount?.pointee = UInt64(marked)
        return marked > 0 ? NORMCACHE_OK : NORMCACHE_NOTFOUND
    }
}

extension WriteOptions {
    /// The options of `normcache_write_ex` (NULL: none), named `name` in messages (the
    /// parameter: `options`, or `headers` for `normcache_fetch_reply_set`).
    init(_ options: UnsafePointer<normcache_write_options>?, named name: String = "options") throws(NormCacheError) {
        self.init()
        guard let options else { return }
        try Boundary.checkSize(options.pointee.size, of: normcache_write_options.self, name)
        let given = options.pointee
        guard given.max_age >= -1, given.max_age <= Int64(WriteOptions.maximumMaxAge) else {
            throw NormCacheError(.invalidArgument, "\(name)->max_age is \(given.max_age): seconds from 0 to \(WriteOptions.maximumMaxAge), or -1 for none")
        }
        maxAge = given.max_age == -1 ? nil : UInt32(given.max_age)
        cacheControl = try Self.header(given.cache_control, given.cache_control_len, "\(name)->cache_control")
        age = try Self.header(given.age, given.age_len, "\(name)->age")
        date = try Self.header(given.date, given.date_len, "\(name)->date")
        expires = try Self.header(given.expires, given.expires_len, "\(name)->expires")
    }

    /// A header value: NULL/0 is absent; any other text must be UTF-8.
    private static func header(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ parameter: String) throws(NormCacheError) -> String? {
        guard pointer != nil || length != 0 else { return nil }
        return try Boundary.text(pointer, length, parameter)
    }
}
