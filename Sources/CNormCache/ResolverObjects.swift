import CNormCacheHeader
import Glibc
import NormCache

/// The objects that the key resolvers running on each thread were given: `lend` opens a
/// frame around a resolver call, and the `normcache_object_*` functions accept only a
/// pointer that one of the calling thread's open frames lent. So an object kept past its
/// call, passed to another thread, or a pointer of another kind (a `normcache_key`) is
/// refused with an error instead of being read. A resolver that writes, and so runs
/// another resolver, leaves its own frame open below the inner one: both objects stay
/// readable until their own call returns.
enum ResolverObjects {
    /// One lent object; lives on the stack of `lend`.
    private struct Frame {
        /// The pointer the resolver was given.
        let object: UnsafeRawPointer
        /// The frame of the resolver call this one runs inside, if any.
        let outer: UnsafeRawPointer?
    }

    /// The calling thread's innermost frame.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with `object` readable through the C functions on this thread.
    static func lend<Value>(_ object: UnsafePointer<ResponseObject>, _ body: () -> Value) -> Value {
        let outer = pthread_getspecific(key)
        var frame = Frame(object: UnsafeRawPointer(object), outer: outer.map { UnsafeRawPointer($0) })
        return withUnsafeMutablePointer(to: &frame) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, outer) }
            return body()
        }
    }

    /// The object `pointer` names, when one of this thread's open frames lent it; the
    /// pointer is compared, never read, before it is found there.
    static func view(_ pointer: OpaquePointer) throws(NormCacheError) -> ResponseObject {
        let wanted = UnsafeRawPointer(pointer)
        var next = pthread_getspecific(key).map { UnsafeRawPointer($0) }
        while let frame = next?.assumingMemoryBound(to: Frame.self).pointee {
            if frame.object == wanted { return wanted.assumingMemoryBound(to: ResponseObject.self).pointee }
            next = frame.outer
        }
        throw NormCacheError(.invalidArgument, "object is not the object of a key resolver running on this thread")
    }
}
