/// How deep an operation's selection sets nest once its fragments are inlined, worked
/// out before they are: each fragment's own depth is measured once, however many
/// spreads reach it, so a chain of fragments costs one pass where inlining it costs a
/// pass per link. The depth counts as `SelectionPlanner` counts it: the root selection
/// set is level 1, and each field's selection set, inline fragment and fragment spread
/// one level below the set that holds it.
enum InlinedDepth {
    /// Throws the planner's error (`the operation nests deeper than 512 levels once its
    /// fragments are inlined`) when `selections` nest deeper than `maximum` levels with
    /// the fragments of `fragments` inlined. Unknown fragments count as empty selection
    /// sets; fragment cycles must have been refused before.
    static func check(
        _ selections: [Selection], fragments: DocumentFragments,
        maximum: Int = SelectionPlanner.maximumDepth
    ) throws(NormCacheError) {
        // By position; -1 until known.
        var heights = [Int](repeating: -1, count: fragments.count)
        // The height of the fragment at `position` as known so far (0 until it is known);
        // an unknown fragment is an empty selection set, one level.
        func knownHeight(_ position: Int?) -> Int {
            position.map { max(heights[$0], 0) } ?? 1
        }
        // A depth-first walk of the spread graph with an explicit stack (a chain of
        // fragments is not bounded by the parser's nesting limit): a fragment's height is
        // known once those it spreads are.
        var stack: [(position: Int, shape: Shape, next: Int)] = []
        func push(_ position: Int) {
            stack.append((position, Shape(fragments.definitions[position].selections, fragments: fragments), 0))
        }
        let root = Shape(selections, fragments: fragments)
        for spread in root.spreads {
            guard let position = spread.position, heights[position] < 0 else { continue }
            push(position)
            while let top = stack.last {
                guard top.next < top.shape.spreads.count else {
                    stack.removeLast()
                    let height = top.shape.height(of: knownHeight)
                    guard height <= maximum else { throw tooDeep(maximum) }
                    heights[top.position] = height
                    continue
                }
                stack[stack.count - 1].next += 1
                if let position = top.shape.spreads[top.next].position, heights[position] < 0 { push(position) }
            }
        }
        guard root.height(of: knownHeight) <= maximum else { throw tooDeep(maximum) }
    }

    /// The error of an operation deeper than `maximum` levels once its fragments are inlined.
    static func tooDeep(_ maximum: Int) -> NormCacheError {
        NormCacheError(.document, "the operation nests deeper than \(maximum) levels once its fragments are inlined")
    }

    /// One selection set, fragments not followed: how deep it nests itself, and the
    /// fragments it spreads (by position; nil: unknown) with the level each spread sits
    /// at (1: in the set itself).
    private struct Shape {
        var ownHeight = 0
        var spreads: [(position: Int?, level: Int)] = []

        init(_ selections: [Selection], fragments: DocumentFragments) {
            var pending: [(selections: [Selection], level: Int)] = [(selections, 1)]
            while let (next, level) = pending.popLast() {
                ownHeight = max(ownHeight, level)
                for selection in next {
                    switch selection {
                    case .field(let field):
                        if let children = field.selections { pending.append((children, level + 1)) }
                    case .inlineFragment(let inline):
                        pending.append((inline.selections, level + 1))
                    case .fragmentSpread(let spread):
                        spreads.append((fragments.position(of: spread), level))
                    }
                }
            }
        }

        /// The height with each spread fragment's height from `heightOf` inlined.
        func height(of heightOf: (Int?) -> Int) -> Int {
            spreads.reduce(ownHeight) { result, spread in max(result, spread.level + heightOf(spread.position)) }
        }
    }
}
