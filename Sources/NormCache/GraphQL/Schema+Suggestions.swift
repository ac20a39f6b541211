/// "Did you mean" hints for names that a schema lacks: the closest known name within
/// an edit distance of 2, compared without regard to ASCII case (GraphQL names are
/// ASCII), so that `Articel` suggests `Article` and `article` does too.
enum NameSuggestion {
    /// The largest edit distance that still gets a suggestion.
    static let maximumDistance = 2

    /// ` (did you mean 'X'?)` for the candidate closest to `name` (the alphabetically
    /// first among equally close ones), or "" when none is within `maximumDistance`.
    static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        let wanted = lowercased(name)
        var best: (distance: Int, name: String)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(wanted, lowercased(candidate))
            guard distance <= maximumDistance else { continue }
            if let current = best, (current.distance, current.name) <= (distance, candidate) { continue }
            best = (distance, candidate)
        }
        return best.map { " (did you mean '\($0.name)'?)" } ?? ""
    }

    /// The Levenshtein distance of two byte strings (insertions, deletions and
    /// substitutions of one byte each).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The UTF-8 bytes of `name` with ASCII capitals made small.
    private static func lowercased(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }
}
