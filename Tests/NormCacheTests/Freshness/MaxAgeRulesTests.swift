import TestSupport
import Testing
@testable import NormCache

/// Max-age rules: how a field's max age is resolved along a path (Apollo Kotlin's
/// `SchemaCoordinatesMaxAgeProvider`), the SDL directives that declare rules, and the
/// `maxAges` / `defaultMaxAge` members of `configure`.
@Suite struct MaxAgeRulesTests {
    // MARK: Resolving

    /// Apollo Server's documented example of max-age calculations.
    static let library = """
        type Query {
          book: Book
          cachedBook: Book @cacheControl(maxAge: 60)
          reader: Reader @cacheControl(maxAge: 40)
          author: Author
          products: [Product]
          product: Product
          node: Node
          currentUserId: ID
        }
        type Book { title: String cachedTitle: String @cacheControl(maxAge: 30) author: Author }
        type Reader { book: Book @cacheControl(inheritMaxAge: true) }
        type Author @cacheControl(inheritMaxAge: true) { name: String }
        interface Node { id: ID! name: String }
        type Product implements Node { id: ID! name: String colors: [Color] }
        type Color { name: String }
        """

    /// The resolved max age of the last field of `path` ("reader.book.title"), walking
    /// from the query root through `rule` and `resolve` as a read does. A segment
    /// `id@Product` is field `id` of an object whose concrete type is `Product`.
    func age(_ path: String, _ rules: MaxAgeRules, _ schema: Schema) -> UInt32 {
        var parentType = "Query"
        var maxAge = rules.rootMaxAge
        for (depth, segment) in path.split(separator: ".").enumerated() {
            let parts = segment.split(separator: "@").map(String.init)
            let name = parts[0]
            let fieldType = schema.field(name, on: parentType)?.type.namedType ?? "?"
            let rule = rules.rule(field: name, parentTypes: Array(parts.dropFirst()) + [parentType], fieldType: fieldType,
                                  isComposite: !schema.isLeaf(fieldType), isRootField: depth == 0, schema: schema)
            maxAge = rules.resolve(rule, parent: maxAge, isRootField: depth == 0)
            parentType = fieldType
        }
        return maxAge
    }

    func rules(_ sdl: String, _ json: String? = nil) throws -> (MaxAgeRules, Schema) {
        let schema = try Schema(sdl: Array(sdl.utf8))
        var rules = try MaxAgeRules(schema: schema)
        if let json {
            try json.withUTF8Bytes { (bytes) throws(NormCacheError) in
                try rules.configure(document: JSONDocument(scanning: bytes), schema: schema)
            }
        }
        return (rules, schema)
    }

    @Test func apolloServerExample() throws {
        let (rules, schema) = try rules(Self.library, #"{"defaultMaxAge": 0}"#)
        // The root field gets the default (0), which caps the field below it.
        #expect(age("book.cachedTitle", rules, schema) == 0)
        // A leaf without a rule inherits its parent's.
        #expect(age("cachedBook.title", rules, schema) == 60)
        // A field's own rule, capped by its parent's.
        #expect(age("cachedBook.cachedTitle", rules, schema) == 30)
        // inheritMaxAge on a field, then a leaf inheriting in turn.
        #expect(age("reader.book.title", rules, schema) == 40)
        #expect(age("reader.book", rules, schema) == 40)
        // A root field's own rule is not capped by the root's (the default).
        #expect(age("cachedBook", rules, schema) == 60)
    }

    @Test func typeRulesInheritanceAndInterfaces() throws {
        let sdl = Self.library + "\nextend type Product @cacheControl(maxAge: 60)\nextend interface Node @cacheControl(maxAge: 30)"
        let (rules, schema) = try rules(sdl, #"{"defaultMaxAge": 12}"#)
        // The field's type's own rule comes before the rules of its interfaces.
        #expect(age("product.id", rules, schema) == 60)
        #expect(age("products.id", rules, schema) == 60)
        // A field of interface type takes the interface's rule.
        #expect(age("node.id", rules, schema) == 30)
        // A composite field without a rule gets the default, capped by its parent.
        #expect(age("products.colors", rules, schema) == 12)
        #expect(age("products.colors.name", rules, schema) == 12)
        // inheritMaxAge on a type: a field of type Author takes its parent field's.
        #expect(age("cachedBook.author", rules, schema) == 60)
        #expect(age("cachedBook.author.name", rules, schema) == 60)
        // ... and for a root field, the root's: the default.
        #expect(age("author", rules, schema) == 12)
    }

    /// `sdl` without its `@cacheControl` directives.
    static func withoutCacheControl(_ sdl: String) -> String {
        var text = sdl
        while let start = text.firstRange(of: " @cacheControl("), let end = text[start.upperBound...].firstIndex(of: ")") {
            text.removeSubrange(start.lowerBound...end)
        }
        return text
    }

    @Test func fallbackWithoutRules() throws {
        let (rules, schema) = try rules(Self.withoutCacheControl(Self.library), #"{"defaultMaxAge": 12}"#)
        #expect(age("currentUserId", rules, schema) == 12)
        #expect(age("products", rules, schema) == 12)
        #expect(age("products.id", rules, schema) == 12)
        // No rule and no default: nothing expires.
        let (none, _) = try self.rules(Self.withoutCacheControl(Self.library))
        #expect(none.isEmpty)
        for path in ["currentUserId", "products.colors.name", "reader.book.title"] {
            #expect(age(path, none, schema) == MaxAgeRules.forever)
        }
        // Rules without a default: fields outside every rule never expire.
        let (some, _) = try self.rules(Self.library)
        #expect(!some.isEmpty)
        #expect(age("book.title", some, schema) == MaxAgeRules.forever)
        #expect(age("book.cachedTitle", some, schema) == 30)
        #expect(age("cachedBook.title", some, schema) == 60)
    }

    @Test func fieldRulesOnInterfacesBreadthFirst() throws {
        let sdl = """
            type Query { thing: Thing item: Item }
            interface Base { code: String label: String }
            interface Item implements Base { code: String label: String }
            interface Labelled { label: String }
            type Thing implements Item & Labelled & Base { code: String label: String }
            extend interface Base @cacheControlField(name: "code", maxAge: 7) @cacheControlField(name: "label", maxAge: 9)
            extend interface Labelled @cacheControlField(name: "label", maxAge: 5)
            """
        let (rules, schema) = try rules(sdl)
        #expect(schema.interfacesBreadthFirst(of: "Thing") == ["Item", "Labelled", "Base"])
        // Thing.code: not on Thing, Item or Labelled; found on Base.
        #expect(age("thing.code", rules, schema) == 7)
        // Thing.label: Labelled (first level) before Base (second level, through Item).
        #expect(age("thing.label", rules, schema) == 5)
        // Without a schema, interfaces are not known: no rule applies.
        let rule = rules.rule(field: "label", parentTypes: ["Thing"], fieldType: "String", isComposite: false, isRootField: false, schema: nil)
        #expect(rule == .inheritParent)
        #expect(rules.rule(field: "label", parentTypes: ["Thing", "Labelled"], fieldType: "String", isComposite: false,
                           isRootField: false, schema: nil) == .seconds(5))
    }

    @Test func theConcreteTypeComesBeforeTheDeclaredType() throws {
        let sdl = Self.library + "\nextend interface Node @cacheControlField(name: \"name\", maxAge: 50)\nextend type Product @cacheControlField(name: \"name\", maxAge: 10)"
        let (rules, schema) = try rules(sdl)
        // Declared only: the interface's rule.
        #expect(age("node.name", rules, schema) == 50)
        // The concrete type known: its own rule first.
        #expect(age("node.name@Product", rules, schema) == 10)
        // A concrete type without a rule of its own: its interfaces, then the declared type.
        #expect(rules.rule(field: "name", parentTypes: ["Gadget", "Node"], fieldType: "String", isComposite: false,
                           isRootField: false, schema: schema) == .seconds(50))
    }

    @Test func rulesAndResolution() {
        var rules = MaxAgeRules()
        rules.coordinates = ["Query.feed": .seconds(60), "Article": .seconds(1800), "Article.reader": .inherit, "Reader": .inherit]
        func rule(_ field: String, on parent: String, _ type: String?, composite: Bool = false, root: Bool = false) -> FieldMaxAgeRule {
            rules.rule(field: field, parentTypes: [parent], fieldType: type, isComposite: composite, isRootField: root, schema: nil)
        }
        #expect(rule("feed", on: "Query", "Article", composite: true, root: true) == .seconds(60))
        #expect(rule("article", on: "Query", "Article", composite: true, root: true) == .seconds(1800))
        #expect(rule("reader", on: "Article", "Reader", composite: true) == .inheritParent)
        #expect(rule("viewer", on: "Query", "Viewer", composite: true, root: true) == .defaultMaxAge)
        #expect(rule("viewer", on: "Query", nil, composite: true) == .defaultMaxAge)
        #expect(rule("title", on: "Article", "String") == .inheritParent)
        #expect(rule("owner", on: "Blog", "Reader", composite: true) == .inheritParent)
        // resolve: own seconds capped by the parent's, except for root fields.
        #expect(rules.resolve(.seconds(60), parent: 30, isRootField: false) == 30)
        #expect(rules.resolve(.seconds(60), parent: 30, isRootField: true) == 60)
        #expect(rules.resolve(.seconds(20), parent: MaxAgeRules.forever, isRootField: false) == 20)
        #expect(rules.resolve(.inheritParent, parent: 30, isRootField: false) == 30)
        #expect(rules.resolve(.defaultMaxAge, parent: 30, isRootField: false) == 30)
        #expect(rules.resolve(.defaultMaxAge, parent: rules.rootMaxAge, isRootField: true) == MaxAgeRules.forever)
        rules.defaultMaxAge = 10
        #expect(rules.rootMaxAge == 10)
        #expect(rules.resolve(.defaultMaxAge, parent: 30, isRootField: false) == 10)
        #expect(rules.resolve(.defaultMaxAge, parent: 5, isRootField: false) == 5)
        #expect(rules.resolve(.seconds(0), parent: 5, isRootField: false) == 0)
    }

    // MARK: SDL

    @Test func directivesOfTheSchema() throws {
        let sdl = """
            extend schema @link(url: "https://specs.apollo.dev/cache/v0.4", import: ["@cacheControl", "@cacheControlField"])
            enum CacheControlScope { PUBLIC PRIVATE }
            directive @cacheControl(maxAge: Int, inheritMaxAge: Boolean, scope: CacheControlScope) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
            directive @cacheControlField(name: String!, maxAge: Int, inheritMaxAge: Boolean, scope: CacheControlScope) repeatable on OBJECT | INTERFACE
            schema { query: Query }
            type Query { feed: [Article] @cacheControl(maxAge: 60, scope: PUBLIC) me: User @cacheControl(scope: PRIVATE) search: [Result] }
            type Article @cacheControl(maxAge: 1800) { id: ID! title: String reader: Reader @cacheControl(inheritMaxAge: true) }
            type Reader @cacheControl { name: String @cacheControl(inheritMaxAge: false) }
            type User @cacheControl(maxAge: null, inheritMaxAge: null) { id: ID! name: String }
            union Result @cacheControl(maxAge: 0) = Article | User
            interface Node @cacheControl(maxAge: 10) { id: ID! }
            extend type User @cacheControlField(name: "name", maxAge: 20) @cacheControlField(name: "id", inheritMaxAge: true)
            extend type Article @cacheControlField(name: "title", maxAge: 5) @cacheControlField(name: "title", maxAge: 6)
            extend type Article @cacheControlField(name: "reader", maxAge: 7)
            """
        let (rules, _) = try rules(sdl)
        #expect(rules.coordinates == [
            "Query.feed": .seconds(60), "Article": .seconds(1800), "Article.reader": .inherit, "Result": .seconds(0),
            "Node": .seconds(10), "User.name": .seconds(20), "User.id": .inherit,
            // Of several @cacheControlField naming one field the last wins; a field's own
            // @cacheControl wins over them (Article.reader above).
            "Article.title": .seconds(6),
        ])
        #expect(rules.defaultMaxAge == nil)
        // A schema without the directives has no rules.
        #expect(try self.rules("type Query { a: Int }").0.isEmpty)
    }

    @Test func directiveErrorsSayWhatAndWhere() {
        func error(_ sdl: String) -> String? {
            do throws(NormCacheError) {
                _ = try MaxAgeRules(schema: Schema(sdl: Array(sdl.utf8)))
                return nil
            } catch {
                return error.code == .schema ? error.message : "wrong code: \(error.message)"
            }
        }
        let cases: [(String, String)] = [
            ("type Query { a: Int @cacheControl(maxAge: -1) }",
             "GraphQL error at line 1, column 21: maxAge of @cacheControl on 'Query.a' must be an integer from 0 to 2147483647, not -1"),
            ("type Query { a: Int @cacheControl(maxAge: 2147483648) }",
             "GraphQL error at line 1, column 21: maxAge of @cacheControl on 'Query.a' must be an integer from 0 to 2147483647, not 2147483648"),
            ("type Query { a: Int @cacheControl(maxAge: 1.5) }",
             "GraphQL error at line 1, column 21: maxAge of @cacheControl on 'Query.a' must be an integer from 0 to 2147483647, not 1.5"),
            ("type Query @cacheControl(maxAge: \"60\") { a: Int }",
             "GraphQL error at line 1, column 12: maxAge of @cacheControl on 'Query' must be an integer from 0 to 2147483647, not \"60\""),
            ("type Query { a: Int @cacheControl(maxAge: 60, inheritMaxAge: true) }",
             "GraphQL error at line 1, column 21: @cacheControl on 'Query.a' has both maxAge and inheritMaxAge: true (give one)"),
            ("type Query { a: Int @cacheControl(inheritMaxAge: \"yes\") }",
             "GraphQL error at line 1, column 21: inheritMaxAge of @cacheControl on 'Query.a' must be true or false, not \"yes\""),
            ("type Query { a: Int @cacheControl(maxage: 60) }",
             "GraphQL error at line 1, column 21: @cacheControl on 'Query.a' has an unknown argument 'maxage' (known: maxAge, inheritMaxAge, scope)"),
            ("type Query { a: Int }\nextend type Query @cacheControlField(maxAge: 60)",
             "GraphQL error at line 2, column 19: @cacheControlField on 'Query' needs a string argument 'name'"),
            ("type Query { a: Int }\nextend type Query @cacheControlField(name: 5, maxAge: 60)",
             "GraphQL error at line 2, column 19: @cacheControlField on 'Query' needs a string argument 'name'"),
            ("type Publisher { id: ID name: String }\ntype Query { p: Publisher }\nextend type Publisher @cacheControlField(name: \"nmae\", maxAge: 20)",
             "GraphQL error at line 3, column 23: @cacheControlField on 'Publisher' names 'nmae', which is not a field of 'Publisher' (did you mean 'name'?)"),
            ("type Query { a: Int }\nextend type Query @cacheControlField(name: \"title\", maxAge: 20)",
             "GraphQL error at line 2, column 19: @cacheControlField on 'Query' names 'title', which is not a field of 'Query'"),
            ("type Query { a: Int }\nextend type Query @cacheControlField(name: \"a\", maxAge: -4)",
             "GraphQL error at line 2, column 19: maxAge of @cacheControlField on 'Query' must be an integer from 0 to 2147483647, not -4"),
            ("type Query { a: Int }\nextend type Query @cacheControlField(name: \"a\", maxAge: 20, inheritMaxAge: true)",
             "GraphQL error at line 2, column 19: @cacheControlField on 'Query' has both maxAge and inheritMaxAge: true (give one)"),
            ("type Query { a: Int }\nextend type Query @cacheControlField(name: \"a\", max: 20)",
             "GraphQL error at line 2, column 19: @cacheControlField on 'Query' has an unknown argument 'max' (known: name, maxAge, inheritMaxAge, scope)"),
            ("type Query { a: Int }\nscalar Date @cacheControl(maxAge: 5)",
             "GraphQL error at line 2, column 13: @cacheControl may not be used on scalar 'Date'"),
            ("type Query { a(f: Filter): Int }\ninput Filter { x: Int @cacheControl(maxAge: 5) }",
             "GraphQL error at line 2, column 23: @cacheControl may not be used on a field of input object 'Filter'"),
            ("type Query { a: Int }\nunion U @cacheControlField(name: \"a\", maxAge: 5) = Query",
             "GraphQL error at line 2, column 9: @cacheControlField may not be used on union 'U'"),
            ("type Query @cacheControl(maxAge: 5) { a: Int }\nextend type Query @cacheControl(maxAge: 6)",
             "GraphQL error at line 2, column 19: @cacheControl is given more than once on 'Query' (first at line 1, column 12)"),
            ("type Query { a: Int @cacheControl(maxAge: 5) @cacheControl(maxAge: 6) }",
             "GraphQL error at line 1, column 46: @cacheControl is given more than once on 'Query.a' (first at line 1, column 21)"),
        ]
        for (sdl, message) in cases {
            #expect(error(sdl) == message)
        }
    }

    // MARK: Configuration

    static let sdl = """
        type Query { feed: [Article] article(id: ID!): Article node: Node search: [Result] }
        interface Node { id: ID! }
        type Article implements Node @cacheControl(maxAge: 100) { id: ID! title: String reader: Reader }
        type Reader { book: Article }
        union Result = Article
        input Filter { text: String }
        scalar Date
        """

    @Test func configurationJSON() throws {
        var rules = MaxAgeRules()
        try configure(&rules, #"{"maxAges": {"Article": 1800, "Query.feed": 60, "Reader.book": "inherit", "Zero": 0, "Most": 2147483647}, "defaultMaxAge": 3600}"#)
        #expect(rules.coordinates == ["Article": .seconds(1800), "Query.feed": .seconds(60), "Reader.book": .inherit,
                                      "Zero": .seconds(0), "Most": .seconds(2_147_483_647)])
        #expect(rules.defaultMaxAge == 3600)
        // Later configurations replace rules of the same name and the default; null: never.
        try configure(&rules, #"{"maxAges": {"Article": "inherit"}, "defaultMaxAge": null}"#)
        #expect(rules.coordinates["Article"] == .inherit)
        #expect(rules.coordinates["Query.feed"] == .seconds(60))
        #expect(rules.defaultMaxAge == nil)
        // The key rules' members are left to the key rules.
        try configure(&rules, #"{"typePolicies": {"Article": {"keyFields": ["id"]}}}"#)
        #expect(rules.coordinates.count == 5)
    }

    func configure(_ rules: inout MaxAgeRules, _ json: String, schema: Schema? = nil) throws(NormCacheError) {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in
            try rules.configure(document: JSONDocument(scanning: bytes), schema: schema)
        }
    }

    @Test func invalidValuesAreRefusedAtTheirOffset() {
        let bad: [(String, String)] = [
            (#"{"maxAges": {"A": -1}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": 1.5}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": 1e3}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": 2147483648}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": 99999999999999999999}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": "forever"}}"#, "configuration error at byte 19: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": true}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": null}}"#, "configuration error at byte 18: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": {"A": "60"}}"#, "configuration error at byte 19: maxAges.A must be an integer from 0 to 2147483647 or \"inherit\""),
            (#"{"maxAges": [60]}"#, "configuration error at byte 12: maxAges must be a JSON object"),
            (#"{"maxAges": {"A.b.c": 60}}"#, "configuration error at byte 22: max age 'A.b.c' must be named 'Type' or 'Type.field'"),
            (#"{"maxAges": {"A.": 60}}"#, "configuration error at byte 19: max age 'A.' must be named 'Type' or 'Type.field'"),
            (#"{"maxAges": {"": 60}}"#, "configuration error at byte 17: max age '' must be named 'Type' or 'Type.field'"),
            (#"{"defaultMaxAge": -5}"#, "configuration error at byte 18: defaultMaxAge must be an integer from 0 to 2147483647 or null"),
            (#"{"defaultMaxAge": "inherit"}"#, "configuration error at byte 19: defaultMaxAge must be an integer from 0 to 2147483647 or null"),
            (#"{"defaultMaxAge": 60.0}"#, "configuration error at byte 18: defaultMaxAge must be an integer from 0 to 2147483647 or null"),
        ]
        for (json, message) in bad {
            var rules = MaxAgeRules()
            #expect(throws: NormCacheError(.invalidArgument, message)) { try configure(&rules, json) }
        }
    }

    /// Each configuration with the exact `.schema` error it gets against `sdl`.
    static let unknownNames: [(json: String, message: String)] = [
        (#"{"maxAges": {"Articel": 60}}"#,
         "configuration error at byte 24: maxAges names type 'Articel', which the schema lacks (did you mean 'Article'?)"),
        (#"{"maxAges": {"Qurey.feed": 60}}"#,
         "configuration error at byte 27: maxAges names type 'Qurey', which the schema lacks (did you mean 'Query'?)"),
        (#"{"maxAges": {"Query.fede": 60}}"#,
         "configuration error at byte 27: maxAges.Query.fede names no field of 'Query' (did you mean 'feed'?)"),
        (#"{"maxAges": {"Query.viewer": "inherit"}}"#,
         "configuration error at byte 30: maxAges.Query.viewer names no field of 'Query'"),
        (#"{"maxAges": {"Date": 60}}"#,
         "configuration error at byte 21: maxAges.Date names scalar 'Date', which is not an object, interface or union type"),
        (#"{"maxAges": {"Filter.text": 60}}"#,
         "configuration error at byte 28: maxAges.Filter.text names input object 'Filter', which is not an object or interface type"),
        (#"{"maxAges": {"Result.id": 60}}"#,
         "configuration error at byte 26: maxAges.Result.id names union 'Result', which is not an object or interface type"),
    ]

    @Test func namesAreCheckedAgainstTheSchema() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.sdl)
        for (json, message) in Self.unknownNames {
            #expect(throws: NormCacheError(.schema, message)) { try test.cache.configure(json) }
        }
        // Nothing of the refused configurations was kept; names the schema has are accepted.
        #expect(test.cache.rules.current.maxAgeRules.coordinates == ["Article": .seconds(100)])
        try test.cache.configure(#"{"maxAges": {"Node": 5, "Result": 6, "Node.id": 7, "Reader.book": "inherit", "Query.feed": 8}}"#)
        #expect(test.cache.rules.current.maxAgeRules.coordinates.count == 6)
    }

    @Test func withoutASchemaTheCheckWaitsForOne() throws {
        for (json, message) in Self.unknownNames {
            let test = try TestCache()
            try test.cache.configure(json)
            #expect(throws: NormCacheError(.schema, "the max-age rules configured before the schema do not fit it: " + message)) {
                try test.cache.loadSchema(Self.sdl)
            }
            // The schema was not loaded: an unknown field still prepares.
            _ = try test.cache.prepare("{ anything }")
            #expect(test.cache.rules.current.schema == nil)
        }
    }

    @Test func configuredRulesAreReplayedOverTheSchemaAndReplaceItsOwn() throws {
        let json = #"{"maxAges": {"Article": 5, "Query.feed": 60}, "defaultMaxAge": 3600, "typePolicies": {"Article": {"keyFields": "id"}}}"#
        let before = try TestCache()
        try before.cache.configure(json)
        #expect(before.cache.rules.current.maxAgeRules.coordinates == ["Article": .seconds(5), "Query.feed": .seconds(60)])
        try before.cache.loadSchema(Self.sdl)
        let after = try TestCache()
        try after.cache.loadSchema(Self.sdl)
        #expect(after.cache.rules.current.maxAgeRules.coordinates == ["Article": .seconds(100)])
        try after.cache.configure(json)
        for test in [before, after] {
            let (_, keyRules, maxAgeRules) = test.cache.rules.current
            #expect(maxAgeRules.coordinates == ["Article": .seconds(5), "Query.feed": .seconds(60)])
            #expect(maxAgeRules.defaultMaxAge == 3600)
            #expect(keyRules.typePolicies["Article"]?.keyFields == ["id"])
            // Loading a schema again replays the configuration over its directives again.
            try test.cache.loadSchema(Self.sdl.replacing("maxAge: 100", with: "maxAge: 200") + "\nextend type Reader @cacheControl(maxAge: 9)")
            #expect(test.cache.rules.current.maxAgeRules.coordinates == ["Article": .seconds(5), "Query.feed": .seconds(60), "Reader": .seconds(9)])
            #expect(test.cache.rules.current.maxAgeRules.defaultMaxAge == 3600)
        }
    }

    @Test func aRefusedConfigurationChangesNothing() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"maxAges": {"Article": 5}, "defaultMaxAge": 10}"#)
        // A bad max age after good key rules: neither is kept.
        #expect(throws: NormCacheError(.invalidArgument, "configuration error at byte 73: maxAges.Reader must be an integer from 0 to 2147483647 or \"inherit\"")) {
            try test.cache.configure(#"{"typePolicies": {"Article": {"keyFields": "id"}}, "maxAges": {"Reader": -1}}"#)
        }
        let (_, keyRules, maxAgeRules) = test.cache.rules.current
        #expect(keyRules.typePolicies.isEmpty)
        #expect(maxAgeRules.coordinates == ["Article": .seconds(5)])
        #expect(maxAgeRules.defaultMaxAge == 10)
        // The known members of the configuration include the max-age rules'.
        #expect(throws: NormCacheError(.invalidArgument, "configuration error at byte 11: unknown configuration member 'maxAge' (known: typePolicies, fieldPolicies, possibleTypes, defaultKeyFields, storeMutationRoot, documents, maxAges, defaultMaxAge)")) {
            try test.cache.configure(#"{"maxAge": {"Article": 5}}"#)
        }
    }
}
