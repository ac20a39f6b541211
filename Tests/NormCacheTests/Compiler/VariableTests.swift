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

    @Test func aVariableTheOperationDoesNotDeclareIsRefused() throws {
        let test = try TestCache()
        let named = try test.cache.prepare("query Feed($first: Int, $after: String) { feed(first: $first, after: $after) { id } }")
        let message = "variable '$frist' is not declared by operation 'Feed' (it declares: $first, $after)"
        #expect(throws: NormCacheError(.invalidArgument, message)) { try test.cache.readText(named, variables: #"{"frist": 1}"#) }
        #expect(throws: NormCacheError(.invalidArgument, message)) {
            try test.cache.write(named, #"{"data": {"feed": []}}"#, variables: #"{"first": 1, "frist": 1}"#)
        }
        #expect(throws: NormCacheError(.invalidArgument, message)) {
            try test.cache.normalize(named, #"{"data": {"feed": []}}"#, variables: #"{"frist": 1}"#)
        }
        let anonymous = try test.cache.prepare("{ feed { id } }")
        #expect(throws: NormCacheError(.invalidArgument, "variable '$first' is not declared by the anonymous operation (it declares none)")) {
            try test.cache.readText(anonymous, variables: #"{"first": null}"#)
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
        #expect(try test.cache.readText(named, variables: #"{"first": 1}"#) == #"MISS ["feed"]"#)
    }

    @Test func aFragmentTakesAnyVariable() throws {
        let test = try TestCache()
        let fragment = try test.cache.prepare("fragment F on Dog { name }")
        _ = try test.cache.writeFragment(fragment, key: "Dog:1", data: #"{"name": "Rex"}"#, variables: #"{"unused": 1}"#)
        #expect(try test.cache.readFragmentText(fragment, key: "Dog:1", variables: #"{"unused": 1}"#) == #"{"name":"Rex"}"#)
    }
}
