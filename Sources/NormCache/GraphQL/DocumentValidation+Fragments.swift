extension DocumentValidation {
    /// The fragment rules (GraphQL specification §5.5.1.4 and §5.5.2): every spread names
    /// a fragment of the document (`unknown fragment 'F'`, at the spread), fragments do
    /// not spread themselves (`fragment cycle: A → B → A`, at the spread that closes the
    /// cycle), and every fragment is reached from some operation (`fragment 'F' is never
    /// used`, at the fragment).
    static func checkFragments(_ usage: Usage, fragments: [String: FragmentDefinition], rootFragment: String?) throws(NormCacheError) {
        for references in usage.operations.map(\.references) + usage.fragments.map(\.references) {
            for spread in references.spreads where fragments[spread.name] == nil {
                throw error("unknown fragment '\(spread.name)'", at: spread.location)
            }
        }
        try checkCycles(usage)
        var used: Set<String> = []
        used.reserveCapacity(usage.fragments.count)
        for (_, references) in usage.operations { used.formUnion(usage.fragmentsReached(from: references)) }
        // A document of fragments for direct cache access may hold fragments besides the
        // one used and those it spreads.
        guard rootFragment == nil else { return }
        for (fragment, _) in usage.fragments where !used.contains(fragment.name) {
            throw error("fragment '\(fragment.name)' is never used", at: fragment.location)
        }
    }

    /// A depth-first walk of the spread graph with an explicit stack (a chain of
    /// fragments is not bounded by the parser's nesting limit); each fragment is left
    /// once all it spreads is known to be free of cycles.
    private static func checkCycles(_ usage: Usage) throws(NormCacheError) {
        var finished: Set<String> = []
        finished.reserveCapacity(usage.fragments.count)
        for (fragment, references) in usage.fragments where !finished.contains(fragment.name) {
            var path = [fragment.name]
            var positionOnPath = [fragment.name: 0]
            var stack = [(spreads: references.spreads, next: 0)]
            while let top = stack.last {
                guard top.next < top.spreads.count else {
                    stack.removeLast()
                    if let name = path.popLast() {
                        positionOnPath[name] = nil
                        finished.insert(name)
                    }
                    continue
                }
                stack[stack.count - 1].next += 1
                let spread = top.spreads[top.next]
                if let position = positionOnPath[spread.name] {
                    let cycle = path[position...] + [spread.name]
                    throw error("fragment cycle: \(cycle.joined(separator: " → "))", at: spread.location)
                }
                guard !finished.contains(spread.name), let spreadReferences = usage.fragmentReferences[spread.name] else { continue }
                positionOnPath[spread.name] = path.count
                path.append(spread.name)
                stack.append((spreadReferences.spreads, 0))
            }
        }
    }
}
