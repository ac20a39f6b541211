import CSimdjsonWalk

extension Bench {
    /// Workload 5, small writes: single-record puts, each its own durable transaction,
    /// and the same records through one batch, against raw LMDB committing the same
    /// stored bytes the same way; the batch also against simdjson's parse and walk of its
    /// JSON plus those raw puts, the floor of any put that takes its records as JSON.
    func runSmallWrites() throws {
        let count = options.smallWrites
        let singles = (0..<count).map { number in
            Responses.groupRecords(group: "Item", first: number, count: 1)
        }
        let batch = Responses.groupRecords(group: "Item", first: 0, count: count)
        let primePath = freshPath("small-prime.cache")
        do {
            let cache = try CacheClient(path: primePath)
            try batch.withUnsafeBytes { _ = try cache.put($0) }
        }
        let records = try RawLMDB.records(ofCache: primePath)
        removeCache(primePath)
        let mapSize = 16 * records.byteCount + (64 << 20)
        let padded = PaddedBytes(batch)
        let parser = simdjson_walk_parser_new()
        defer { simdjson_walk_parser_free(parser) }

        let series = try interleave([
            { [self] in
                let path = freshPath("small.cache")
                let cache = try CacheClient(path: path)
                defer { removeCache(path) }
                return try timed { for single in singles { try single.withUnsafeBytes { _ = try cache.put($0) } } }
            },
            { [self] in
                let path = freshPath("small-raw.lmdb")
                defer { removeCache(path) }
                let raw = try RawLMDB(path: path, mapSize: mapSize)
                return try timed { try raw.putEach(records) }
            },
            { [self] in
                let path = freshPath("small-batch.cache")
                let cache = try CacheClient(path: path)
                defer { removeCache(path) }
                return try batch.withUnsafeBytes { bytes in try timed { try cache.put(bytes) } }
            },
            { [self] in
                let path = freshPath("small-batch-raw.lmdb")
                defer { removeCache(path) }
                let raw = try RawLMDB(path: path, mapSize: mapSize)
                return try timed { try raw.putAll(records) }
            },
            { [self] in
                let path = freshPath("small-batch-parsed.lmdb")
                defer { removeCache(path) }
                let raw = try RawLMDB(path: path, mapSize: mapSize)
                let parse = timed { padded.walk(with: parser) }
                return parse + (try timed { try raw.putAll(records) })
            },
        ], label: "small writes")
        add(Figure(workload: "small writes", measure: "\(count) single-record durable puts", normcache: series[0],
                   objects: count, baselineName: "raw LMDB, one committed txn per record", baseline: series[1],
                   target: Target(kind: .speedupAtLeast, bound: 0.8)))
        add(Figure(workload: "small writes", measure: "the same \(count) records in one put", normcache: series[2],
                   objects: count, bytes: batch.count, baselineName: "raw LMDB, one committed txn", baseline: series[3],
                   target: Target(kind: .ratioAtMost, bound: 1.5)))
        add(Figure(workload: "small writes", measure: "the same \(count) records in one put", normcache: series[2],
                   objects: count, bytes: batch.count, baselineName: "floor: simdjson parse+walk + raw LMDB, one txn",
                   baseline: series[4]))
    }
}
