import TestSupport
import Testing
@testable import NormCache

/// `forEachRecord`: every record of a key group with its JSON, in key order, from one
/// read transaction.
@Suite struct RecordSnapshotTests {
    @Test func givesEachRecordAsGetDoes() throws {
        let test = try TestCache()
        let long = "Long:" + String(repeating: "k", count: 600)
        _ = try test.cache.put(json: #"{"Pet:2": {"n": 1.0}, "Pet:1": {"owner": {"$reference": "User:1"}}, "User:1": {"name": "Ada"}, "\#(long)": {"v": true}}"#)
        var seen: [(String, String)] = []
        try test.cache.forEachRecord { key, json in seen.append((key, String(decoding: json, as: UTF8.self))) }
        #expect(seen.map(\.0) == [long, "Pet:1", "Pet:2", "User:1"])
        for (key, json) in seen { #expect(try test.cache.record(key) == json) }
        var pets: [String] = []
        try test.cache.forEachRecord(withPrefix: "Pet:") { key, _ in pets.append(key) }
        #expect(pets == ["Pet:1", "Pet:2"])
    }

    @Test func seesOneMomentWhileAnotherHandleWrites() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"v": 1}, "A:2": {"v": 1}}"#)
        let writer = try test.reopen()
        defer { writer.close() }
        var values: [String] = []
        try test.cache.forEachRecord { key, json in
            if key == "A:1" { _ = try? writer.put(json: #"{"A:2": {"v": 2}, "A:3": {"v": 2}}"#) }
            values.append(String(decoding: json, as: UTF8.self))
        }
        #expect(values == [#"{"v":1}"#, #"{"v":1}"#])
        #expect(try test.cache.record("A:2") == #"{"v":2}"#)
    }

    @Test func anErrorFromTheBodyEndsTheWalk() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"v": 1}, "A:2": {"v": 1}}"#)
        var visited = 0
        #expect(throws: NormCacheError(.callback, "stop")) {
            try test.cache.forEachRecord { (_, _) throws(NormCacheError) in
                visited += 1
                throw NormCacheError(.callback, "stop")
            }
        }
        #expect(visited == 1)
    }
}
