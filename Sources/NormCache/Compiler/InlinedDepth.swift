/// How deep an operation's selection sets nest once its fragments are inlined, worked
/// out before they are: each fragment's own depth is measured once, however many
/// spreads reach it, so a chain of fragments costs one pass where inlining it costs a
/// pass per link. The depth counts as `SelectionPlanner` counts it: the root selection
/// set is level 1, and each field's selection set, inline fragment and fragment spread
/// one level below the set that holds it.
enum InlinedDepth {
    /// Throws the planner's error (`the operation nests deeper than 512 levels once its
    /// fragments are inlined`) when `selections` nest deeper than `maximum` levels with
    /// the fragments of `fragments` inlined. Unknown fragments count as empty; fragment
    /// cycles must have been refused before.
    static func check(
        _ selections: [Selection], fragments: [String: FragmentDefinition],
        maximum: Int = SelectionPlanner.maximumDepth
    ) throws(NormCacheError) {
        var heights: [String: Int] = [:]
        heights.reserveCapacity(fragments.count)
        // A depth-first walk of the spread graph with an explicit stack (a chain of
        // fragments is not bounded by the parser's nesting limit): a fragment's height is
        // known once those it spreads are.
        var stack: [(name: String, shape: Shape, next: Int)] = []
        func push(_ name: String) {
            stack.append((name, Shape(fragments[name]?.selections ?? []), 0))
        }
        let root = Shape(selections)
        for spread in root.spreads where heights[spread.name] == nil {
            push(spread.name)
            while let top = stack.last {
                guard top.next < top.shape.spreads.count else {
                    stack.removeLast()
                    let height = top.shape.height { heights[$0] ?? 0 }
                    guard height <= maximum else { throw tooDeep(maximum) }
                    heights[top.name] = height
                    continue
                }
                stack[stack.count - 1].next += 1
                let name = top.shape.spreads[top.next].name
                if heights[name] == nil { push(name) }
            }
        }
        guard root.height(of: { heights[$0] ?? 0 }) <= maximum else { throw tooDeep(maximum) }
    }

    /// The error of an operation deeper than `maximum` levels once its fragments are inlined.
    static func tooDeep(_ maximum: Int) -> NormCacheError {
        NormCacheError(.document, "the operation nests deeper than \(maximum) levels once its fragments are inlined")
    }

    /// One selection set, fragments not followed: how deep it nests itself, and the
    /// fragments it spreads with the level each spread sits at (1: in the set itself).
    private struct Shape {
        var ownHeight = 0
        var spreads: [(name: String, level: Int)] = []

        init(_ selections: [Selection]) {
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
                        spreads.append((spread.name, level))
                    }
                }
            }
        }

        /// The height with each spread fragment's height from `heightOf` inlined.
        func height(of heightOf: (String) -> Int) -> Int {
            spreads.reduce(ownHeight) { result, spread in max(result, spread.level + heightOf(spread.name)) }
        }
    }
}
