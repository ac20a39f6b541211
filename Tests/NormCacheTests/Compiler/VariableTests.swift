import TestSupport
import Testing
@testable import NormCache

/// Variables are checked against the types the operation declares.
@Suite struct VariableTests {
    @Test func variablesMustFitTheirTypes() throws {
        let test = try TestCache()
        try test.cache.loadSchema(NormalizeTests.starWars)
        let op = try test.cache.prepare("query ($id: ID!, $n: Int, $e: Episode, $f: [Float!]) { droid(id: $id) { friendsConnection(first: $n) { totalCount } } hero(episode: $e) { name } }")
        let cases: [(String, String)] = [
            ("{}", "variable '$id' of type ID! is missing"),
            (#"{"id": null}"#, "variable '$id' must be ID!, found null"),
            (#"{"id": [1]}"#, "variable '$id' must be ID!, found array"),
            (#"{"id": 1.5}"#, "variable '$id' must be ID!, found number"),
            (#"{"id": "1", "n": "2"}"#, "variable '$n' must be Int, found string"),
            (#"{"id": "1", "n": 2.0}"#, "variable '$n' must be Int, found number"),
            (#"{"id": "1", "e": 3}"#, "variable '$e' must be Episode, found number"),
            (#"{"id": "1", "f": [1, null]}"#, "variable '$f[1]' must be [Float!], found null"),
            (#"{"id": "1", "f": true}"#, "variable '$f' must be [Float!], found true"),
        ]
        for (variables, message) in cases {
            #expect(throws: NormCacheError(.invalidArgument, message)) { try test.cache.readText(op, variables: variables) }
        }
        #expect(try test.cache.readText(op, variables: #"{"id": 7, "n": 2, "e": "JEDI", "f": 1.5}"#).hasPrefix("MISS"))
    }
}
