import Testing
@testable import NormCache

/// The records a read keeps by key: exact records back for exact keys, keys copied (the
/// caller's bytes may change), short keys in the slots and long ones beside them, and
/// bounded in slots and in key bytes.
@Suite struct RecordCacheTests {
    /// The record of `number`: `length` bytes at an address of its own (the cache keeps
    /// records' addresses and never reads them).
    static func record(_ number: Int, length: Int = 7) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: 0x10000 + number * 64), count: length)
    }

    /// The record kept under `key`, if any.
    static func lookUp(_ key: [UInt8], in cache: borrowing RecordCache) -> UnsafeRawBufferPointer? {
        key.withUnsafeBytes { cache.record($0, hash: cache.hash($0)) }
    }

    /// Keeps `record` under `key`.
    static func insert(_ key: [UInt8], _ record: UnsafeRawBufferPointer, in cache: inout RecordCache) {
        key.withUnsafeBytes { cache.insert($0, record, hash: cache.hash($0)) }
    }

    @Test func keysFindTheirOwnRecords() {
        var cache = RecordCache()
        let keys = (0..<5_000).map { Array("User:\($0)".utf8) } + [Array("Post:a-key-longer-than-a-slot-could-hold:1".utf8)]
        for (number, key) in keys.enumerated() {
            #expect(Self.lookUp(key, in: cache) == nil)
            var copy = key
            Self.insert(copy, Self.record(number, length: number % 50 + 1), in: &cache)
            copy[0] = UInt8(ascii: "X")  // the cache keeps its own copy of the key
        }
        for (number, key) in keys.enumerated() {
            let found = Self.lookUp(key, in: cache)
            #expect(found?.baseAddress == Self.record(number).baseAddress)
            #expect(found?.count == number % 50 + 1)
        }
        // Prefixes, extensions and near misses of kept keys are not kept keys.
        for other in ["User:", "User:10000", "User:49999", "User:1 ", "Xser:1", "Post:a-key-longer-than-a-slot-could-hold:2"] {
            #expect(Self.lookUp(Array(other.utf8), in: cache) == nil)
        }
    }

    /// Keys of 0 to 40 bytes, across the longest a slot holds (`inlineKeyBytes`), each
    /// with near misses: the same length with another last or first byte, one byte
    /// shorter, one byte longer, and a zero byte more (a slot pads short keys with zeros).
    /// With `sharedHash`, every key is given the same hash, so that only their bytes tell
    /// them apart (a real hash spares most compares).
    @Test(arguments: [false, true]) func keysOfEveryLengthAroundTheInlineLimit(sharedHash: Bool) {
        var cache = RecordCache()
        func hash(_ key: [UInt8]) -> UInt32 { sharedHash ? 7 : key.withUnsafeBytes { cache.hash($0) } }
        func lookUp(_ key: [UInt8]) -> UnsafeRawBufferPointer? { key.withUnsafeBytes { cache.record($0, hash: hash(key)) } }
        let keys = (0...40).map { length in (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) } }
        for (number, key) in keys.enumerated() {
            let keyHash = hash(key)
            key.withUnsafeBytes { cache.insert($0, Self.record(number, length: number + 1), hash: keyHash) }
        }
        for (number, key) in keys.enumerated() {
            #expect(lookUp(key)?.baseAddress == Self.record(number).baseAddress, "key of \(key.count) bytes")
            #expect(lookUp(key)?.count == number + 1)
            #expect(lookUp(key + [0]) == nil, "key of \(key.count) bytes and a zero")
            #expect(lookUp(key + [UInt8(ascii: "!")]) == nil)
            guard !key.isEmpty else { continue }
            var last = key, first = key
            last[key.count - 1] ^= 0x20
            first[0] ^= 0x20
            #expect(lookUp(last) == nil, "key of \(key.count) bytes, another last byte")
            #expect(lookUp(first) == nil, "key of \(key.count) bytes, another first byte")
            // One byte shorter is the key before it, which finds its own record.
            #expect(lookUp(Array(key.dropLast()))?.baseAddress == Self.record(number - 1).baseAddress)
        }
    }

    @Test func aFullTableStopsTakingAndStillAnswers() {
        var cache = RecordCache()
        let count = RecordCache.maximumSlots  // more than half the most slots: the last are not taken
        for number in 0..<count { Self.insert(Array("K:\(number)".utf8), Self.record(number), in: &cache) }
        let kept = (0..<count).filter { number in Self.lookUp(Array("K:\(number)".utf8), in: cache) != nil }
        #expect(kept == Array(0..<(RecordCache.maximumSlots / 2)))
    }

    @Test func keyBytesAreBounded() {
        var cache = RecordCache()
        let large = 1 << 20
        func key(_ number: Int) -> [UInt8] {
            var key = [UInt8](repeating: UInt8(ascii: "a"), count: large)
            key[0] = UInt8(number)
            return key
        }
        for number in 0..<20 { Self.insert(key(number), Self.record(number), in: &cache) }
        // 16 keys of 1 MiB fill the 16 MiB for long keys; short keys are still taken.
        #expect((0..<20).filter { Self.lookUp(key($0), in: cache) != nil } == Array(0..<16))
        Self.insert(Array("User:1".utf8), Self.record(99), in: &cache)
        #expect(Self.lookUp(Array("User:1".utf8), in: cache)?.baseAddress == Self.record(99).baseAddress)
    }
}
