/// What `NormalizedCache.normalize(_:variables:response:strictKeys:)` gives: the
/// records a write of the response would store, and how many objects it keyed by path.
public struct NormalizeResult: Equatable, Sendable {
    /// The records in the records JSON notation (`{"Key": {"field": value}}`).
    public var records: [UInt8]
    /// How many objects of a type a key rule covers were keyed by their path for want
    /// of their key fields (see `WriteOptions.strictKeys`).
    public var keyFallbacks: Int

    /// A result of both parts.
    public init(records: [UInt8], keyFallbacks: Int) {
        self.records = records
        self.keyFallbacks = keyFallbacks
    }
}
