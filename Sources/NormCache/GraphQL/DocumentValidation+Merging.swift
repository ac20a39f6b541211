extension DocumentValidation {
    /// Field selection merging (GraphQL specification §5.3.2), simplified: the fields
    /// of one response key in a selection set, with the fragments it spreads merged in,
    /// have the same field name and the same arguments (compared printed, sorted by
    /// name) when they may apply to the same object: when they are selected on the same
    /// type or either on an interface or union. Fields that must agree have their
    /// selection sets merged and checked the same way. The error is at the later field:
    /// `fields 'leader' conflict: 'hero' and 'villain' are different fields`,
    /// `fields 'hero' conflict: 'hero(episode: JEDI)' and 'hero' have different arguments`.
    ///
    /// Not checked: that fields on different object types have the same response shape.
    /// Each merged selection set is checked once, however many spreads reach it.
    static func checkFieldMerging(_ document: GraphQLDocument, fragments: DocumentFragments,
                                  schema: Schema) throws(NormCacheError) {
        var checker = MergeChecker(schema: schema, fragments: fragments)
        for case .operation(let operation) in document.definitions {
            guard let root = schema.rootTypes[operation.kind] else { continue }
            try checker.check([SelectionGroup(selections: operation.selections, parent: root)])
        }
    }
}

/// Selections made on objects of type `parent`.
private struct SelectionGroup {
    var selections: [Selection]
    var parent: String
}

/// A field with the type of the selection set that holds it.
private struct PlacedField {
    var field: Field
    var parent: String
}

/// Walks merged selection sets with an explicit stack (fields nested through chains of
/// fragments are not bounded by the parser's nesting limit), remembering the merged
/// sets already checked by the positions of their fields, which are unique in a document.
private struct MergeChecker {
    let schema: Schema
    let fragments: DocumentFragments
    private var checked: Set<[Int]> = []
    /// For each fragment by position, the number of the last `collect` that merged it
    /// in: a fragment is merged in once per merged set without a table per set.
    private var collectedIn: [Int]
    private var collects = 0
    /// Looks at the handle's interrupt flag every few hundred response keys.
    private var interruptCheck = InterruptCheck()

    /// A checker of the operations of a document with `fragments` against `schema`.
    init(schema: Schema, fragments: DocumentFragments) {
        self.schema = schema
        self.fragments = fragments
        collectedIn = Array(repeating: 0, count: fragments.count)
    }

    /// Checks the merged selection set `groups` and, depth first, every merged selection
    /// set below it.
    mutating func check(_ groups: [SelectionGroup]) throws(NormCacheError) {
        var pending = [groups]
        while let merged = pending.popLast() {
            var below: [[PlacedField]] = []
            for fields in collect(merged) {
                try interruptCheck.pass()
                try checkAgreement(fields)
                below += mergedSubselections(fields)
            }
            for fields in below.reversed() {
                let sorted = fields.sorted { precedes($0.field.location, $1.field.location) }
                guard checked.insert(sorted.flatMap { [$0.field.location.line, $0.field.location.column] }).inserted else { continue }
                pending.append(fields.compactMap { placed in
                    guard let selections = placed.field.selections,
                          let type = schema.field(placed.field.name, on: placed.parent)?.type.namedType else { return nil }
                    return SelectionGroup(selections: selections, parent: type)
                })
            }
        }
    }

    /// The fields of `groups` by response key, in order of first appearance, with
    /// inline fragments and each spread fragment (once) merged in.
    private mutating func collect(_ groups: [SelectionGroup]) -> [[PlacedField]] {
        var keys: [String] = []
        var byKey: [String: [PlacedField]] = [:]
        collects += 1
        var stack = groups.reversed().map { (group: $0, next: 0) }
        while let top = stack.last {
            guard top.next < top.group.selections.count else {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            switch top.group.selections[top.next] {
            case .field(let field):
                if byKey[field.responseKey] == nil { keys.append(field.responseKey) }
                byKey[field.responseKey, default: []].append(PlacedField(field: field, parent: top.group.parent))
            case .inlineFragment(let inline):
                stack.append((SelectionGroup(selections: inline.selections, parent: inline.typeCondition ?? top.group.parent), 0))
            case .fragmentSpread(let spread):
                guard let position = fragments.position(of: spread), collectedIn[position] != collects else { continue }
                collectedIn[position] = collects
                let fragment = fragments.definitions[position]
                stack.append((SelectionGroup(selections: fragment.selections, parent: fragment.typeCondition), 0))
            }
        }
        return keys.map { byKey[$0] ?? [] }
    }

    /// Checks that the fields of one response key that may apply to the same object
    /// agree: all of them when one is selected on an interface or union (they must all
    /// agree with it), else those of each object type among themselves.
    private func checkAgreement(_ fields: [PlacedField]) throws(NormCacheError) {
        guard fields.count > 1 else { return }
        if let reference = fields.first(where: { !isObject($0.parent) }) {
            for other in fields where other.field.location != reference.field.location {
                try checkAgreement(reference.field, other.field)
            }
            return
        }
        var firstOnType: [String: Field] = [:]
        for placed in fields {
            if let first = firstOnType[placed.parent] {
                try checkAgreement(first, placed.field)
            } else {
                firstOnType[placed.parent] = placed.field
            }
        }
    }

    /// Checks that two fields of one response key have the same name and arguments;
    /// the error is at the later of the two.
    private func checkAgreement(_ one: Field, _ other: Field) throws(NormCacheError) {
        let (earlier, later) = precedes(one.location, other.location) ? (one, other) : (other, one)
        guard earlier.name == later.name else {
            throw DocumentValidation.error("fields '\(later.responseKey)' conflict: '\(earlier.name)' and '\(later.name)' are different fields",
                                           at: later.location)
        }
        let earlierArguments = printed(earlier.arguments)
        let laterArguments = printed(later.arguments)
        guard earlierArguments == laterArguments else {
            throw DocumentValidation.error("fields '\(later.responseKey)' conflict: '\(earlier.name)\(earlierArguments)' and "
                                           + "'\(later.name)\(laterArguments)' have different arguments", at: later.location)
        }
    }

    /// The merged selection sets below the fields of one response key: the fields that
    /// have selection sets, per object type they are selected on, each with those
    /// selected on an interface or union.
    private func mergedSubselections(_ fields: [PlacedField]) -> [[PlacedField]] {
        let composite = fields.filter { $0.field.selections != nil }
        var objectTypes: [String] = []
        var onObjectType: [String: [PlacedField]] = [:]
        var onAbstractType: [PlacedField] = []
        for placed in composite {
            guard isObject(placed.parent) else {
                onAbstractType.append(placed)
                continue
            }
            if onObjectType[placed.parent] == nil { objectTypes.append(placed.parent) }
            onObjectType[placed.parent, default: []].append(placed)
        }
        guard !objectTypes.isEmpty else { return composite.isEmpty ? [] : [composite] }
        guard !onAbstractType.isEmpty else { return objectTypes.map { onObjectType[$0] ?? [] } }
        // Each object type's fields with those on an interface or union, in document order.
        return objectTypes.map { type in composite.filter { $0.parent == type || !isObject($0.parent) } }
    }

    /// Whether `typeName` is an object type (not an interface or union).
    private func isObject(_ typeName: String) -> Bool {
        schema.type(named: typeName)?.kind == .object
    }

    /// Whether `one` comes before `other` in the document.
    private func precedes(_ one: SourceLocation, _ other: SourceLocation) -> Bool {
        one.line < other.line || (one.line == other.line && one.column < other.column)
    }

    /// `(a: 1, b: "x")` with the arguments sorted by name, or nothing without arguments.
    private func printed(_ arguments: [Argument]) -> String {
        guard !arguments.isEmpty else { return "" }
        let sorted = arguments.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return "(" + sorted.map { "\($0.name): \(printed($0.value))" }.joined(separator: ", ") + ")"
    }

    /// A value in GraphQL syntax, input object fields sorted by name.
    private func printed(_ value: GraphQLValue) -> String {
        switch value {
        case .variable(let name): return "$" + name
        case .int(let text), .float(let text), .enumValue(let text): return text
        case .string(let text): return GraphQLPrinter.quoted(text)
        case .boolean(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .list(let items): return "[" + items.map(printed).joined(separator: ", ") + "]"
        case .object(let fields):
            let sorted = fields.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            return "{" + sorted.map { "\($0.name): \(printed($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}
