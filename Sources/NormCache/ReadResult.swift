/// What reading an operation from the cache gives.
public enum ReadResult: Equatable, Sendable {
    /// Everything the operation selects was in the cache: the `data` object as JSON.
    case data([UInt8])
    /// Something was missing: the response paths of what is missing (a missing record
    /// at the path of the reference to it), and, when partial data was asked for, the
    /// data with the missing parts null.
    case miss(missing: [[ResponsePathSegment]], partialData: [UInt8]?)
}

/// One step of a response path: a response key or a list index.
public enum ResponsePathSegment: Equatable, Hashable, Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    /// The response key, or the index in decimal.
    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): String(index)
        }
    }
}
