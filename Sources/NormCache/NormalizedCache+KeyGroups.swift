/// A cache's key groups with their sizes and ages, read in one pass.
extension NormalizedCache {
    /// Every key group of the cache (see `KeyGroupStats.group`), ordered by the bytes
    /// of its name, counted in one read transaction: each record is visited once.
    public func keyGroupStats() throws(NormCacheError) -> [KeyGroupStats] {
        try store.read { (txn) throws(NormCacheError) in
            var groups: [KeyGroupStats] = []
            var indexes: [[UInt8]: Int] = [:]
            try txn.forEachRecord(withPrefix: UnsafeRawBufferPointer(start: nil, count: 0)) { (key, stored) throws(NormCacheError) in
                guard let view = RecordView(stored) else { throw txn.damaged(key) }
                var oldest = UInt64.max, newest: UInt64 = 0
                for position in 0..<view.count {
                    guard let field = view.field(at: position) else { throw txn.damaged(key) }
                    oldest = min(oldest, field.writtenAt); newest = max(newest, field.writtenAt)
                }
                let name = Array(KeyGroupStats.group(of: key))
                let index: Int
                if let known = indexes[name] {
                    index = known
                } else {
                    index = groups.count
                    indexes[name] = index
                    groups.append(KeyGroupStats(group: String(decoding: name, as: UTF8.self), records: 0, bytes: 0,
                                                oldestWrite: oldest, newestWrite: newest))
                }
                groups[index].records += 1
                groups[index].bytes += key.count + stored.count
                groups[index].oldestWrite = min(groups[index].oldestWrite, oldest)
                groups[index].newestWrite = max(groups[index].newestWrite, newest)
            }
            return groups.sorted { $0.group.utf8.lexicographicallyPrecedes($1.group.utf8) }
        }
    }
}
