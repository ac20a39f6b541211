import Testing

@testable import NormCache

/// The parser's numbering of fragment names and the positions `DocumentFragments`
/// finds for spreads by those numbers.
@Suite struct DocumentFragmentsTests {
    /// The spreads of `selections` and below, in document order.
    func spreads(_ selections: [Selection]) -> [FragmentSpread] {
        selections.flatMap { selection -> [FragmentSpread] in
            switch selection {
            case .field(let field): return spreads(field.selections ?? [])
            case .inlineFragment(let inline): return spreads(inline.selections)
            case .fragmentSpread(let spread): return [spread]
            }
        }
    }

    @Test func namesAreNumberedOnceInOrderOfFirstAppearance() throws {
        let document = try GraphQLParser.parseExecutable(Array("""
            { a { ...B ... on Q { ...Missing } } }
            fragment A on Q { x }
            fragment B on Q { ...A ...B2 }
            fragment B2 on Q { y }
            """.utf8))
        #expect(document.fragmentNames == ["B", "Missing", "A", "B2"])
        let fragments = DocumentFragments(document)
        #expect(fragments.definitions.map(\.name) == ["A", "B", "B2"])
        #expect(fragments.definitions.map(\.nameNumber) == [2, 0, 3])
        var all: [FragmentSpread] = []
        for case .operation(let operation) in document.definitions { all += spreads(operation.selections) }
        all += fragments.definitions.flatMap { spreads($0.selections) }
        #expect(all.map(\.name) == ["B", "Missing", "A", "B2"])
        #expect(all.map(\.nameNumber) == [0, 1, 2, 3])
        // A spread finds its fragment's position, a spread of an unknown name none.
        #expect(all.map { fragments.position(of: $0) } == [1, nil, 0, 2])
        #expect(all.map { fragments[$0]?.typeCondition } == ["Q", nil, "Q", "Q"])
    }

    @Test func aRepeatedNameFindsItsFirstFragment() throws {
        let document = try GraphQLParser.parseExecutable(Array("""
            { a { ...F } }
            fragment F on Q { x }
            fragment F on R { y }
            """.utf8))
        #expect(document.fragmentNames == ["F"])
        let fragments = DocumentFragments(document)
        #expect(fragments.count == 2)
        #expect(fragments.position(ofName: 0) == 0)
        // Some of the fragments, numbered among the document's names.
        let second = DocumentFragments([fragments.definitions[1]], nameCount: document.fragmentNames.count)
        #expect(second.position(ofName: 0) == 0)
        #expect(second.definitions[0].typeCondition == "R")
    }

    @Test func aSchemaHasNoFragmentNames() throws {
        #expect(try GraphQLParser.parseSchema(Array("type Query { a: Int }".utf8)).fragmentNames.isEmpty)
    }
}
