import Testing
@testable import NormCache

/// `FreshTimes`, a read's one-comparison test of plain written-at times: fresh exactly
/// when the time plus the max age is past the read's time; anything it cannot settle
/// (an old time, an expiry, a time before 1978, a time past 3058) left to the full
/// check; the oldest time and the earliest expiry of the fields it found fresh.
@Suite struct FreshTimesTests {
    static let now: UInt64 = 1_700_000_000

    /// The metadata bytes of a field written at `time`, with `expiresAt` if given.
    func metadata(_ time: UInt64, expiresAt: UInt64? = nil) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: FieldMetadata.maximumLength)
        let length = bytes.withUnsafeMutableBytes { FieldMetadata(writtenAt: time, expiresAt: expiresAt).write(to: $0.baseAddress!) }
        return Array(bytes[..<length])
    }

    func isFresh(_ bound: inout FreshTimes, _ metadata: [UInt8], maxAge: UInt32) -> Bool {
        metadata.withUnsafeBytes { bound.isFresh($0, maxAge: maxAge) }
    }

    @Test func freshUntilTheTimePlusTheMaxAgeIsReached() {
        var bound = FreshTimes(now: Self.now)
        #expect(isFresh(&bound, metadata(Self.now - 3599), maxAge: 3600))
        #expect(!isFresh(&bound, metadata(Self.now - 3600), maxAge: 3600))
        #expect(!isFresh(&bound, metadata(Self.now - 3601), maxAge: 3600))
        #expect(isFresh(&bound, metadata(Self.now), maxAge: 3600))
        #expect(isFresh(&bound, metadata(Self.now + 10), maxAge: 0))
        #expect(!isFresh(&bound, metadata(Self.now), maxAge: 0))
    }

    @Test func theBoundFollowsTheMaxAgeOfEachField() {
        var bound = FreshTimes(now: Self.now)
        let written = metadata(Self.now - 100)
        let answers = [(3600, true), (100, false), (101, true), (60, false), (MaxAgeRules.forever, true), (100, false)]
        for (maxAge, fresh) in answers {
            #expect(isFresh(&bound, written, maxAge: UInt32(maxAge)) == fresh, "max age \(maxAge)")
        }
    }

    @Test func neverExpiringAndYoungerThanTheMaxAgeIsFresh() {
        var bound = FreshTimes(now: Self.now)
        #expect(isFresh(&bound, metadata(1 << 28), maxAge: MaxAgeRules.forever))
        var early = FreshTimes(now: (1 << 28) + 5)
        #expect(isFresh(&early, metadata(1 << 28), maxAge: UInt32((1 << 28) + 6)))
        #expect(isFresh(&early, metadata(1 << 28), maxAge: 6))
        #expect(!isFresh(&early, metadata(1 << 28), maxAge: 5))
    }

    @Test func whatItCannotSettleIsLeftToTheFullCheck() {
        var bound = FreshTimes(now: Self.now)
        // An expiry, a time before 1978 (fewer than five bytes): not settled here.
        #expect(!isFresh(&bound, metadata(Self.now, expiresAt: Self.now + 10), maxAge: 3600))
        #expect(!isFresh(&bound, metadata(1000), maxAge: MaxAgeRules.forever))
        #expect(!isFresh(&bound, [], maxAge: MaxAgeRules.forever))
        // A read's time so late that no five-byte time is fresh under the max age.
        var late = FreshTimes(now: FieldMetadata.plainTimeLimit + 100)
        #expect(!isFresh(&late, metadata(FieldMetadata.plainTimeLimit - 1), maxAge: 50))
        #expect(isFresh(&late, metadata(FieldMetadata.plainTimeLimit - 1), maxAge: MaxAgeRules.forever))
    }

    @Test func theOldestTimeAndEarliestExpiryOfTheFreshFieldsAreKeptAcrossMaxAges() {
        var times = FreshTimes(now: Self.now)
        #expect(times.oldestWrittenAt == .max && times.earliestExpiry == .max)
        let fields: [(written: UInt64, maxAge: UInt32, fresh: Bool)] = [
            (Self.now - 50, 3600, true), (Self.now - 3000, 3600, true), (Self.now - 20, 100, true),
            (Self.now - 200, 100, false), (Self.now - 40, 3600, true), (Self.now - 9000, MaxAgeRules.forever, true),
            (Self.now - 10, 100, true),
        ]
        for field in fields {
            #expect(isFresh(&times, metadata(field.written), maxAge: field.maxAge) == field.fresh, "written \(field.written)")
        }
        // The stale field is the full check's to report, not counted here.
        #expect(times.oldestWrittenAt == Self.now - 9000)
        #expect(times.earliestExpiry == Self.now + 80)  // written 20 s ago, 100 s max age
    }

    @Test func neverExpiringFieldsHaveNoExpiry() {
        var times = FreshTimes(now: Self.now)
        #expect(isFresh(&times, metadata(Self.now - 7), maxAge: MaxAgeRules.forever))
        #expect(isFresh(&times, metadata(Self.now - 9), maxAge: MaxAgeRules.forever))
        #expect(times.oldestWrittenAt == Self.now - 9 && times.earliestExpiry == .max)
        #expect(isFresh(&times, metadata(Self.now - 1), maxAge: 5))
        #expect(times.oldestWrittenAt == Self.now - 9 && times.earliestExpiry == Self.now + 4)
    }
}
