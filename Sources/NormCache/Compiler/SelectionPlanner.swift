/// Compiles the selection sets of an operation as the network document completes them
/// (`NetworkDocument.complete`) into `SelectionPlan`s: fragment spreads are inlined as
/// groups with their type condition, and the selections the network document added are
/// marked, so a response may lack them and reads leave them out.
struct SelectionPlanner {
    /// The most selections an operation may expand to once fragments are inlined.
    static let maximumItems = 1_000_000
    /// The deepest nesting of selection sets and fragments once inlined.
    static let maximumDepth = 512

    let schema: Schema?
    let fragments: DocumentFragments
    private var items = 0
    private var depth = 0
    /// Looks at the handle's interrupt flag every few hundred selections.
    private var interruptCheck = InterruptCheck()

    init(schema: Schema?, fragments: DocumentFragments) {
        self.schema = schema
        self.fragments = fragments
    }

    /// The plan of a selection set whose objects are of `parentType` (nil: unknown).
    mutating func plan(_ selections: [Selection], parentType: String?) throws(NormCacheError) -> SelectionPlan {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw InlinedDepth.tooDeep(Self.maximumDepth)
        }
        var planned: [SelectionPlan.Item] = []
        for selection in selections {
            try interruptCheck.pass()
            items += 1
            guard items <= Self.maximumItems else {
                throw NormCacheError(.document, "the operation expands to more than \(Self.maximumItems) selections once its fragments are inlined")
            }
            switch selection {
            case .field(let field):
                let definition = parentType.flatMap { schema?.field(field.name, on: $0) }
                let type = definition?.type
                guard let typeShape = TypeShape(type) else {
                    throw NormCacheError(.document, "GraphQL error at \(field.location): the type of '\(field.name)' nests more than \(TypeShape.maximumListDepth) lists")
                }
                let subplan = try field.selections.map { (selections) throws(NormCacheError) in
                    try plan(selections, parentType: type?.namedType)
                }
                planned.append(.field(PlannedField(responseKey: field.responseKey, name: field.name, arguments: field.arguments,
                                                   conditions: try Self.conditions(field.directives), plan: subplan, type: type,
                                                   typeShape: typeShape,
                                                   floatArguments: Set(definition?.arguments.filter { $0.type.namedType == "Float" }.map(\.name) ?? []),
                                                   isAdded: field.location == NetworkDocument.addedLocation,
                                                   location: field.location)))
            case .fragmentSpread(let spread):
                guard let fragment = fragments[spread] else {
                    throw NormCacheError(.document, "GraphQL error at \(spread.location): unknown fragment '\(spread.name)'")
                }
                planned.append(.group(typeCondition: fragment.typeCondition, conditions: try Self.conditions(spread.directives),
                                      plan: try plan(fragment.selections, parentType: fragment.typeCondition)))
            case .inlineFragment(let inline):
                planned.append(.group(typeCondition: inline.typeCondition, conditions: try Self.conditions(inline.directives),
                                      plan: try plan(inline.selections, parentType: inline.typeCondition ?? parentType)))
            }
        }
        return SelectionPlan(items: planned)
    }

    /// The `@include(if:)` and `@skip(if:)` conditions among `directives`.
    static func conditions(_ directives: [Directive]) throws(NormCacheError) -> [Condition] {
        var conditions: [Condition] = []
        for directive in directives where directive.name == "include" || directive.name == "skip" {
            guard let value = directive.arguments.first(where: { $0.name == "if" })?.value else {
                throw NormCacheError(.document, "GraphQL error at \(directive.location): @\(directive.name) needs an 'if' argument")
            }
            conditions.append(Condition(value: value, include: directive.name == "include"))
        }
        return conditions
    }
}
