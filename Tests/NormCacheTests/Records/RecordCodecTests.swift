import Testing
@testable import NormCache

/// The record codec through its own API: `RecordEncoder` writes a `RecordBatch`'s record
/// and merges incoming fields into a stored one, `RecordView` reads the bytes in place
/// (fields in byte order of their keys, each with its written-at time) and refuses
/// damaged or truncated bytes. No store is involved.
@Suite struct RecordCodecTests {
    /// A field as `RecordView` reads it, copied out of the record.
    struct Viewed: Equatable, CustomStringConvertible {
        var key: [UInt8]
        var writtenAt: UInt64
        var value: [UInt8]

        /// The field `key` written at `writtenAt` with the encoded `value`.
        init(_ key: String, _ writtenAt: UInt64, _ value: [UInt8]) {
            self.init(key: Array(key.utf8), writtenAt: writtenAt, value: value)
        }

        /// A copy of a field the view read.
        init(_ field: RecordView.Field) {
            self.init(key: Array(field.key), writtenAt: field.writtenAt, value: Array(field.value))
        }

        /// The field of the bytes `key`.
        init(key: [UInt8], writtenAt: UInt64, value: [UInt8]) {
            self.key = key
            self.writtenAt = writtenAt
            self.value = value
        }

        var description: String { "\(String(decoding: key, as: UTF8.self))@\(writtenAt)=\(value)" }
    }

    /// What `RecordEncoder.merge` gave: whether the record must be rewritten, the indices
    /// of the incoming fields it reported changed, and the bytes of `out` after it.
    struct Merge: Equatable {
        var rewrite: Bool
        var changed: [Int]
        var out: [UInt8]
    }

    /// The bytes `out` holds before a merge: a merge that writes nothing leaves them.
    static let untouched: [UInt8] = [0xAB]

    /// `{"A:1": {"b": 1, "a": "x", "c": true}}` encoded at time 100: three entries at
    /// offsets 14, 22 and 30, each key length, key, flags (1: timed), time, value length,
    /// value.
    static let abc: [UInt8] = [
        0x01, 0x03, 14, 0, 0, 0, 22, 0, 0, 0, 30, 0, 0, 0,
        0x01, 0x61, 0x01, 0x64, 0x03, 0x04, 0x01, 0x78,
        0x01, 0x62, 0x01, 0x64, 0x03, 0x03, 0x01, 0x31,
        0x01, 0x63, 0x01, 0x64, 0x01, 0x02,
    ]

    /// The fields of `abc` as the view reads them.
    static let abcFields = [Viewed("a", 100, [0x04, 0x01, 0x78]), Viewed("b", 100, [0x03, 0x01, 0x31]), Viewed("c", 100, [0x02])]

    /// Parses `json` (the records JSON notation) into a batch and runs `body` with it
    /// while the JSON bytes, which the batch's keys point into, live.
    static func withBatch<R>(_ json: String, _ body: (borrowing RecordBatch) throws -> R) throws -> R {
        try Array(json.utf8).withUnsafeBytes { (bytes) throws -> R in
            let batch = try RecordBatch(json: bytes)
            return try body(batch)
        }
    }

    /// The fields of the batch's record `index` (in ascending key order).
    static func fields(of index: Int, in batch: borrowing RecordBatch) -> UnsafeMutableBufferPointer<RecordBatch.Field> {
        let record = batch.records[index]
        return batch.fields.elements(Int(record.first)..<Int(record.first + record.count))
    }

    /// The batch's record `index` as the encoder writes it at `time`; checks that the
    /// encoder writes exactly the `size(of:)` bytes it announces.
    static func encode(_ index: Int, of batch: borrowing RecordBatch, at time: UInt64, expiresAt: UInt64? = nil) -> [UInt8] {
        let encoder = RecordEncoder(metadata: FieldMetadata(writtenAt: time, expiresAt: expiresAt))
        let fields = fields(of: index, in: batch)
        let size = encoder.size(of: fields)
        var out = [UInt8](repeating: 0xEE, count: size + 16)
        out.withUnsafeMutableBytes { if let base = $0.baseAddress { encoder.write(fields, of: batch, to: base) } }
        #expect(out[size...].allSatisfy { $0 == 0xEE }, "the encoder wrote past the \(size) bytes it announced")
        return Array(out[..<size])
    }

    /// The first record of the records JSON `json`, encoded at `time` (expiring at `expiresAt`).
    static func encoded(_ json: String, at time: UInt64, expiresAt: UInt64? = nil) throws -> [UInt8] {
        try withBatch(json) { encode(0, of: $0, at: time, expiresAt: expiresAt) }
    }

    /// The fields of the record `bytes` as `RecordView.field(at:)` reads them, nil in place
    /// of each it refuses; nil when the view refuses the bytes. Checks that `entry(at:)`,
    /// which skips the time, reads the same keys and values, and that no field lies
    /// outside `0..<count`.
    static func view(_ bytes: [UInt8]) -> [Viewed?]? {
        bytes.withUnsafeBytes { bytes in
            guard let view = RecordView(bytes) else { return nil }
            #expect(view.field(at: -1) == nil && view.field(at: view.count) == nil)
            return (0..<view.count).map { index in
                let field = view.field(at: index).map(Viewed.init)
                let entry = view.entry(at: index).map { Viewed(key: Array($0.key), writtenAt: field?.writtenAt ?? 0, value: Array($0.value)) }
                #expect(entry == field, "entry(at: \(index)) and field(at: \(index)) disagree")
                return field
            }
        }
    }

    /// The index `RecordView.index(of:)` finds for `key` in the record `bytes`.
    static func index(of key: String, in bytes: [UInt8]) throws -> Int?? {
        try bytes.withUnsafeBytes { bytes in
            let view = try #require(RecordView(bytes))
            return Array(key.utf8).withUnsafeBytes { view.index(of: $0) }
        }
    }

    /// Merges the first record of `incoming` (records JSON) into the stored record
    /// `stored` (`key`, for messages) at `time`, into an `out` that holds `untouched`.
    static func merge(_ stored: [UInt8], _ incoming: String, at time: UInt64, key: String = "K") throws -> Merge {
        try withBatch(incoming) { batch in
            try stored.withUnsafeBytes { storedBytes in
                let view = try #require(RecordView(storedBytes))
                var out = ByteBuffer()
                out.append(contentsOf: untouched)
                var changed: [Int] = []
                let rewrite = try Array(key.utf8).withUnsafeBytes { key in
                    try RecordEncoder(writtenAt: time).merge(view, fields(of: 0, in: batch), of: batch, into: &out, key: key) { changed.append($0) }
                }
                return Merge(rewrite: rewrite, changed: changed, out: out.array)
            }
        }
    }

    // MARK: Encoding

    @Test func aRecordEncodesItsFieldsInKeyOrderStampedWithTheWriteTime() throws {
        let record = try Self.encoded(#"{"A:1": {"b": 1, "a": "x", "c": true}}"#, at: 100)
        #expect(record == Self.abc)
        #expect(Self.view(record) == Self.abcFields)
        #expect(try Self.index(of: "a", in: record) == .some(0))
        #expect(try Self.index(of: "c", in: record) == .some(2))
        for absent in ["", "0", "ab", "d", "A"] {
            #expect(try Self.index(of: absent, in: record) == .some(nil), "\(absent)")
        }
    }

    @Test func fieldKeysAreInByteOrderNotStringOrder() throws {
        // The two spellings of "café" are different keys; an escaped "caf\u00e9" is the
        // same key as the plain one, and its later value wins.
        let json = #"{"K": {"b": 1, "B": 2, "é": 3, "aa": 4, "a": 5, "cafe\#u{301}": 6, "caf\#u{E9}": 7, "caf\u00e9": 8}}"#
        let record = try Self.encoded(json, at: 100)
        let expected = [("B", 0x32), ("a", 0x35), ("aa", 0x34), ("b", 0x31), ("cafe\u{301}", 0x36), ("caf\u{E9}", 0x38), ("é", 0x33)]
        #expect(Self.view(record) == expected.map { Viewed($0.0, 100, [0x03, 0x01, UInt8($0.1)]) })
        for (index, (key, _)) in expected.enumerated() {
            #expect(try Self.index(of: key, in: record) == .some(index), "\(key)")
        }
        #expect(try Self.index(of: "cafe", in: record) == .some(nil))
    }

    @Test(arguments: [
        (0, [0x00]), (127, [0x7F]), (128, [0x80, 0x01]), (1_700_000_000, [0x80, 0xE2, 0xCF, 0xAA, 0x06]),
        ((1 << 56) - 1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
        (1 << 56, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ] as [(UInt64, [UInt8])])
    func writtenAtTimesOfEveryLengthReadBack(time: UInt64, varint: [UInt8]) throws {
        let record = try Self.encoded(#"{"K": {"f": null}}"#, at: time)
        #expect(record == [0x01, 0x01, 6, 0, 0, 0, 0x01, 0x66, 0x01] + varint + [0x01, 0x00])
        #expect(Self.view(record) == [Viewed("f", time, [0x00])])
    }

    @Test func keysAndValuesFrom128BytesTakeTwoByteLengths() throws {
        let key = String(repeating: "k", count: 130)
        let text = String(repeating: "v", count: 200)
        let record = try Self.encoded(#"{"K": {"\#(key)": "\#(text)"}}"#, at: 100)
        let value: [UInt8] = [0x04, 0xC8, 0x01] + Array(text.utf8)
        #expect(record == [0x01, 0x01, 6, 0, 0, 0, 0x82, 0x01] + Array(key.utf8) + [0x01, 0x64, 0xCB, 0x01] + value)
        #expect(Self.view(record) == [Viewed(key, 100, value)])
    }

    @Test(arguments: [0, 1, 127, 128, 300, 16_383, 16_384])
    func bytesTaggedInPlaceEncodeAsAppendedTaggedBytes(length: Int) {
        // Bytes written first and tagged after (a document's entity keys) come out as
        // `appendTagged` writes them: tag, varint length (one byte under 128, two from
        // 128, three from 16,384), the bytes; what was before them stays.
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        var appended = ByteBuffer(), inPlace = ByteBuffer()
        appended.append(0xEE)
        bytes.withUnsafeBytes { appended.appendTagged(FieldValue.Tag.reference.rawValue, $0) }
        inPlace.append(0xEE)
        inPlace.append(contentsOf: bytes)
        inPlace.tagInPlace(FieldValue.Tag.reference.rawValue, from: 1)
        #expect(inPlace.array == appended.array)
        #expect(inPlace.array.count == 2 + length + (length < 128 ? 1 : length < 16_384 ? 2 : 3))
    }

    @Test func aBatchEncodesEachOfItsRecordsOnceWithReferencesAndLists() throws {
        let json = #"{"A:1": {"x": 1, "y": 2}, "B:1": {"z": null, "r": {"$reference": "A:1"}, "l": [1, "s"]}, "A:1": {"x": 3}}"#
        let (count, first, second) = try Self.withBatch(json) { batch in
            (batch.records.count, Self.encode(0, of: batch, at: 100), Self.encode(1, of: batch, at: 100))
        }
        #expect(count == 2)
        #expect(Self.view(first) == [Viewed("x", 100, [0x03, 0x01, 0x33]), Viewed("y", 100, [0x03, 0x01, 0x32])])
        #expect(Self.view(second) == [
            Viewed("l", 100, [0x05, 0x02, 6, 0, 0, 0, 0x03, 0x01, 0x31, 0x04, 0x01, 0x73]),
            Viewed("r", 100, [0x07, 0x03, 0x41, 0x3A, 0x31]),
            Viewed("z", 100, [0x00]),
        ])
    }

    @Test func aRecordOfMoreThanFourGiBIsRefused() throws {
        try Array("K:1".utf8).withUnsafeBytes { key in
            try RecordEncoder.check(size: Int(UInt32.max), key: key)
            #expect(throws: NormCacheError(.invalidArgument, "the record 'K:1' of 4294967296 bytes is larger than the 4 GiB limit")) {
                try RecordEncoder.check(size: Int(UInt32.max) + 1, key: key)
            }
        }
    }

    // MARK: Merging

    /// `{"K": {"a": 1, "c": "x"}}` stored at time 100.
    static func storedAC() throws -> [UInt8] {
        try encoded(#"{"K": {"a": 1, "c": "x"}}"#, at: 100)
    }

    @Test func aMergeAddsANewFieldBetweenTheStoredOnes() throws {
        let stored = try Self.storedAC()
        #expect(stored == [0x01, 0x02, 10, 0, 0, 0, 18, 0, 0, 0, 0x01, 0x61, 0x01, 0x64, 0x03, 0x03, 0x01, 0x31, 0x01, 0x63, 0x01, 0x64, 0x03, 0x04, 0x01, 0x78])
        let merge = try Self.merge(stored, #"{"K": {"b": true, "c": "x"}}"#, at: 100)
        #expect(merge == Merge(rewrite: true, changed: [0], out: [
            0x01, 0x03, 14, 0, 0, 0, 22, 0, 0, 0, 28, 0, 0, 0,
            0x01, 0x61, 0x01, 0x64, 0x03, 0x03, 0x01, 0x31,
            0x01, 0x62, 0x01, 0x64, 0x01, 0x02,
            0x01, 0x63, 0x01, 0x64, 0x03, 0x04, 0x01, 0x78,
        ]))
        #expect(merge.out == (try Self.encoded(#"{"K": {"a": 1, "b": true, "c": "x"}}"#, at: 100)))
    }

    @Test func theSameValuesAtTheSameTimeNeedNoRewrite() throws {
        let stored = try Self.storedAC()
        for incoming in [#"{"K": {"c": "x", "a": 1}}"#, #"{"K": {"a": 1}}"#, #"{"K": {}}"#] {
            #expect(try Self.merge(stored, incoming, at: 100) == Merge(rewrite: false, changed: [], out: Self.untouched), "\(incoming)")
        }
    }

    @Test func theSameValuesLaterRewriteOnlyTheirTimes() throws {
        let stored = try Self.storedAC()
        let merge = try Self.merge(stored, #"{"K": {"c": "x"}}"#, at: 200)
        #expect(merge == Merge(rewrite: true, changed: [], out: [
            0x01, 0x02, 10, 0, 0, 0, 18, 0, 0, 0,
            0x01, 0x61, 0x01, 0x64, 0x03, 0x03, 0x01, 0x31,
            0x01, 0x63, 0x01, 0xC8, 0x01, 0x03, 0x04, 0x01, 0x78,
        ]))
        #expect(Self.view(merge.out) == [Viewed("a", 100, [0x03, 0x01, 0x31]), Viewed("c", 200, [0x04, 0x01, 0x78])])
    }

    @Test func changedAndNewFieldsAreReportedAndTheRestKeepTheirTimes() throws {
        let stored = try Self.storedAC()
        // Incoming in key order: "0" (new), "a" (changed), "c" (the same), "d" (new).
        let merge = try Self.merge(stored, #"{"K": {"d": null, "a": [1, 2], "c": "x", "0": false}}"#, at: 300)
        #expect(merge.rewrite)
        #expect(merge.changed == [0, 1, 3])
        #expect(Self.view(merge.out) == [
            Viewed("0", 300, [0x01]),
            Viewed("a", 300, [0x05, 0x02, 6, 0, 0, 0, 0x03, 0x01, 0x31, 0x03, 0x01, 0x32]),
            Viewed("c", 300, [0x04, 0x01, 0x78]),
            Viewed("d", 300, [0x00]),
        ])
        let kept = try Self.merge(stored, #"{"K": {"b": 2}}"#, at: 300)
        #expect(kept.changed == [0])
        #expect(Self.view(kept.out) == [Viewed("a", 100, [0x03, 0x01, 0x31]), Viewed("b", 300, [0x03, 0x01, 0x32]), Viewed("c", 100, [0x04, 0x01, 0x78])])
    }

    /// The record `bytes` as `RecordEncoder.rewrite` writes it with `edit` into an `out`
    /// that holds `untouched`.
    static func rewriting(_ bytes: [UInt8], _ edit: (Int, RecordView.Field) -> RecordEncoder.FieldEdit) throws -> [UInt8] {
        try bytes.withUnsafeBytes { bytes in
            let view = try #require(RecordView(bytes))
            var out = ByteBuffer()
            out.append(contentsOf: untouched)
            _ = try Array("K".utf8).withUnsafeBytes { try RecordEncoder.rewrite(view, into: &out, key: $0, edit: edit) }
            return out.array
        }
    }

    /// The record `bytes` without its field at `index`.
    static func removing(_ index: Int, from bytes: [UInt8]) throws -> [UInt8] {
        try rewriting(bytes) { position, _ in position == index ? .drop : .keep }
    }

    @Test func removingAFieldKeepsTheOthersWithTheirTimes() throws {
        let stored = try Self.storedAC()
        // a@100, b@300, c@100: removing b gives back the stored record byte for byte.
        let three = try Self.merge(stored, #"{"K": {"b": 2}}"#, at: 300).out
        #expect(try Self.removing(1, from: three) == stored)
        #expect(Self.view(try Self.removing(0, from: three)) == [Viewed("b", 300, [0x03, 0x01, 0x32]), Viewed("c", 100, [0x04, 0x01, 0x78])])
        #expect(Self.view(try Self.removing(2, from: three)) == [Viewed("a", 100, [0x03, 0x01, 0x31]), Viewed("b", 300, [0x03, 0x01, 0x32])])
        #expect(try Self.removing(0, from: try Self.encoded(#"{"K": {"a": 1}}"#, at: 100)) == [0x01, 0x00])
        var damaged = Self.abc
        damaged[10] = 200
        #expect(throws: NormCacheError(.notACache, "record 'K' is damaged (field 2 of 3)")) { try Self.removing(0, from: damaged) }
    }

    @Test func aMergeIntoARecordWithoutFieldsWritesTheIncomingRecord() throws {
        #expect(Self.view([0x01, 0x00]) == [])
        let merge = try Self.merge([0x01, 0x00], #"{"K": {"b": 2, "a": 1}}"#, at: 100)
        #expect(merge == Merge(rewrite: true, changed: [0, 1], out: try Self.encoded(#"{"K": {"a": 1, "b": 2}}"#, at: 100)))
    }

    @Test func aMergeWithADamagedStoredFieldFailsNamingTheRecordAndTheField() throws {
        var stored = try Self.storedAC()
        stored[20] = 0x02  // the flags of field 1, "c"
        #expect(throws: NormCacheError(.notACache, "record 'K' is damaged (field 1 of 2)")) {
            try Self.merge(stored, #"{"K": {"b": 1}}"#, at: 100)
        }
        let longKey = String(repeating: "L", count: 100)
        #expect(throws: NormCacheError(.notACache, "record '\(String(repeating: "L", count: 80))… (100 bytes)' is damaged (field 1 of 2)")) {
            try Self.merge(stored, #"{"K": {"a": 1}}"#, at: 100, key: longKey)
        }
    }

    // MARK: Damaged bytes

    @Test func aTruncatedRecordIsRefusedExactlyWhereItLacksBytes() {
        for length in 0...Self.abc.count {
            let viewed = Self.view(Array(Self.abc.prefix(length)))
            // The header and offset table end at 14; the entries at 22, 30 and 36.
            guard length >= 14 else {
                #expect(viewed == nil, "\(length) bytes")
                continue
            }
            let whole = [22, 30, 36].map { length >= $0 }
            #expect(viewed == zip(Self.abcFields, whole).map { $1 ? $0 : nil }, "\(length) bytes")
        }
    }

    /// One byte of `abc` changed, and which fields the view still reads (nil: it refuses
    /// the record).
    struct Damage: Sendable, CustomTestStringConvertible {
        var offset: Int
        var byte: UInt8
        var readable: [Bool]?
        var testDescription: String { "byte \(offset) = \(byte)" }
    }

    @Test(arguments: [
        Damage(offset: 0, byte: 0x02, readable: nil),  // an unknown format
        Damage(offset: 0, byte: 0x00, readable: nil),
        Damage(offset: 1, byte: 0x09, readable: nil),  // 9 offsets do not fit in 34 bytes
        Damage(offset: 1, byte: 0x80, readable: nil),  // a count running into the table: 1792
        Damage(offset: 6, byte: 36, readable: [true, false, true]),  // an offset at the end
        Damage(offset: 9, byte: 0x80, readable: [true, false, true]),  // an offset 2 GiB on
        Damage(offset: 14, byte: 0x20, readable: [false, true, true]),  // a key past the end
        Damage(offset: 16, byte: 0x02, readable: [false, true, true]),  // unknown flags
        Damage(offset: 16, byte: 0x00, readable: [false, true, true]),  // no time: 0x64 read as a length
        Damage(offset: 33, byte: 0xFF, readable: [true, true, false]),  // a time that swallows the length
        Damage(offset: 34, byte: 0x02, readable: [true, true, false]),  // a value past the end
    ])
    func aDamagedByteIsRefusedWhereItLies(_ damage: Damage) {
        var bytes = Self.abc
        bytes[damage.offset] = damage.byte
        #expect(Self.view(bytes) == damage.readable.map { zip(Self.abcFields, $0).map { $1 ? $0 : nil } })
    }

    @Test func anEntryWithoutATimeReadsAsWrittenAtZero() {
        #expect(Self.view([0x01, 0x01, 6, 0, 0, 0, 0x01, 0x61, 0x00, 0x01, 0x02]) == [Viewed("a", 0, [0x02])])
    }

    @Test func aSearchThatMeetsADamagedEntryIsDamagedNotAbsent() throws {
        var bytes = Self.abc
        bytes[24] = 0x02  // the flags of "b", the first entry a search of three reads
        for key in ["a", "b", "c", "d"] {
            #expect(try Self.index(of: key, in: bytes) == nil, "\(key)")
        }
    }
}
