import Foundation

extension Bench {
    /// The first calls through a newly prepared operation (app workload, the query
    /// `query`): `prepare` itself, the first write (which compiles the shapes of the
    /// objects it meets) and the first read of an operation no write came through (a
    /// process reading what another wrote compiles its own), each against the same call
    /// made again. A process that prepares an operation for one call (a command-line
    /// tool, a script) pays the first call every time. Each step of a run prepares
    /// `operations` copies of the query, named apart so that each is new; a write of the
    /// response is an identical rewrite (the cache holds it, and the harness's clock
    /// keeps the second), so a first write's difference from a later one is its compile.
    /// No targets: the figures say what the first call costs.
    func measureFirstCalls(_ query: AppShapes.Query, operations: Int) throws {
        let path = freshPath("app-first-calls.cache")
        defer { removeCache(path) }
        let cache = try CacheClient(path: path)
        try cache.setClock(HarnessClock())
        try cache.configure(AppShapes.config)
        let response = query.response
        let again = try cache.prepare(query.text)
        try response.withUnsafeBytes { _ = try cache.write(again, response: $0) }
        var copies = 0
        /// `operations` new copies of the query, prepared.
        func prepareNew() throws -> [PreparedOperation] {
            try (0..<operations).map { _ in
                copies += 1
                return try cache.prepare(query.text.replacingOccurrences(of: "query ", with: "query First\(copies)", options: .anchored))
            }
        }
        func write(_ operation: PreparedOperation) throws {
            try response.withUnsafeBytes { _ = try cache.write(operation, response: $0) }
        }
        let count = Double(operations)
        let series = try interleave([
            { try timed { _ = try prepareNew() } / count },
            { let new = try prepareNew(); return try timed { for operation in new { try write(operation) } } / count },
            { try timed { for _ in 0..<operations { try write(again) } } / count },
            { let new = try prepareNew(); return try timed { for operation in new { _ = try cache.read(operation) } } / count },
            { try timed { for _ in 0..<operations { _ = try cache.read(again) } } / count },
        ], label: "app first calls (\(query.name), \(operations) operations a run)")
        let name = "\(query.name) (\(query.objects) objects)"
        add(Figure(workload: "app", measure: "prepare a new operation, \(name)", normcache: series[0], objects: query.objects))
        add(Figure(workload: "app", measure: "first write through a new operation, \(name)", normcache: series[1],
                   objects: query.objects, bytes: response.count, baselineName: "the same write again", baseline: series[2]))
        add(Figure(workload: "app", measure: "first read of a new operation, no write through it, \(name)", normcache: series[3],
                   objects: query.objects, baselineName: "the same read again", baseline: series[4]))
    }
}
