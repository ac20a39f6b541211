import CSimdjsonWalk
import Foundation

/// A response workload: an operation, its response, and optionally a second response
/// with one field changed per object.
struct ResponseCase {
    /// The workload's name ("feed").
    var workload: String
    /// The size label of the figures ("N=10000").
    var label: String
    /// The operation's document.
    var query: String
    /// The SDL schema to load first, if any.
    var schema: [UInt8]? = nil
    /// Key rules to configure first (`normcache_configure` JSON), if any.
    var config: String? = nil
    /// The response.
    var response: [UInt8]
    /// The response with one field changed per object (measures a warm changed rewrite).
    var changed: [UInt8]? = nil
    /// The objects in the response.
    var objects: Int
    /// Whether to measure the writes again with the changed keys reported (as Python's
    /// default `write` and watchers ask for them).
    var reportsChanges = false
}

/// The series of measuring one response case.
struct ResponseSeries {
    var coldWrite = Series()
    /// The response again, in the cold write's second: nothing to change.
    var warmWrite = Series()
    /// The response again, a second later: every field stamped again.
    var restampingWrite = Series()
    /// The changed response, a second after that.
    var changedWrite = Series()
    /// The four writes again on a new cache, each asking for the changed keys
    /// (`normcache_write`'s `out_changed`), when the case `reportsChanges`.
    var coldWriteChanges = Series()
    var warmWriteChanges = Series()
    var restampingWriteChanges = Series()
    var changedWriteChanges = Series()
    var read = Series()
    var parseAndPuts = Series()
    var getsAndCopy = Series()
    /// The records normcache stored, as the raw baseline replays them.
    var records = RecordSet()
    /// The bytes of one read's output.
    var readBytes = 0
    /// The size of normcache's file after the cold write.
    var fileSize = 0
}

extension Bench {
    /// Opens a new cache for `testCase` (schema loaded) and prepares its operation.
    func openCache(for testCase: ResponseCase, at path: String) throws -> (CacheClient, PreparedOperation) {
        let cache = try CacheClient(path: path)
        if let schema = testCase.schema { try cache.loadSchema(schema) }
        if let config = testCase.config { try cache.configure(config) }
        return (cache, try cache.prepare(testCase.query))
    }

    /// Measures `testCase` interleaved with its baselines: normcache's cold write, warm
    /// identical rewrites in the same second and a second later, changed rewrite and
    /// read, on a `HarnessClock`; simdjson's parse and walk plus raw LMDB puts of the very
    /// records normcache stored (key order, one durable commit); raw LMDB gets of those
    /// records copying their bytes; and, when the case `reportsChanges`, normcache's four
    /// writes again asking for the changed keys.
    func measure(_ testCase: ResponseCase) throws -> ResponseSeries {
        var result = ResponseSeries()
        let primePath = freshPath("\(testCase.workload)-prime.cache")
        do {
            let (cache, operation) = try openCache(for: testCase, at: primePath)
            try testCase.response.withUnsafeBytes { _ = try cache.write(operation, response: $0) }
            result.readBytes = try cache.read(operation)
        }
        result.records = try RawLMDB.records(ofCache: primePath)
        result.fileSize = RawLMDB.fileSize(primePath)
        removeCache(primePath)

        let padded = PaddedBytes(testCase.response)
        let parser = simdjson_walk_parser_new()
        defer { simdjson_walk_parser_free(parser) }
        var readOutput: [UInt8] = []
        let mapSize = 4 * testCase.response.count + 64 << 20
        var raw: RawLMDB?
        var rawPath = ""
        /// Writes the response into a new cache, then again in the same second, then
        /// again a second later, then the changed response a second after that (asking
        /// for the changed keys when `changes`); reads it back unless `changes`.
        func writes(changes: Bool) throws -> Double {
            let path = freshPath("\(testCase.workload).cache")
            defer { removeCache(path) }
            let (cache, operation) = try openCache(for: testCase, at: path)
            let clock = HarnessClock()
            try cache.setClock(clock)
            func write(_ response: [UInt8]) throws -> Double {
                try response.withUnsafeBytes { bytes in try timed { try cache.write(operation, response: bytes, changed: changes) } }
            }
            let cold = try write(testCase.response)
            let warm = try write(testCase.response)
            clock.advance(by: 1)
            let restamping = try write(testCase.response)
            clock.advance(by: 1)
            let changed = try testCase.changed.map(write)
            if changes {
                result.warmWriteChanges.append(warm)
                result.restampingWriteChanges.append(restamping)
                if let changed { result.changedWriteChanges.append(changed) }
            } else {
                result.warmWrite.append(warm)
                result.restampingWrite.append(restamping)
                if let changed { result.changedWrite.append(changed) }
                result.read.append(try timed { try cache.read(operation) })
            }
            return cold
        }
        var steps: [() throws -> Double] = [
            { try writes(changes: false) },
            { [self] in
                rawPath = freshPath("\(testCase.workload)-raw.lmdb")
                let database = try RawLMDB(path: rawPath, mapSize: mapSize)
                raw = database
                let parse = timed { padded.walk(with: parser) }
                return parse + (try timed { try database.putAll(result.records) })
            },
            {
                let seconds = try timed { try raw!.getAll(result.records, into: &readOutput) }
                raw = nil
                try? FileManager.default.removeItem(atPath: rawPath)
                try? FileManager.default.removeItem(atPath: rawPath + "-lock")
                return seconds
            },
        ]
        if testCase.reportsChanges { steps.append { try writes(changes: true) } }
        let series = try interleave(steps, label: "\(testCase.workload) \(testCase.label)")
        result.coldWrite = series[0]
        result.parseAndPuts = series[1]
        result.getsAndCopy = series[2]
        if testCase.reportsChanges { result.coldWriteChanges = series[3] }
        return result
    }
}

/// Bytes followed by the zeroed padding simdjson reads past the end.
struct PaddedBytes {
    private let storage: [CChar]
    /// The length of the document without padding.
    let count: Int

    /// A padded copy of `bytes`.
    init(_ bytes: [UInt8]) {
        count = bytes.count
        storage = bytes.map { CChar(bitPattern: $0) } + Array(repeating: 0, count: simdjson_walk_padding())
    }

    /// Parses the document with `parser` (kept between documents) into simdjson's DOM and
    /// visits every value; stops the harness if it is not valid JSON.
    func walk(with parser: OpaquePointer?) {
        let visited = storage.withUnsafeBufferPointer { simdjson_walk_parse(parser, $0.baseAddress!, count) }
        precondition(visited > 0, "simdjson rejected the harness's own JSON")
    }
}
