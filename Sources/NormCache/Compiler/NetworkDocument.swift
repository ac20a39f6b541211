/// The text of an operation as normcache sends it to the server: the user's operation
/// and the fragments it uses, printed by `GraphQLPrinter`, with the fields the cache
/// needs to key and type what comes back (Apollo's code generators and Apollo Kotlin
/// add the same).
///
/// Every selection set but the operation's root one — of a field, an inline fragment
/// or a fragment definition — gets, at its end and in this order:
/// 1. when the schema gives its type, the key fields of that type's policy
///    (`KeyRules.policy(for:declaredType:schema:)`) that the type has as fields;
/// 2. when that type is an interface or a union, the key fields of the policies of its
///    possible object types that step 1 did not cover — leaving out a possible type when
///    the set already holds an inline fragment or a fragment spread on it without
///    directives (that selection set gets them itself): an interface selects those it
///    has as fields itself; the others go in `... on Possible { keyFields }`, one per
///    possible type, sorted by name;
/// 3. `__typename`.
///
/// A field is added only when the set does not already select it plainly (no alias
/// but its own name, no arguments, no directives), and not when its name is already
/// the response key of a different field or of the same field with arguments anywhere
/// in the set, its fragments included: that would make the document invalid. Nothing
/// is added inside a field whose schema type is a leaf. The type of a selection set is
/// the root type of the operation's kind for the root, the named type of the field's
/// schema type for a field, and the type condition (or, without one, the enclosing
/// type) for a fragment; a type the schema does not know counts as unknown, and a set
/// of unknown type (always, without a schema) gets only `__typename`.
enum NetworkDocument {
    /// Where added selections say they come from: nowhere in the user's document.
    static let addedLocation = SourceLocation(line: 0, column: 0)

    /// The network text of `operation` and the fragments of `document` it uses.
    static func make(_ document: GraphQLDocument, operation: OperationDefinition, schema: Schema?, keyRules: KeyRules) -> String {
        let sent = complete(document, operation: operation, schema: schema, keyRules: keyRules)
        return GraphQLPrinter.print(sent.operation, fragments: sent.fragments)
    }

    /// `operation` and the fragments of `document` it uses, with the added selections
    /// (at `addedLocation`), as they are sent and normalized.
    static func complete(_ document: GraphQLDocument, operation: OperationDefinition, schema: Schema?,
                         keyRules: KeyRules) -> (operation: OperationDefinition, fragments: [FragmentDefinition]) {
        let fragments = DocumentFragments(document)
        let used = GraphQLPrinter.usedFragments(operation.selections, in: fragments)
        let completer = SelectionCompleter(schema: schema, keyRules: keyRules, fragments: fragments)
        var sent = operation
        sent.selections = completer.complete(operation.selections, on: schema?.rootTypes[operation.kind], isRoot: true)
        // Every fragment of a used name (the first of a name is the one used).
        let sentFragments = fragments.definitions.filter { fragment in
            fragments.position(ofName: fragment.nameNumber).map { used[$0] } ?? false
        }.map { fragment in
            var sentFragment = fragment
            sentFragment.selections = completer.complete(fragment.selections, on: fragment.typeCondition, isRoot: false)
            return sentFragment
        }
        return (sent, sentFragments)
    }
}

/// Adds the fields of the network document to selection sets (see `NetworkDocument`).
private struct SelectionCompleter {
    let schema: Schema?
    let keyRules: KeyRules
    /// The document's fragments, for spreads.
    let fragments: DocumentFragments
    /// Which fragments take which response keys, worked out once per key.
    private let takenKeys = TakenKeys()

    /// Where added selections say they come from: nowhere in the user's document.
    static let added = NetworkDocument.addedLocation

    /// `selections` of a set whose objects are of `type` (nil: unknown), each nested
    /// set completed, and the set's own additions after them unless it is the root.
    func complete(_ selections: [Selection], on type: String?, isRoot: Bool) -> [Selection] {
        let known = type.flatMap { schema?.type(named: $0) }
        var result = selections.map { complete($0, within: known?.name) }
        guard !isRoot else { return result }
        if let known, let schema { addKeyFields(of: known, schema: schema, to: &result) }
        addField("__typename", to: &result)
        return result
    }

    /// A selection of a set of type `type`, its own selection set completed.
    private func complete(_ selection: Selection, within type: String?) -> Selection {
        switch selection {
        case .field(var field):
            guard let children = field.selections else { return selection }
            var childType: String?
            if let schema, let type, let definition = schema.field(field.name, on: type) {
                guard !schema.isLeaf(definition.type.namedType) else { return selection }
                childType = definition.type.namedType
            }
            field.selections = complete(children, on: childType, isRoot: false)
            return .field(field)
        case .inlineFragment(var inline):
            inline.selections = complete(inline.selections, on: inline.typeCondition ?? type, isRoot: false)
            return .inlineFragment(inline)
        case .fragmentSpread:
            return selection
        }
    }

    /// Steps 1 and 2 of `NetworkDocument`: the key fields of `type`'s policy, and for an
    /// abstract type those of its possible types, on the interface or in inline fragments.
    private func addKeyFields(of type: Schema.NamedType, schema: Schema, to result: inout [Selection]) {
        var covered: [String] = []
        if type.kind == .object || type.kind == .interface,
           let policy = keyRules.policy(for: type.name, declaredType: nil, schema: schema) {
            for name in policy.keyFields where !covered.contains(name) && schema.field(name, on: type.name) != nil {
                covered.append(name)
                addField(name, to: &result)
            }
        }
        guard type.kind == .interface || type.kind == .union else { return }
        var needed: [(possible: String, keyFields: [String])] = []
        let covers = unconditionallyCovered(result)
        for possible in schema.possibleTypes(of: type.name).sorted() where !covers.contains(possible) {
            guard let policy = keyRules.policy(for: possible, declaredType: nil, schema: schema) else { continue }
            var keyFields: [String] = []
            for name in policy.keyFields where !covered.contains(name) && !keyFields.contains(name) && schema.field(name, on: possible) != nil {
                keyFields.append(name)
            }
            needed.append((possible, keyFields))
        }
        if type.kind == .interface {
            for name in needed.flatMap(\.keyFields) where !covered.contains(name) && schema.field(name, on: type.name) != nil {
                covered.append(name)
                addField(name, to: &result)
            }
        }
        for (possible, keyFields) in needed {
            let missing = keyFields.filter { !covered.contains($0) }
            guard !missing.isEmpty else { continue }
            let fields = missing.map { Selection.field(Self.plainField($0)) }
            result.append(.inlineFragment(InlineFragment(typeCondition: possible, directives: [], selections: fields, location: Self.added)))
        }
    }

    /// The types that an inline fragment or a fragment spread without directives among
    /// `selections` is on: their own selection sets get those types' key fields.
    private func unconditionallyCovered(_ selections: [Selection]) -> Set<String> {
        var types: Set<String> = []
        for selection in selections {
            switch selection {
            case .inlineFragment(let inline):
                if let condition = inline.typeCondition, inline.directives.isEmpty { types.insert(condition) }
            case .fragmentSpread(let spread):
                if let condition = fragments[spread]?.typeCondition, spread.directives.isEmpty { types.insert(condition) }
            case .field:
                break
            }
        }
        return types
    }

    /// Appends the plain field `name` unless the set selects it plainly already or its
    /// response key is taken by another field.
    private func addField(_ name: String, to result: inout [Selection]) {
        let selectsPlainly = result.contains { selection in
            guard case .field(let field) = selection else { return false }
            return field.name == name && field.responseKey == name && field.arguments.isEmpty && field.directives.isEmpty
        }
        guard !selectsPlainly, !responseKeyIsTaken(name, in: result) else { return }
        result.append(.field(Self.plainField(name)))
    }

    /// Whether a field with response key `name` that is not the plain field `name`
    /// (another field, or arguments) is selected anywhere in the set, through inline
    /// fragments and fragment spreads too.
    private func responseKeyIsTaken(_ name: String, in selections: [Selection]) -> Bool {
        let own = Self.takes(name, selections)
        return own.taken || own.spreads.contains { spread in
            fragments.position(of: spread).map { takenKeys.isTaken(name, inFragment: $0, fragments: fragments) } ?? false
        }
    }

    /// Whether `selections`, with their inline fragments but not their spreads, select a
    /// field of response key `name` that is not the plain field `name`; and the
    /// fragments they spread.
    fileprivate static func takes(_ name: String, _ selections: [Selection]) -> (taken: Bool, spreads: [FragmentSpread]) {
        var spreads: [FragmentSpread] = []
        var pending = [selections]
        while let next = pending.popLast() {
            for selection in next {
                switch selection {
                case .field(let field):
                    if field.responseKey == name && (field.name != name || !field.arguments.isEmpty) { return (true, []) }
                case .inlineFragment(let inline):
                    pending.append(inline.selections)
                case .fragmentSpread(let spread):
                    spreads.append(spread)
                }
            }
        }
        return (false, spreads)
    }

    /// `name`, without alias, arguments, directives or selections.
    private static func plainField(_ name: String) -> Field {
        Field(alias: nil, name: name, arguments: [], directives: [], selections: nil, location: added)
    }
}

/// For each response key asked about, the fragments that select, themselves or through
/// the fragments they spread, a field of that key that is not the plain field of that
/// name: each fragment is walked once per key, however many sets spread it (a chain of
/// fragments would otherwise be walked once per link).
private final class TakenKeys {
    /// Per key, whether each fragment worked out so far takes it, by position.
    private var taken: [String: [Bool?]] = [:]

    /// Whether the fragment at `position` of `fragments` takes `name`. Fragments do not
    /// spread themselves (validation refuses cycles), but a fragment met again on the
    /// way counts as not taking it; an unknown fragment takes nothing.
    func isTaken(_ name: String, inFragment position: Int, fragments: DocumentFragments) -> Bool {
        if let known = taken[name]?[position] { return known }
        // Taken out while it grows, so that it is not copied.
        var memo = taken.removeValue(forKey: name) ?? Array(repeating: nil, count: fragments.count)
        defer { taken[name] = memo }
        // A depth-first walk with an explicit stack: a fragment is decided once the
        // fragments it spreads are.
        var stack: [(fragment: Int, spreads: [FragmentSpread], next: Int)] = []
        func enter(_ fragment: Int) -> Bool? {
            let own = SelectionCompleter.takes(name, fragments.definitions[fragment].selections)
            if own.taken { return true }
            memo[fragment] = false
            stack.append((fragment, own.spreads, 0))
            return nil
        }
        if let decided = enter(position) {
            memo[position] = decided
            return decided
        }
        while let top = stack.last {
            guard top.next < top.spreads.count else {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            guard let spread = fragments.position(of: top.spreads[top.next]) else { continue }
            let result: Bool
            if let known = memo[spread] {
                result = known
            } else if let decided = enter(spread) {
                memo[spread] = decided
                result = decided
            } else {
                continue
            }
            if result {
                // Every fragment on the stack spreads, through the others, one that takes it.
                for entry in stack { memo[entry.fragment] = true }
                return memo[position] ?? true
            }
        }
        return memo[position] ?? false
    }
}
