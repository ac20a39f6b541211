import CNormCacheHeader
import NormCache

// The GraphQL operation functions of include/normcache.h; documented there.

@c @implementation
public func normcache_load_schema(_ cache: OpaquePointer?, _ sdl: UnsafePointer<CChar>?, _ sdlLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).loadSchema(sdl: Boundary.input(sdl, sdlLength, "sdl"))
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_configure(_ cache: OpaquePointer?, _ config: UnsafePointer<CChar>?, _ configLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        try caches.object(cache).configure(json: Boundary.input(config, configLength, "config_json"))
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_prepare(_ cache: OpaquePointer?, _ document: UnsafePointer<CChar>?, _ documentLength: Int,
                              _ name: UnsafePointer<CChar>?, _ nameLength: Int,
                              _ outOperation: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outOperation?.pointee = nil
    return Boundary.run { () throws(NormCacheError) in
        guard let outOperation else { throw NormCacheError(.invalidArgument, "out_op is NULL") }
        let open = try caches.object(cache)
        let operationName = nameLength == 0 ? nil : try Boundary.text(name, nameLength, "operation_name")
        let operation = try open.prepare(document: Boundary.input(document, documentLength, "document"), operationName: operationName)
        outOperation.pointee = try operations.register(operation)
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_op_document(_ op: OpaquePointer?, _ outDocument: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                  _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returning(outDocument, outLength, "out_document") { () throws(NormCacheError) in
        Array(try operations.object(op).document.utf8)
    }
}

@c @implementation
public func normcache_op_free(_ op: OpaquePointer?) -> Int32 {
    guard op != nil else { return NORMCACHE_OK }
    return Boundary.run { () throws(NormCacheError) in
        _ = try operations.unregister(op)
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_normalize(_ op: OpaquePointer?, _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                                _ response: UnsafePointer<CChar>?, _ responseLength: Int,
                                _ outRecords: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    normcache_normalize_ex(op, variables, variablesLength, response, responseLength, 0, nil, outRecords, outLength)
}

@c @implementation
public func normcache_normalize_ex(_ op: OpaquePointer?, _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                                   _ response: UnsafePointer<CChar>?, _ responseLength: Int, _ flags: UInt32,
                                   _ outKeyFallbacks: UnsafeMutablePointer<Int>?,
                                   _ outRecords: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                   _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    outKeyFallbacks?.pointee = 0
    return Boundary.returningBlock(outRecords, outLength, "out_records") { () throws(NormCacheError) in
        guard flags & ~NORMCACHE_WRITE_STRICT_KEYS == 0 else {
            throw NormCacheError(.invalidArgument, "unknown normalize flags 0x\(String(flags, radix: 16))")
        }
        let normalized = try NormalizedCache.normalizeBlock(operations.object(op),
                                                            variables: Boundary.input(variables, variablesLength, "variables_json"),
                                                            response: Boundary.input(response, responseLength, "response_json"),
                                                            strictKeys: flags & NORMCACHE_WRITE_STRICT_KEYS != 0)
        outKeyFallbacks?.pointee = normalized.keyFallbacks
        return (normalized.block, normalized.count)
    }
}

@c @implementation
public func normcache_write(_ cache: OpaquePointer?, _ op: OpaquePointer?,
                            _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                            _ response: UnsafePointer<CChar>?, _ responseLength: Int,
                            _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningChanged(outChanged, outLength) { (wanted) throws(NormCacheError) in
        try caches.object(cache).write(operations.object(op), variables: Boundary.input(variables, variablesLength, "variables_json"),
                                       response: Boundary.input(response, responseLength, "response_json"),
                                       reportingChanges: wanted)
    }
}

@c @implementation
public func normcache_read(_ cache: OpaquePointer?, _ op: OpaquePointer?,
                           _ variables: UnsafePointer<CChar>?, _ variablesLength: Int, _ flags: UInt32,
                           _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                           _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningRead(outJSON, outLength, flags: flags) { (flags) throws(NormCacheError) in
        try caches.object(cache).readBlock(operations.object(op), fragmentKey: nil,
                                           variables: Boundary.input(variables, variablesLength, "variables_json"),
                                           options: ReadOptions(partial: flags & NORMCACHE_READ_PARTIAL != 0), wholeResult: false)
    }
}

@c @implementation
public func normcache_read_fragment(_ cache: OpaquePointer?, _ fragment: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                    _ variables: UnsafePointer<CChar>?, _ variablesLength: Int, _ flags: UInt32,
                                    _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningRead(outJSON, outLength, flags: flags) { (flags) throws(NormCacheError) in
        try caches.object(cache).readBlock(operations.object(fragment), fragmentKey: Boundary.text(key, keyLength, "key"),
                                           variables: Boundary.input(variables, variablesLength, "variables_json"),
                                           options: ReadOptions(partial: flags & NORMCACHE_READ_PARTIAL != 0), wholeResult: false)
    }
}

@c @implementation
public func normcache_write_fragment(_ cache: OpaquePointer?, _ fragment: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                     _ data: UnsafePointer<CChar>?, _ dataLength: Int,
                                     _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                                     _ outChanged: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningChanged(outChanged, outLength) { (wanted) throws(NormCacheError) in
        try caches.object(cache).writeFragment(operations.object(fragment), key: Boundary.text(key, keyLength, "key"),
                                               data: Boundary.input(data, dataLength, "data_json"),
                                               variables: Boundary.input(variables, variablesLength, "variables_json"),
                                               reportingChanges: wanted)
    }
}
