import Testing
@testable import NormCache

/// The network document: the operation printed as graphql-js prints it, with
/// `__typename` and the key fields of the type policies added.
@Suite struct NetworkDocumentTests {
    /// A schema with an object policy by extension, an interface policy, interfaces
    /// (with and without the key field) and a union without one, and all three roots.
    static let petsSchema = """
    type Query {
      dog(id: ID!): Dog
      animal: Animal
      node(id: ID!): Node
      search(text: String): [SearchResult]
      pets: [Pet]
    }
    type Mutation { addDog(name: String!): Dog }
    type Subscription { dogAdded: Dog }
    interface Node @typePolicy(keyFields: "id") { id: ID! }
    interface Animal { name: String }
    interface Pet { id: ID! name: String }
    type Dog implements Animal & Pet {
      id: ID!
      name: String
      breed: Breed
      owner: Person
      sound(loud: Boolean): String
    }
    extend type Dog @typePolicy(keyFields: "id")
    type Cat implements Animal & Node & Pet { id: ID! name: String lives: Int }
    type Hamster implements Pet { id: ID! name: String }
    type Person implements Node { id: ID! name: String }
    type Bird { name: String }
    union SearchResult = Dog | Cat | Person | Bird
    enum Breed { BEAGLE POODLE }
    """

    /// The network document of the first operation of `source`.
    func network(_ source: String, schema sdl: String? = nil, defaultKeyFields: [String]? = nil) throws -> String {
        let document = try GraphQLParser.parseExecutable(Array(source.utf8))
        let schema = try sdl.map { (text) throws(NormCacheError) in try Schema(sdl: Array(text.utf8)) }
        var rules = try schema.map { (schema) throws(NormCacheError) in try KeyRules(schema: schema) } ?? KeyRules()
        rules.defaultKeyFields = defaultKeyFields
        return try NetworkDocument.make(document, operation: #require(Self.operation(of: document)), schema: schema, keyRules: rules)
    }

    /// The first operation of a document.
    static func operation(of document: GraphQLDocument) -> OperationDefinition? {
        for case .operation(let operation) in document.definitions { return operation }
        return nil
    }

    /// `text` parsed and printed again with `GraphQLPrinter`, nothing added.
    func reprinted(_ text: String) throws -> String {
        let document = try GraphQLParser.parseExecutable(Array(text.utf8))
        var fragments: [FragmentDefinition] = []
        for case .fragment(let fragment) in document.definitions { fragments.append(fragment) }
        return GraphQLPrinter.print(try #require(Self.operation(of: document)), fragments: fragments)
    }

    @Test func aSimpleQuery() throws {
        #expect(try network("{ hero { name } }") == """
        {
          hero {
            name
            __typename
          }
        }
        """)
    }

    @Test func aliasesAndTypenames() throws {
        #expect(try network("query Aliases { a: hero { n: name, kind: __typename } b: hero { __typename: name } c: hero { __typename id } }") == """
        query Aliases {
          a: hero {
            n: name
            kind: __typename
            __typename
          }
          b: hero {
            __typename: name
          }
          c: hero {
            __typename
            id
          }
        }
        """)
    }

    @Test func argumentsOfEveryKindAndVariables() throws {
        let source = #"""
        query Args($id: ID!, $first: Int = 10 @deprecated, $tags: [String!]! = ["a", "b"], $filter: Filter = {name: "x", n: null}) {
          search(id: $id, int: -1, float: 1.5e3, string: "q\"b\\s\/\n\t\r\b\f\u0001\u007f\u009f\u00a0é😀", block: """
              two "lines"
                indented
          """, yes: true, no: false, nothing: null, enum: JEDI, list: [1, [2, 3], []], object: {a: 1, b: {c: $first}}, empty: {}) {
            id
          }
          short(a: 1, b: "x") @include(if: true)
        }
        """#
        #expect(try network(source) == #"""
        query Args($id: ID!, $first: Int = 10 @deprecated, $tags: [String!]! = ["a", "b"], $filter: Filter = {name: "x", n: null}) {
          search(
            id: $id
            int: -1
            float: 1.5e3
            string: "q\"b\\s/\n\t\r\b\f\u0001\u007F\u009F\#u{A0}é😀"
            block: "two \"lines\"\n  indented"
            yes: true
            no: false
            nothing: null
            enum: JEDI
            list: [1, [2, 3], []]
            object: {a: 1, b: {c: $first}}
            empty: {}
          ) {
            id
            __typename
          }
          short(a: 1, b: "x") @include(if: true)
        }
        """#)
    }

    @Test func argumentsWrapOnlyPastEightyCharacters() throws {
        let eighty = "f(a: \"\(String(repeating: "x", count: 72))\")"
        let eightyOne = "f(a: \"\(String(repeating: "x", count: 73))\")"
        #expect(eighty.utf16.count == 80)
        #expect(try reprinted("{ \(eighty) \(eightyOne) }") == """
        {
          \(eighty)
          f(
            a: "\(String(repeating: "x", count: 73))"
          )
        }
        """)
    }

    @Test func nestedSelectionsFragmentsAndDirectives() throws {
        let source = """
        fragment Friendly on Character { friends(first: 2) @connection(key: "friends") { ...HeroName } }
        query Hero($ep: Episode, $withFriends: Boolean!) @cached(ttl: 60) {
          hero(episode: $ep) {
            ...HeroName @skip(if: false)
            ... on Droid @include(if: $withFriends) { primaryFunction ...Friendly }
            ... @skip(if: false) { id }
            ... { appearsIn }
          }
        }
        fragment Unused on Character { id }
        fragment HeroName on Character @dir { name }
        """
        #expect(try network(source) == """
        query Hero($ep: Episode, $withFriends: Boolean!) @cached(ttl: 60) {
          hero(episode: $ep) {
            ...HeroName @skip(if: false)
            ... on Droid @include(if: $withFriends) {
              primaryFunction
              ...Friendly
              __typename
            }
            ... @skip(if: false) {
              id
              __typename
            }
            ... {
              appearsIn
              __typename
            }
            __typename
          }
        }

        fragment Friendly on Character {
          friends(first: 2) @connection(key: "friends") {
            ...HeroName
            __typename
          }
          __typename
        }

        fragment HeroName on Character @dir {
          name
          __typename
        }
        """)
    }

    @Test func objectAndInterfacePolicies() throws {
        let source = """
        query Pets {
          dog(id: "1") { name breed owner { name } }
          animal { name }
          node(id: "2") { ... on Person { name } }
          pets { name }
        }
        """
        #expect(try network(source, schema: Self.petsSchema) == """
        query Pets {
          dog(id: "1") {
            name
            breed
            owner {
              name
              id
              __typename
            }
            id
            __typename
          }
          animal {
            name
            ... on Cat {
              id
            }
            ... on Dog {
              id
            }
            __typename
          }
          node(id: "2") {
            ... on Person {
              name
              id
              __typename
            }
            id
            __typename
          }
          pets {
            name
            id
            __typename
          }
        }
        """)
    }

    @Test func aUnionGetsTheKeyFieldsOfItsMembers() throws {
        let source = """
        query Search { search(text: "a") { ... on Dog { name } ...BirdFields } }
        fragment BirdFields on Bird { name }
        """
        #expect(try network(source, schema: Self.petsSchema) == """
        query Search {
          search(text: "a") {
            ... on Dog {
              name
              id
              __typename
            }
            ...BirdFields
            ... on Cat {
              id
            }
            ... on Person {
              id
            }
            __typename
          }
        }

        fragment BirdFields on Bird {
          name
          __typename
        }
        """)
    }

    @Test func keyFieldsAlreadySelectedOrTaken() throws {
        let source = """
        query Keys($x: Boolean!) {
          plain: dog(id: "1") { id }
          conditional: dog(id: "2") { id @include(if: $x) }
          taken: dog(id: "3") { id: name }
          takenInFragment: dog(id: "4") { ... on Dog { id: name } }
          leaf: dog(id: "5") { breed { nothing } sound(loud: true) }
        }
        """
        #expect(try network(source, schema: Self.petsSchema) == """
        query Keys($x: Boolean!) {
          plain: dog(id: "1") {
            id
            __typename
          }
          conditional: dog(id: "2") {
            id @include(if: $x)
            id
            __typename
          }
          taken: dog(id: "3") {
            id: name
            __typename
          }
          takenInFragment: dog(id: "4") {
            ... on Dog {
              id: name
              __typename
            }
            __typename
          }
          leaf: dog(id: "5") {
            breed {
              nothing
            }
            sound(loud: true)
            id
            __typename
          }
        }
        """)
    }

    @Test func defaultKeyFieldsOnlyWhereTheTypeHasThem() throws {
        #expect(try network("{ animal { name } search { ... on Bird { name } } }", schema: Self.petsSchema, defaultKeyFields: ["id"]) == """
        {
          animal {
            name
            ... on Cat {
              id
            }
            ... on Dog {
              id
            }
            __typename
          }
          search {
            ... on Bird {
              name
              __typename
            }
            ... on Cat {
              id
            }
            ... on Dog {
              id
            }
            ... on Person {
              id
            }
            __typename
          }
        }
        """)
    }

    @Test func mutationAndSubscriptionRoots() throws {
        #expect(try network("mutation Add($name: String!) { addDog(name: $name) { name } }", schema: Self.petsSchema) == """
        mutation Add($name: String!) {
          addDog(name: $name) {
            name
            id
            __typename
          }
        }
        """)
        #expect(try network("subscription { dogAdded { name } }", schema: Self.petsSchema) == """
        subscription {
          dogAdded {
            name
            id
            __typename
          }
        }
        """)
        #expect(try network("query @live { dog(id: 1) { id } }") == """
        query @live {
          dog(id: 1) {
            id
            __typename
          }
        }
        """)
        #expect(try network("query ($id: ID) { dog(id: $id) { id } }") == """
        query ($id: ID) {
          dog(id: $id) {
            id
            __typename
          }
        }
        """)
    }

    @Test func printingRoundTrips() throws {
        let source = #"""
        query Q($a: [Int!]! = [1], $b: In = {x: "\"", y: [{z: null}]}) @d(s: """block""") {
          x: f(a: $a, e: E, f: -1.0e-3) @include(if: $b) { ... on T @d { g } ...F }
          h { ... @skip(if: true) { i } }
        }
        fragment F on T @d(x: 1) { j(k: {l: [true, false]}) }
        """#
        let once = try reprinted(source)
        #expect(try reprinted(once) == once)
        let sent = try network(source)
        #expect(try reprinted(sent) == sent)
    }

    /// The network documents of the repository's own Star Wars queries (testdata/starwars),
    /// with every Node keyed by its id: each prints again as itself, and the one with
    /// inline fragments on an interface and a union gets the key fields of every keyed type.
    @Test func starWarsExamples() throws {
        let directory = TestData.own("starwars")
        let schema = try TestData.text(directory + "/schema.graphql") + "\nextend interface Node @typePolicy(keyFields: \"id\")\n"
        let examples = try TestData.files(in: directory).filter { $0.hasPrefix("0") && $0.hasSuffix(".graphql") }
        #expect(examples.count == 7)
        var sent: [String: String] = [:]
        for name in examples {
            let text = try network(TestData.text(directory + "/" + name), schema: schema)
            #expect(try reprinted(text) == text, "\(name)")
            sent[name] = text
        }
        #expect(sent["06_variables.graphql"]?.hasPrefix(
            "query StarshipPage($first: Int = 2, $after: String, $unit: LengthUnit = FOOT, $withPilots: Boolean!) {\n") == true)
        #expect(sent["06_variables.graphql"]?.contains("        pilotConnection @include(if: $withPilots) {\n") == true)
        #expect(sent["05_fragments.graphql"] == """
        {
          allFilms(first: 2) {
            edges {
              node {
                ...filmFacts
                characterConnection(first: 3) {
                  characters {
                    ...personFacts
                    id
                    __typename
                  }
                  __typename
                }
                id
                __typename
              }
              __typename
            }
            __typename
          }
          node(id: "cGVvcGxlOjQ=") {
            id
            ... on Person {
              ...personFacts
              id
              __typename
            }
            ... on Planet {
              name
              id
              __typename
            }
            __typename
          }
          search(text: "ar") {
            ... on Node {
              id
              __typename
            }
            ...personFacts
            ... {
              ... on Starship {
                name
                model
                id
                __typename
              }
              ... on Person {
                id
              }
              ... on Planet {
                id
              }
              __typename
            }
            ... on Planet {
              id
            }
            ... on Starship {
              id
            }
            __typename
          }
        }

        fragment filmFacts on Film {
          title
          episodeID
          director
          producers
          id
          __typename
        }

        fragment personFacts on Person {
          name
          homeworld {
            ...planetFacts
            id
            __typename
          }
          id
          __typename
        }

        fragment planetFacts on Planet {
          name
          climates
          id
          __typename
        }
        """)
    }

    @Test(TestData.external("swapi")) func swapiExamples() throws {
        let swapi = try TestData.read(TestData.path("swapi/schema.graphql"))
        let withNodePolicy = String(decoding: swapi, as: UTF8.self) + "\nextend interface Node @typePolicy(keyFields: \"id\")\n"
        let directory = TestData.path("swapi")
        let examples = try TestData.files(in: directory).filter { $0.hasSuffix(".graphql") && $0 != "schema.graphql" }
        #expect(examples.count == 8)
        var sent: [String: String] = [:]
        for name in examples {
            let source = String(decoding: try TestData.read(directory + "/" + name), as: UTF8.self)
            let text = try network(source, schema: withNodePolicy)
            #expect(try reprinted(text) == text, "\(name)")
            sent[name] = text
        }
        #expect(sent["01_basic_query.graphql"] == """
        {
          person(personID: 4) {
            name
            id
            __typename
          }
        }
        """)
        #expect(sent["07_fragments.graphql"] == """
        {
          allStarships(first: 7) {
            edges {
              node {
                ...starshipFragment
                id
                __typename
              }
              __typename
            }
            __typename
          }
        }

        fragment starshipFragment on Starship {
          id
          name
          model
          costInCredits
          pilotConnection {
            edges {
              node {
                ...pilotFragment
                id
                __typename
              }
              __typename
            }
            __typename
          }
          __typename
        }

        fragment pilotFragment on Person {
          name
          homeworld {
            name
            id
            __typename
          }
          id
          __typename
        }
        """)
        #expect(sent["08_introspection.graphql"] == """
        {
          __type(name: "Person") {
            name
            fields {
              name
              description
              type {
                name
                __typename
              }
              __typename
            }
            __typename
          }
        }
        """)
        let plain = String(decoding: swapi, as: UTF8.self)
        let source = String(decoding: try TestData.read(directory + "/03_nested_fields.graphql"), as: UTF8.self)
        #expect(try network(source, schema: plain) == """
        {
          person(personID: 4) {
            name
            gender
            homeworld {
              name
              __typename
            }
            starshipConnection {
              edges {
                node {
                  id
                  manufacturers
                  __typename
                }
                __typename
              }
              __typename
            }
            __typename
          }
        }
        """)
    }

    @Test func aResponseKeyTakenAtTheEndOfAChainOfFragmentsIsNotAddedAlongIt() throws {
        // F2 selects `name` under the response key __typename: no set that reaches F2
        // gets __typename, and F0's own set, which reaches it, neither.
        let text = """
        { dog(id: 1) { ...F0 } animal { ...F1 } }
        fragment F0 on Dog { id ...F1 }
        fragment F1 on Animal { ...F2 }
        fragment F2 on Animal { __typename: name }
        """
        #expect(try network(text) == """
        {
          dog(id: 1) {
            ...F0
          }
          animal {
            ...F1
          }
        }

        fragment F0 on Dog {
          id
          ...F1
        }

        fragment F1 on Animal {
          ...F2
        }

        fragment F2 on Animal {
          __typename: name
        }
        """)
    }
}
