/// An error of the normcache core: a stable code (the C ABI's status code) and a
/// message that says what went wrong and where.
public struct NormCacheError: Error, Equatable, CustomStringConvertible {
    /// The kind of failure; its raw value is the C ABI's negative status code.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// An argument is invalid (empty key, unknown option, closed handle).
        public static let invalidArgument = Code(rawValue: -1)
        /// JSON input is malformed, not UTF-8, too deep, or of the wrong shape.
        public static let json = Code(rawValue: -2)
        /// A GraphQL document is malformed or invalid.
        public static let document = Code(rawValue: -3)
        /// A schema is malformed or invalid.
        public static let schema = Code(rawValue: -4)
        /// Response data does not match its operation.
        public static let data = Code(rawValue: -5)
        /// The storage failed (I/O, disk full, permissions, locks, map).
        public static let storage = Code(rawValue: -6)
        /// A user callback failed.
        public static let callback = Code(rawValue: -7)
        /// Memory could not be allocated.
        public static let outOfMemory = Code(rawValue: -8)
        /// The file is not a normcache cache, is damaged, or has a newer format.
        public static let notACache = Code(rawValue: -9)
        /// A write was attempted on a read-only cache.
        public static let readOnly = Code(rawValue: -10)
        /// A fetch failed: the network, or the fetch callback, said so.
        public static let fetch = Code(rawValue: -11)
        /// A fetched response carried GraphQL errors (error policy `none`).
        public static let graphQL = Code(rawValue: -12)
        /// The call was interrupted (`NormalizedCache.interrupt`) and changed nothing.
        public static let interrupted = Code(rawValue: -13)
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong and where.
    public var message: String

    /// An error of the given kind with its message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
