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
    Boundary.returningWrite(outChanged, outLength, options) { (writeOptions, wanted) throws(NormCacheError) in
        try caches.object(cache).write(operations.object(op), variables: Boundary.input(variables, variablesLength, "variables_json"),
                                       response: Boundary.input(response, responseLength, "response_json"),
                                       options: writeOptions, reportingChanges: wanted)
    }
}

@c @implementation
public func normcache_put_ex(_ cache: OpaquePointer?, _ records: UnsafePointer<CChar>?, _ recordsLength: Int,
                             _ options: UnsafePointer<normcache_write_options>?,
                             _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningWrite(outChanged, outLength, options) { (writeOptions, wanted) throws(NormCacheError) in
        try caches.object(cache).put(json: Boundary.input(records, recordsLength, "records_json"), options: writeOptions,
                                     reportingChanges: wanted)
    }
}

@c @implementation
public func normcache_write_fragment_ex(_ cache: OpaquePointer?, _ fragment: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                        _ data: UnsafePointer<CChar>?, _ dataLength: Int,
                                        _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                                        _ options: UnsafePointer<normcache_write_options>?,
                                        _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                        _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningWrite(outChanged, outLength, options) { (writeOptions, wanted) throws(NormCacheError) in
        try caches.object(cache).writeFragment(operations.object(fragment), key: Boundary.text(key, keyLength, "key"),
                                               data: Boundary.input(data, dataLength, "data_json"),
                                               variables: Boundary.input(variables, variablesLength, "variables_json"),
                                               options: writeOptions, reportingChanges: wanted)
    }
}

extension Boundary {
    /// Runs the body of a write that takes `normcache_write_options` (NULL: none):
    /// checks the options and the optional `out_changed` pair, and hands over the changed
    /// fields and the count of key fallbacks, with NORMCACHE_OK, or NORMCACHE_NOTSTORED
    /// when the options said `no-store`.
    static func returningWrite(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                               _ options: UnsafePointer<normcache_write_options>?,
                               _ body: (WriteOptions, _ wanted: Bool) throws(NormCacheError) -> WriteResult) -> Int32 {
        clear(out, outLength)
        return run { () throws(NormCacheError) in
            try allow(out, outLength, "out_changed")
            let result = try body(WriteOptions(options), out != nil)
            try output(result.changed, out, outLength)
            WriteOptions.keyFallbacks(of: options)?.pointee = result.keyFallbacks
            return result.isStored ? NORMCACHE_OK : NORMCACHE_NOTSTORED
        }
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
    /// Its members are read one by one, those added after the struct's first version
    /// (`flags`, `key_fallbacks`, `etag`) only when `size` holds them; `*key_fallbacks` is set
    /// to 0 once the size is checked.
    init(_ options: UnsafePointer<normcache_write_options>?, named name: String = "options") throws(NormCacheError) {
        self.init()
        guard let options else { return }
        try Boundary.checkSize(options.pointee.size, firstNewMember: \normcache_write_options.flags, name)
        Self.keyFallbacks(of: options)?.pointee = 0
        let given = options.pointee.max_age
        guard given >= -1, given <= Int64(WriteOptions.maximumMaxAge) else {
            throw NormCacheError(.invalidArgument, "\(name)->max_age is \(given): seconds from 0 to \(WriteOptions.maximumMaxAge), or -1 for none")
        }
        maxAge = given == -1 ? nil : UInt32(given)
        cacheControl = try Self.header(options.pointee.cache_control, options.pointee.cache_control_len, "\(name)->cache_control")
        age = try Self.header(options.pointee.age, options.pointee.age_len, "\(name)->age")
        date = try Self.header(options.pointee.date, options.pointee.date_len, "\(name)->date")
        expires = try Self.header(options.pointee.expires, options.pointee.expires_len, "\(name)->expires")
        let flags = Boundary.holds(options.pointee.size, \normcache_write_options.flags) ? options.pointee.flags : 0
        guard flags & ~NORMCACHE_WRITE_STRICT_KEYS == 0 else {
            throw NormCacheError(.invalidArgument, "unknown \(name)->flags 0x\(String(flags, radix: 16))")
        }
        strictKeys = flags & NORMCACHE_WRITE_STRICT_KEYS != 0
        if Boundary.holds(options.pointee.size, \normcache_write_options.etag_len) {
            etag = try Self.header(options.pointee.etag, options.pointee.etag_len, "\(name)->etag")
        }
    }

    /// Where `options` asks for the count of key fallbacks: its `key_fallbacks` member,
    /// when its size holds it; nil for NULL options.
    static func keyFallbacks(of options: UnsafePointer<normcache_write_options>?) -> UnsafeMutablePointer<Int>? {
        guard let options, Boundary.holds(options.pointee.size, \normcache_write_options.key_fallbacks) else { return nil }
        return options.pointee.key_fallbacks
    }

    /// A header value: NULL/0 is absent; any other text must be UTF-8.
    private static func header(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ parameter: String) throws(NormCacheError) -> String? {
        guard pointer != nil || length != 0 else { return nil }
        return try Boundary.text(pointer, length, parameter)
    }
}
