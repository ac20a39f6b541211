extension Bench {
    /// Workload "eviction": a loop of puts of new records (100 a put, each put its own
    /// commit) into a cache without a size limit and into one with `max_bytes` a quarter
    /// of the data the unlimited loop ends with, interleaved. Reports the write cost
    /// with the limit against without, and the most data bytes the limited cache held
    /// after any put (target: never above `max_bytes`).
    func runEviction() throws {
        let puts = options.evictionPuts
        let batches = (0..<puts).map { Responses.groupRecords(group: "Item", first: $0 * 100, count: 100) }
        let maxBytes = try max(65_536, unlimitedDataBytes(batches) / 4)
        var mostSeen = Series()
        let series = try interleave([
            { [self] in try writeLoop(batches, options: #"{"durability": "fast"}"#).seconds },
            { [self] in
                let (seconds, most) = try writeLoop(batches, options: #"{"durability": "fast", "max_bytes": \#(maxBytes)}"#)
                mostSeen.append(Double(most))
                return seconds
            },
        ], label: "eviction")
        add(Figure(workload: "eviction", measure: "\(puts) puts of 100 records, max_bytes \(maxBytes)", normcache: series[1],
                   objects: puts * 100, baselineName: "the same puts without a limit", baseline: series[0]))
        add(Figure(workload: "eviction", measure: "most data bytes after a put, max_bytes \(maxBytes)", unit: .bytes,
                   normcache: mostSeen, target: Target(kind: .valueBelow, bound: Double(maxBytes + 1))))
    }

    /// The data bytes a cache without a limit holds after `batches`.
    private func unlimitedDataBytes(_ batches: [[UInt8]]) throws -> Int {
        let path = freshPath("eviction-size.cache")
        defer { removeCache(path) }
        let cache = try CacheClient(path: path, options: #"{"durability": "fast"}"#)
        for batch in batches { try batch.withUnsafeBytes { _ = try cache.put($0) } }
        return try cache.statNumber("data_bytes")
    }

    /// Puts `batches` one by one into a fresh cache opened with `options`, reading the
    /// data bytes after each (outside the time); returns the seconds of the puts and
    /// the most data bytes seen.
    private func writeLoop(_ batches: [[UInt8]], options: String) throws -> (seconds: Double, most: Int) {
        let path = freshPath("eviction.cache")
        defer { removeCache(path) }
        let cache = try CacheClient(path: path, options: options)
        var seconds = 0.0, most = 0
        for batch in batches {
            seconds += try batch.withUnsafeBytes { bytes in try timed { _ = try cache.put(bytes) } }
            most = max(most, try cache.statNumber("data_bytes"))
        }
        return (seconds, most)
    }
}
