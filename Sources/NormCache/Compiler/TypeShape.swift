/// A field's schema type as the inner loops check it, in one word: how many lists wrap
/// the named type and which levels are non-null. Level 0 is the field's own value, level
/// `n` the elements of its `n`-th list. An unknown type (no schema) checks nothing.
struct TypeShape: Equatable {
    /// The most lists a field type may nest (`SelectionPlanner` refuses deeper ones).
    static let maximumListDepth = 31

    /// Whether the schema gives the type.
    let isKnown: Bool
    /// The lists around the named type.
    let listDepth: Int
    /// Bit `n`: level `n` is non-null.
    private let nonNullLevels: UInt32

    /// A type the schema does not give.
    static let unknown = TypeShape(isKnown: false, listDepth: 0, nonNullLevels: 0)

    private init(isKnown: Bool, listDepth: Int, nonNullLevels: UInt32) {
        self.isKnown = isKnown
        self.listDepth = listDepth
        self.nonNullLevels = nonNullLevels
    }

    /// The shape of `type` (nil: unknown); nil when it nests more than
    /// `maximumListDepth` lists.
    init?(_ type: TypeReference?) {
        guard var current = type else {
            self = .unknown
            return
        }
        var depth = 0, nonNull: UInt32 = 0
        while true {
            switch current {
            case .nonNull(let inner):
                nonNull |= 1 << UInt32(depth)
                current = inner
                continue
            case .list(let inner):
                guard depth < Self.maximumListDepth else { return nil }
                depth += 1
                current = inner
                continue
            case .named:
                break
            }
            break
        }
        self.init(isKnown: true, listDepth: depth, nonNullLevels: nonNull)
    }

    /// Whether the value at `level` must not be null.
    @inline(__always)
    func isNonNull(at level: Int) -> Bool {
        nonNullLevels & (1 << UInt32(truncatingIfNeeded: level)) != 0
    }

    /// Whether the value at `level` is a list (false for an unknown type).
    @inline(__always)
    func isList(at level: Int) -> Bool {
        level < listDepth
    }
}
