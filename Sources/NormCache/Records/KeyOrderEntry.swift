/// A record of a batch as the batch sorts it into key order: the first sixteen bytes of
/// its key as two big-endian words (`KeyBytes.word`), zeros past a shorter key. Keys
/// whose words differ are in the order of their words; keys whose words tie are compared
/// whole (zeros past the end never put a shorter key after a longer one it starts).
struct KeyOrderEntry {
    /// The key's bytes 0 to 7.
    var head: UInt64
    /// The key's bytes 8 to 15.
    var tail: UInt64
    /// The record's index in the batch.
    var record: Int32
}
