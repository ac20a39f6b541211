extension DocumentValidation {
    /// The fragment rules (GraphQL specification §5.5.1.4 and §5.5.2): every spread names
    /// a fragment of the document (`unknown fragment 'F'`, at the spread), fragments do
    /// not spread themselves (`fragment cycle: A → B → A`, at the spread that closes the
    /// cycle), and every fragment is reached from some operation (`fragment 'F' is never
    /// used`, at the fragment).
    static func checkFragments(_ usage: Usage, rootFragment: String?) throws(NormCacheError) {
        for references in usage.operations.map(\.references) + usage.fragmentReferences {
            for spread in references.spreads where usage.fragments.position(of: spread) == nil {
                throw error("unknown fragment '\(spread.name)'", at: spread.location)
            }
        }
        try checkCycles(usage)
        var used = [Bool](repeating: false, count: usage.fragments.count)
        for reached in usage.fragmentsReached {
            for position in reached { used[position] = true }
        }
        // A document of fragments for direct cache access may hold fragments besides the
        // one used and those it spreads.
        guard rootFragment == nil else { return }
        for (position, fragment) in usage.fragments.definitions.enumerated() where !used[position] {
            throw error("fragment '\(fragment.name)' is never used", at: fragment.location)
        }
    }

    /// A depth-first walk of the spread graph with an explicit stack (a chain of
    /// fragments is not bounded by the parser's nesting limit); each fragment is left
    /// once all it spreads is known to be free of cycles. Fragments are known by position.
    private static func checkCycles(_ usage: Usage) throws(NormCacheError) {
        var finished = [Bool](repeating: false, count: usage.fragments.count)
        // For each fragment on the current path, its index on the path; -1 off it.
        var indexOnPath = [Int](repeating: -1, count: usage.fragments.count)
        for (start, references) in usage.fragmentReferences.enumerated() where !finished[start] {
            var path = [start]
            indexOnPath[start] = 0
            var stack = [(spreads: references.spreads, next: 0)]
            while let top = stack.last {
                guard top.next < top.spreads.count else {
                    stack.removeLast()
                    if let left = path.popLast() {
                        indexOnPath[left] = -1
                        finished[left] = true
                    }
                    continue
                }
                stack[stack.count - 1].next += 1
                let spread = top.spreads[top.next]
                guard let position = usage.fragments.position(of: spread) else { continue }
                if indexOnPath[position] >= 0 {
                    let cycle = path[indexOnPath[position]...].map { usage.fragments.definitions[$0].name } + [spread.name]
                    throw error("fragment cycle: \(cycle.joined(separator: " → "))", at: spread.location)
                }
                guard !finished[position] else { continue }
                indexOnPath[position] = path.count
                path.append(position)
                stack.append((usage.fragmentReferences[position].spreads, 0))
            }
        }
    }
}
