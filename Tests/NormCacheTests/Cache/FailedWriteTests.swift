import TestSupport
import Testing
@testable import NormCache

/// A write that fails changes nothing: not one byte of the file.
@Suite struct FailedWriteTests {
    @Test func aFailedPutLeavesTheFileByteForByte() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}, "B:1": {"y": [1, 2]}}"#)
        let before = try TestData.read(test.path)
        let failing = [
            #"{"A:1": {"x": 2}, "B:1": {"y": {"$reference": 5}}}"#,
            #"{"A:1": {"x": 2}, "B:1": 7}"#,
            #"{"A:1": {"x": 2}, "": {}}"#,
            #"{"A:1": {"x": 2}, "B:1": {"": 1}}"#,
            #"{"A:1": {"x": 2}, "B:1": {"y": [1, 2"#,
            #"{"A:1": {"x": 2}, "B:1": {"y": {"$reference": "C:1", "z": 1}}}"#,
            #"{"A:1": {"x": 2}, "B:1": {"y": {"$reference": ""}}}"#,
            "[" + String(repeating: "[", count: 100_000),
        ]
        for json in failing {
            #expect(throws: NormCacheError.self) { try test.cache.put(json: json) }
        }
        #expect(try TestData.read(test.path) == before)
        #expect(try test.cache.record("A:1") == #"{"x":1}"#)
    }
}
