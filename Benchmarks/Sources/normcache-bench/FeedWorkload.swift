import CSimdjsonWalk
import Foundation
import NormCache

extension Bench {
    /// Workload 1, feed: cold write, warm identical rewrites (in the cold write's second,
    /// and a second later: every field stamped again), changed rewrite and read of the
    /// feed query at each size, against raw LMDB and simdjson; the JSON reader against
    /// simdjson and JSONSerialization; the same posts as a JSON document with entities
    /// against their GraphQL write; the Python binding against a plain Python
    /// normalizer on py-lmdb. The write and read ceilings (at most 1.5x) apply at every
    /// N; the other targets at N=10,000.
    func runFeed() throws {
        for posts in options.feedSizes {
            let targeted = posts == 10_000
            let response = Responses.feed(posts: posts)
            let changed = Responses.feed(posts: posts, revision: 1)
            let testCase = ResponseCase(workload: "feed", label: "N=\(posts)", query: Responses.feedQuery,
                                        config: Responses.keyByID, response: response, changed: changed, objects: 2 * posts,
                                        reportsChanges: true)
            let series = try measure(testCase)
            addResponseFigures(testCase, series, targeted: true)
            add(Figure(workload: "feed", measure: "warm identical rewrite N=\(posts)", normcache: series.warmWrite,
                       objects: testCase.objects, bytes: response.count, baselineName: "normcache cold write",
                       baseline: series.coldWrite, target: targeted ? Target(kind: .ratioAtMost, bound: 1.0) : nil))
            add(Figure(workload: "feed", measure: "warm identical rewrite a second later N=\(posts)",
                       normcache: series.restampingWrite, objects: testCase.objects, bytes: response.count,
                       baselineName: "normcache cold write", baseline: series.coldWrite))
            add(Figure(workload: "feed", measure: "warm changed rewrite N=\(posts)", normcache: series.changedWrite,
                       objects: testCase.objects, bytes: response.count, baselineName: "normcache cold write",
                       baseline: series.coldWrite))
            addChangedKeysFigures(testCase, series, targeted: targeted)
            try measureParse(response, label: "N=\(posts)", targeted: targeted)
            try measureFeedDocumentWrite(response: response, posts: posts)
            try measurePython(response: response, changed: changed, posts: posts, series: series, targeted: targeted)
        }
    }

    /// Each write of the feed again with the changed keys reported (what Python's default
    /// `write(..., changes=True)` and watchers pay): against the same write without them
    /// (target: at most 20 % more) and against the raw LMDB baseline of the write.
    func addChangedKeysFigures(_ testCase: ResponseCase, _ series: ResponseSeries, targeted: Bool) {
        let writes = [("cold write", series.coldWrite, series.coldWriteChanges),
                      ("warm identical rewrite", series.warmWrite, series.warmWriteChanges),
                      ("warm identical rewrite a second later", series.restampingWrite, series.restampingWriteChanges),
                      ("warm changed rewrite", series.changedWrite, series.changedWriteChanges)]
        for (name, plain, withChanges) in writes {
            let measure = "\(name) \(testCase.label), changed keys reported"
            add(Figure(workload: testCase.workload, measure: measure, normcache: withChanges, objects: testCase.objects,
                       bytes: testCase.response.count, baselineName: "the same write, no changed keys", baseline: plain,
                       target: targeted ? Target(kind: .ratioAtMost, bound: 1.2) : nil))
            add(Figure(workload: testCase.workload, measure: measure, normcache: withChanges, objects: testCase.objects,
                       bytes: testCase.response.count, baselineName: "simdjson parse+walk + raw LMDB puts",
                       baseline: series.parseAndPuts))
        }
    }

    /// The write and read figures of a response case, with the storage-ceiling targets
    /// when `targeted`.
    func addResponseFigures(_ testCase: ResponseCase, _ series: ResponseSeries, targeted: Bool) {
        add(Figure(workload: testCase.workload, measure: "cold write \(testCase.label)", normcache: series.coldWrite,
                   objects: testCase.objects, bytes: testCase.response.count,
                   baselineName: "simdjson parse+walk + raw LMDB puts", baseline: series.parseAndPuts,
                   target: targeted ? Target(kind: .ratioAtMost, bound: 1.5) : nil))
        add(Figure(workload: testCase.workload, measure: "read \(testCase.label)", normcache: series.read,
                   objects: testCase.objects, bytes: series.readBytes,
                   baselineName: "raw LMDB gets + copy", baseline: series.getsAndCopy,
                   target: targeted ? Target(kind: .ratioAtMost, bound: 1.5) : nil))
    }

    /// The JSON reader of normcache against simdjson's DOM parse + walk and Foundation's
    /// JSONSerialization, on the same bytes.
    func measureParse(_ response: [UInt8], label: String, targeted: Bool) throws {
        let padded = PaddedBytes(response)
        let parser = simdjson_walk_parser_new()
        defer { simdjson_walk_parser_free(parser) }
        let data = Data(response)
        let series = try interleave([
            { try response.withUnsafeBytes { bytes in try timed { _ = try JSONValidation.valueCount(bytes) } } },
            { timed { padded.walk(with: parser) } },
            { try timed { _ = try JSONSerialization.jsonObject(with: data) } },
        ], label: "JSON parse \(label)")
        add(Figure(workload: "feed", measure: "JSON parse \(label)", normcache: series[0], bytes: response.count,
                   baselineName: "simdjson DOM parse + walk", baseline: series[1],
                   target: targeted ? Target(kind: .speedupAtLeast, bound: 0.5) : nil, reportsSpeedup: true))
        add(Figure(workload: "feed", measure: "JSON parse \(label)", normcache: series[0], bytes: response.count,
                   baselineName: "Foundation JSONSerialization", baseline: series[2],
                   target: targeted ? Target(kind: .speedupAtLeast, bound: 20) : nil, reportsSpeedup: true))
    }

    /// The Python binding against a plain Python normalizer on py-lmdb: each script runs
    /// the cold write, warm rewrites and read `runs` times and prints its timings. Then
    /// the binding's default calls (`write` reporting changes, `read` returning Python
    /// objects) against the C calls they make, timed by the script in the same process
    /// (target: at most 1.3×), and against their floors: the C call plus marshal.loads
    /// building the objects the call returns (the changed fields, the data).
    func measurePython(response: [UInt8], changed: [UInt8], posts: Int, series: ResponseSeries, targeted: Bool) throws {
        let responsePath = try scratchFile("feed-\(posts).json", response)
        let changedPath = try scratchFile("feed-\(posts)-changed.json", changed)
        let queryPath = try scratchFile("feed.graphql", Array(Responses.feedQuery.utf8))
        func script(_ name: String, _ extra: [String]) throws -> [String: [Double]] {
            progress("  python \(name) N=\(posts)")
            let directory = freshPath("python-\(name)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let output = try runProgram(options.python, [repositoryPath("Benchmarks/python/\(name).py"),
                                                         "--response", responsePath, "--changed", changedPath,
                                                         "--query", queryPath, "--dir", directory,
                                                         "--runs", String(options.runs)] + extra)
            guard let object = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
                throw BenchError("Benchmarks/python/\(name).py printed no JSON object")
            }
            return object.compactMapValues { $0 as? [Double] }
        }
        let plain = try script("plain_normalizer", [])
        let binding = try script("python_binding", ["--library", options.library])
        let defaults = try script("python_binding", ["--library", options.library, "--defaults"])
        func writeAndRead(_ timings: [String: [Double]]) -> Series {
            Series(values: zip(timings["write_cold"] ?? [], timings["read"] ?? []).map { $0 + $1 })
        }
        add(Figure(workload: "feed", measure: "Python binding write+read N=\(posts)", normcache: writeAndRead(binding),
                   objects: 2 * posts, bytes: response.count,
                   baselineName: "plain Python normalizer (json + py-lmdb)", baseline: writeAndRead(plain),
                   target: targeted ? Target(kind: .speedupAtLeast, bound: 5) : nil, reportsSpeedup: true))
        // Each call against the C call under it, made in the same process and the same
        // minutes (the script's "c_*" phases), and against its floor: that C call plus
        // marshal.loads building the objects the call returns.
        let calls = [("write(op, response), cold", "write_cold", "C normcache_write, changed keys, same process"),
                     ("write(op, response), changed data", "write_changed", "C normcache_write, changed keys, same process"),
                     ("read(op)", "read", "C normcache_read, same process")]
        for (call, phase, cName) in calls {
            let python = Series(values: defaults[phase] ?? []), c = defaults["c_\(phase)"] ?? []
            let bytes = phase == "read" ? series.readBytes : response.count
            add(Figure(workload: "feed", measure: "Python default \(call) N=\(posts)", normcache: python, objects: 2 * posts,
                       bytes: bytes, baselineName: cName, baseline: Series(values: c),
                       target: targeted ? Target(kind: .ratioAtMost, bound: 1.3) : nil))
            if let floor = defaults["\(phase)_floor"] {
                add(Figure(workload: "feed", measure: "Python default \(call) N=\(posts)", normcache: python, objects: 2 * posts,
                           bytes: bytes, baselineName: "floor: the C call + marshal.loads of the objects",
                           baseline: Series(values: zip(c, floor).map { $0 + $1 })))
            }
        }
    }
}
