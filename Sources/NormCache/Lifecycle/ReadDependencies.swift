/// What a read used, as a watcher depends on it: each record it looked for (present
/// or absent) and each field it looked up in a present record, whether the record had
/// it or not (a field that arrives later changes the result too). Kept as 64-bit
/// hashes (`ChangeHub` indexes watchers by them): two keys of the same hash can only
/// wake a watcher for nothing, never keep one asleep.
struct ReadDependencies {
    /// The hashes of what the read used; the same one may come more than once.
    private(set) var hashes: [UInt64] = []

    /// Notes the record `key`, found or not.
    mutating func noteRecord(_ key: UnsafeRawBufferPointer, present: Bool) {
        hashes.append(Self.record(key))
        if !present { hashes.append(Self.absentRecord(key)) }
    }

    /// Notes the field `field` of the record `record`.
    mutating func noteField(record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer) {
        hashes.append(Self.field(record: record, field: field))
    }

    /// The hash a watcher that used the record `key` is found by: a commit that
    /// removes or replaces that record wakes it.
    static func record(_ key: UnsafeRawBufferPointer) -> UInt64 {
        KeyBytes.hash(key, seed: seed)
    }

    /// The hash a watcher that looked for the record `key` and missed it is found by:
    /// any field written to that record wakes it.
    static func absentRecord(_ key: UnsafeRawBufferPointer) -> UInt64 {
        KeyBytes.hash(key, seed: seed ^ 0x5BD1_E995_5BD1_E995)
    }

    /// The hash a watcher that used the field `field` of the record `record` is found by.
    static func field(record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer) -> UInt64 {
        KeyBytes.hash(field, seed: KeyBytes.hash(record, seed: seed ^ 0x9E37_79B9_7F4A_7C15))
    }

    private static var seed: UInt64 { KeyBytes.seed }
}
