import Testing
@testable import NormCache

/// The GraphQL lexer and parser: documents and SDL, values, positions in errors.
@Suite struct GraphQLParserTests {
    func executable(_ text: String) throws(NormCacheError) -> GraphQLDocument {
        try GraphQLParser.parseExecutable(Array(text.utf8))
    }

    func schema(_ text: String) throws(NormCacheError) -> GraphQLDocument {
        try GraphQLParser.parseSchema(Array(text.utf8))
    }

    func documentError(_ text: String) -> String? {
        do throws(NormCacheError) { _ = try executable(text); return nil } catch { return error.code == .document ? error.message : "wrong code \(error.code)" }
    }

    func schemaError(_ text: String) -> String? {
        do throws(NormCacheError) { _ = try schema(text); return nil } catch { return error.code == .schema ? error.message : "wrong code \(error.code)" }
    }

    func operation(_ document: GraphQLDocument, _ index: Int = 0) -> OperationDefinition? {
        guard case .operation(let operation) = document.definitions[index] else { return nil }
        return operation
    }

    func field(_ selection: Selection?) -> Field? {
        guard case .field(let field)? = selection else { return nil }
        return field
    }

    @Test func anOperationWithEverything() throws {
        let document = try executable("""
        # a comment
        query Hero($episode: Episode = JEDI, $ids: [ID!]!, $withFriends: Boolean!) @cached(ttl: 60) {
          leader: hero(episode: $episode, filter: {name: "R2", stars: [1, 2.5e3, -0]}) {
            __typename, name
            ... on Droid @include(if: $withFriends) { primaryFunction }
            ...HeroFriends
            ... @skip(if: false) { id }
          }
        }
        fragment HeroFriends on Character { friends(first: 2) { name } }
        """)
        #expect(document.definitions.count == 2)
        let hero = try #require(operation(document))
        #expect(hero.kind == .query)
        #expect(hero.name == "Hero")
        #expect(hero.location == SourceLocation(line: 2, column: 1))
        #expect(hero.variables.map(\.name) == ["episode", "ids", "withFriends"])
        #expect(hero.variables[0].type == .named("Episode"))
        #expect(hero.variables[0].defaultValue == .enumValue("JEDI"))
        #expect(hero.variables[1].type == .nonNull(.list(.nonNull(.named("ID")))))
        #expect(hero.directives.map(\.name) == ["cached"])
        let leader = try #require(field(hero.selections.first))
        #expect(leader.alias == "leader")
        #expect(leader.name == "hero")
        #expect(leader.responseKey == "leader")
        #expect(leader.location == SourceLocation(line: 3, column: 3))
        #expect(leader.arguments.map(\.name) == ["episode", "filter"])
        #expect(leader.arguments[0].value == .variable("episode"))
        #expect(leader.arguments[1].value == .object([("name", .string("R2")), ("stars", .list([.int("1"), .float("2.5e3"), .int("-0")]))]))
        let selections = try #require(leader.selections)
        #expect(selections.count == 5)
        #expect(field(selections[0])?.name == "__typename")
        #expect(field(selections[1])?.name == "name")
        guard case .inlineFragment(let droid) = selections[2], case .fragmentSpread(let spread) = selections[3],
              case .inlineFragment(let untyped) = selections[4] else {
            Issue.record("wrong selection kinds")
            return
        }
        #expect(droid.typeCondition == "Droid")
        #expect(droid.directives.first?.arguments.first?.value == .variable("withFriends"))
        #expect(spread.name == "HeroFriends")
        #expect(untyped.typeCondition == nil)
        #expect(untyped.directives.first?.arguments.first?.value == .boolean(false))
        guard case .fragment(let fragment) = document.definitions[1] else {
            Issue.record("not a fragment")
            return
        }
        #expect(fragment.name == "HeroFriends")
        #expect(fragment.typeCondition == "Character")
        #expect(fragment.location == SourceLocation(line: 10, column: 1))
    }

    @Test func shorthandMutationAndSubscription() throws {
        let document = try executable("{ a } mutation M { b(x: null) } subscription { c }")
        #expect(document.definitions.count == 3)
        #expect(operation(document, 0)?.kind == .query)
        #expect(operation(document, 0)?.name == nil)
        #expect(operation(document, 1)?.kind == .mutation)
        #expect(field(operation(document, 1)?.selections.first)?.arguments.first?.value == .null)
        #expect(operation(document, 2)?.kind == .subscription)
    }

    @Test func stringsAndBlockStrings() throws {
        let document = try executable(#"""
        { a(s: "tab\there \"q\" \u00e9 \uD83D\uDE00 \\ \/", b: """
            first
              indented \""" quote

            last
          """, e: "") }
        """#)
        let arguments = try #require(field(operation(document)?.selections.first)?.arguments)
        #expect(arguments[0].value == .string("tab\there \"q\" é 😀 \\ /"))
        #expect(arguments[1].value == .string("first\n  indented \"\"\" quote\n\nlast"))
        #expect(arguments[2].value == .string(""))
        let combining = try executable("{ a(s: \"\"\"\n  \u{301}x\n  y\n\"\"\", t: \"\"\"a\\\"\"\"\u{301}\"\"\") }")
        let values = try #require(field(operation(combining)?.selections.first)?.arguments.map(\.value))
        #expect(values == [.string("\u{301}x\ny"), .string("a\"\"\"\u{301}")])
    }

    @Test func columnsAreCountedOnAlongALongLineAndAfterANewOne() {
        // 1,000 aliased fields with two-byte characters in strings on one line: the
        // error's column counts characters from the line's start, however many tokens before.
        let fields = (0..<1_000).map { "f\($0): a(s: \"é\")" }.joined(separator: " ")
        let line = "{ " + fields + " ?"
        #expect(documentError(line) == "GraphQL error at line 1, column \(line.count): unexpected '?'")
        #expect(documentError(line.replacing(" ?", with: "\n  \"é\" ?")) == "GraphQL error at line 2, column 3: expected a field, '...' or '}', found a string")
    }

    @Test func errorsNameLineAndColumn() {
        #expect(documentError("{ a(x: ) }") == "GraphQL error at line 1, column 8: expected a value, found ')'")
        #expect(documentError("query {\n  a\n") == "GraphQL error at line 3, column 1: expected a field, '...' or '}', found end of input")
        #expect(documentError("{ a { } }") == "GraphQL error at line 1, column 7: expected a field, '...' or '}', found '}'")
        #expect(documentError("query Q($x: Int = $y) { a }") == "GraphQL error at line 1, column 19: a variable is not allowed in a constant value")
        #expect(documentError("{ a(s: \"abc\n\") }") == "GraphQL error at line 1, column 8: unterminated string")
        #expect(documentError("{ a(s: \"\\x\") }") == "GraphQL error at line 1, column 9: invalid escape in a string")
        #expect(documentError("{ a(n: 012) }") == "GraphQL error at line 1, column 9: invalid number: unexpected digit after 0")
        #expect(documentError("{ a(n: 1.) }") == "GraphQL error at line 1, column 10: invalid number: expected a digit, found ')'")
        #expect(documentError("{ a(n: 12abc) }") == "GraphQL error at line 1, column 10: invalid number: unexpected 'a'")
        #expect(documentError("{ a .. }") == "GraphQL error at line 1, column 5: unexpected '.' (did you mean '...'?)")
        #expect(documentError("{ é }") == "GraphQL error at line 1, column 3: unexpected character U+00E9")
        #expect(documentError("fragment on on T { a }") == "GraphQL error at line 1, column 10: expected a fragment name, found 'on'")
        #expect(documentError("") == "GraphQL error at line 1, column 1: expected a definition, found end of input")
        #expect(documentError("type T { a: Int }") == "GraphQL error at line 1, column 1: an executable document may not contain type system definitions")
        #expect(documentError("{ a }}") == "GraphQL error at line 1, column 6: expected a definition, found '}'")
        #expect(schemaError("{ a }") == "GraphQL error at line 1, column 1: a schema may not contain operations or fragments")
        #expect(schemaError("type T {\n  a Int\n}") == "GraphQL error at line 2, column 5: expected ':', found 'Int'")
        #expect(schemaError("extend type T") == "GraphQL error at line 1, column 8: an extension of 'T' must add directives, interfaces, fields, members or values")
        #expect(schemaError("extend schema") == "GraphQL error at line 1, column 14: expected directives or '{', found end of input")
        #expect(schemaError("directive @d on FIELD | NOWHERE") == "GraphQL error at line 1, column 25: unknown directive location 'NOWHERE'")
        #expect(schemaError("enum E { A null }") == "GraphQL error at line 1, column 12: 'null' cannot be an enum value")
        #expect(documentError("# bell \u{7}\n{ a }") == "GraphQL error at line 1, column 8: unexpected character U+0007")
        let invalid: [UInt8] = Array("{\n  a(s: \"".utf8) + [0xC3, 0x28] + Array("\") }".utf8)
        #expect(throws: NormCacheError(.document, "GraphQL error at line 2, column 9: invalid UTF-8")) {
            try GraphQLParser.parseExecutable(invalid)
        }
    }

    @Test func nestingStopsAtTheLimit() throws {
        let deep = String(repeating: "{ a ", count: 256) + String(repeating: "}", count: 256)
        _ = try executable(deep)
        #expect(documentError(String(repeating: "{ a ", count: 257) + String(repeating: "}", count: 257))
            == "GraphQL error at line 1, column 1025: nested deeper than 256 levels")
        #expect(documentError(String(repeating: "{ a ", count: 10_000) + String(repeating: "}", count: 10_000))?.hasSuffix("nested deeper than 256 levels") == true)
        #expect(documentError("{ a(x: " + String(repeating: "[", count: 100_000) + ") }")?.hasSuffix("nested deeper than 256 levels") == true)
        #expect(documentError("query($x: " + String(repeating: "[", count: 100_000) + ") { a }")?.hasSuffix("nested deeper than 256 levels") == true)
    }

    @Test func typeSystemDefinitionsAndExtensions() throws {
        let document = try schema(#"""
        """The schema"""
        schema { query: Root mutation: Mutations }
        "A pet" interface Pet @key(fields: "id") { id: ID! }
        type Dog implements & Pet & Node @typePolicy(keyFields: "id") {
          "the id" id: ID!
          friends(first: Int = 10, after: String): [Dog!]! @deprecated
        }
        union SearchResult = | Dog | Cat
        enum Episode { NEWHOPE "empire" EMPIRE JEDI @deprecated(reason: "no") }
        input ReviewInput { stars: Int! = 5, commentary: String }
        scalar DateTime @specifiedBy(url: "https://example.com")
        directive @typePolicy(keyFields: String!) repeatable on OBJECT | INTERFACE
        extend type Query @fieldPolicy(forField: "dog", keyArgs: "id")
        extend interface Pet @typePolicy(keyFields: "id")
        extend schema @link(url: "x")
        """#)
        #expect(document.definitions.count == 11)
        guard case .schema(let root) = document.definitions[0], case .type(let pet) = document.definitions[1],
              case .type(let dog) = document.definitions[2], case .type(let search) = document.definitions[3],
              case .type(let episode) = document.definitions[4], case .type(let review) = document.definitions[5],
              case .type(let scalar) = document.definitions[6], case .directive(let directive) = document.definitions[7],
              case .type(let query) = document.definitions[8], case .type(let petExtension) = document.definitions[9],
              case .schema(let schemaExtension) = document.definitions[10] else {
            Issue.record("wrong definition kinds")
            return
        }
        #expect(root.operationTypes.map { "\($0.operation):\($0.type)" } == ["query:Root", "mutation:Mutations"])
        #expect(pet.kind == .interface && pet.description == "A pet" && pet.fields.map(\.name) == ["id"])
        #expect(dog.kind == .object && dog.interfaces == ["Pet", "Node"])
        #expect(dog.directives.first?.arguments.first?.value == .string("id"))
        #expect(dog.fields[0].description == "the id")
        #expect(dog.fields[1].arguments.map(\.name) == ["first", "after"])
        #expect(dog.fields[1].arguments[0].defaultValue == .int("10"))
        #expect(dog.fields[1].type == .nonNull(.list(.nonNull(.named("Dog")))))
        #expect(dog.fields[1].type.namedType == "Dog")
        #expect(search.kind == .union && search.unionMembers == ["Dog", "Cat"])
        #expect(episode.enumValues.map(\.name) == ["NEWHOPE", "EMPIRE", "JEDI"])
        #expect(episode.enumValues[1].description == "empire")
        #expect(review.kind == .input && review.fields.map(\.name) == ["stars", "commentary"] && review.fields[0].defaultValue == .int("5"))
        #expect(scalar.kind == .scalar && scalar.name == "DateTime")
        #expect(directive.name == "typePolicy" && directive.isRepeatable && directive.locations == ["OBJECT", "INTERFACE"])
        #expect(query.isExtension && query.kind == .object && query.fields.isEmpty && query.directives.first?.name == "fieldPolicy")
        #expect(petExtension.isExtension && petExtension.kind == .interface)
        #expect(schemaExtension.isExtension && schemaExtension.operationTypes.isEmpty)
    }

    /// The repository's own Star Wars schema (testdata/starwars) and its queries.
    @Test func theStarWarsCorpusParses() throws {
        let directory = TestData.own("starwars")
        let sdl = try GraphQLParser.parseSchema(TestData.read(directory + "/schema.graphql"))
        let types = sdl.definitions.compactMap { definition -> TypeDefinition? in
            if case .type(let type) = definition { return type } else { return nil }
        }
        #expect(types.count == 28)
        #expect(types.contains { $0.name == "Person" && $0.interfaces == ["Node"] })
        #expect(types.contains { $0.name == "Query" && $0.fields.contains { $0.name == "allPeople" } })
        #expect(types.contains { $0.name == "SearchResult" && $0.unionMembers == ["Person", "Planet", "Starship"] })
        let queries = try TestData.files(in: directory).filter { $0.hasPrefix("0") && $0.hasSuffix(".graphql") }
        #expect(queries.count == 7)
        for name in queries {
            let document = try GraphQLParser.parseExecutable(TestData.read(directory + "/" + name))
            #expect(!document.definitions.isEmpty, "\(name)")
        }
    }

    /// The SWAPI schema and its example queries, real material nobody here wrote.
    @Test(TestData.external("swapi")) func swapiParses() throws {
        let directory = TestData.path("swapi")
        let sdl = try GraphQLParser.parseSchema(TestData.read(directory + "/schema.graphql"))
        let types = sdl.definitions.compactMap { definition -> TypeDefinition? in
            if case .type(let type) = definition { return type } else { return nil }
        }
        #expect(types.contains { $0.name == "Person" && $0.interfaces == ["Node"] })
        #expect(types.contains { $0.name == "Root" && $0.fields.contains { $0.name == "allPeople" } })
        for name in try TestData.files(in: directory) where name.hasPrefix("0") {
            let document = try GraphQLParser.parseExecutable(TestData.read(directory + "/" + name))
            #expect(!document.definitions.isEmpty, "\(name)")
        }
    }
}
