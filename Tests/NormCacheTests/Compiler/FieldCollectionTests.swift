import TestSupport
import Testing
@testable import NormCache

/// Collecting the fields a plan selects on an object (GraphQL's CollectFields): a plan of
/// fields only, none with a condition, is collected once when it is made
/// (`SelectionPlan.unconditionalFields`), with the fields of a repeated response key
/// merged; a plan with groups or conditions is collected per call, as the call's
/// typename and variables decide.
@Suite struct FieldCollectionTests {
    /// A cache keying by id and `query` prepared in it.
    func prepared(_ query: String) throws -> (TestCache, PreparedOperation) {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        return (test, try test.cache.prepare(query))
    }

    /// The plan of the field `responseKey` of `plan`.
    func plan(_ responseKey: String, of plan: SelectionPlan) throws -> SelectionPlan {
        try #require(plan.field(withResponseKey: responseKey)?.plan)
    }

    /// The response keys of collected fields, an added one (the network document's)
    /// marked with a "+".
    func keys(_ fields: [CollectedField]) -> [String] {
        fields.map { $0.field.responseKey + ($0.isAdded ? "+" : "") }
    }

    @Test func fieldsOnlyAreCollectedOnceWithRepeatedKeysMerged() throws {
        let (test, operation) = try prepared("{ pets { id owner { id } nick: name owner { name } id } }")
        let pets = try plan("pets", of: operation.plan)
        let fields = try #require(pets.unconditionalFields)
        #expect(keys(fields) == ["id", "owner", "nick", "__typename+"])
        let owner = try #require(fields[1].plan)
        // The sub-selections' fields in the order they first come: the first's, then the second's new ones.
        let ownerFields = try #require(owner.unconditionalFields)
        #expect(keys(ownerFields) == ["id", "__typename+", "name"])

        // A call gets the plan's own collection: the merged sub-selection is one object,
        // whatever the call, so the shapes of its objects are found again by it.
        let context = try operation.context(variables: UnsafeRawBufferPointer(start: nil, count: 0))
        var undecided = false
        let collected = try context.collectFields(pets, typename: "Pet", parentType: nil, undecided: &undecided)
        #expect(!undecided)
        #expect(collected.map { $0.plan.map(ObjectIdentifier.init) } == fields.map { $0.plan.map(ObjectIdentifier.init) })

        _ = try test.cache.write(operation, #"{"data": {"pets": [{"__typename": "Pet", "id": "1", "nick": "Rex", "#
                                            + #""owner": {"__typename": "User", "id": "u1", "name": "Ann"}}]}}"#)
        #expect(try test.cache.readText(operation) == #"{"pets":[{"id":"1","owner":{"id":"u1","name":"Ann"},"nick":"Rex"}]}"#)
    }

    @Test func aKeySelectedManyTimesMakesOneMergedPlan() throws {
        // Each later field's sub-selection joins the others' once all are in: the merged
        // plan holds the items of the three, in order, and no plan of two of them is made
        // on the way (which made preparing N such selections quadratic; the harness's
        // "prepare field merging" figures keep it linear).
        let (_, operation) = try prepared("{ item { f { a } f { b } f { c } } }")
        let fields = try #require(try plan("item", of: operation.plan).unconditionalFields)
        #expect(keys(fields) == ["f", "__typename+"])
        let merged = try #require(fields[0].plan)
        #expect(merged.items.count == 6)
        #expect(keys(try #require(merged.unconditionalFields)) == ["a", "__typename+", "b", "c"])
    }

    @Test func manyFieldsAreMergedThroughATable() throws {
        let leaves = (0..<20).map { "f\($0)" }.joined(separator: " ")
        let (_, operation) = try prepared("{ item { \(leaves) f3 sub { a } f7 sub { b } } }")
        let fields = try #require(try plan("item", of: operation.plan).unconditionalFields)
        #expect(keys(fields) == (0..<20).map { "f\($0)" } + ["sub", "__typename+"])
        let subFields = try #require(fields[20].plan?.unconditionalFields)
        #expect(keys(subFields) == ["a", "__typename+", "b"])
    }

    @Test func manyFieldsCollectedPerCallAreMergedThroughATable() throws {
        // A call's collection merges keys alike: one repeated while its keys are still
        // compared one by one (f0), others once there are more than 16 (f3, sub, f19),
        // from a group and past a condition.
        let leaves = (0..<20).map { "f\($0)" }.joined(separator: " ")
        let (_, operation) = try prepared("""
            query Item($on: Boolean!) { item { f0 sub { a } \(leaves) ... on Thing { f3 sub { b } } f19 @include(if: $on) } }
            """)
        let item = try plan("item", of: operation.plan)
        #expect(item.unconditionalFields == nil)
        let context = try Array(#"{"on": true}"#.utf8).withUnsafeBytes { bytes in
            try Result { () throws(NormCacheError) in try operation.context(variables: bytes) }.get()
        }
        var undecided = false
        let collected = try context.collectFields(item, typename: "Thing", parentType: nil, undecided: &undecided)
        #expect(keys(collected) == ["f0", "sub"] + (1..<20).map { "f\($0)" } + ["__typename+"])
        #expect(keys(try #require(collected[1].plan?.unconditionalFields)) == ["a", "__typename+", "b"])
    }

    @Test func conditionsAndGroupsAreCollectedPerCall() throws {
        let (_, operation) = try prepared("""
            query Pets($full: Boolean!) { pets { id name @include(if: $full) ... on Dog { barks } } }
            """)
        let pets = try plan("pets", of: operation.plan)
        #expect(pets.unconditionalFields == nil)
        for (variables, typename, expected) in [(#"{"full": true}"#, "Dog", ["id", "name", "barks", "__typename+"]),
                                                (#"{"full": false}"#, "Dog", ["id", "barks", "__typename+"]),
                                                (#"{"full": true}"#, "Cat", ["id", "name", "__typename+"])] {
            let context = try Array(variables.utf8).withUnsafeBytes { bytes in
                try Result { () throws(NormCacheError) in try operation.context(variables: bytes) }.get()
            }
            var undecided = false
            let collected = try context.collectFields(pets, typename: typename, parentType: nil, undecided: &undecided)
            #expect(keys(collected) == expected, "\(variables) on \(typename)")
        }
    }
}
