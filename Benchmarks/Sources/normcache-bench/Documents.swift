/// The GraphQL documents of the "documents" workload: wide documents of the shapes
/// whose preparing used to grow with the square of their width, generated at any
/// width, and the schema they are valid against.
enum Documents {
    /// A shape of document, `width` its number of fragments, fields or variables.
    enum Shape: String, CaseIterable {
        /// `width` named fragments, each spread once in one field.
        case namedFragments = "named fragments"
        /// `width` inline fragments on one type in one field, with fields to merge.
        case inlineFragmentsOneType = "inline fragments on one type"
        /// `width` inline fragments, each on its own type of an interface.
        case inlineFragmentsManyTypes = "inline fragments on many types"
        /// `width` aliases of one field with different arguments.
        case aliases
        /// `width` selections of one field whose selection sets are merged.
        case fieldMerging = "field merging"
        /// `width` variables, each passed to a field of its own.
        case variables
        /// A chain of `width` fragments, each spreading the next: past 510 of them,
        /// refused for nesting deeper than 512 levels once inlined (see `refuses`).
        case fragmentChain = "fragment chain"
    }

    /// Whether `prepare` refuses the document of `shape` at `width`: a chain of more
    /// than 510 fragments (with the root set and the field's set, deeper than 512 levels).
    static func refuses(_ shape: Shape, width: Int) -> Bool {
        shape == .fragmentChain && width > 510
    }

    /// The schema of every shape, with `types` object types for the inline fragments
    /// on many types.
    static func schema(types: Int) -> String {
        var sdl = """
            type Query { item(id: Int): Item thing: Thing }
            type Item { id: ID! name: String child: Item v(x: Int): Int }
            interface Thing { id: ID! name: String }

            """
        for index in 0..<types { sdl += "type T\(index) implements Thing { id: ID! name: String }\n" }
        return sdl
    }

    /// The document of `shape` at `width`.
    static func document(_ shape: Shape, width: Int) -> String {
        let range = 0..<width
        switch shape {
        case .namedFragments:
            return "query Q { item(id: 1) { " + range.map { "...F\($0)" }.joined(separator: " ") + " } }\n"
                + range.map { "fragment F\($0) on Item { id name }\n" }.joined()
        case .inlineFragmentsOneType:
            return "query Q { item(id: 1) { " + range.map { _ in "... on Item { name child { id } }" }.joined(separator: " ") + " } }\n"
        case .inlineFragmentsManyTypes:
            return "query Q { thing { " + range.map { "... on T\($0) { name }" }.joined(separator: " ") + " } }\n"
        case .aliases:
            return "query Q { item(id: 1) { " + range.map { "a\($0): v(x: \($0))" }.joined(separator: " ") + " } }\n"
        case .fieldMerging:
            return "query Q { item(id: 1) { " + range.map { _ in "child { name }" }.joined(separator: " ") + " } }\n"
        case .variables:
            return "query Q(" + range.map { "$v\($0): Int" }.joined(separator: ", ") + ") { item(id: 1) { "
                + range.map { "a\($0): v(x: $v\($0))" }.joined(separator: " ") + " } }\n"
        case .fragmentChain:
            return "query Q { item(id: 1) { ...F0 } }\n"
                + range.map { "fragment F\($0) on Item { name \($0 == width - 1 ? "" : "...F\($0 + 1)") }\n" }.joined()
        }
    }
}
