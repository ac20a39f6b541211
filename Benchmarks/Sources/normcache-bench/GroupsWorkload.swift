import Foundation

extension Bench {
    /// Workload 4, groups: a million records in 10 key groups. Prefix search of one
    /// group (all keys, and pages of 100) against a raw cursor scan; single-key gets
    /// against raw gets; the file size against raw LMDB holding the same records; and
    /// opening the cache and reading one query in a fresh process.
    func runGroups() throws {
        let perGroup = Swift.max(1, options.groupRecords / 10)
        let total = perGroup * 10
        let path = freshPath("groups.cache")
        var loadSeconds = 0.0
        do {
            let cache = try CacheClient(path: path)
            progress("  groups: loading \(total) records")
            let chunk = 50_000
            for group in 0..<10 {
                for first in stride(from: 0, to: perGroup, by: chunk) {
                    let records = Responses.groupRecords(group: "Group\(group)", first: first, count: Swift.min(chunk, perGroup - first))
                    loadSeconds += try records.withUnsafeBytes { bytes in try timed { try cache.put(bytes) } }
                }
            }
            let feed = try cache.prepare(Responses.feedQuery)
            try Responses.feed(posts: 100).withUnsafeBytes { _ = try cache.write(feed, response: $0) }
        }
        let records = try RawLMDB.records(ofCache: path)
        let sameBytesPath = freshPath("groups-raw.lmdb")
        let mapSize = 8 * records.byteCount + (256 << 20)
        let raw = try RawLMDB(path: sameBytesPath, mapSize: mapSize)
        let rawLoad = try timed { try raw.putAll(records) }
        progress("  groups: loaded in \(formatValue(loadSeconds, .seconds)) (raw LMDB: \(formatValue(rawLoad, .seconds)))")
        try addDiskSizeFigures(cachePath: path, records: records, sameBytesSize: raw.fileSize, mapSize: mapSize)

        let cache = try CacheClient(path: path)
        let prefix = "Group4:"
        var keys: [UInt8] = []
        let search = try interleave([
            { try timed { try cache.search(prefix: prefix) } },
            { try timed { try raw.scan(prefix: Array(prefix.utf8), into: &keys) } },
        ], label: "groups search")
        add(Figure(workload: "groups", measure: "prefix search, all \(perGroup) keys of a group", normcache: search[0],
                   objects: perGroup, baselineName: "raw LMDB cursor scan", baseline: search[1],
                   target: Target(kind: .ratioAtMost, bound: 1.5)))

        let pages = try interleave([
            { try timed {
                var last: [UInt8]? = nil
                for _ in 0..<((perGroup + 99) / 100) {
                    var page: [UInt8] = []
                    try cache.search(prefix: prefix, after: last, limit: 100, lastKey: &page)
                    last = page
                }
            } },
            { try timed {
                var last: [UInt8]? = nil
                for _ in 0..<((perGroup + 99) / 100) { last = try raw.scan(prefix: Array(prefix.utf8), after: last, limit: 100, into: &keys) }
            } },
        ], label: "groups pages")
        add(Figure(workload: "groups", measure: "prefix search, the group in pages of 100", normcache: pages[0],
                   objects: perGroup, baselineName: "raw LMDB cursor pages", baseline: pages[1]))

        var random = SplitMix(seed: 99)
        var sample = RecordSet()
        records.withStorage { storage in
            for _ in 0..<Swift.min(10_000, records.count) {
                let pair = records.pairs[Int(random.next() % UInt64(records.count))]
                sample.append(key: UnsafeRawBufferPointer(rebasing: storage[pair.keyOffset..<(pair.keyOffset + pair.keyLength)]),
                              value: UnsafeRawBufferPointer(rebasing: storage[pair.valueOffset..<(pair.valueOffset + pair.valueLength)]))
            }
        }
        var values: [UInt8] = []
        let gets = try interleave([
            { try sample.withStorage { storage in try timed {
                for pair in sample.pairs {
                    try cache.get(UnsafeRawBufferPointer(rebasing: storage[pair.keyOffset..<(pair.keyOffset + pair.keyLength)]))
                }
            } } },
            { try timed { try raw.getEach(sample, into: &values) } },
        ], label: "groups gets")
        add(Figure(workload: "groups", measure: "\(sample.count) single-key gets", normcache: gets[0], objects: sample.count,
                   baselineName: "raw LMDB gets + copy", baseline: gets[1], target: Target(kind: .ratioAtMost, bound: 1.2)))

        var openRead = Series()
        for run in 0..<options.runs {
            progress("  groups open+read: run \(run + 1)/\(options.runs)")
            let child = try runChild("open-read", [path])
            guard let seconds = child["total"] as? Double else { throw BenchError("the open-read child gave no time") }
            openRead.append(seconds)
        }
        add(Figure(workload: "groups", measure: "open a \(total)-record cache and read one query (fresh process)",
                   normcache: openRead, target: Target(kind: .valueBelow, bound: 0.005)))
    }

    /// The cache file's size against raw LMDB holding the same records: as normcache's
    /// JSON notation (what a plain store of records keeps), and as its stored bytes.
    private func addDiskSizeFigures(cachePath: String, records: RecordSet, sameBytesSize: Int, mapSize: Int) throws {
        var asJSON = RecordSet()
        do {
            let cache = try CacheClient(path: cachePath)
            for index in 0..<records.count {
                let key = records.key(index)
                let json = try cache.getBytes(key)
                key.withUnsafeBytes { keyBytes in json.withUnsafeBytes { asJSON.append(key: keyBytes, value: $0) } }
            }
        }
        let jsonPath = freshPath("groups-json.lmdb")
        try RawLMDB(path: jsonPath, mapSize: mapSize).putAll(asJSON)
        let cacheSize = Double(RawLMDB.fileSize(cachePath))
        add(Figure(workload: "groups", measure: "disk size, \(records.count) records", unit: .bytes,
                   normcache: Series(values: [cacheSize]), objects: records.count,
                   baselineName: "raw LMDB, records as JSON", baseline: Series(values: [Double(RawLMDB.fileSize(jsonPath))]),
                   target: Target(kind: .ratioAtMost, bound: 1.5)))
        add(Figure(workload: "groups", measure: "disk size, \(records.count) records", unit: .bytes,
                   normcache: Series(values: [cacheSize]), objects: records.count,
                   baselineName: "raw LMDB, the same stored bytes", baseline: Series(values: [Double(sameBytesSize)])))
        try? FileManager.default.removeItem(atPath: jsonPath)
    }
}
