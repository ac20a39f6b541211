import Testing
@testable import NormCache

/// The records a read keeps by key: exact records back for exact keys, keys copied (the
/// caller's bytes may change), and bounded in slots and in key bytes.
@Suite struct RecordCacheTests {
    /// The record of `number`: `length` bytes at an address of its own (the cache keeps
    /// records' addresses and never reads them).
    static func record(_ number: Int, length: Int = 7) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: 0x10000 + number * 64), count: length)
    }

    @Test func keysFindTheirOwnRecords() {
        var cache = RecordCache()
        let keys = (0..<5_000).map { Array("User:\($0)".utf8) } + [Array("Post:a-key-longer-than-a-slot-could-hold:1".utf8)]
        for (number, key) in keys.enumerated() {
            key.withUnsafeBytes { #expect(cache.record($0) == nil) }
            var copy = key
            copy.withUnsafeBytes { cache.insert($0, Self.record(number, length: number % 50 + 1)) }
            copy[0] = UInt8(ascii: "X")  // the cache keeps its own copy of the key
        }
        for (number, key) in keys.enumerated() {
            let found = key.withUnsafeBytes { cache.record($0) }
            #expect(found?.baseAddress == Self.record(number).baseAddress)
            #expect(found?.count == number % 50 + 1)
        }
        // Prefixes, extensions and near misses of kept keys are not kept keys.
        for other in ["User:", "User:10000", "User:49999", "User:1 ", "Xser:1", "Post:a-key-longer-than-a-slot-could-hold:2"] {
            #expect(Array(other.utf8).withUnsafeBytes { cache.record($0) } == nil)
        }
    }

    @Test func aFullTableStopsTakingAndStillAnswers() {
        var cache = RecordCache()
        let count = RecordCache.maximumSlots  // more than half the most slots: the last are not taken
        for number in 0..<count { Array("K:\(number)".utf8).withUnsafeBytes { cache.insert($0, Self.record(number)) } }
        let kept = (0..<count).filter { number in Array("K:\(number)".utf8).withUnsafeBytes { cache.record($0) } != nil }
        #expect(kept == Array(0..<(RecordCache.maximumSlots / 2)))
    }

    @Test func keyBytesAreBounded() {
        var cache = RecordCache()
        let large = 1 << 20
        for number in 0..<20 {
            var key = [UInt8](repeating: UInt8(ascii: "a"), count: large)
            key[0] = UInt8(number)
            key.withUnsafeBytes { cache.insert($0, Self.record(number)) }
        }
        // Each entry is 8 bytes and its key: 15 of 1 MiB fit in 16 MiB.
        let kept = (0..<20).filter { number in
            var key = [UInt8](repeating: UInt8(ascii: "a"), count: large)
            key[0] = UInt8(number)
            return key.withUnsafeBytes { cache.record($0) } != nil
        }
        #expect(kept == Array(0..<15))
    }
}
