/// A path in response data, as GraphQL error paths give it: response keys and list
/// indexes (`["hero", "friends", 2]`).
struct ResponsePath: Equatable, CustomStringConvertible {
    /// One step of a path.
    typealias Segment = ResponsePathSegment

    /// The steps from the data root.
    private(set) var segments: [Segment] = []

    /// The root path.
    init() {}

    /// A path of the given steps.
    init(segments: [Segment]) {
        self.segments = segments
    }

    /// The path one step further.
    func appending(_ segment: Segment) -> ResponsePath {
        var path = self
        path.segments.append(segment)
        return path
    }

    /// The path as a JSON array: `["hero","friends",2]`.
    func appendJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, segment) in segments.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch segment {
            case .key(let key): JSONString.appendQuoted(key.utf8, to: &out)
            case .index(let position): out.append(contentsOf: String(position).utf8)
            }
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The path for messages: `hero.friends.2` (`data` for the root).
    var description: String {
        guard !segments.isEmpty else { return "data" }
        return segments.map { segment -> String in
            switch segment {
            case .key(let key): return key
            case .index(let position): return String(position)
            }
        }.joined(separator: ".")
    }
}
