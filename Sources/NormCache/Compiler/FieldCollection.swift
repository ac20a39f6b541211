/// The fields a selection plan asks of one object: groups whose type condition
/// matches the object and whose `@include`/`@skip` conditions hold are flattened in,
/// and fields of one response key are merged (GraphQL's CollectFields).
struct CollectedField: Sendable {
    /// The first field of this response key.
    var field: PlannedField
    /// Whether every field of this response key was added by the network document.
    var isAdded: Bool
    /// The merged sub-selections (nil for a leaf), made once: by `finishMerging()` when
    /// more than one field of the response key has them.
    private(set) var plan: SelectionPlan?
    /// The sub-selections of every field of this response key, once a second field of
    /// it has one (until then `plan` is the only one, and this is empty), until
    /// `finishMerging()` merges them.
    private var mergedPlans: [SelectionPlan] = []

    /// The field `field`, the first of its response key.
    init(field: PlannedField) {
        self.field = field
        isAdded = field.isAdded
        plan = field.plan
    }

    /// Merges in a later field of the same response key; its sub-selections join the
    /// others' at `finishMerging()`, so that N fields of one key make one merged plan,
    /// not one for each field after the first.
    mutating func merge(_ later: PlannedField) {
        isAdded = isAdded && later.isAdded
        guard let subplan = later.plan else { return }
        if mergedPlans.isEmpty, let plan { mergedPlans = [plan] }
        mergedPlans.append(subplan)
        if mergedPlans.count == 1 { plan = subplan }
    }

    /// Makes the merged plan of the sub-selections `merge` took, when there are several.
    mutating func finishMerging() {
        guard mergedPlans.count > 1 else { return }
        plan = SelectionPlan(items: mergedPlans.flatMap(\.items))
        mergedPlans = []
    }
}

/// Fields gathered by response key, in the order their keys first come, each later
/// field of a key merged into the first (CollectFields' grouping).
struct ResponseKeyFields {
    /// The fields, one a response key.
    private var fields: [CollectedField] = []
    /// Response key → index in `fields`, once it holds more than `scannedAtMost`: a few
    /// keys are compared with each other, many are looked up.
    private var positions: [String: Int] = [:]
    /// The most fields whose keys are compared one by one.
    private static let scannedAtMost = 16

    /// Room for `capacity` fields.
    init(reservingCapacity capacity: Int = 0) {
        fields.reserveCapacity(capacity)
    }

    /// Adds `field`: merged into the field of its response key when there is one.
    mutating func add(_ field: PlannedField) {
        if let position = position(of: field.responseKey) { return fields[position].merge(field) }
        fields.append(CollectedField(field: field))
        if fields.count > Self.scannedAtMost {
            if positions.isEmpty {
                for (index, collected) in fields.enumerated() { positions[collected.field.responseKey] = index }
            } else {
                positions[field.responseKey] = fields.count - 1
            }
        }
    }

    /// The fields gathered, their merges finished.
    consuming func finished() -> [CollectedField] {
        for index in fields.indices { fields[index].finishMerging() }
        return fields
    }

    /// The index in `fields` of the field of `responseKey`, nil when none is there yet.
    private func position(of responseKey: String) -> Int? {
        positions.isEmpty ? fields.firstIndex { $0.field.responseKey == responseKey } : positions[responseKey]
    }
}

/// Where a selection plan is applied: the schema and rules that decide type
/// conditions, and the variables that decide conditions and arguments. Used by one call
/// at a time; a prepared operation keeps it for its next call with the same variables
/// and max-age rules (`ContextShelf`).
final class SelectionContext {
    let schema: Schema?
    let keyRules: KeyRules
    let variables: Variables
    /// The variables' JSON bytes, a copy of the call's that `variables` points into and
    /// the next call's are matched with.
    let variablesJSON: ByteBuffer
    /// The max-age rules reads judge fields by (none for normalizing).
    let maxAgeRules: MaxAgeRules
    /// The shapes compiled so far: a response repeats the same few shapes, and with the
    /// same variables and rules, so do the next calls.
    let shapes = ShapeMemo()

    /// A context of `schema`, `keyRules`, `variables` (read from `variablesJSON`, which
    /// it keeps) and `maxAgeRules`.
    init(schema: Schema?, keyRules: KeyRules, variables: Variables, variablesJSON: consuming ByteBuffer,
         maxAgeRules: MaxAgeRules = MaxAgeRules()) {
        self.schema = schema
        self.keyRules = keyRules
        self.variables = variables
        self.variablesJSON = variablesJSON
        self.maxAgeRules = maxAgeRules
    }

    /// The shape of `plan` for objects of `typename` (nil: unknown) where the type with
    /// id `declaredType` (-1: unknown; see `ShapeMemo.typeID`) is expected: the one the
    /// objects of the field `parent` had last when it matches, else the memo's (then
    /// remembered in `parent`). Unretained, as the inner loops hold it: the memo keeps
    /// every shape as long as the context.
    @inline(__always)
    func shape(_ plan: Unmanaged<SelectionPlan>, typename: UnsafeRawBufferPointer?, declaredType: Int32, rootTyped: Bool = false,
               via parent: UnsafeMutablePointer<ObjectShape.Field>?) throws(NormCacheError) -> Unmanaged<ObjectShape> {
        if let cached = parent?.pointee.lastChild, cached._withUnsafeGuaranteedRef({ $0.matches(typename) }) { return cached }
        let made = try Unmanaged.passUnretained(shapes.shape(plan.takeUnretainedValue(), typename: typename, declaredType: declaredType,
                                                             rootTyped: rootTyped, context: self))
        parent?.pointee.lastChild = made
        return made
    }

    /// The fields `plan` selects on an object of `typename` (nil: unknown) found where
    /// the schema expects `parentType`, in document order. `undecided` is set when a
    /// type condition could not be decided for want of a typename (its fields are left
    /// out).
    func collectFields(_ plan: SelectionPlan, typename: String?, parentType: String?,
                       undecided: inout Bool) throws(NormCacheError) -> [CollectedField] {
        if let fields = plan.unconditionalFields { return fields }
        var collected = ResponseKeyFields()
        try collect(plan, typename: typename, parentType: parentType, into: &collected, undecided: &undecided)
        return collected.finished()
    }

    private func collect(_ plan: SelectionPlan, typename: String?, parentType: String?, into collected: inout ResponseKeyFields,
                         undecided: inout Bool) throws(NormCacheError) {
        for item in plan.items {
            switch item {
            case .field(let field):
                guard try allHold(field.conditions) else { continue }
                collected.add(field)
            case .group(let condition, let conditions, let subplan):
                guard try allHold(conditions) else { continue }
                guard let applies = matches(condition, typename: typename, parentType: parentType) else {
                    undecided = true
                    continue
                }
                guard applies else { continue }
                try collect(subplan, typename: typename, parentType: parentType, into: &collected, undecided: &undecided)
            }
        }
    }

    private func allHold(_ conditions: [Condition]) throws(NormCacheError) -> Bool {
        for condition in conditions where !(try condition.holds(variables)) { return false }
        return true
    }

    /// Whether a type condition applies to an object: always without a condition or on
    /// the type expected there; else when the object's typename is the condition or one
    /// of its possible types (from the schema, or the configured possible types); nil
    /// when the object's typename is unknown, so it cannot be told.
    func matches(_ condition: String?, typename: String?, parentType: String?) -> Bool? {
        guard let condition, condition != parentType else { return true }
        guard let typename else { return nil }
        if condition == typename { return true }
        if let schema, schema.type(named: condition) != nil { return schema.possibleTypes(of: condition).contains(typename) }
        return keyRules.possibleTypes[condition]?.contains(typename) ?? false
    }
}
