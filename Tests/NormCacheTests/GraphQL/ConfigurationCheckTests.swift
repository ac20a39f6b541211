import TestSupport
import Testing
@testable import NormCache

/// Configuration JSON checked against the schema, as the SDL directives are: at
/// `configure` when a schema is loaded, at `loadSchema` for what was configured before.
@Suite struct ConfigurationCheckTests {
    static let sdl = """
        type Query { article(id: ID!): Article articles(ids: [ID!]): [Article] node: Node }
        interface Node { id: ID! }
        type Article implements Node { id: ID! title: String }
        union Result = Article
        """

    /// Each configuration with the exact `.schema` error it gets against `sdl`.
    static let bad: [(json: String, message: String)] = [
        (#"{"typePolicies": {"Articel": {"keyFields": ["id"]}}}"#,
         "configuration error at byte 29: typePolicies names type 'Articel', which the schema lacks (did you mean 'Article'?)"),
        (#"{"typePolicies": {"article": {"keyFields": ["id"]}}}"#,
         "configuration error at byte 29: typePolicies names type 'article', which the schema lacks (did you mean 'Article'?)"),
        (#"{"typePolicies": {"Blog": {"keyFields": ["id"]}}}"#,
         "configuration error at byte 26: typePolicies names type 'Blog', which the schema lacks"),
        (#"{"typePolicies": {"Article": {"keyFields": ["uuid"]}}}"#,
         "configuration error at byte 43: key field 'uuid' of typePolicies.Article is not a field of 'Article' (did you mean 'id'?)"),
        (#"{"typePolicies": {"Article": {"keyFields": "id slug"}}}"#,
         "configuration error at byte 44: key field 'slug' of typePolicies.Article is not a field of 'Article'"),
        (#"{"fieldPolicies": {"Qurey.article": {"keyArgs": ["id"]}}}"#,
         "configuration error at byte 36: fieldPolicies names type 'Qurey', which the schema lacks (did you mean 'Query'?)"),
        (#"{"fieldPolicies": {"Query.artcle": {"keyArgs": ["id"]}}}"#,
         "configuration error at byte 35: fieldPolicies.Query.artcle names no field of 'Query' (did you mean 'article'?)"),
        (#"{"fieldPolicies": {"Query.article": {"keyArgs": ["slug"]}}}"#,
         "configuration error at byte 48: key argument 'slug' of fieldPolicies.Query.article is not an argument of 'Query.article'"),
        (#"{"possibleTypes": {"Nod": ["Article"]}}"#,
         "configuration error at byte 26: possibleTypes names type 'Nod', which the schema lacks (did you mean 'Node'?)"),
        (#"{"possibleTypes": {"Node": ["Articles"]}}"#,
         "configuration error at byte 27: possibleTypes.Node names type 'Articles', which the schema lacks (did you mean 'Article'?)"),
    ]

    @Test func configureAfterTheSchemaRefusesNamesItLacks() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.sdl)
        for (json, message) in Self.bad {
            #expect(throws: NormCacheError(.schema, message)) { try test.cache.configure(json) }
        }
        // Nothing of the refused configurations was kept: Article has no key.
        let op = try test.cache.prepare("{ article(id: 1) { id } }")
        #expect(try test.cache.normalize(op, #"{"data": {"article": {"__typename": "Article", "id": "1"}}}"#)
            == #"{"QUERY_ROOT.article(id:1)":{"id":"1","__typename":"Article"},"QUERY_ROOT":{"article(id:1)":{"$reference":"QUERY_ROOT.article(id:1)"}}}"#)
    }

    @Test func theSchemaLoadedAfterConfigureIsCheckedAgainstIt() throws {
        for (json, message) in Self.bad {
            let test = try TestCache()
            try test.cache.configure(json)
            #expect(throws: NormCacheError(.schema, "the key rules configured before the schema do not fit it: " + message)) {
                try test.cache.loadSchema(Self.sdl)
            }
            // The schema was not loaded: an unknown field still prepares.
            _ = try test.cache.prepare("{ anything }")
        }
    }

    @Test func namesTheSchemaHasAreAcceptedInEitherOrder() throws {
        let json = #"""
            {"typePolicies": {"Article": {"keyFields": ["id"]}, "Node": {"keyFields": "id"}, "Result": {"keyFields": ["id"]}},
             "fieldPolicies": {"Query.article": {"keyArgs": ["id"]}, "Query.articles": {"keyArgs": "ids"}},
             "possibleTypes": {"Node": ["Article"]}, "defaultKeyFields": ["id"], "storeMutationRoot": true}
            """#
        let before = try TestCache()
        try before.cache.configure(json)
        try before.cache.loadSchema(Self.sdl)
        let after = try TestCache()
        try after.cache.loadSchema(Self.sdl)
        try after.cache.configure(json)
        for test in [before, after] {
            let op = try test.cache.prepare("{ article(id: 1) { title } }")
            #expect(try test.cache.normalize(op, #"{"data": {"article": {"__typename": "Article", "id": "1", "title": "T"}}}"#)
                == #"{"Article:1":{"title":"T","id":"1","__typename":"Article"},"QUERY_ROOT":{"article(id:1)":{"$reference":"Article:1"}}}"#)
        }
    }

    @Test func withoutASchemaNothingIsChecked() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"typePolicies": {"Articel": {"keyFields": ["uuid"]}}, "fieldPolicies": {"Qurey.x": {"keyArgs": "y"}}}"#)
    }

    @Test func suggestionsAreWithinTwoEditsIgnoringCase() {
        #expect(NameSuggestion.hint(for: "Articel", among: ["Article", "Query"]) == " (did you mean 'Article'?)")
        #expect(NameSuggestion.hint(for: "ARTICLE", among: ["Article"]) == " (did you mean 'Article'?)")
        #expect(NameSuggestion.hint(for: "Arti", among: ["Article"]) == "")
        #expect(NameSuggestion.hint(for: "Cat", among: ["Car", "Bat"]) == " (did you mean 'Bat'?)")
        #expect(NameSuggestion.editDistance(Array("kitten".utf8), Array("sitting".utf8)) == 3)
        #expect(NameSuggestion.editDistance([], Array("ab".utf8)) == 2)
    }
}
