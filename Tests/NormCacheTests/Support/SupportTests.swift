import Glibc
import Testing
@testable import NormCache

/// The byte-level helpers of the hot paths, against plain Swift.
@Suite struct SupportTests {
    @Test func keyOrderAndEqualityAgreeWithByteComparison() {
        // Every length up to 20, differing at every place, and proper prefixes.
        for length in 0...20 {
            let base = (0..<length).map { UInt8(0x40 + $0) }
            var variants: [[UInt8]] = [base, base + [0], base + [0xFF], Array(base.dropLast())]
            for place in 0..<length {
                for delta in [-1, 1] {
                    var changed = base
                    changed[place] = UInt8(Int(changed[place]) + delta)
                    variants.append(changed)
                }
            }
            for left in variants {
                for right in variants {
                    left.withUnsafeBytes { a in
                        right.withUnsafeBytes { b in
                            let expected = left.lexicographicallyPrecedes(right) ? -1 : (left == right ? 0 : 1)
                            #expect(KeyBytes.compare(a, b).signum() == expected, "\(left) vs \(right)")
                            #expect(KeyBytes.equal(a, b) == (left == right))
                        }
                    }
                }
            }
        }
    }

    @Test func keyWordsAreTheBigEndianBytesAtTheirPlaceWithZerosPastTheEnd() {
        // Every length up to 24, at both places the batch's sort reads, with bytes that
        // differ from their neighbours (so a shift by a wrong count shows).
        for length in 0...24 {
            let key = (0..<length).map { UInt8(0x31 + $0 * 7 % 200) }
            for start in [0, 8] {
                let expected = (start..<(start + 8)).reduce(UInt64(0)) { $0 << 8 | UInt64($1 < length ? key[$1] : 0) }
                key.withUnsafeBytes { bytes in
                    #expect(KeyBytes.word(of: bytes, at: start) == expected, "length \(length), at \(start)")
                }
            }
        }
        // A nine-byte key, as `Post:1234`: its tail word is its last byte, then zeros
        // (the shifted load of its last eight bytes, which ends at the key's end).
        let tail: [UInt8] = Array("Post:1234".utf8)
        tail.withUnsafeBytes { bytes in
            #expect(KeyBytes.word(of: bytes, at: 8) == UInt64(UInt8(ascii: "4")) << 56)
            #expect(KeyBytes.word(of: bytes, at: 0) == UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
        }
    }

    @Test func varintsTakeTheirLengthAndReadBack() {
        for value: UInt64 in [0, 1, 127, 128, 300, 16_383, 16_384, 1_700_000_000, UInt64(UInt32.max), .max] {
            var buffer = ByteBuffer()
            buffer.append(0xAA)
            buffer.appendVarint(value)
            buffer.append(contentsOf: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])
            #expect(buffer.count == 1 + Varint.length(value) + 8)
            var reader = ByteReader(buffer.bytes, at: 1)
            #expect(reader.readVarint() == value)
            #expect(reader.offset == 1 + Varint.length(value))
            // At the very end of the bytes too (no word to load past it).
            var tight = ByteBuffer()
            tight.appendVarint(value)
            var end = ByteReader(tight.bytes)
            #expect(end.readVarint() == value)
            #expect(end.isAtEnd)
        }
    }

    @Test func varintsPastSixtyFourBitsOrTenBytesAreRefused() {
        let nines = [UInt8](repeating: 0xFF, count: 9)
        for (bytes, expected) in [(nines + [0x01], UInt64.max), (nines + [0x02], nil), (nines + [0x7F], nil),
                                  (nines + [0x81, 0x00], nil), ([0x80, 0x80], nil)] as [([UInt8], UInt64?)] {
            bytes.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                #expect(reader.readVarint() == expected, "\(bytes)")
            }
        }
    }

    @Test func buffersGrowKeepTheirBytesAndHandThemOver() {
        var buffer = ByteBuffer()
        for round in 0..<100_000 { buffer.append(UInt8(truncatingIfNeeded: round)) }
        buffer.append("end")
        #expect(buffer.count == 100_003)
        #expect(buffer.bytes[99_999] == UInt8(truncatingIfNeeded: 99_999))
        buffer.truncate(to: 2)
        let block = buffer.takeBlock()
        #expect(block.count == 2)
        #expect(block.start.load(fromByteOffset: 2, as: UInt8.self) == 0)
        free(block.start)

        var array = PlainArray<Int>()
        let first = array.append(count: 3, filling: 7)
        for value in 0..<1_000 { array.append(value) }
        #expect(first == 0)
        #expect(array.count == 1_003)
        #expect(array[2] == 7 && array[1_002] == 999)
        array.truncate(to: 1)
        #expect(array.count == 1)
    }
}
