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
}
