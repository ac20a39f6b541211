import CNormCacheHeader
import NormCache

// The key resolver functions of include/normcache.h; documented there.

/// A key resolver's answer, filled by `normcache_key_set` through the `normcache_key*`
/// the callback is given (a pointer to this, on the caller's stack).
struct KeyAnswer {
    var id: String?
    var group: String?
}

/// The C callback, its context and the context's destructor, carried into the Swift
/// resolver closure: the closure holds the only references, so the destructor runs
/// when the last operation (or handle) holding the resolver lets it go.
private final class CallbackResolver: @unchecked Sendable {
    let callback: normcache_key_resolver
    let context: UnsafeMutableRawPointer?
    let destroy: normcache_destroy?

    init(callback: normcache_key_resolver, context: UnsafeMutableRawPointer?, destroy: normcache_destroy?) {
        self.callback = callback
        self.context = context
        self.destroy = destroy
    }

    deinit { destroy?(context) }

    func resolve(_ typename: String?, _ object: ResponseObject) throws(NormCacheError) -> CacheKeyInfo? {
        var answer = KeyAnswer()
        var view = object
        let (status, reason) = CallbackFailure.run {
            withUnsafeMutablePointer(to: &answer) { answerPointer in
                withUnsafePointer(to: &view) { objectPointer in
                    LentPointers.lend(objectPointer, as: .responseObject) {
                        let objectHandle = OpaquePointer(objectPointer)
                        let keyHandle = OpaquePointer(answerPointer)
                        guard let typename else { return callback(context, nil, 0, objectHandle, keyHandle) }
                        return typename.withCString { callback(context, $0, typename.utf8.count, objectHandle, keyHandle) }
                    }
                }
            }
        }
        guard status == NORMCACHE_OK else {
            throw NormCacheError(.callback, reason ?? "the resolver returned status \(status) for \(typename ?? "an object without __typename")")
        }
        return answer.id.map { CacheKeyInfo(id: $0, group: answer.group) }
    }
}

@c @implementation
public func normcache_set_key_resolver(_ cache: OpaquePointer?, _ resolver: normcache_key_resolver?,
                                       _ context: UnsafeMutableRawPointer?) -> Int32 {
    normcache_set_key_resolver_v2(cache, resolver, context, nil)
}

@c @implementation
public func normcache_set_key_resolver_v2(_ cache: OpaquePointer?, _ resolver: normcache_key_resolver?,
                                          _ context: UnsafeMutableRawPointer?, _ destroy: normcache_destroy?) -> Int32 {
    // Made first, so that a failed call (or a NULL resolver) destroys the context when
    // it is released at the end of this call.
    let carried = resolver.map { CallbackResolver(callback: $0, context: context, destroy: destroy) }
    if carried == nil { destroy?(context) }
    return Boundary.run { () throws(NormCacheError) in
        let open = try caches.object(cache)
        guard let carried else {
            open.setKeyResolver(nil)
            return NORMCACHE_OK
        }
        open.setKeyResolver { typename, object in try carried.resolve(typename, object) }
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_callback_error(_ message: UnsafePointer<CChar>?, _ messageLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let bytes = try Boundary.input(message, messageLength, "message")
        guard CallbackFailure.give(String(decoding: bytes, as: UTF8.self)) else {
            throw NormCacheError(.invalidArgument, "normcache_callback_error was called outside a callback of the library")
        }
        return NORMCACHE_OK
    }
}

/// Points the caller's `(text, length)` pair at `bytes`, JSON text of the response.
private func lend(_ bytes: UnsafeRawBufferPointer, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>,
                  _ outLength: UnsafeMutablePointer<Int>) {
    out.pointee = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
    outLength.pointee = bytes.count
}

@c @implementation
public func normcache_object_member(_ object: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ nameLength: Int,
                                    _ outJSON: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                    _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    outJSON?.pointee = nil
    outLength?.pointee = 0
    return Boundary.run { () throws(NormCacheError) in
        guard let object, let outJSON, let outLength else {
            throw NormCacheError(.invalidArgument, "object, out_json or out_len is NULL")
        }
        let view = try LentPointers.view(object)
        guard let json = view.json(try Boundary.input(name, nameLength, "name")) else { return NORMCACHE_NOTFOUND }
        lend(json, outJSON, outLength)
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_object_member_count(_ object: OpaquePointer?, _ outCount: UnsafeMutablePointer<Int>?) -> Int32 {
    outCount?.pointee = 0
    return Boundary.run { () throws(NormCacheError) in
        guard let object, let outCount else { throw NormCacheError(.invalidArgument, "object or out_count is NULL") }
        outCount.pointee = try LentPointers.view(object).memberCount
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_object_member_at(_ object: OpaquePointer?, _ index: Int,
                                       _ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                       _ outNameLength: UnsafeMutablePointer<Int>?,
                                       _ outJSON: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                       _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    outName?.pointee = nil
    outNameLength?.pointee = 0
    outJSON?.pointee = nil
    outLength?.pointee = 0
    return Boundary.run { () throws(NormCacheError) in
        guard let object, let outName, let outNameLength, let outJSON, let outLength else {
            throw NormCacheError(.invalidArgument, "object, out_name, out_name_len, out_json or out_len is NULL")
        }
        // A size_t above Int.max arrives negative: past the end, as it is.
        guard let member = try LentPointers.view(object).member(at: index) else { return NORMCACHE_NOTFOUND }
        lend(member.name, outName, outNameLength)
        lend(member.json, outJSON, outLength)
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_key_set(_ key: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ idLength: Int,
                              _ group: UnsafePointer<CChar>?, _ groupLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        guard let key else { throw NormCacheError(.invalidArgument, "key is NULL") }
        let idText = try Boundary.text(id, idLength, "id")
        guard !idText.isEmpty else { throw NormCacheError(.invalidArgument, "empty id") }
        let groupText = group == nil && groupLength == 0 ? nil : try Boundary.text(group, groupLength, "group")
        UnsafeMutablePointer<KeyAnswer>(key).pointee = KeyAnswer(id: idText, group: groupText?.isEmpty == true ? nil : groupText)
        return NORMCACHE_OK
    }
}
