/// An operation's selections compiled for normalizing and reading: fragment spreads
/// inlined as type-conditioned groups, `@include`/`@skip` kept as conditions, and the
/// fields the network document adds (`__typename`, key fields) marked so a response
/// may leave them out.
final class SelectionPlan: Sendable {
    /// One selection.
    enum Item: Sendable {
        case field(PlannedField)
        /// Selections that apply when the object's type matches `typeCondition` (nil:
        /// always) and the conditions hold.
        case group(typeCondition: String?, conditions: [Condition], plan: SelectionPlan)
    }

    /// The selections in document order.
    let items: [Item]
    /// Whether a group of the plan (or of its groups) has a type condition: only then
    /// do the fields it selects depend on an object's typename.
    let hasTypeConditions: Bool
    /// The fields the plan selects on every object, collected once (see
    /// `SelectionContext.collectFields`), when nothing a call brings can change them: the
    /// plan holds fields only, none with an `@include`/`@skip` condition. Nil otherwise.
    let unconditionalFields: [CollectedField]?

    init(items: [Item]) {
        self.items = items
        hasTypeConditions = items.contains { item in
            guard case .group(let condition, _, let plan) = item else { return false }
            return condition != nil || plan.hasTypeConditions
        }
        unconditionalFields = Self.unconditionalFields(of: items)
    }

    /// The fields of `items` collected, when they are fields only, none with a condition.
    private static func unconditionalFields(of items: [Item]) -> [CollectedField]? {
        var fields = ResponseKeyFields(reservingCapacity: items.count)
        for item in items {
            guard case .field(let field) = item, field.conditions.isEmpty else { return nil }
            fields.add(field)
        }
        return fields.finished()
    }

    /// The first field, in this plan or its groups, answering with `responseKey`.
    func field(withResponseKey responseKey: String) -> PlannedField? {
        for item in items {
            switch item {
            case .field(let field) where field.responseKey == responseKey: return field
            case .group(_, _, let plan): if let field = plan.field(withResponseKey: responseKey) { return field }
            default: continue
            }
        }
        return nil
    }
}

/// A field of a selection plan.
struct PlannedField: Sendable {
    /// The key of the field in the response: its alias, or else its name.
    var responseKey: String
    /// The schema field name.
    var name: String
    /// The arguments as written.
    var arguments: [Argument]
    /// `@include`/`@skip` conditions, all of which must hold.
    var conditions: [Condition]
    /// The sub-selections of a composite field; nil for a leaf.
    var plan: SelectionPlan?
    /// The field's type in the schema, when there is one.
    var type: TypeReference?
    /// `type` as the inner loops check it.
    var typeShape: TypeShape
    /// The arguments the schema types `Float`: an integer given for them is a float
    /// (`2` is keyed `2.0`, as the literal `2.0` is).
    var floatArguments: Set<String> = []
    /// Added by the network document rather than asked for by the user: the response
    /// may lack it, and reads do not return it.
    var isAdded: Bool
    /// Where the field is written.
    var location: SourceLocation
}

/// `@include(if:)` (include: true) or `@skip(if:)` (include: false).
struct Condition: Sendable {
    /// The `if` argument: a boolean literal or a variable.
    var value: GraphQLValue
    /// Whether the condition includes (true) or skips (false) when the value is true.
    var include: Bool

    /// Whether the condition lets the selection through under `variables`. A missing
    /// or non-boolean value is an error naming the position.
    func holds(_ variables: Variables) throws(NormCacheError) -> Bool {
        guard case .boolean(let flag)? = ArgumentValue(value, variables) else {
            throw NormCacheError(.invalidArgument, "@\(include ? "include" : "skip")(if:) needs a boolean value or a boolean variable")
        }
        return flag == include
    }
}
