import CNormCacheHeader
import Glibc
import NormCache

/// The pointers the callbacks running on each thread were given — a key resolver's
/// object, a fetch callback's reply: `lend` opens a frame around a callback, and the C
/// functions that take such a pointer accept only one that one of the calling thread's
/// open frames lent, as that kind. So a pointer kept past its call, passed to another
/// thread, or of another kind (a `normcache_key` given as an object) is refused with an
/// error instead of being used. A callback that calls the library, and so runs another
/// callback, leaves its own frame open below the inner one: both pointers stay usable
/// until their own call returns.
enum LentPointers {
    /// What a lent pointer points to.
    enum Kind {
        /// A `ResponseObject` (`normcache_object`).
        case responseObject
        /// A `FetchReplySlot` (`normcache_fetch_reply`).
        case fetchReply
    }

    /// One lent pointer; lives on the stack of `lend`.
    private struct Frame {
        /// The pointer the callback was given.
        let pointer: UnsafeRawPointer
        let kind: Kind
        /// The frame of the callback this one runs inside, if any.
        let outer: UnsafeRawPointer?
    }

    /// The calling thread's innermost frame.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with `pointer` usable as `kind` through the C functions on this thread.
    static func lend<Value>(_ pointer: UnsafeRawPointer, as kind: Kind, _ body: () -> Value) -> Value {
        let outer = pthread_getspecific(key)
        var frame = Frame(pointer: pointer, kind: kind, outer: outer.map { UnsafeRawPointer($0) })
        return withUnsafeMutablePointer(to: &frame) { framePointer in
            pthread_setspecific(key, framePointer)
            defer { pthread_setspecific(key, outer) }
            return body()
        }
    }

    /// `pointer`, when one of this thread's open frames lent it as `kind`; the pointer
    /// is compared, never read, before it is found there. `what` names it in the error.
    static func find(_ pointer: OpaquePointer, as kind: Kind, _ what: String) throws(NormCacheError) -> UnsafeRawPointer {
        let wanted = UnsafeRawPointer(pointer)
        var next = pthread_getspecific(key).map { UnsafeRawPointer($0) }
        while let frame = next?.assumingMemoryBound(to: Frame.self).pointee {
            if frame.pointer == wanted && frame.kind == kind { return wanted }
            next = frame.outer
        }
        throw NormCacheError(.invalidArgument, what)
    }

    /// The key resolver's object `pointer` names.
    static func view(_ pointer: OpaquePointer) throws(NormCacheError) -> ResponseObject {
        try find(pointer, as: .responseObject, "object is not the object of a key resolver running on this thread")
            .assumingMemoryBound(to: ResponseObject.self).pointee
    }
}
