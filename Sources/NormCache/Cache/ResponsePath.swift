/// A path in response data, as GraphQL error paths give it: response keys and list
/// indexes (`["hero", "friends", 2]`).
struct ResponsePath: Equatable, CustomStringConvertible {
    /// One step of a path.
    typealias Segment = ResponsePathSegment

    /// A step and the path before it: extending a path costs one small allocation and
    /// shares the steps before it, however deep the path.
    private final class Step {
        let parent: Step?
        let segment: Segment

        init(parent: Step?, segment: Segment) {
            self.parent = parent
            self.segment = segment
        }
    }

    private var last: Step?

    /// The root path.
    init() {}

    /// A path of the given steps.
    init(segments: [Segment]) {
        for segment in segments { last = Step(parent: last, segment: segment) }
    }

    /// The path one step further.
    func appending(_ segment: Segment) -> ResponsePath {
        var path = ResponsePath()
        path.last = Step(parent: last, segment: segment)
        return path
    }

    /// The steps from the data root.
    var segments: [Segment] {
        var reversed: [Segment] = []
        var step = last
        while let current = step {
            reversed.append(current.segment)
            step = current.parent
        }
        return reversed.reversed()
    }

    static func == (left: ResponsePath, right: ResponsePath) -> Bool {
        left.segments == right.segments
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
