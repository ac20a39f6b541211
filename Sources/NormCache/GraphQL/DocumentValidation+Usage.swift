extension DocumentValidation {
    /// What the operations and fragments of a document refer to directly: the fragments
    /// they spread and the variables they use, gathered in one walk that does not follow
    /// spreads. The fragment and variable rules work on this summary.
    struct Usage {
        /// The direct references of one operation or fragment, in document order.
        struct References {
            /// The fragment spreads, at any depth of the selection set.
            var spreads: [FragmentSpread] = []
            /// The variables used in arguments and directives, with the location of the
            /// argument that holds each.
            var variables: [(name: String, location: SourceLocation)] = []
        }

        /// The operations with their references, in document order.
        let operations: [(operation: OperationDefinition, references: References)]
        /// The fragments, whose positions index `fragmentReferences`.
        let fragments: DocumentFragments
        /// The references of each fragment, by position (in document order).
        let fragmentReferences: [References]
        /// For each operation, the positions of the known fragments it reaches through
        /// spreads, directly or through other fragments, each once, breadth first.
        let fragmentsReached: [[Int]]

        /// The usage of `operations` and `fragments` (fragment names are unique).
        init(operations: [OperationDefinition], fragments: DocumentFragments) {
            self.operations = operations.map { operation in
                var references = References()
                Self.gather(operation.directives, into: &references)
                Self.gather(operation.selections, into: &references)
                return (operation, references)
            }
            fragmentReferences = fragments.definitions.map { fragment in
                var references = References()
                Self.gather(fragment.directives, into: &references)
                Self.gather(fragment.selections, into: &references)
                return references
            }
            self.fragments = fragments
            fragmentsReached = self.operations.map { [fragmentReferences] operation in
                Self.fragmentsReached(from: operation.references.spreads, fragments: fragments, references: fragmentReferences)
            }
        }

        /// The positions of the known fragments of `fragments` (whose references are
        /// `references`) that `spreads` reach, directly or through other fragments, each
        /// once, breadth first.
        private static func fragmentsReached(from spreads: [FragmentSpread], fragments: DocumentFragments,
                                             references: [References]) -> [Int] {
            var reached: [Int] = []
            var seen = [Bool](repeating: false, count: fragments.count)
            func visit(_ spreads: [FragmentSpread]) {
                for spread in spreads {
                    guard let position = fragments.position(of: spread), !seen[position] else { continue }
                    seen[position] = true
                    reached.append(position)
                }
            }
            visit(spreads)
            var next = 0
            while next < reached.count {
                visit(references[reached[next]].spreads)
                next += 1
            }
            return reached
        }

        /// Adds the spreads and variables of `selections` and everything below them.
        private static func gather(_ selections: [Selection], into references: inout References) {
            for selection in selections {
                switch selection {
                case .field(let field):
                    gather(field.arguments, into: &references)
                    gather(field.directives, into: &references)
                    if let subselections = field.selections { gather(subselections, into: &references) }
                case .fragmentSpread(let spread):
                    references.spreads.append(spread)
                    gather(spread.directives, into: &references)
                case .inlineFragment(let inline):
                    gather(inline.directives, into: &references)
                    gather(inline.selections, into: &references)
                }
            }
        }

        /// Adds the variables of the arguments of `directives`.
        private static func gather(_ directives: [Directive], into references: inout References) {
            for directive in directives { gather(directive.arguments, into: &references) }
        }

        /// Adds the variables of `arguments`.
        private static func gather(_ arguments: [Argument], into references: inout References) {
            for argument in arguments { gather(argument.value, at: argument.location, into: &references) }
        }

        /// Adds the variables in `value`, at any depth, located at the argument `location`.
        private static func gather(_ value: GraphQLValue, at location: SourceLocation, into references: inout References) {
            switch value {
            case .variable(let name): references.variables.append((name, location))
            case .list(let items): for item in items { gather(item, at: location, into: &references) }
            case .object(let fields): for field in fields { gather(field.value, at: location, into: &references) }
            case .int, .float, .string, .boolean, .null, .enumValue: break
            }
        }
    }
}
