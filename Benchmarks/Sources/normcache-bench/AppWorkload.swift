import CSimdjsonWalk
import Foundation

/// One query of the app workload, ready to measure: normcache's cache holding its
/// response, and raw LMDB holding the very records normcache stored for it.
private struct AppCase {
    var query: AppShapes.Query
    var response: [UInt8]
    var padded: PaddedBytes
    var cache: CacheClient
    var operation: PreparedOperation
    var raw: RawLMDB
    var records: RecordSet
    var readBytes: Int
}

extension Bench {
    /// Workload app: the queries of `AppShapes` (nested single objects as an app sends
    /// them, and 40 objects in single fields against the same 40 as a list element each),
    /// each written once, then read `appReads` times and rewritten `appWrites` times per
    /// run through the C interface (prepared once). Baselines: raw LMDB gets of the same
    /// records copying their bytes; for a rewrite, simdjson's parse and walk plus those
    /// gets (an identical rewrite changes nothing: its floor is reading the response and
    /// the records it would change; raw puts of unchanged values would still dirty pages
    /// and sync them, about 10 ms a commit here, which normcache's identical rewrite does
    /// not pay). Targets: an object in a single field costs at most 1.5× a list element
    /// (the difference between 40 objects and 1, per object), and a read of the viewer
    /// and one object (fields-1) takes under 5 µs.
    func runApp() throws {
        let cases = try AppShapes.queries.map(prepareAppCase)
        let parser = simdjson_walk_parser_new()
        defer { simdjson_walk_parser_free(parser) }
        let reads = options.appReads, writes = options.appWrites
        var output: [UInt8] = []
        var steps: [() throws -> Double] = []
        for appCase in cases {
            steps += [
                { try timed { for _ in 0..<reads { try appCase.cache.read(appCase.operation) } } / Double(reads) },
                { try timed { for _ in 0..<reads { try appCase.raw.getAll(appCase.records, into: &output) } } / Double(reads) },
                {
                    try appCase.response.withUnsafeBytes { bytes in
                        try timed { for _ in 0..<writes { try appCase.cache.write(appCase.operation, response: bytes) } }
                    } / Double(writes)
                },
                {
                    try timed {
                        for _ in 0..<writes {
                            appCase.padded.walk(with: parser)
                            try appCase.raw.getAll(appCase.records, into: &output)
                        }
                    } / Double(writes)
                },
            ]
        }
        let series = try interleave(steps, label: "app")
        var readSeries: [String: Series] = [:], writeSeries: [String: Series] = [:]
        for (index, appCase) in cases.enumerated() {
            let (read, gets, write, parseAndGets) = (series[4 * index], series[4 * index + 1], series[4 * index + 2], series[4 * index + 3])
            readSeries[appCase.query.name] = read
            writeSeries[appCase.query.name] = write
            let name = "\(appCase.query.name) (\(appCase.query.objects) objects, \(appCase.records.count) records)"
            let small = appCase.query.name == "fields-1"
            add(Figure(workload: "app", measure: "read \(name)" + (small ? ", a small read" : ""), normcache: read,
                       objects: appCase.query.objects, bytes: appCase.readBytes,
                       baselineName: "raw LMDB gets + copy", baseline: gets,
                       target: small ? Target(kind: .valueBelow, bound: 5e-6) : nil))
            add(Figure(workload: "app", measure: "identical rewrite \(name)", normcache: write, objects: appCase.query.objects,
                       bytes: appCase.response.count, baselineName: "simdjson parse+walk + raw LMDB gets + copy",
                       baseline: parseAndGets))
        }
        for (what, byName) in [("read", readSeries), ("rewrite", writeSeries)] {
            // The cost of one more object: (40 objects − 1 object) ÷ 39, run by run.
            func perObject(_ many: String, _ one: String) -> Series {
                Series(values: zip(byName[many]!.values, byName[one]!.values).map { ($0 - $1) / 39 })
            }
            add(Figure(workload: "app", measure: "\(what), per single-field object (fields-40 − fields-1)/39",
                       normcache: perObject("fields-40", "fields-1"),
                       baselineName: "per list element (list-40 − list-1)/39", baseline: perObject("list-40", "list-1"),
                       target: Target(kind: .ratioAtMost, bound: 1.5)))
        }
        try measureFirstCalls(AppShapes.pullRequestView, operations: writes)
    }

    /// Writes the query's response into a new cache, copies the records it stored into a
    /// new raw LMDB file (with the cache closed), and opens both for the runs; checks that
    /// a read gives the response's data back. Both handles share one `HarnessClock`, so
    /// the runs' rewrites fall in the first write's second and change nothing.
    private func prepareAppCase(_ query: AppShapes.Query) throws -> AppCase {
        let response = query.response
        let path = freshPath("app-\(query.name).cache")
        let clock = HarnessClock()
        do {
            let cache = try CacheClient(path: path)
            try cache.setClock(clock)
            try cache.configure(AppShapes.config)
            try response.withUnsafeBytes { _ = try cache.write(try cache.prepare(query.text), response: $0) }
        }
        let records = try RawLMDB.records(ofCache: path)
        let cache = try CacheClient(path: path)
        try cache.setClock(clock)
        try cache.configure(AppShapes.config)
        let operation = try cache.prepare(query.text)
        let raw = try RawLMDB(path: freshPath("app-\(query.name)-raw.lmdb"), mapSize: 64 << 20)
        try raw.putAll(records)
        let read = try cache.readBytes(operation)
        try checkAppRead(read, of: query, response: response)
        return AppCase(query: query, response: response, padded: PaddedBytes(response), cache: cache, operation: operation,
                       raw: raw, records: records, readBytes: read.count)
    }

    /// Fails unless `read` is the response's data without `__typename` (which normcache
    /// adds to the document it sends, not to the user's selection).
    private func checkAppRead(_ read: [UInt8], of query: AppShapes.Query, response: [UInt8]) throws {
        func withoutTypename(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { $0.key != "__typename" }.mapValues(withoutTypename)
            }
            if let array = value as? [Any] { return array.map(withoutTypename) }
            return value
        }
        let data = (try JSONSerialization.jsonObject(with: Data(response)) as? [String: Any])?["data"]
        guard let expected = data.map(withoutTypename) as? NSDictionary,
              let actual = try JSONSerialization.jsonObject(with: Data(read)) as? NSDictionary, actual == expected
        else { throw BenchError("app \(query.name): the data read back differs from the response's") }
    }
}
