import Testing
@testable import NormCache

/// The per-field metadata of a record entry (`FieldMetadata`): flags, written-at and
/// expiry as bytes, read back through `RecordView`, kept or replaced by a merge and by
/// `RecordEncoder.rewrite`, and refused when damaged.
@Suite struct FieldMetadataTests {
    @Test func anExpiryFollowsTheWrittenAtTimeUnderFlagTwo() throws {
        let record = try RecordCodecTests.encoded(#"{"K": {"f": null}}"#, at: 100, expiresAt: 300)
        #expect(record == [0x01, 0x01, 6, 0, 0, 0, 0x01, 0x66, 0x03, 0x64, 0xAC, 0x02, 0x01, 0x00])
        try record.withUnsafeBytes { bytes in
            let field = try #require(RecordView(bytes)?.field(at: 0))
            #expect(FieldMetadata(field.metadata) == FieldMetadata(writtenAt: 100, expiresAt: 300))
            #expect(field.writtenAt == 100 && Array(field.value) == [0x00])
        }
    }

    @Test(arguments: [
        (FieldMetadata(writtenAt: 5), [0x01, 0x05] as [UInt8]),
        (FieldMetadata(writtenAt: 5, expiresAt: 200), [0x03, 0x05, 0xC8, 0x01]),
        (FieldMetadata(writtenAt: 5, expiresAt: 7, isInvalidated: true), [0x07, 0x05, 0x07]),
        (FieldMetadata(writtenAt: UInt64.max, expiresAt: UInt64.max, isInvalidated: true),
         [0x07] + [UInt8](repeating: 0xFF, count: 9) + [0x01] + [UInt8](repeating: 0xFF, count: 9) + [0x01]),
    ])
    func metadataRoundTrips(metadata: FieldMetadata, bytes: [UInt8]) {
        var out = [UInt8](repeating: 0, count: FieldMetadata.maximumLength)
        let length = out.withUnsafeMutableBytes { metadata.write(to: $0.baseAddress!) }
        #expect(length == metadata.encodedLength && Array(out[..<length]) == bytes)
        #expect(bytes.withUnsafeBytes { FieldMetadata($0) } == metadata)
    }

    @Test(arguments: [
        ([0x01, 0x80, 0xE2, 0xCF, 0xAA, 0x06], UInt64?.some(1_700_000_000)),
        ([0x01, 0x80, 0x80, 0x80, 0x80, 0x01], 1 << 28),
        ([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], (1 << 35) - 1),
        ([0x01, 0x05], nil),
        ([0x03, 0x80, 0xE2, 0xCF, 0xAA, 0x06], nil),
        ([0x01, 0x80, 0xE2, 0xCF, 0x2A, 0x06], nil),
        ([0x01, 0x80, 0xE2, 0xCF, 0xAA, 0x86], nil),
        ([0x01, 0x80, 0xE2, 0xCF, 0xAA, 0x06, 0x00], nil),
    ] as [([UInt8], UInt64?)])
    func aPlainFiveByteTimeIsDecodedWithoutALoop(bytes: [UInt8], time: UInt64?) {
        #expect(bytes.withUnsafeBytes { FieldMetadata.plainTime($0) } == time)
        if let time { #expect(bytes.withUnsafeBytes { FieldMetadata($0) } == FieldMetadata(writtenAt: time)) }
    }

    /// Times at and beside each boundary of the five 7-bit groups, from 1978 (the first
    /// time five varint bytes hold) to their last.
    static let groupBoundaryTimes: [UInt64] = {
        var times: Set<UInt64> = [1 << 28, (1 << 35) - 1, 1_700_000_000, 1_700_003_600]
        for group in 0..<5 {
            for multiple: UInt64 in [1, 2, 3, 64, 127] {
                let boundary = (1 << 28) + multiple << (7 * UInt64(group))
                times.formUnion([boundary - 1, boundary, boundary + 1])
            }
        }
        return times.filter { $0 < FieldMetadata.plainTimeLimit }.sorted()
    }()

    @Test func aPlainTimesBitsAreOrderedAsTheTimes() {
        let times = Self.groupBoundaryTimes
        let stored = times.map { time -> UInt64? in
            var bytes = [UInt8](repeating: 0, count: FieldMetadata.maximumLength)
            let length = bytes.withUnsafeMutableBytes { FieldMetadata(writtenAt: time).write(to: $0.baseAddress!) }
            return bytes[..<length].withUnsafeBytes { FieldMetadata.plainTimeBits($0) }
        }
        for (time, bits) in zip(times, stored) {
            // What is stored is what a bound lays out, and decodes to the time.
            #expect(bits == FieldMetadata.plainTimeBits(of: time), "time \(time)")
        }
        for (time, bits) in zip(times, stored) {
            for bound in times + [0, 1, 127, 128, (1 << 28) - 1] {
                #expect((bits! > FieldMetadata.plainTimeBits(of: bound)) == (time > bound), "time \(time), bound \(bound)")
            }
        }
    }

    @Test(arguments: [
        [0x01, 0x80, 0xE2, 0xCF, 0xAA, 0x06], [0x01, 0x80, 0x80, 0x80, 0x80, 0x01], [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
    ] as [[UInt8]])
    func aPlainTimesBitsAreItsFiveVarintBytes(bytes: [UInt8]) {
        let bits = bytes.withUnsafeBytes { FieldMetadata.plainTimeBits($0) }
        #expect(bits == bytes[1...].reversed().reduce(0) { $0 << 8 | UInt64($1) })
        #expect(bits == bytes.withUnsafeBytes { FieldMetadata.plainTime($0) }.map(FieldMetadata.plainTimeBits(of:)))
    }

    @Test(arguments: [
        [0x01, 0x05], [0x03, 0x80, 0xE2, 0xCF, 0xAA, 0x06], [0x01, 0x80, 0xE2, 0xCF, 0x2A, 0x06],
        [0x01, 0x80, 0xE2, 0xCF, 0xAA, 0x86], [0x01, 0x80, 0xE2, 0xCF, 0xAA, 0x06, 0x00], [],
    ] as [[UInt8]])
    func otherMetadataHasNoPlainTimeBits(bytes: [UInt8]) {
        #expect(bytes.withUnsafeBytes { FieldMetadata.plainTimeBits($0) } == nil)
    }

    @Test func invalidatedNeedsAnExpiry() {
        #expect(FieldMetadata(writtenAt: 5, isInvalidated: true).isInvalidated == false)
    }

    @Test(arguments: [
        [0x08, 0x05], [0x02, 0x05], [0x05, 0x05], [0x04], [0x03, 0x05], [0x01], [0x01, 0x05, 0x00], [0x01, 0x85],
    ] as [[UInt8]])
    func damagedMetadataIsRefused(bytes: [UInt8]) {
        #expect(bytes.withUnsafeBytes { FieldMetadata($0) } == nil)
    }

    @Test func aRecordWithAnUnknownFlagIsRefusedField() throws {
        var record = try RecordCodecTests.encoded(#"{"K": {"f": null}}"#, at: 100, expiresAt: 300)
        record[8] = 0x0B
        try record.withUnsafeBytes { bytes in
            let view = try #require(RecordView(bytes))
            #expect(view.entry(at: 0) == nil && view.field(at: 0) == nil)
        }
    }

    @Test func aMergeKeepsStoredExpiriesAndStampsTheIncomingFields() throws {
        let stored = try RecordCodecTests.encoded(#"{"K": {"a": 1, "b": 2}}"#, at: 100, expiresAt: 160)
        let merged = try stored.withUnsafeBytes { bytes in
            try RecordCodecTests.withBatch(#"{"K": {"b": 2}}"#) { batch in
                let view = try #require(RecordView(bytes))
                var out = ByteBuffer()
                var changed: [Int] = []
                let rewrite = try Array("K".utf8).withUnsafeBytes { key in
                    try RecordEncoder(metadata: FieldMetadata(writtenAt: 200)).merge(view, RecordCodecTests.fields(of: 0, in: batch),
                                                                                      of: batch, into: &out, key: key) { changed.append($0) }
                }
                #expect(rewrite && changed.isEmpty)
                return out.array
            }
        }
        #expect(metadata(of: merged) == [FieldMetadata(writtenAt: 100, expiresAt: 160), FieldMetadata(writtenAt: 200)])
    }

    @Test func aRewriteReplacesTheMetadataItIsGiven() throws {
        let stored = try RecordCodecTests.encoded(#"{"K": {"a": 1, "b": 2}}"#, at: 100)
        let rewritten = try RecordCodecTests.rewriting(stored) { index, _ in
            index == 1 ? .metadata(FieldMetadata(writtenAt: 100, expiresAt: 150, isInvalidated: true)) : .keep
        }
        #expect(metadata(of: rewritten) == [FieldMetadata(writtenAt: 100), FieldMetadata(writtenAt: 100, expiresAt: 150, isInvalidated: true)])
    }

    /// The metadata of each field of the record `bytes`.
    func metadata(of bytes: [UInt8]) -> [FieldMetadata?] {
        bytes.withUnsafeBytes { bytes in
            guard let view = RecordView(bytes) else { return [] }
            return (0..<view.count).map { view.field(at: $0).flatMap { FieldMetadata($0.metadata) } }
        }
    }
}
