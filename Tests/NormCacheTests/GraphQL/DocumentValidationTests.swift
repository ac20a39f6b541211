import Testing
@testable import NormCache

/// Validation of executable documents (one test per rule, with its exact message and
/// position) and the choice of the operation to run.
@Suite struct DocumentValidationTests {
    /// A small schema with an interface, a union, an enum, required arguments and
    /// arguments with defaults, and no subscription type.
    static let starWarsSDL = """
    schema { query: Query mutation: Mutation }
    type Query {
      hero(episode: Episode): Character
      human(id: ID!): Human
      search(text: String!): [SearchResult]
      characters(first: Int! = 10): [Character]
    }
    type Mutation { rename(id: ID!, name: String!): Character }
    enum Episode { NEWHOPE EMPIRE JEDI }
    interface Character { id: ID! name: String friends: [Character] }
    type Human implements Character { id: ID! name: String friends: [Character] height(unit: String): Float }
    type Droid implements Character { id: ID! name: String friends: [Character] primaryFunction: String }
    type Starship { id: ID! name: String }
    union SearchResult = Human | Droid | Starship
    """

    func starWars() throws -> Schema {
        try Schema(sdl: Array(Self.starWarsSDL.utf8))
    }

    /// The public SWAPI schema, of the external corpora.
    func swapi() throws -> Schema {
        try Schema(sdl: TestData.read(TestData.path("swapi/schema.graphql")))
    }

    /// The repository's own Star Wars schema, testdata/starwars/schema.graphql.
    func starWarsCorpus() throws -> Schema {
        try Schema(sdl: TestData.read(TestData.own("starwars/schema.graphql")))
    }

    /// The message of the error that validating `text` throws, or nil when it is valid.
    func problem(_ text: String, schema: Schema? = nil) throws -> String? {
        let document = try GraphQLParser.parseExecutable(Array(text.utf8))
        do throws(NormCacheError) {
            try DocumentValidation.validate(document, schema: schema)
            return nil
        } catch {
            return error.code == .document ? error.message : "wrong code \(error.code)"
        }
    }

    /// The message of the error that choosing operation `name` of `text` throws, or the
    /// chosen operation's name (`-` when anonymous).
    func choice(_ name: String?, in text: String) throws -> String {
        let document = try GraphQLParser.parseExecutable(Array(text.utf8))
        do throws(NormCacheError) {
            return try DocumentValidation.operation(named: name, in: document).name ?? "-"
        } catch {
            return error.code == .document ? error.message : "wrong code \(error.code)"
        }
    }

    // MARK: Choosing the operation

    @Test func choosesTheNamedOrTheOnlyOperation() throws {
        let two = "query A { hero { name } } mutation B { rename(id: 1, name: \"x\") { name } } fragment F on Character { id }"
        #expect(try choice("B", in: two) == "B")
        #expect(try choice("A", in: two) == "A")
        #expect(try choice(nil, in: "{ hero { name } } fragment F on Character { id }") == "-")
        #expect(try choice(nil, in: "query Only { hero { name } }") == "Only")
    }

    @Test func anUnknownOperationNameListsTheOperations() throws {
        #expect(try choice("C", in: "query A { a } mutation B { b }")
            == "no operation named 'C' in the document (it has: A, B)")
        #expect(try choice("C", in: "{ a }") == "no operation named 'C' in the document (it has: an anonymous query)")
        #expect(try choice("C", in: "fragment F on T { a }") == "no operation named 'C' in the document (it has none)")
    }

    @Test func severalOperationsNeedAName() throws {
        #expect(try choice(nil, in: "query A { a } subscription B { b }")
            == "the document has 2 operations; name the one to use (A, B)")
        #expect(try choice(nil, in: "query A { a } mutation { b } query C { c }")
            == "the document has 3 operations; name the one to use (A, an anonymous mutation, C)")
    }

    @Test func aDocumentWithoutOperationHasNoneToChoose() throws {
        #expect(try choice(nil, in: "fragment F on T { a }") == "the document has no operation")
    }

    // MARK: Rules without a schema

    @Test func operationNamesAreUnique() throws {
        #expect(try problem("""
        query A { hero { name } }
        query B { hero { id } }
          query A { hero { id } }
        """) == "GraphQL error at line 3, column 3: there can be only one operation named 'A'")
    }

    @Test func anAnonymousOperationIsAlone() throws {
        #expect(try problem("""
        query A { hero { name } }
        { hero { id } }
        """) == "GraphQL error at line 2, column 1: an anonymous operation must be the only operation in the document")
        #expect(try problem("{ hero { id } }") == nil)
    }

    @Test func fragmentNamesAreUnique() throws {
        #expect(try problem("""
        { hero { ...F } }
        fragment F on Character { id }
        fragment F on Character { name }
        """) == "GraphQL error at line 3, column 1: there can be only one fragment named 'F'")
    }

    @Test func spreadsNameKnownFragments() throws {
        #expect(try problem("""
        { hero { ...F } }
        fragment F on Character {
          friends { ...Missing }
        }
        """) == "GraphQL error at line 3, column 13: unknown fragment 'Missing'")
    }

    @Test func fragmentsDoNotFormCycles() throws {
        #expect(try problem("""
        { hero { ...A } }
        fragment A on Character { id ...B }
        fragment B on Character { friends { ...C } }
        fragment C on Character { name ...A }
        """) == "GraphQL error at line 4, column 32: fragment cycle: A → B → C → A")
        #expect(try problem("""
        { hero { ...A } }
        fragment A on Character { friends { ...A } }
        """) == "GraphQL error at line 2, column 37: fragment cycle: A → A")
    }

    @Test func aCycleAmongFragmentsReachedFromACycleFreeOneIsFound() throws {
        #expect(try problem("""
        { hero { ...Top } }
        fragment Top on Character { ...B }
        fragment B on Character { ...C }
        fragment C on Character { ...B }
        """) == "GraphQL error at line 4, column 27: fragment cycle: B → C → B")
    }

    @Test func spreadsFindFragmentsDefinedBeforeOrAfterThemAndNameTheOnesMissing() throws {
        // Spreads are resolved to their fragments' positions once; the messages still
        // name the fragments, and cycles give their path in names.
        #expect(try problem("""
        { hero { ...C ...A } }
        fragment A on Character { ...B }
        fragment C on Character { name }
        fragment B on Character { ...Missing }
        """) == "GraphQL error at line 4, column 27: unknown fragment 'Missing'")
        #expect(try problem("""
        { hero { ...C } }
        fragment A on Character { ...B }
        fragment C on Character { ...A }
        fragment B on Character { friends { ...C } }
        """) == "GraphQL error at line 3, column 27: fragment cycle: A → B → C → A")
        #expect(try problem("""
        { hero { ...C } }
        fragment A on Character { id }
        fragment C on Character { name }
        """) == "GraphQL error at line 2, column 1: fragment 'A' is never used")
        #expect(try problem("""
        { hero { ...C } }
        fragment A on Character { id }
        fragment C on Character { ...A }
        """) == nil)
    }

    @Test func everyFragmentIsUsed() throws {
        #expect(try problem("""
        { hero { ...Used } }
        fragment Used on Character { id }
        fragment OnlyUsedByUnused on Character { id }
        fragment Unused on Character { ...OnlyUsedByUnused }
        """) == "GraphQL error at line 3, column 1: fragment 'OnlyUsedByUnused' is never used")
    }

    @Test func variableNamesAreUniquePerOperation() throws {
        #expect(try problem("""
        query A($id: ID, $other: ID, $id: ID) { human(id: $id) { name } }
        """) == "GraphQL error at line 1, column 30: there can be only one variable named '$id'")
        #expect(try problem("""
        query A($id: ID!) { human(id: $id) { name } }
        query B($id: ID!) { human(id: $id) { name } }
        """) == nil)
    }

    @Test func usedVariablesAreDefined() throws {
        #expect(try problem("""
        query A($id: ID!) {
          human(id: $id) { name @include(if: $withName) }
        }
        """) == "GraphQL error at line 2, column 34: variable '$withName' is not defined by operation 'A'")
        #expect(try problem("""
        { search(text: { words: ["a", $words] }) { __typename } }
        """) == "GraphQL error at line 1, column 10: variable '$words' is not defined by the anonymous operation")
    }

    @Test func variablesUsedInFragmentsAreDefinedByEachOperationThatReachesThem() throws {
        let text = """
        query A($id: ID!) { ...Human }
        query B { ...Human }
        fragment Human on Query { ...Deeper }
        fragment Deeper on Query { human(id: $id) { name } }
        """
        #expect(try problem(text) == "GraphQL error at line 4, column 34: variable '$id' is not defined by operation 'B'")
    }

    // MARK: Rules with a schema

    @Test func theRootTypeExists() throws {
        #expect(try problem("subscription S { hero { name } }", schema: starWars())
            == "GraphQL error at line 1, column 1: the schema has no subscription type")
        #expect(try problem("mutation M { rename(id: 1, name: \"R2\") { name } }", schema: starWars()) == nil)
    }

    @Test func fieldsExistOnTheirParentType() throws {
        #expect(try problem("""
        {
          hero {
            name
            ... on Droid { primaryFunction height }
          }
        }
        """, schema: starWars()) == "GraphQL error at line 4, column 36: field 'height' is not defined on type 'Droid'")
        #expect(try problem("{ search(text: \"x\") { name } }", schema: starWars())
            == "GraphQL error at line 1, column 23: field 'name' is not defined on type 'SearchResult'")
    }

    @Test func typenameAndIntrospectionFieldsAreKnown() throws {
        #expect(try problem("""
        { __typename search(text: "x") { __typename } __type(name: "Human") { name fields { name } } __schema { queryType { name } } }
        """, schema: starWars()) == nil)
        #expect(try problem("{ hero { __schema { description } } }", schema: starWars())
            == "GraphQL error at line 1, column 10: field '__schema' is not defined on type 'Character'")
    }

    @Test func argumentsAreDefinedOnTheirField() throws {
        #expect(try problem("""
        { hero(episode: JEDI, era: 3) { name } }
        """, schema: starWars()) == "GraphQL error at line 1, column 23: unknown argument 'era' on field 'Query.hero'")
    }

    @Test func includeAndSkipTakeOnlyIf() throws {
        #expect(try problem("""
        { hero { name @include(if: true, unless: false) } }
        """, schema: starWars()) == "GraphQL error at line 1, column 34: unknown argument 'unless' on directive '@include'")
        #expect(try problem("{ hero { name @cached(ttl: 5) @skip(if: false) } }", schema: starWars()) == nil)
    }

    @Test func requiredArgumentsArePresent() throws {
        #expect(try problem("""
        { hero { name }
          human { name } }
        """, schema: starWars()) == "GraphQL error at line 2, column 3: missing required argument 'id' of field 'Query.human'")
        #expect(try problem("{ hero { ... @skip { name } } }", schema: starWars())
            == "GraphQL error at line 1, column 14: missing required argument 'if' of directive '@skip'")
        #expect(try problem("{ characters { name } }", schema: starWars()) == nil, "a non-null argument with a default is optional")
    }

    @Test func typeConditionsNameKnownCompositeTypes() throws {
        #expect(try problem("""
        { hero { ...F } }
        fragment F on Wookiee { name }
        """, schema: starWars()) == "GraphQL error at line 2, column 1: unknown type 'Wookiee' in the type condition of fragment 'F'")
        #expect(try problem("""
        { hero { ... on Episode { name } } }
        """, schema: starWars())
            == "GraphQL error at line 1, column 10: type condition 'Episode' of an inline fragment is not an object, interface or union type")
        #expect(try problem("""
        { hero { ... on Wookiee { name } } }
        """, schema: starWars()) == "GraphQL error at line 1, column 10: unknown type 'Wookiee' in the type condition of an inline fragment")
    }

    @Test func fragmentsArePossibleWhereTheyAreSpread() throws {
        #expect(try problem("""
        { hero { ...Ship } }
        fragment Ship on Starship { name }
        """, schema: starWars()) == "GraphQL error at line 1, column 10: fragment 'Ship' on 'Starship' can never apply within 'Character'")
        #expect(try problem("""
        { human(id: 1) { ... on Droid { primaryFunction } } }
        """, schema: starWars()) == "GraphQL error at line 1, column 18: an inline fragment on 'Droid' can never apply within 'Human'")
        #expect(try problem("""
        { search(text: "x") { ... on Character { name } ... on Starship { id } ...H } }
        fragment H on Human { height }
        """, schema: starWars()) == nil)
    }

    @Test func leafFieldsHaveNoSelectionsAndOthersHaveSome() throws {
        #expect(try problem("""
        { hero { name { first } } }
        """, schema: starWars()) == "GraphQL error at line 1, column 10: field 'name' of type 'String' cannot have a selection set")
        #expect(try problem("""
        { hero { friends } }
        """, schema: starWars()) == "GraphQL error at line 1, column 10: field 'friends' of type 'Character' needs a selection set")
    }

    // MARK: Variables where their type is allowed (§5.8.5)

    /// A schema with list, non-null and defaulted arguments and an input object.
    func feedSchema() throws -> Schema {
        try Schema(sdl: Array("""
        type Query {
          feed(first: Int, after: String): [Item]
          item(id: ID!): Item
          items(ids: [ID!]!): [Item]
          tagged(tags: [String]): [Item]
          page(size: Int! = 10): [Item]
          search(filter: Filter): [Item]
        }
        input Filter { text: String! limit: Int! = 5 }
        type Item { id: ID! }
        """.utf8))
    }

    /// The message of a variable used at line 1, `column`, where its type is not allowed.
    func misuse(_ column: Int, _ variable: String, _ type: String, expecting expected: String) -> String {
        "GraphQL error at line 1, column \(column): variable '\(variable)' of type '\(type)' is used in a position expecting type '\(expected)'"
    }

    @Test func variablesFitThePositionsTheyAreUsedIn() throws {
        let schema = try feedSchema()
        let cases: [(document: String, problem: String?)] = [
            // Named types must be the same; a non-null variable fits a nullable position.
            ("query Feed($n: String) { feed(first: $n) { id } }", misuse(31, "$n", "String", expecting: "Int")),
            ("query ($n: Int!, $a: String) { feed(first: $n, after: $a) { id } }", nil),
            // A nullable variable fits a non-null position only with a default (not null)
            // of its own or of the argument or input field it fills.
            ("query ($id: ID) { item(id: $id) { id } }", misuse(24, "$id", "ID", expecting: "ID!")),
            ("query ($id: ID = null) { item(id: $id) { id } }", misuse(31, "$id", "ID", expecting: "ID!")),
            (#"query ($id: ID = "1") { item(id: $id) { id } }"#, nil),
            ("query ($s: Int) { page(size: $s) { id } }", nil),
            (#"query ($l: Int) { search(filter: {text: "x", limit: $l}) { id } }"#, nil),
            ("query ($t: String) { search(filter: {text: $t}) { id } }", misuse(29, "$t", "String", expecting: "String!")),
            ("query ($w: Boolean) { feed { id @include(if: $w) } }", misuse(42, "$w", "Boolean", expecting: "Boolean!")),
            // Lists fit level by level; a single value is no list, and a list element
            // takes the item type.
            ("query ($ids: [ID]!) { items(ids: $ids) { id } }", misuse(29, "$ids", "[ID]!", expecting: "[ID!]!")),
            ("query ($t: String) { tagged(tags: $t) { id } }", misuse(29, "$t", "String", expecting: "[String]")),
            ("query ($t: [[String]]) { tagged(tags: $t) { id } }", misuse(33, "$t", "[[String]]", expecting: "[String]")),
            ("query ($id: ID) { items(ids: [$id]) { id } }", misuse(25, "$id", "ID", expecting: "ID!")),
            ("query ($ids: [ID!]!, $id: ID!, $t: [String!]!) { items(ids: [$id]) { id } a: items(ids: $ids) { id } tagged(tags: $t) { id } }",
             nil),
        ]
        for (document, expected) in cases {
            #expect(try problem(document, schema: schema) == expected, "\(document)")
        }
        #expect(try problem("query Feed($n: String) { feed(first: $n) { id } }") == nil, "the rule needs a schema")
    }

    @Test func aVariableInAFragmentIsCheckedForEachOperationThatReachesIt() throws {
        let text = """
        query A($n: Int) { ...Feed }
        query B($n: String) { ...Feed }
        fragment Feed on Query { ...Deeper }
        fragment Deeper on Query { feed(first: $n) { id } }
        """
        #expect(try problem(text, schema: feedSchema())
            == "GraphQL error at line 4, column 33: variable '$n' of type 'String' is used in a position expecting type 'Int'")
    }

    // MARK: Field selection merging

    @Test func fieldsOfOneResponseKeySelectTheSameField() throws {
        #expect(try problem("""
        { hero { id }
          hero: human(id: 1) { id } }
        """, schema: starWars()) == "GraphQL error at line 2, column 3: fields 'hero' conflict: 'hero' and 'human' are different fields")
    }

    @Test func fieldsOfOneResponseKeyHaveTheSameArguments() throws {
        #expect(try problem("""
        { hero(episode: JEDI) { id } ...More }
        fragment More on Query { hero { name } }
        """, schema: starWars())
            == "GraphQL error at line 2, column 26: fields 'hero' conflict: 'hero(episode: JEDI)' and 'hero' have different arguments")
        #expect(try problem("""
        query($unit: String) { human(id: 1) { height(unit: "m") h: height(unit: $unit) ... on Human { h: height(unit: "m") } } }
        """, schema: starWars())
            == "GraphQL error at line 1, column 95: fields 'h' conflict: 'height(unit: $unit)' and 'height(unit: \"m\")' have different arguments")
        #expect(try problem("""
        { human(id: 1) { id name } human(id: 1) { name } }
        """, schema: starWars()) == nil)
    }

    @Test func fieldsOnDifferentObjectTypesMayDiffer() throws {
        #expect(try problem("""
        { hero { ... on Human { x: height } ... on Droid { x: primaryFunction } } }
        """, schema: starWars()) == nil)
        #expect(try problem("""
        { hero { x: name ... on Droid { x: primaryFunction } } }
        """, schema: starWars())
            == "GraphQL error at line 1, column 33: fields 'x' conflict: 'name' and 'primaryFunction' are different fields")
    }

    @Test func mergedSelectionSetsAreCheckedToo() throws {
        #expect(try problem("""
        { hero { friends { n: name } }
          hero { friends { n: id } } }
        """, schema: starWars()) == "GraphQL error at line 2, column 20: fields 'n' conflict: 'name' and 'id' are different fields")
        #expect(try problem("""
        { hero { ... on Human { friends { n: name } } ... on Droid { friends { n: id } } } }
        """, schema: starWars()) == nil, "the two friends fields never apply to one object")
    }

    // MARK: The Star Wars corpus and SWAPI

    @Test func theStarWarsQueriesAreValidWithAndWithoutTheSchema() throws {
        let schema = try starWarsCorpus()
        let names = try TestData.files(in: TestData.own("starwars")).filter { $0.hasPrefix("0") && $0.hasSuffix(".graphql") }
        #expect(names.count == 7)
        for name in names {
            let text = try TestData.text(TestData.own("starwars/" + name))
            #expect(try problem(text, schema: schema) == nil, "\(name)")
            #expect(try problem(text) == nil, "\(name)")
        }
    }

    @Test func aMisspelledStarWarsFieldIsReportedWhereItIs() throws {
        let text = try TestData.text(TestData.own("starwars/05_fragments.graphql"))
        let misspelled = text.replacing("fragment planetFacts on Planet {\n  name", with: "fragment planetFacts on Planet {\n  nmae")
        #expect(try problem(misspelled, schema: starWarsCorpus()) == "GraphQL error at line 54, column 3: field 'nmae' is not defined on type 'Planet'")
        #expect(try problem(misspelled) == nil)
        let wrongType = text.replacing("... on Starship {\n        name\n        model", with: "... on Starship {\n        name\n        climates")
        #expect(try problem(wrongType, schema: starWarsCorpus()) == "GraphQL error at line 33, column 9: field 'climates' is not defined on type 'Starship'")
    }

    @Test(TestData.external("swapi")) func theSWAPIExamplesAreValidWithAndWithoutTheSchema() throws {
        let schema = try swapi()
        let names = try TestData.files(in: TestData.path("swapi")).filter { $0.hasPrefix("0") && $0.hasSuffix(".graphql") }
        #expect(names.count == 8)
        for name in names {
            let text = String(decoding: try TestData.read(TestData.path("swapi/" + name)), as: UTF8.self)
            #expect(try problem(text, schema: schema) == nil, "\(name)")
            #expect(try problem(text) == nil, "\(name)")
        }
    }

    @Test(TestData.external("swapi")) func aMisspelledSWAPIFieldIsReportedWhereItIs() throws {
        let text = String(decoding: try TestData.read(TestData.path("swapi/07_fragments.graphql")), as: UTF8.self)
        let misspelled = text.replacing("homeworld { name }", with: "homeworld { nmae }")
        #expect(try problem(misspelled, schema: swapi()) == "GraphQL error at line 20, column 15: field 'nmae' is not defined on type 'Planet'")
        #expect(try problem(misspelled) == nil)
    }

    // MARK: Size

    @Test func aFragmentBombIsCheckedInLinearTime() throws {
        // Each fragment spreads the next in two fields: 2^40 selections once inlined.
        var text = "{ hero { ...F0 } }\n"
        for index in 0..<40 {
            let next = index == 39 ? "name" : "...F\(index + 1)"
            text += "fragment F\(index) on Character { friends { \(next) } a: friends { \(next) } }\n"
        }
        #expect(try problem(text, schema: starWars()) == nil)
        #expect(try problem(text) == nil)
    }

    @Test func aLargeDocumentIsCheckedAgainstTheStarWarsSchema() throws {
        // 3,000 root fields of their own response key and 3,000 of one key, all with a fragment.
        var text = "{\n"
        for index in 0..<3_000 { text += "  p\(index): person(personID: \(index)) { ...Pilot homeworld { name } }\n" }
        for _ in 0..<3_000 { text += "  person(personID: 4) { name ...Pilot }\n" }
        text += "}\nfragment Pilot on Person { name homeworld { name residentConnection { edges { node { name } } } } }\n"
        #expect(try problem(text, schema: starWarsCorpus()) == nil)
        let conflicting = text + "fragment Other on Query { person(personID: 5) { id } }\n"
        #expect(try problem(conflicting.replacing("{\n", with: "{\n  ...Other\n"), schema: starWarsCorpus())
            == "GraphQL error at line 6005, column 27: fields 'person' conflict: 'person(personID: 4)' and 'person(personID: 5)' have different arguments")
    }

    @Test func aLongChainOfFragmentsDoesNotExhaustTheStack() throws {
        var text = "{ hero { ...F0 } }\n"
        for index in 0..<20_000 {
            text += "fragment F\(index) on Character { friends { id \(index == 19_999 ? "" : "...F\(index + 1)") } }\n"
        }
        #expect(try problem(text, schema: starWars()) == nil)
        text += "fragment F20000 on Character { ...F0 }\n"
        let cycle = try problem(text.replacing("{ id  }", with: "{ id ...F20000 }"))
        #expect(cycle?.hasSuffix("F19999 → F20000 → F0") == true)
    }
}
