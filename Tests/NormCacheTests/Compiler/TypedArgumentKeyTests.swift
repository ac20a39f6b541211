import TestSupport
import Testing
@testable import NormCache

/// Storage keys that depend on the schema's argument types.
@Suite struct TypedArgumentKeyTests {
    @Test func integersForFloatArgumentsAreFloats() throws {
        let test = try TestCache()
        try test.cache.loadSchema("type Query { near(lat: Float, n: Int, around: [Float]): Int }")
        let literal = try test.cache.prepare("{ near(lat: 2.0, n: 2, around: [1.5, 3]) }")
        let variable = try test.cache.prepare("query ($lat: Float, $around: [Float]) { near(lat: $lat, n: 2, around: $around) }")
        #expect(try test.cache.normalize(literal, #"{"data": {"near": 1}}"#) == #"{"QUERY_ROOT":{"near(around:[1.5, 3.0],lat:2.0,n:2)":1}}"#)
        #expect(try test.cache.normalize(variable, #"{"data": {"near": 1}}"#, variables: #"{"lat": 2, "around": [1.5, 3]}"#)
            == #"{"QUERY_ROOT":{"near(around:[1.5, 3.0],lat:2.0,n:2)":1}}"#)
    }

    /// `search(q: "cats,topic:dogs")` and `search(q: "cats", topic: "dogs")` once shared
    /// `search(q:cats,topic:dogs)`; each now keeps its own field and reads its own data.
    @Test func stringsWithSeparatorsKeepTheirOwnField() throws {
        let test = try TestCache()
        try test.cache.loadSchema("type Query { search(q: String, topic: String): Int }")
        let joined = try test.cache.prepare(#"{ search(q: "cats,topic:dogs") }"#)
        let apart = try test.cache.prepare(#"{ search(q: "cats", topic: "dogs") }"#)
        let variable = try test.cache.prepare("query ($q: String) { search(q: $q) }")
        #expect(try test.cache.normalize(joined, #"{"data": {"search": 1}}"#) == #"{"QUERY_ROOT":{"search(q:cats\\,topic\\:dogs)":1}}"#)
        #expect(try test.cache.normalize(apart, #"{"data": {"search": 2}}"#) == #"{"QUERY_ROOT":{"search(q:cats,topic:dogs)":2}}"#)
        #expect(try test.cache.write(joined, #"{"data": {"search": 1}}"#) == [#"QUERY_ROOT.search(q:cats\,topic\:dogs)"#])
        #expect(try test.cache.write(apart, #"{"data": {"search": 2}}"#) == ["QUERY_ROOT.search(q:cats,topic:dogs)"])
        #expect(try test.cache.readText(joined) == #"{"search":1}"#)
        #expect(try test.cache.readText(apart) == #"{"search":2}"#)
        #expect(try test.cache.readText(variable, variables: #"{"q": "cats,topic:dogs"}"#) == #"{"search":1}"#)
        #expect(try test.cache.readText(variable, variables: #"{"q": "cats"}"#) == #"MISS ["search"]"#)
    }
}
