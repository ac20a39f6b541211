/// The records of a key group as of one moment, for dumps and inventories.
extension NormalizedCache {
    /// Calls `body` with the key and the JSON (as `record(_:)` gives it) of each record
    /// whose key starts with `prefix` (empty: every record), in key order, all from one
    /// read transaction: the records as of one moment, whatever other threads and
    /// processes write meanwhile. The transaction stays open while `body` runs, and a
    /// long-lived reader keeps LMDB from reusing the pages written since it began.
    public func forEachRecord(withPrefix prefix: String = "",
                              _ body: (String, [UInt8]) throws(NormCacheError) -> Void) throws(NormCacheError) {
        try prefix.withUTF8Bytes { (prefix) throws(NormCacheError) in
            try store.read { (txn) throws(NormCacheError) in
                try txn.forEachRecord(withPrefix: prefix) { (key, stored) throws(NormCacheError) in
                    var out = ByteBuffer(capacity: stored.count + 16)
                    guard let view = RecordView(stored), view.appendJSON(to: &out) else { throw txn.damaged(key) }
                    try out.check(while: "reading the record")
                    try body(String(decoding: key, as: UTF8.self), out.array)
                }
            }
        }
    }
}
