import CLMDB

/// The reader slots of a cache file in use, by every process, as LMDB's reader table
/// (`mdb_reader_list`) shows them.
struct ReaderTable {
    /// Slots held by a live process: a read in progress holds one, and so does a read
    /// transaction kept between reads (`IdleReadTransactions`).
    var slotsTaken = 0
    /// Slots of reads in progress: those that read a snapshot.
    var reading = 0
    /// The oldest snapshot a slot reads (a transaction id), or nil when none reads.
    var oldestSnapshot: UInt64?

    /// Adds the slot of one line of `mdb_reader_list`: `pid thread txnid`, the txnid
    /// `-` for a slot between reads. The title line and "(no active readers)" add nothing.
    mutating func add(line: UnsafePointer<CChar>) {
        var fields: [[UInt8]] = [[]]
        var byte = line
        while byte.pointee != 0 {
            let character = UInt8(bitPattern: byte.pointee)
            if character == UInt8(ascii: " ") || character == UInt8(ascii: "\n") {
                if !fields[fields.count - 1].isEmpty { fields.append([]) }
            } else {
                fields[fields.count - 1].append(character)
            }
            byte += 1
        }
        if fields[fields.count - 1].isEmpty { fields.removeLast() }
        guard fields.count == 3, let pid = Self.number(fields[0]), pid > 0 else { return }
        slotsTaken += 1
        guard let snapshot = Self.number(fields[2]) else { return }
        reading += 1
        oldestSnapshot = min(oldestSnapshot ?? snapshot, snapshot)
    }

    /// The decimal number `digits`, or nil.
    private static func number(_ digits: [UInt8]) -> UInt64? {
        guard !digits.isEmpty, digits.count < 20, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return digits.reduce(0) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
    }
}
