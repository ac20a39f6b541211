import TestSupport
import Testing
@testable import NormCache

/// The reader asks for the shapes of its plans for an unknown typename when nothing it
/// reads depends on the typename, and the normalizer compiled the same plans for the
/// response's typenames in the same call context: such a shape is made from the
/// normalizer's (`ObjectShape.init(unknownTypenameFrom:)`), and must hold exactly what
/// compiling it would. Where the typename does matter (a type condition, a field policy,
/// max-age rules), it is compiled.
@Suite struct UnknownTypenameShapeTests {
    static let query = """
        query Pets($n: Int, $role: String) {
          pets(first: $n) { id nick: name name tags owner(role: $role) { id name } alsoOwner: owner(role: "vet") { id } }
        }
        """
    static let variables = #"{"n": 2, "role": "admin"}"#
    static let response = #"""
        {"data": {"pets": [
          {"__typename": "Pet", "id": "1", "nick": "Rex", "name": "Rex", "tags": ["a"],
           "owner": {"__typename": "User", "id": "u1", "name": "Ann"}, "alsoOwner": {"__typename": "User", "id": "u2"}},
          {"__typename": "Pet", "id": "2", "nick": "Tom", "name": "Tom", "tags": [],
           "owner": {"__typename": "User", "id": "u1", "name": "Ann"}, "alsoOwner": null}]}}
        """#

    /// A cache keying by id, configured with `configuration` too, the query written
    /// through it, and the call context the write left for its next call.
    func written(_ query: String = Self.query, configuration: String? = nil) throws -> (TestCache, PreparedOperation, SelectionContext) {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        if let configuration { try test.cache.configure(configuration) }
        let operation = try test.cache.prepare(query)
        _ = try test.cache.write(operation, response: Self.response, variables: Self.variables)
        let context = try Array(Self.variables.utf8).withUnsafeBytes { bytes in
            try Result { () throws(NormCacheError) in try operation.context(variables: bytes) }.get()
        }
        return (test, operation, context)
    }

    /// The plan of the field `responseKey` of `plan`.
    func plan(_ responseKey: String, of plan: SelectionPlan) throws -> SelectionPlan {
        try #require(plan.field(withResponseKey: responseKey)?.plan)
    }

    /// Everything a shape holds, as lines to compare.
    func contents(_ shape: ObjectShape) -> [String] {
        func text(_ bytes: UnsafeRawBufferPointer?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "nil" }
        var lines = ["typename \(text(shape.typename)), undecided \(shape.undecided), key rule \(shape.keyRule != nil), "
                     + "impossible \(shape.isImpossible), fallback \(text(shape.fallbackTypename)), collected \(shape.collected.count)",
                     "storage order \(Array(shape.storageOrder)), shared \(shape.hasSharedStorageKeys)",
                     "output \(Array(shape.outputFields)), lookup \(Array(shape.lookupOrder)), positions \(Array(shape.lastPositions))",
                     "policies \(shape.policyKeys.count)"]
        for field in shape.fields {
            lines.append("\(text(field.responseKey)) \(text(field.storageKey)) \(text(field.outputName)) \(field.type) "
                         + "named \(field.namedType) key \(field.responseKeyID) added \(field.isAdded) typename \(field.isTypename) "
                         + "policy \(field.policy) max age \(field.maxAgeRule) child \(field.lastChild != nil) "
                         + "cache \(field.cacheLookups)/\(field.cacheHits) plan \(field.plan.map { "\(ObjectIdentifier($0.takeUnretainedValue()))" } ?? "nil")")
        }
        return lines
    }

    @Test func theReadsShapeIsTheWritesWithoutItsTypenameAndHoldsWhatCompilingWouldGive() throws {
        let (test, operation, context) = try written()
        let pets = try plan("pets", of: operation.plan)
        let compiled = try Array("Pet".utf8).withUnsafeBytes { typename in
            try Result { () throws(NormCacheError) in try context.shapes.shape(pets, typename: typename, declaredType: -1, context: context) }.get()
        }
        // The write compiled it for "Pet", with its key rule, and remembered its child shapes.
        #expect(compiled.keyRule != nil)
        #expect(compiled.fields.contains { $0.lastChild != nil })

        let unknown = try context.shapes.shape(pets, typename: nil, declaredType: -1, context: context)
        #expect(unknown !== compiled)
        #expect(unknown.fields[0].storageKey.baseAddress == compiled.fields[0].storageKey.baseAddress, "made from the write's shape")
        let fresh = try ObjectShape(plan: pets, typename: nil, declaredType: -1, rootTyped: false, context: context, memo: context.shapes)
        #expect(contents(unknown) == contents(fresh))
        #expect(unknown.fields.map { String(decoding: $0.storageKey, as: UTF8.self) }
            == ["id", "name", "name", "tags", "owner(role:admin)", "owner(role:vet)", "__typename"])
        #expect(unknown.typename == nil && unknown.keyRule == nil)
        // Asked again, the memo has it; and the next read, given the context back, reads through it.
        #expect(try context.shapes.shape(pets, typename: nil, declaredType: -1, context: context) === unknown)
        operation.finished(with: context)

        #expect(try test.cache.readText(operation, variables: Self.variables)
            == #"{"pets":[{"id":"1","nick":"Rex","name":"Rex","tags":["a"],"owner":{"id":"u1","name":"Ann"},"alsoOwner":{"id":"u2"}},"#
            + #"{"id":"2","nick":"Tom","name":"Tom","tags":[],"owner":{"id":"u1","name":"Ann"},"alsoOwner":null}]}"#)
    }

    @Test func aTypeConditionMakesTheReadCompileItsOwn() throws {
        let query = """
            query Pets($n: Int, $role: String) {
              pets(first: $n) { id ... on Pet { name } owner(role: $role) { id } }
            }
            """
        let (test, operation, context) = try written(query)
        let pets = try plan("pets", of: operation.plan)
        let unknown = try context.shapes.shape(pets, typename: nil, declaredType: -1, context: context)
        // For no typename the condition is undecided, and its field left out.
        #expect(unknown.undecided)
        #expect(unknown.fields.map { String(decoding: $0.responseKey, as: UTF8.self) } == ["id", "owner", "__typename"])
        #expect(try test.cache.readText(operation, variables: Self.variables)
            == #"{"pets":[{"id":"1","name":"Rex","owner":{"id":"u1"}},{"id":"2","name":"Tom","owner":{"id":"u1"}}]}"#)
    }

    @Test func fieldPoliciesAndMaxAgeRulesMakeTheTypenameMatter() throws {
        let (_, operation, context) = try written()
        let pets = try plan("pets", of: operation.plan)
        #expect(!ShapeMemo.typenameMatters(pets, context: context))

        let (_, policyOperation, policyContext) = try written(configuration: #"{"fieldPolicies": {"Pet.owner": {"keyArgs": ["role"]}}}"#)
        #expect(ShapeMemo.typenameMatters(try plan("pets", of: policyOperation.plan), context: policyContext))

        let (ruled, ruledOperation, _) = try written(configuration: #"{"maxAges": {"Pet.name": 60}}"#)
        let (ruledContext, _) = try Array(Self.variables.utf8).withUnsafeBytes { bytes in
            try Result { () throws(NormCacheError) in try ruled.cache.readContext(ruledOperation, variables: bytes, options: ReadOptions()) }.get()
        }
        let ruledPets = try plan("pets", of: ruledOperation.plan)
        #expect(ShapeMemo.typenameMatters(ruledPets, context: ruledContext))
        #expect(try ruled.cache.readText(ruledOperation, variables: Self.variables).hasPrefix(#"{"pets":[{"id":"1","nick":"Rex""#))
    }
}
